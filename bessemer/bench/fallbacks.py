"""What ran eagerly in a benchmark run, read from the compiler's warnings.

bessemer reports each part of a model it does not compile with one warning
that starts with "bessemer:". A worker records the warnings of its mode's
set-up and steps and sorts them:

  fallback    a graph that runs eagerly (the pipeline failed on it, its
              Triton kernels failed at their first launch, or a graph with
              symbolic sizes met more shapes than it keeps) and an optimizer
              step, or one parameter group's update, that runs torch's eager
              code. The row ran partly eagerly: its time is not the
              compiler's, and it does not count as compiled.
  unlowered   an ATen op with no lowering, run as an ATen call inside an
              otherwise compiled graph; reported once per op by name. Not a
              fallback: the graph around it is compiled. Ops that run in ATen
              by design (matmuls, convolutions, attention, random draws) are
              not reported at all.
  recompile   a graph compiled again for new input shapes (not a fallback).

Dynamo's graph breaks (Python between graphs that runs eagerly in every
compiling mode) are counted from Dynamo's counters. So is Dynamo's recompile
limit (`torch._dynamo.config.recompile_limit`, alias `cache_size_limit`): a
frame that hits it runs eagerly for every new shape from then on, in any
compiling mode, and Dynamo only logs it; each hit is a fallback.
"""
from __future__ import annotations

import re
import sys
import warnings
from dataclasses import dataclass, field

_GRAPH = re.compile(r"^bessemer: \w+ graph \S+ runs eagerly")
# a graph with symbolic sizes specialized for its most shapes: new shapes run eagerly
_SHAPES = re.compile(r"^bessemer: graph \S+ was compiled for \d+ shapes; further new shapes run eagerly")
_OPTIMIZER = re.compile(r"^bessemer: \S+\.step (runs torch's eager update|is not compiled and runs eagerly)")
_STEP = re.compile(r"^bessemer: the whole step runs eagerly")
_UNLOWERED = re.compile(r"^bessemer: (\S+) has no lowering")
_RECOMPILE = re.compile(r"^bessemer: recompiling a graph")


@dataclass
class Report:
    fallbacks: list[str] = field(default_factory=list)     # one line each
    unlowered_ops: list[str] = field(default_factory=list)  # op names
    recompiles: int = 0
    graph_breaks: int = 0

    def as_dict(self) -> dict:
        return {"fallbacks": self.fallbacks, "unlowered_ops": self.unlowered_ops,
                "recompiles": self.recompiles, "graph_breaks": self.graph_breaks}


def classify(messages: list[str]) -> Report:
    """Sort the messages of the warnings a run raised (others are ignored)."""
    r = Report()
    for m in messages:
        first = m.strip().splitlines()[0] if m.strip() else ""
        if _GRAPH.match(first) or _OPTIMIZER.match(first) or _SHAPES.match(first) or _STEP.match(first):
            r.fallbacks.append(first)
        elif (u := _UNLOWERED.match(first)) and u.group(1) not in r.unlowered_ops:
            r.unlowered_ops.append(u.group(1))
        elif _RECOMPILE.match(first):
            r.recompiles += 1
    return r


class Recorder:
    """Records every warning raised inside it (each one, however often it repeats),
    and writes it to stderr as well, so the worker's log still shows it."""

    def __init__(self):
        self._catch = warnings.catch_warnings(record=True)
        self.messages: list[str] = []
        self._breaks_before = 0
        self._limits_before = 0
        self.recompile_limit_hits = 0

    def __enter__(self) -> "Recorder":
        self._breaks_before = _graph_breaks()
        self._limits_before = recompile_limit_hits()
        self._caught = self._catch.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc) -> None:
        self._catch.__exit__(*exc)
        for w in self._caught:
            self.messages.append(str(w.message))
            print(warnings.formatwarning(w.message, w.category, w.filename, w.lineno).rstrip(),
                  file=sys.stderr)
        self.graph_breaks = _graph_breaks() - self._breaks_before
        self.recompile_limit_hits = recompile_limit_hits() - self._limits_before

    def report(self) -> Report:
        r = classify(self.messages)
        r.graph_breaks = self.graph_breaks
        r.fallbacks += [RECOMPILE_LIMIT] * self.recompile_limit_hits
        return r


RECOMPILE_LIMIT = ("torch._dynamo hit its recompile limit: a frame runs eagerly for every new input shape "
                   "(raise torch._dynamo.config.recompile_limit, or compile with dynamic=None)")


def recompile_limit_hits() -> int:
    """How many times, in this process, a frame hit Dynamo's recompile limit (Dynamo's counters)."""
    if "torch._dynamo" not in sys.modules:
        return 0
    from torch._dynamo.utils import counters
    return sum(n for k, n in counters["unimplemented"].items()
               if str(k).startswith("Dynamo recompile limit exceeded"))


def _graph_breaks() -> int:
    if "torch._dynamo" not in sys.modules:
        return 0
    from torch._dynamo.utils import counters
    return sum(counters["graph_break"].values())
