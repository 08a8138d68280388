"""`make demo`: the plain-PyTorch example, run as a compiled training job.

    python -m bessemer.demo [--output-path runs] [--no-compiler] [--processes N]

It runs examples/pytorch/train.py through the `bessemer.PyTorch` estimator with
the compiler on, streams the job's log, and prints where the model and the log are.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional, Sequence

from .config import TrainingCompilerConfig
from .jobs import JobFailedError, PyTorch, TrainingJob

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "pytorch"
HYPERPARAMETERS = {"epochs": 3, "batch_size": 32, "learning_rate": 0.05}
LOSS = [{"Name": "loss", "Regex": r"loss=([0-9.]+)"}]


def run(output_path: str | Path = "runs", enabled: bool = True, processes: int = 1,
        logs: bool = True) -> TrainingJob:
    if not (EXAMPLE / "train.py").is_file():
        raise FileNotFoundError(f"the example is not there: {EXAMPLE / 'train.py'} "
                                "(the demo runs from a clone of the repository)")
    est = PyTorch(entry_point="train.py", source_dir=EXAMPLE,
                  hyperparameters=HYPERPARAMETERS,
                  processes_per_instance=processes,
                  compiler_config=TrainingCompilerConfig(enabled=enabled),
                  metric_definitions=LOSS,
                  output_path=output_path, base_job_name="demo")
    est.fit({"train": EXAMPLE / "data"}, logs=logs)
    return est.latest_training_job


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bessemer.demo", description=__doc__.splitlines()[0])
    p.add_argument("--output-path", default="runs")
    p.add_argument("--no-compiler", action="store_true")
    p.add_argument("--processes", type=int, default=1)
    args = p.parse_args(argv)
    try:
        job = run(args.output_path, enabled=not args.no_compiler, processes=args.processes)
    except JobFailedError as e:
        print(f"\nbessemer demo: {e}", file=sys.stderr)
        return 1
    losses = job.metrics().get("loss", [])
    print(f"\nbessemer demo: training job {job.name} {job.status}")
    if losses:
        print(f"  loss by epoch: {', '.join(f'{v:.4f}' for v in losses)}")
    print(f"  model: {job.model_data}\n  log:   {job.log_path}\n"
          f"  record: bessemer jobs describe {job.name} --output-path {job.output_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
