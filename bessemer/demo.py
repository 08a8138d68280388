"""`make demo`: a small GPT-2 learning Python's own documentation, compiled and eagerly, as
two training jobs; then the largest batch each fits under one memory limit.

    python -m bessemer.demo [--output-path runs] [--steps 60] [--memory-limit 384MiB] [--quiet]

It runs examples/demo/train.py (transformers' GPT2LMHeadModel with random weights, the
benchmark's small DistilGPT-2 shape, on the language reference text that ships with
Python) through the `bessemer.PyTorch` estimator with the compiler on, then off, and
ends with what the compiler bought, measured as `bessemer bench` measures it:

    - the losses side by side (the same numbers, step by step);
    - step speed: the median step time after WARMUP_STEPS steps, compiled against eager;
    - peak memory: one training step's peak of live tensor memory, against eager;
    - the largest batch each mode fits under --memory-limit (`bessemer tune`'s search);
    - a PNG of both loss curves and the speed and memory bars, with its path.

`HYPERPARAMETERS` and `METRICS` are those of the plain-PyTorch example (examples/pytorch,
an MLP on a small CSV), which the tests run as jobs.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path
from typing import Optional, Sequence

from .config import TrainingCompilerConfig
from .jobs import JobFailedError, PyTorch, TrainingJob

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
DEMO = EXAMPLES / "demo"
DEMO_METRICS = [{"Name": "loss", "Regex": r"loss=([0-9.]+)"}, {"Name": "step_ms", "Regex": r"step_ms=([0-9.]+)"},
                {"Name": "peak_step_mib", "Regex": r"peak_step_mib=([0-9.]+)"}]
STEPS = 60
BATCH = 8
LEARNING_RATE = 1e-3
# Steps left out of the speed, as the benchmark's warm-up: the compiled job's first steps compile.
WARMUP_STEPS = 5
MEMORY_LIMIT = "384MiB"
TUNE_PROBES = 4          # real-step probes per mode (each a fresh process)
TUNE_MULTIPLE = 8

# The plain-PyTorch example (examples/pytorch): its job's hyperparameters and metrics.
EXAMPLE = EXAMPLES / "pytorch"
HYPERPARAMETERS = {"epochs": 6, "batch_size": 64, "learning_rate": 0.05, "hidden": 256, "repeat": 32}
LOSS = [{"Name": "loss", "Regex": r"loss=([0-9.]+)"}]
METRICS = LOSS + [{"Name": "samples_per_s", "Regex": r"samples_per_s=([0-9.]+)"}]


def run(output_path: str | Path, enabled: bool, steps: int = STEPS, logs: bool = True,
        base_job_name: str = "demo") -> TrainingJob:
    if not (DEMO / "train.py").is_file():
        raise FileNotFoundError(f"the demo's script is not there: {DEMO / 'train.py'} "
                                "(the demo runs from a clone of the repository)")
    est = PyTorch(entry_point="train.py", source_dir=DEMO,
                  hyperparameters={"steps": steps, "batch_size": BATCH, "learning_rate": LEARNING_RATE},
                  compiler_config=TrainingCompilerConfig(enabled=enabled, fallback="error"),
                  metric_definitions=DEMO_METRICS, output_path=output_path, base_job_name=base_job_name)
    est.fit(logs=logs)
    return est.latest_training_job


def step_ms(job: TrainingJob) -> Optional[float]:
    """The median step time after the warm-up steps, as the benchmark takes it."""
    times = job.metrics().get("step_ms", [])
    steady = [t for t in times[WARMUP_STEPS:] if t is not None] or [t for t in times if t is not None]
    return statistics.median(steady) if steady else None


def largest_batches(limit: str, probes: int, say) -> dict[str, int]:
    """{mode: the largest batch (a multiple of TUNE_MULTIPLE) whose step fits under `limit`},
    by `bessemer tune`'s search over real steps of the script's workload function."""
    import torch

    from .bench.search import Workload, find_batch, mib, parse_limit, resolve_limit
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    limit_bytes = resolve_limit(parse_limit(limit), device)
    workload = Workload(entry_point="train.py", function="workload", source_dir=str(DEMO))
    out = {}
    for mode in ("eager", "bessemer"):
        say(f"bessemer demo: the largest batch under {mib(limit_bytes)}, {mode} "
            f"(bessemer tune --entry-point train.py --source-dir {DEMO} --memory-limit {limit} "
            f"--modes {mode} --multiple-of {TUNE_MULTIPLE} --max-probes {probes})")
        result = find_batch(workload, mode, limit_bytes, TUNE_MULTIPLE, device, dict(os.environ),
                            max_probes=probes,
                            on_probe=lambda m, p: say(f"  {m:9s} batch {p.batch:4d}: "
                                                      + ("out of memory" if p.oom else f"{mib(p.peak_bytes)}")
                                                      + (", fits" if p.fits else ", over the limit")))
        out[mode] = result.batch_size
    return out


def plot(compiled: TrainingJob, eager: TrainingJob, speeds: dict, peaks: dict, batches: dict,
         path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8), dpi=100, gridspec_kw={"width_ratios": [2.2, 1, 1]})
    for job, label, style in ((eager, "eager", "-"), (compiled, "bessemer", "--")):
        losses = job.metrics().get("loss", [])
        axes[0].plot(range(len(losses)), losses, linestyle=style, linewidth=1.6, label=label)
    axes[0].set_xlabel("step")
    axes[0].set_ylabel("loss")
    axes[0].set_title("training loss (the same numbers)", fontsize=10)
    axes[0].legend()
    axes[0].grid(alpha=0.3)
    modes, colors = ["eager", "bessemer"], ["#999999", "#d0602a"]
    _bars(axes[1], modes, [1000.0 / speeds[m] for m in modes], colors, "steps per second",
          "step speed (median)", ".2f")
    _bars(axes[2], modes, [peaks[m] for m in modes], colors, "MiB", "peak memory of a step", ".0f",
          [f"largest batch {batches[m]}" if batches.get(m) else "" for m in modes])
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


def _bars(ax, names, values, colors, ylabel, title, fmt, notes=None):
    bars = ax.bar(names, values, color=colors)
    for i, (b, v) in enumerate(zip(bars, values)):
        text = format(v, fmt) + (f"\n{notes[i]}" if notes and notes[i] else "")
        ax.annotate(text, (b.get_x() + b.get_width() / 2, b.get_height()), ha="center", va="bottom", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.set_ylim(0, max(values) * 1.35)


def summary(compiled: TrainingJob, eager: TrainingJob, batches: dict, png: Optional[Path]) -> list[str]:
    lc, le = compiled.metrics().get("loss", []), eager.metrics().get("loss", [])
    n = min(len(lc), len(le))
    diff = max((abs(a - b) for a, b in zip(lc, le)), default=None)
    shown = sorted({0, *range(10, n, 10), n - 1}) if n else []
    lines = ["", f"bessemer demo: {compiled.name} (compiled) and {eager.name} (eager): "
                 f"{compiled.status}, {eager.status}",
             f"  {'step':>6}  {'loss, eager':>12}  {'loss, bessemer':>14}"]
    lines += [f"  {i:>6}  {le[i]:>12.6f}  {lc[i]:>14.6f}" for i in shown]
    if diff is not None:
        lines.append(f"losses: the same to {diff:.1e} at every one of {n} steps" if diff <= 1e-4 else
                     f"losses: differ by up to {diff:.1e} over {n} steps")
    sc, se = step_ms(compiled), step_ms(eager)
    pc = (compiled.metrics().get("peak_step_mib") or [None])[-1]
    pe = (eager.metrics().get("peak_step_mib") or [None])[-1]
    if sc and se:
        lines.append(f"step speed: {se / sc:.2f}x eager's (bessemer {sc:.0f} ms a step, eager {se:.0f} ms: the median "
                     f"after {WARMUP_STEPS} warm-up steps, batch {BATCH} x 128 tokens)")
    if pc and pe:
        lines.append(f"peak memory of a step: {pc:.0f} MiB against eager's {pe:.0f} MiB ({pc / pe:.0%}; live tensors, "
                     "as bessemer bench measures it)")
    if batches:
        lines.append(f"largest batch under {batches['limit']}: bessemer {batches['bessemer']}, "
                     f"eager {batches['eager']} (multiples of {TUNE_MULTIPLE}, by real steps)")
    lines.append(f"  model: {compiled.model_data}\n  logs:  {compiled.log_path}\n         {eager.log_path}")
    if png:
        lines.append(f"plot: {png}")
    return lines


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bessemer.demo", description=__doc__.splitlines()[0])
    p.add_argument("--output-path", default="runs")
    p.add_argument("--steps", type=int, default=STEPS, help=f"training steps of each job (default {STEPS})")
    p.add_argument("--memory-limit", default=MEMORY_LIMIT, help=f"for the largest batch (default {MEMORY_LIMIT})")
    p.add_argument("--tune-probes", type=int, default=TUNE_PROBES,
                   help=f"real-step probes per mode for the largest batch; 0 skips it (default {TUNE_PROBES})")
    p.add_argument("--quiet", action="store_true", help="do not stream the jobs' logs")
    args = p.parse_args(argv)

    def say(line: str) -> None:
        print(line, flush=True)

    say("bessemer demo: a GPT-2 (2 layers, 256 wide, 8192 words; random weights) learns Python's reference "
        "documentation, compiled, then eagerly")
    jobs = []
    for enabled, base in ((True, "demo"), (False, "demo-eager")):
        try:
            jobs.append(run(args.output_path, enabled, args.steps, logs=not args.quiet, base_job_name=base))
        except JobFailedError as e:
            print(f"\nbessemer demo: {e}", file=sys.stderr)
            return 1
    compiled, eager = jobs
    batches: dict = {}
    if args.tune_probes > 0:
        batches = {"limit": args.memory_limit, **largest_batches(args.memory_limit, args.tune_probes, say)}
    speeds = {"bessemer": step_ms(compiled), "eager": step_ms(eager)}
    peaks = {"bessemer": (compiled.metrics().get("peak_step_mib") or [0])[-1],
             "eager": (eager.metrics().get("peak_step_mib") or [0])[-1]}
    png = None
    if all(speeds.values()) and all(peaks.values()):
        png = plot(compiled, eager, speeds, peaks, batches, Path(args.output_path).resolve() / "demo.png")
    for line in summary(compiled, eager, batches, png):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
