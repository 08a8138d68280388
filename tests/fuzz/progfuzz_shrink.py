"""Shrinking a failing program to a minimal one, and printing it as a test.

Greedy: each step proposes a smaller or simpler program; it is kept when it
is valid in eager and still fails compiled in the same way (the same exception
type, or a mismatch). Steps, repeated until none applies:

- keep one output, then drop outputs;
- drop statements nothing reads;
- drop a statement and let its readers read one of its operands instead;
- drop inputs nothing reads;
- make an input contiguous, float32 instead of bf16, without grad, smaller.
"""
from __future__ import annotations

import dataclasses
import re
import time
from typing import Callable, Iterator, Optional

from progfuzz import NAME, Failure, Input, InvalidProgram, Program, Target, check


def same_failure(f: Optional[Failure], like: Failure) -> bool:
    return f is not None and f.kind == like.kind


def _split(line: str) -> tuple[list[str], list[str], bool]:
    """(names a statement defines, names it reads, whether it updates in place)."""
    if " = " in line and "[" not in line.split(" = ", 1)[0]:
        lhs, rhs = line.split(" = ", 1)
        return NAME.findall(lhs), NAME.findall(rhs), False
    return [], NAME.findall(line), True


def _rename(text: str, old: str, new: str) -> str:
    return re.sub(rf"\b{old}\b", new, text)


def _live(prog: Program) -> list[bool]:
    """Which statements can affect an output (an update of a live name is live)."""
    need = set(prog.outputs)
    live = [False] * len(prog.lines)
    for i in range(len(prog.lines) - 1, -1, -1):
        defs, uses, inplace = _split(prog.lines[i])
        target = uses[0] if inplace and uses else None
        if (defs and need & set(defs)) or (inplace and (target in need or target and target[0] == "a")):
            live[i] = True
            need |= set(uses)
    return live


def candidates(prog: Program) -> Iterator[Program]:
    outs = prog.outputs
    if len(outs) > 1:
        for o in outs:
            yield prog.copy(outputs=[o])
        for i in range(len(outs)):
            yield prog.copy(outputs=outs[:i] + outs[i + 1:])
    live = _live(prog)
    if not all(live):
        yield prog.copy(lines=[ln for ln, keep in zip(prog.lines, live) if keep])
    for i in range(len(prog.lines) - 1, -1, -1):
        defs, uses, inplace = _split(prog.lines[i])
        rest = prog.lines[:i] + prog.lines[i + 1:]
        if inplace or not defs:
            yield prog.copy(lines=rest)
            continue
        for u in dict.fromkeys(uses):
            if u in defs:
                continue
            later = [ln for ln in prog.lines[i + 1:]]
            new_lines = prog.lines[:i] + [_rename_all(ln, defs, u) for ln in later]
            new_outs = list(dict.fromkeys(u if o in defs else o for o in prog.outputs))
            yield prog.copy(lines=new_lines, outputs=new_outs)
    used = {m for ln in prog.lines for m in NAME.findall(ln)} | set(prog.outputs)
    for i in range(len(prog.inputs) - 1, -1, -1):
        if f"a{i}" not in used:
            yield _drop_input(prog, i)
    for i, s in enumerate(prog.inputs):
        for simpler in _simpler_inputs(s):
            yield prog.copy(inputs=prog.inputs[:i] + [simpler] + prog.inputs[i + 1:])


def _rename_all(line: str, olds: list[str], new: str) -> str:
    for o in olds:
        line = _rename(line, o, new)
    return line


def _drop_input(prog: Program, i: int) -> Program:
    ren = {f"a{j}": f"a{j - 1}" for j in range(i + 1, len(prog.inputs))}
    sub = lambda s: NAME.sub(lambda m: ren.get(m.group(0), m.group(0)), s)  # noqa: E731
    return prog.copy(inputs=prog.inputs[:i] + prog.inputs[i + 1:], lines=[sub(ln) for ln in prog.lines],
                     outputs=[sub(o) for o in prog.outputs])


def _simpler_inputs(s: Input) -> Iterator[Input]:
    if s.grad:
        yield dataclasses.replace(s, grad=False)
    if s.layout != "c":
        yield dataclasses.replace(s, layout="c")
    if s.dtype == "bfloat16":
        yield dataclasses.replace(s, dtype="float32")
    for d, n in enumerate(s.shape):
        for smaller in sorted({1, 2, n // 2, n - 1}):
            if 1 <= smaller < n:
                yield dataclasses.replace(s, shape=s.shape[:d] + (smaller,) + s.shape[d + 1:])


def shrink(prog: Program, failure: Failure, target: Optional[Target] = None, budget_s: float = 600.0,
           log: Callable[[str], None] = lambda s: None) -> tuple[Program, Failure]:
    """The smallest program found within budget_s that still fails like `failure`."""
    t0 = time.monotonic()
    tried: set[str] = set()
    progress = True
    while progress and time.monotonic() - t0 < budget_s:
        progress = False
        for cand in candidates(prog):
            if time.monotonic() - t0 > budget_s:
                break
            key = repr(cand.inputs) + cand.source()
            if key in tried:
                continue
            tried.add(key)
            try:
                f = check(cand, target)
            except InvalidProgram:
                continue
            if same_failure(f, failure):
                prog, failure = cand, f
                log(f"  shrunk to {len(prog.lines)} statements, {len(prog.inputs)} inputs")
                progress = True
                break
    return prog, failure


def as_test(prog: Program, failure: Failure, name: Optional[str] = None) -> str:
    """The program as a ready-to-paste pytest test (for tests/fuzz/test_regressions.py)."""
    name = name or f"test_program_{prog.seed}"
    first = failure.detail.strip().splitlines()
    what = failure.kind + (": " + first[-1].strip() if first else "")
    what = what.replace('"""', "'''")[:150]
    inputs = ",\n        ".join(repr(s) for s in prog.inputs)
    return (f"def {name}():\n"
            f"    \"\"\"{what}\"\"\"\n"
            f"{prog.source('prog', indent='    ')}"
            f"    assert_like_eager(prog, [\n        {inputs},\n    ], seed={prog.seed})\n")
