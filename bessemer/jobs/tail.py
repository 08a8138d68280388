"""Reading a job's log while it grows: metrics by the job's metric_definitions, and what
the compiler did (compiled graphs, fallbacks to eager).

The supervisor feeds the log to a LogTail as it is written, so the job's record
holds the metrics so far during the run (`describe()`, `bessemer jobs describe`),
and each data point also goes to TensorBoard event files under the job's
output/tensorboard/ and, when asked, to output/metrics.csv. A job that is read
only at its end (another engine, a supervisor that died) gets the same points:
the n-th match of a metric is its step n either way.
"""
from __future__ import annotations

import csv
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from .logs import AppendedText
from .metrics import MetricDefinition, parse_line
from .store import JobStore

# A compiled graph, as the job's start-up hook logs it (hooks/startup/bessemer_job_log.py):
#   bessemer[rank 1]: compiled graph forward0: 3 kernels, 2 externs, 0.84 s, cache miss
COMPILED = re.compile(r"^bessemer(?:\[rank (?P<rank>\d+)\])?: compiled graph (?P<name>\S+): "
                      r"(?P<kernels>\d+) kernels?, (?P<externs>\d+) externs?, (?P<seconds>[0-9.]+) s, "
                      r"cache (?P<cache>hit|miss)")
# The compiler's warning for a graph or an optimizer step that runs eagerly.
FALLBACK = re.compile(r"bessemer: (?:(?:forward|backward|inference) graph (?P<graph>\S+) runs eagerly"
                      r"|(?P<opt>\w+)\.step (?:is not compiled and )?runs (?:torch's )?eager)")


@dataclass
class CompileStats:
    """What the compiler did in a job, from the log: compiled graphs per rank, and the
    graphs (or optimizers) that fell back to eager. Every rank compiles the same graphs
    under the same names, so a fallback counts once however many ranks report it."""

    graphs: dict[int, list[dict]] = field(default_factory=dict)   # rank -> per-graph entries
    fallbacks: set = field(default_factory=set)                   # names of what runs eagerly

    def feed(self, line: str) -> Optional[dict]:
        m = COMPILED.match(line)
        if m:
            entry = {"name": m["name"], "kernels": int(m["kernels"]), "externs": int(m["externs"]),
                     "seconds": float(m["seconds"]), "cache_hit": m["cache"] == "hit"}
            self.graphs.setdefault(int(m["rank"] or 0), []).append(entry)
            return entry
        m = FALLBACK.search(line)
        if m:
            self.fallbacks.add(m["graph"] or f"{m['opt']}.step")
        return None

    @property
    def seen(self) -> bool:
        return bool(self.graphs or self.fallbacks)

    def summary(self) -> dict[str, Any]:
        """Totals of the rank that spent the longest compiling (every rank compiles the same
        graphs; the slowest is what the job waited for)."""
        if not self.seen:
            return {}
        ranks = sorted(self.graphs) or [0]
        rank = max(ranks, key=lambda r: (sum(g["seconds"] for g in self.graphs.get(r, [])), -r))
        graphs = self.graphs.get(rank, [])
        return {"graphs": len(graphs), "seconds": round(sum(g["seconds"] for g in graphs), 3),
                "fallbacks": len(self.fallbacks), "fallback_names": sorted(self.fallbacks),
                "cache_hits": sum(g["cache_hit"] for g in graphs),
                "kernels": sum(g["kernels"] for g in graphs), "externs": sum(g["externs"] for g in graphs),
                "ranks": len(ranks), "rank": rank, "per_graph": graphs}


def summary_line(summary: dict[str, Any], enabled: bool) -> Optional[str]:
    """The one line the job's log ends its compile report with (none when the log says
    nothing of the compiler)."""
    if not enabled or not summary:
        return None
    ranks = f" (rank {summary['rank']} of {summary['ranks']})" if summary["ranks"] > 1 else ""
    return (f"bessemer: compile summary{ranks}: {summary['graphs']} graphs in {summary['seconds']:.2f} s, "
            f"{summary['cache_hits']} from the cache, {summary['kernels']} kernels, {summary['externs']} externs, "
            f"{summary['fallbacks']} fallbacks to eager")


class MetricSinks:
    """Where metric points go: the job store, TensorBoard event files and, optionally, a CSV."""

    def __init__(self, store: JobStore, job_name: str, tensorboard_dir: Optional[Path],
                 csv_path: Optional[Path], note: Callable[[str], None] = lambda _: None):
        self.store, self.job_name = store, job_name
        self.tensorboard_dir, self.csv_path = tensorboard_dir, csv_path
        self.note = note
        self._tb: Any = None
        self._tb_failed = False
        self._csv: Any = None

    def add(self, points: Sequence[tuple[str, int, float, float]]) -> None:
        if not points:
            return
        self.store.add_metrics(self.job_name, points)
        self._tensorboard(points)
        if self.csv_path is not None:
            if self._csv is None:
                new = not self.csv_path.exists()
                self._csv_file = open(self.csv_path, "a", newline="", encoding="utf-8")
                self._csv = csv.writer(self._csv_file)
                if new:
                    self._csv.writerow(["wall_time", "metric", "step", "value"])
            for name, step, value, when in points:
                self._csv.writerow([f"{when:.3f}", name, step, value])
            self._csv_file.flush()

    def _tensorboard(self, points) -> None:
        if self.tensorboard_dir is None or self._tb_failed:
            return
        try:
            if self._tb is None:
                from tensorboard.summary.writer.event_file_writer import EventFileWriter

                self.tensorboard_dir.mkdir(parents=True, exist_ok=True)
                self._tb = EventFileWriter(str(self.tensorboard_dir))
            from tensorboard.compat.proto import event_pb2, summary_pb2

            for name, step, value, when in points:
                summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=name, simple_value=value)])
                self._tb.add_event(event_pb2.Event(wall_time=when, step=step, summary=summary))
            self._tb.flush()
        except ImportError as e:
            self._tb_failed = True
            self.note(f"bessemer: no TensorBoard event files: {e} (pip install tensorboard)")

    def close(self) -> None:
        if self._tb is not None:
            self._tb.close()
            self._tb = None
        if self._csv is not None:
            self._csv_file.close()
            self._csv = None


class LogTail:
    """Reads what was appended to a log since the last call, line by line."""

    def __init__(self, path: Path, definitions: Sequence[MetricDefinition], sinks: Optional[MetricSinks]):
        self.path = Path(path)
        self.definitions = list(definitions)
        self.sinks = sinks
        self.steps = {d.name: 0 for d in self.definitions}
        self.compile = CompileStats()
        self._partial = ""
        self._text = AppendedText(path)

    def poll(self, final: bool = False) -> None:
        text = self._partial + self._text.read(final=final)
        lines = text.split("\n")
        self._partial = "" if final else lines.pop()
        now = time.time()
        points: list[tuple[str, int, float, float]] = []
        for line in lines:
            for name, value in parse_line(line, self.definitions):
                points.append((name, self.steps[name], value, now))
                self.steps[name] += 1
            self.compile.feed(line)
        if self.sinks is not None:
            self.sinks.add(points)

    def finish(self) -> None:
        self.poll(final=True)
        if self.sinks is not None:
            self.sinks.close()
