"""Which entries of bessemer's lowering table (lowerings.LOWERINGS) the op tests reach.

A test case (an op of op_table.py, or an OpInfo op of opinfo_harness.py, in one
dtype) is traced the way a compile traces it -- Dynamo, then AOTAutograd with the
compiler's own decompositions and partitioner, forward and backward -- and each
graph is lowered to IR, without code generation. Every lowering that returns (one
that raises Unsupported hands its node to ATen, and does not count) is recorded.

WITNESSES names, for every LOWERINGS entry, one case of the suite that lowers it;
test_opinfo.py checks each claim by tracing only the witnesses, so the check stays
cheap. `python tests/ops/lowering_coverage.py` traces every case and prints a new
witness table (greedy: op_table cases first, then the OpInfo case that covers the
most entries still missing).
"""
from __future__ import annotations

import contextlib
import sys
import warnings
from typing import Iterator

import torch

from bessemer.compiler.capture import backend as capture

from bessemer.compiler.lowering import lower as lowering

from bessemer.compiler.lowering import rules as lowerings
from bessemer.config import TrainingCompilerConfig


@contextlib.contextmanager
def record_lowerings(hits: set) -> Iterator[set]:
    """Within the block, every lowering that returns adds its op's name to `hits`."""
    table = lowerings.LOWERINGS
    saved = dict(table)

    def wrap(name, fn):
        def recorded(*args, **kwargs):
            out = fn(*args, **kwargs)
            hits.add(name)
            return out
        return recorded

    for op, fn in saved.items():
        table[op] = wrap(str(op), fn)
    try:
        yield hits
    finally:
        table.clear()
        table.update(saved)


class _LowerOnly(capture.BessemerBackend):
    """The compiler's AOTAutograd wiring (decompositions, partitioner) with a graph
    compiler that only lowers: no kernels are generated or built."""

    def compiler(self, kind: str):
        from functorch.compile import make_boxed_func

        def lower_only(gm, example_inputs):
            lowering.lower(gm, example_inputs, "error")
            return make_boxed_func(gm.forward)
        return lower_only


def _backward(outs) -> None:
    flat = [o for o in torch.utils._pytree.tree_flatten(outs)[0]
            if isinstance(o, torch.Tensor) and o.requires_grad and o.is_floating_point()]
    if flat:
        sum((o.to(torch.float64) * 0.5).sum() for o in flat).backward()


def _traced(module, args) -> set:
    hits: set = set()
    torch._dynamo.reset()
    fn = torch.compile(module, backend=_LowerOnly(TrainingCompilerConfig(fallback="error")).aot(), dynamic=False)
    with record_lowerings(hits), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(0)
        _backward(fn(*args))
    return hits


def trace_case(case: str) -> set:
    """The LOWERINGS entries lowered by one case: "op_table:NAME@DTYPE" or
    "opinfo:KEY@DTYPE"."""
    kind, rest = case.split(":", 1)
    name, dtype_name = rest.rsplit("@", 1)
    if kind == "op_table":
        import op_table
        fn, arity, domain, differentiable = op_table.OPS[name]
        sets = op_table._arg_sets(arity, op_table.DTYPES[dtype_name], domain)
        flat = [t.clone().requires_grad_(differentiable) for s in sets for t in s]

        def f(*xs):
            return tuple(fn(*xs[i * arity:(i + 1) * arity]) for i in range(len(sets)))
        return _traced(f, flat)
    if kind == "opinfo":
        import opinfo_harness
        p = opinfo_harness.Prepared(name, dtype_name)
        if not p.samples:
            return set()
        return _traced(p.module(), opinfo_harness._fresh(p.leaves))
    raise ValueError(f"unknown case kind {kind!r} in {case!r}")


def all_cases(dtypes=("fp32", "bf16")) -> list[str]:
    import op_table
    import opinfo_harness
    cases = [f"op_table:{n}@{d}" for d in dtypes for n in op_table.OPS]
    cases += [f"opinfo:{k}@{d}" for d in dtypes for k in opinfo_harness.ops_for(d)]
    return cases


def scan(cases: list[str], log=None) -> dict[str, set]:
    hits = {}
    for i, c in enumerate(cases):
        try:
            hits[c] = trace_case(c)
        except Exception as e:  # noqa: BLE001 - a case the tracer cannot run covers nothing
            hits[c] = set()
            if log:
                log(f"# {c}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:200])
        if log:
            log(f"{i + 1}/{len(cases)} {c}: {' '.join(sorted(hits[c]))}")
    return hits


def greedy_witnesses(hits: dict[str, set], wanted: set) -> dict[str, list[str]]:
    left = set(wanted)
    chosen: dict[str, list[str]] = {}
    for c, h in hits.items():   # the op-table cases run in every `make test`: take them first
        if c.startswith("op_table:") and h & left:
            chosen[c] = sorted(h & left)
            left -= h
    while left:
        best = max(hits, key=lambda c: (len(hits[c] & left), c.startswith("op_table:")))
        got = hits[best] & left
        if not got:
            break
        chosen[best] = sorted(got)
        left -= got
    return chosen


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(description="trace every case; print a witness table")
    ap.add_argument("--dtypes", nargs="*", default=["fp32", "bf16"])
    a = ap.parse_args(argv)

    def log(msg):
        print(msg, file=sys.stderr, flush=True)
    hits = scan(all_cases(tuple(a.dtypes)), log)
    wanted = {str(op) for op in lowerings.LOWERINGS}
    chosen = greedy_witnesses(hits, wanted)
    covered = set().union(*chosen.values()) if chosen else set()
    print("WITNESSES = {")
    for c, names in chosen.items():
        print(f"    {c!r}: {names!r},")
    print("}")
    print(f"# never lowered by any case: {sorted(wanted - covered)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
