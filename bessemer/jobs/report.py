"""Showing jobs' metrics: a table and a PNG per metric for one job, and several jobs side
by side (speed, compile time, memory, final metrics) with their loss curves in one PNG.

Speed comes from the jobs' own metrics: a throughput metric (samples or tokens per
second) or a time metric (seconds or milliseconds per step or epoch), found by
name (THROUGHPUT_NAMES, TIME_NAMES). The first point of each is left out when
there are others, since the first step or epoch of a compiled job includes the
compile: the median of the rest is the steady speed.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

from .store import JobRecord, JobStore

# Metric names, as scripts print them, read as speed. Higher is better for these...
THROUGHPUT_NAMES = ("samples_per_s", "samples_per_sec", "samples_per_second", "train_samples_per_second",
                    "throughput", "tokens_per_s", "tokens_per_sec", "it_per_s")
# ... and lower is better for these.
TIME_NAMES = ("step_ms", "step_s", "step_time", "epoch_s", "epoch_time", "iteration_time")
LOSS_NAMES = ("loss", "train_loss", "training_loss")


@dataclass
class JobMetrics:
    record: JobRecord
    points: dict[str, list[tuple[int, Optional[float], Optional[float]]]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.record.name

    def values(self, metric: str) -> list[float]:
        return [v for _, v, _ in self.points.get(metric, []) if v is not None and math.isfinite(v)]

    def final(self, metric: str) -> Optional[float]:
        vals = self.values(metric)
        return vals[-1] if vals else None

    def steady(self, metric: str) -> Optional[float]:
        vals = self.values(metric)
        if not vals:
            return None
        return statistics.median(vals[1:] if len(vals) > 1 else vals)

    def speed(self) -> Optional[tuple[str, float, bool]]:
        """(metric, steady value, higher is better) of the first speed metric the job has."""
        for names, higher in ((THROUGHPUT_NAMES, True), (TIME_NAMES, False)):
            for n in names:
                v = self.steady(n)
                if v is not None:
                    return n, v, higher
        return None

    def loss_metric(self) -> Optional[str]:
        for n in LOSS_NAMES:
            if self.values(n):
                return n
        return next(iter(sorted(self.points)), None)


def load(store: JobStore, name: str) -> JobMetrics:
    from .job import reconcile

    return JobMetrics(reconcile(store, store.get(name)), store.metric_points(name))


# -- one job ---------------------------------------------------------------------------
def metrics_table(job: JobMetrics, last: Optional[int] = None) -> list[str]:
    """The job's metrics, one block per metric: step, value, seconds since the job started."""
    if not job.points:
        return [f"{job.name}: no metrics recorded (metric_definitions / --metric name what to read "
                "from the log)"]
    start = job.record.start_time
    out: list[str] = []
    for metric, pts in sorted(job.points.items()):
        shown = pts[-last:] if last else pts
        out.append(f"{metric}  ({len(pts)} points{f', the last {len(shown)}' if len(shown) < len(pts) else ''})")
        out.append(f"  {'STEP':>6}  {'VALUE':>14}  {'SECONDS':>9}")
        for step, value, when in shown:
            secs = f"{when - start:9.1f}" if when is not None and start is not None else f"{'-':>9}"
            val = "nan" if value is None else f"{value:14.6g}"
            out.append(f"  {step:>6}  {val:>14}  {secs}")
    return out


def plot_metrics(job: JobMetrics, folder: Path) -> list[Path]:
    """A PNG per metric: its value over the time since the job started (over the step when
    the times were not recorded). Returns the files written."""
    plt = _pyplot()
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    start = job.record.start_time
    for metric, pts in sorted(job.points.items()):
        timed = start is not None and all(w is not None for _, _, w in pts)
        xs = [(w - start) if timed else s for s, _, w in pts]
        ys = [math.nan if v is None else v for _, v, _ in pts]
        fig, ax = plt.subplots(figsize=(6, 3.6), dpi=100)
        ax.plot(xs, ys, marker="o", markersize=3, linewidth=1.5)
        ax.set_xlabel("seconds since the job started" if timed else "step")
        ax.set_ylabel(metric)
        ax.set_title(f"{job.name}: {metric}", fontsize=10)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        path = folder / f"{_safe(metric)}.png"
        fig.savefig(path)
        plt.close(fig)
        written.append(path)
    return written


# -- several jobs --------------------------------------------------------------------------
def compare_table(jobs: Sequence[JobMetrics]) -> list[str]:
    """The jobs side by side, one column each; speed-ups are against the first job."""
    metrics = sorted({m for j in jobs for m in j.points})
    base = jobs[0].speed()
    rows: list[tuple[str, ...]] = [("", *[j.name for j in jobs])]

    def row(label: str, cells: list[str]) -> None:
        rows.append((label, *cells))

    row("status", [j.record.status for j in jobs])
    row("compiler", [_compiler(j.record) for j in jobs])
    row("processes", [str(j.record.processes_per_instance) for j in jobs])
    row("training seconds", [_fmt(_seconds(j.record), ".1f") for j in jobs])
    row("compile seconds", [_compile_cell(j.record) for j in jobs])
    speeds = [j.speed() for j in jobs]
    if any(speeds):
        row("speed (steady, median)", [f"{s[0]} {_fmt(s[1], ',.1f')}" if s else "-" for s in speeds])
        row(f"speed-up vs {jobs[0].name}", [_speedup(base, s) for s in speeds])
    row("peak memory MiB", [_fmt(j.record.peak_memory_bytes / 2**20 if j.record.peak_memory_bytes else None,
                                 ",.0f") for j in jobs])
    for m in metrics:
        row(f"final {m}", [_fmt(j.final(m), ".6g") for j in jobs])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


def speedup(base: Optional[tuple[str, float, bool]], other: Optional[tuple[str, float, bool]]) -> Optional[float]:
    """How much faster `other` is than `base`, by the same speed metric; None when they
    have none in common."""
    if not base or not other or base[0] != other[0] or not base[1] or not other[1]:
        return None
    return other[1] / base[1] if base[2] else base[1] / other[1]


def largest_difference(a: JobMetrics, b: JobMetrics, metric: str) -> Optional[float]:
    va, vb = a.values(metric), b.values(metric)
    if not va or len(va) != len(vb):
        return None
    return max(abs(x - y) for x, y in zip(va, vb))


def plot_compare(jobs: Sequence[JobMetrics], path: Path, metric: Optional[str] = None) -> Optional[Path]:
    """One PNG with the loss curve (or `metric`) of each job over its steps."""
    metric = metric or jobs[0].loss_metric()
    if metric is None or not any(j.values(metric) for j in jobs):
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4), dpi=100)
    styles = ["-", "--", ":", "-."]
    for i, j in enumerate(jobs):
        pts = [(s, v) for s, v, _ in j.points.get(metric, []) if v is not None]
        if pts:
            ax.plot([s for s, _ in pts], [v for _, v in pts], linestyle=styles[i % len(styles)], marker="o",
                    markersize=3, linewidth=1.5, label=f"{j.name} ({_compiler(j.record)})")
    ax.set_xlabel("step")
    ax.set_ylabel(metric)
    ax.set_title(f"{metric}: {' vs '.join(j.name for j in jobs)}", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


# -- formatting --------------------------------------------------------------------------
def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "metric"


def _fmt(value: Any, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def _seconds(rec: JobRecord) -> Optional[float]:
    if rec.start_time is None or rec.end_time is None:
        return None
    return rec.end_time - rec.start_time


def _compiler(rec: JobRecord) -> str:
    from .outcome import NOTHING_COMPILED

    if not rec.compiler_config.get("enabled", True):
        return "eager"
    s = rec.compile_summary or {}
    # a completed job with the compiler on that recorded no compiled graph trained eagerly
    if s.get("note") or (rec.status == "Completed" and not s.get("graphs") and not s.get("fallbacks")):
        return NOTHING_COMPILED
    return "compiled"


def _compile_cell(rec: JobRecord) -> str:
    s = rec.compile_summary or {}
    if not s:
        return "-"
    return f"{s['seconds']:.2f} ({s['graphs']} graphs, {s['fallbacks']} fallbacks)"


def _speedup(base, other) -> str:
    x = speedup(base, other)
    return "-" if x is None else f"{x:.2f}x"
