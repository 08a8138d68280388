"""Memory planning: when each buffer dies, and which dead buffer a new one reuses.

Liveness is counted in steps. A buffer is live from the step that writes it to
the last step that reads it (directly, or through a view of it, or through an
extern output that aliases it). Graph outputs live past the end. A kernel output
takes over the storage of a dead kernel buffer of the same dtype and element
count instead of allocating: fewer allocations and page faults, lower peak.
"""
from __future__ import annotations

import torch

from ..ir import Node
from ..schedule import Kernel, MemoryPlan, Schedule


def base_of(n: Node, realized=frozenset()) -> Node:
    """The buffer whose memory n reads (n itself when n has its own buffer)."""
    while n.kind in ("view", "reinterpret") and n not in realized:
        n = n.args[0]
    return n


def _aliases_input(n: Node) -> bool:
    t = n.attrs.get("target")
    if isinstance(t, torch._ops.OpOverload):
        return any(r.alias_info is not None for r in t._schema.returns)
    return False


def plan_memory(sched: Schedule) -> MemoryPlan:
    g = sched.graph
    last_use: dict[Node, int] = {}
    holders: dict[Node, Node] = {}  # extern output -> inputs it may alias

    def touch(n: Node, i: int):
        b = base_of(n, sched.realized)
        last_use[b] = max(last_use.get(b, -1), i)
        for h in holders.get(b, ()):
            touch(h, i)

    def reads_of_kernel(k: Kernel):
        seen = set()
        stack = [a for m in k.members for a in m.args]
        while stack:
            x = stack.pop()
            if x in seen:
                continue
            seen.add(x)
            if x.kind in ("input", "extern", "getitem") or (x in sched.realized and x not in k.members):
                yield x
                continue
            stack.extend(x.args)

    for i, s in enumerate(sched.steps):
        if isinstance(s, Kernel):
            for x in reads_of_kernel(s):
                touch(x, i)
            for m in s.stores:
                touch(m, i)
        else:
            for a in s.args:
                touch(a, i)
            touch(s, i)
            if _aliases_input(s):
                holders[s] = [base_of(a, sched.realized) for a in s.args]
    end = len(sched.steps)
    outs = set()
    for o in g.output_node.args:
        b = base_of(o, sched.realized)
        outs.add(b)
        for h in holders.get(b, ()):
            outs.add(h)
    for b in outs:
        last_use[b] = end
    for n in g.nodes:
        if n.kind == "input":
            last_use.setdefault(n, -1)

    free_after: dict[int, list] = {}
    for b, i in last_use.items():
        if 0 <= i < end:
            free_after.setdefault(i, []).append(b)

    # reuse: walk steps, keep a list of dead kernel buffers by (dtype, numel)
    reuse: dict[Node, Node] = {}
    dead: dict[tuple, list[Node]] = {}
    for i, s in enumerate(sched.steps):
        if isinstance(s, Kernel):
            for m in s.stores:
                if m in outs:
                    continue
                key = (m.dtype, m.numel())
                if dead.get(key):
                    reuse[m] = dead[key].pop()
        for b in free_after.get(i, []):
            if b in sched.realized and b not in outs:
                dead.setdefault((b.dtype, b.numel()), []).append(b)
    return MemoryPlan(free_after, reuse, outs)
