"""`make demo`: the plain-PyTorch example as a compiled training job, then as an eager one.

    python -m bessemer.demo [--output-path runs] [--processes N] [--quiet]

It runs examples/pytorch/train.py through the `bessemer.PyTorch` estimator with
the compiler on, streaming the job's log, then the same job with the compiler
off, and ends with what the compiler bought: whether the two trained with the
same losses, and the speed-up measured on this machine (the median samples/s of
the epochs after the first, since the compiled job's first epoch includes its
compile).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional, Sequence

from .config import TrainingCompilerConfig
from .jobs import JobFailedError, PyTorch, TrainingJob
from .jobs import report

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "pytorch"
HYPERPARAMETERS = {"epochs": 6, "batch_size": 64, "learning_rate": 0.05, "hidden": 256, "repeat": 32}
LOSS = [{"Name": "loss", "Regex": r"loss=([0-9.]+)"}]
METRICS = LOSS + [{"Name": "samples_per_s", "Regex": r"samples_per_s=([0-9.]+)"}]
# Losses printed with 6 decimals: the runs train the same when they agree to the print.
SAME_LOSS_TOLERANCE = 1e-5


def run(output_path: str | Path = "runs", enabled: bool = True, processes: int = 1,
        logs: bool = True, base_job_name: str = "demo") -> TrainingJob:
    if not (EXAMPLE / "train.py").is_file():
        raise FileNotFoundError(f"the example is not there: {EXAMPLE / 'train.py'} "
                                "(the demo runs from a clone of the repository)")
    est = PyTorch(entry_point="train.py", source_dir=EXAMPLE,
                  hyperparameters=HYPERPARAMETERS,
                  processes_per_instance=processes,
                  compiler_config=TrainingCompilerConfig(enabled=enabled),
                  metric_definitions=METRICS,
                  output_path=output_path, base_job_name=base_job_name)
    est.fit({"train": EXAMPLE / "data"}, logs=logs)
    return est.latest_training_job


def verdict(compiled: TrainingJob, eager: TrainingJob) -> list[str]:
    """The demo's last two lines: the same losses?, and the measured speed-up."""
    a, b = report.load(eager.store, eager.name), report.load(compiled.store, compiled.name)
    diff = report.largest_difference(a, b, "loss")
    n = len(b.values("loss"))
    if diff is None:
        same = f"losses: the runs logged different numbers of losses ({len(a.values('loss'))} eager, {n} compiled)"
    elif diff <= SAME_LOSS_TOLERANCE:
        same = f"same losses: compiled and eager differ by at most {diff:.1e} over {n} epochs"
    else:
        same = f"losses differ: compiled and eager differ by up to {diff:.1e} over {n} epochs"
    fast, slow = b.speed(), a.speed()
    x = report.speedup(slow, fast)
    if x is None:
        speed = "speed-up: not measured (no samples_per_s in the logs)"
    else:
        compile_s = (compiled.record().compile_summary or {}).get("seconds")
        # a run whose graphs all came from the graph cache spends well under 0.05 s: still said
        spent = (f"; the compiled job spent {compile_s:.1f} s compiling, in its first epoch"
                 if compile_s is not None else "")
        speed = (f"speed-up: {x:.2f}x (compiled {fast[1]:,.0f} samples/s, eager {slow[1]:,.0f} samples/s: "
                 f"median of the epochs after the first{spent})")
    return [same, speed]


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bessemer.demo", description=__doc__.splitlines()[0])
    p.add_argument("--output-path", default="runs")
    p.add_argument("--processes", type=int, default=1)
    p.add_argument("--quiet", action="store_true", help="do not stream the jobs' logs")
    args = p.parse_args(argv)
    jobs = []
    for enabled, base in ((True, "demo"), (False, "demo-eager")):
        try:
            jobs.append(run(args.output_path, enabled=enabled, processes=args.processes, logs=not args.quiet,
                            base_job_name=base))
        except JobFailedError as e:
            print(f"\nbessemer demo: {e}", file=sys.stderr)
            return 1
    compiled, eager = jobs
    print(f"\nbessemer demo: training job {compiled.name} (compiled) and {eager.name} (eager) {compiled.status}")
    for job, label in ((compiled, "compiled"), (eager, "eager")):
        losses = job.metrics().get("loss", [])
        print(f"  loss by epoch, {label + ':':9} {', '.join(f'{v:.4f}' for v in losses)}")
    print(f"  model: {compiled.model_data}\n  log:   {compiled.log_path}\n"
          f"  side by side: bessemer jobs compare {eager.name} {compiled.name} --output-path {compiled.output_path}")
    for line in verdict(compiled, eager):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
