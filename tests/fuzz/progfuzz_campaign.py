"""Running many programs: batches, isolating the failing one, the report.

Compiling costs far more than running, so programs are checked in batches: the
programs of several seeds, renamed apart, form one function with all their
outputs, compiled once forward and once backward. When a batch fails, each of its
programs is checked alone to find the failing ones; a failure only the batch
shows (programs interacting through fusion) is reported as the whole batch.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

import torch

from progfuzz import Failure, InvalidProgram, Program, Target, check, combine
from progfuzz_gen import generate
from progfuzz_shrink import as_test, shrink


@dataclass
class Found:
    prog: Program
    failure: Failure
    shrunk: Optional[Program] = None
    shrunk_failure: Optional[Failure] = None

    def report(self) -> str:
        lines = [f"program of seed {self.prog.seed} fails: {self.failure.kind}",
                 "reproduce: .venv/bin/python tests/fuzz --seed {0} --n 1".format(self.prog.seed),
                 repr(self.prog.inputs), self.prog.source(), str(self.failure)]
        if self.shrunk is not None:
            lines += ["", "minimal failing program, as a test:", "",
                      as_test(self.shrunk, self.shrunk_failure), str(self.shrunk_failure)]
        return "\n".join(lines)


def check_batch(seeds: Sequence[int], target: Optional[Target] = None) -> list[Found]:
    progs = [generate(s) for s in seeds]
    whole = combine(progs)
    try:
        f = check(whole, target)
    except InvalidProgram:
        f = Failure("invalid", "")        # isolate below; each program is valid alone
    if f is None:
        return []
    found = []
    for p in progs:
        pf = check(p, target)
        if pf is not None:
            found.append(Found(p, pf))
    return found or ([Found(whole, f)] if f.kind != "invalid" else [])


@dataclass
class Summary:
    programs: int = 0
    batches: int = 0
    found: list = field(default_factory=list)
    seconds: float = 0.0


def campaign(start: int, n: int, batch: int = 10, target: Optional[Target] = None, keep_going: bool = False,
             do_shrink: bool = True, shrink_s: float = 600.0, log: Callable[[str], None] = print) -> Summary:
    """Check the programs of seeds start .. start+n-1."""
    t0 = time.monotonic()
    summary = Summary()
    for b0 in range(start, start + n, batch):
        seeds = list(range(b0, min(b0 + batch, start + n)))
        found = check_batch(seeds, target)
        summary.programs += len(seeds)
        summary.batches += 1
        if summary.batches % 10 == 0:
            torch._dynamo.reset()     # drop the compiled code of past batches
            log(f"{summary.programs} programs, {len(summary.found)} failing, {time.monotonic() - t0:.0f} s")
        for fd in found:
            log(f"FAIL seed {fd.prog.seed}: {fd.failure.kind}")
            if do_shrink:
                fd.shrunk, fd.shrunk_failure = shrink(fd.prog, fd.failure, target, shrink_s, log)
            log(fd.report())
            summary.found.append(fd)
        if summary.found and not keep_going:
            break
    summary.seconds = time.monotonic() - t0
    return summary
