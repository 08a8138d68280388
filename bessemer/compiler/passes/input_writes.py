"""Input writes: a graph's new values of its own inputs stored straight into them.

In:  a Schedule (after fusion) that may end in `aten.copy_(input, value)` externs:
     AOTAutograd's input mutations kept in the graph (`keep_inference_input_mutations`),
     such as a whole training step's new parameters and optimizer state
     (capture/step.py).
Out: the same Schedule, where each such copy whose value a pointwise kernel stores is
     gone and that kernel stores the value into the input's memory instead; the steps
     put in an order where every other reader of the input's old value runs before that
     kernel. Returns `InputWrites`: {value: input} for the memory plan (which keeps that
     order, counts no allocation for these values and never hands their memory to
     another buffer) and the names of every input the program writes into, for the
     wrapper (an input the wrapper had to copy into the compiled layout is copied back).

Why: a copy at the end keeps every new value in a buffer of its own until then, next to
the old values in the inputs: a training step would hold its parameters and optimizer
state twice. Stored into the inputs as soon as the value is known, an update needs no
memory of its own, and the gradient it reads dies with it.

Fusion puts the updates of all parameters of one shape into one kernel (they are all
computed after the whole backward in the traced order), which would run once the last of
their gradients is complete and keep every other one alive until then. A pointwise kernel
storing into inputs is therefore split first into the parts that read nothing of each
other, grouped by the steps they wait for: parts that become ready together stay one
kernel (a launch each costs a call; a part that waits for other steps than its neighbours
costs the memory of what it reads held until they run).

A copy stays (a step with side effects, run after everything before it, as the graph
says) unless: its value is a store of a pointwise kernel, as a full-domain member; the
value has the input's shape and dtype and the input is contiguous; the kernel reads the
input only at the element it writes, and no member computed after the value reads the
input (its old value is gone once the value is stored); the input and the value are in
no other copy and not returned; and the order that puts every other reader of the input
before the kernel exists (no dependency cycle, no step with side effects in between).
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Optional

import torch

from bessemer.compiler.ir.graph import Group, Kind, Node
from bessemer.compiler.ir.schedule import Kernel, Role, Schedule, member_role
from bessemer.compiler.ir.views import is_contiguous
from bessemer.compiler.passes.memory import StepAccesses, _identity_reads_only, _ordered_kind, base_of

_COPY = torch.ops.aten.copy_.default


@dataclass
class InputWrites:
    stores: dict = field(default_factory=dict)        # value node -> the input node it is stored into
    written: frozenset = frozenset()                  # names of every input the program writes into

    def format(self) -> str:
        lines = [f"store {m.name} into {d.name}" for m, d in self.stores.items()]
        rest = sorted(self.written - {d.name for d in self.stores.values()})
        lines += [f"copy into {name} at the end" for name in rest]
        return "\n".join(lines) + "\n"


def _split(sched: Schedule, info: StepAccesses, writer: dict, i: int) -> Optional[list[Kernel]]:
    """Kernel i's members in kernels of their own per group of independent parts that wait
    for the same steps (see the module docstring); None where it stays whole."""
    k = sched.steps[i]
    members = k.members
    where = {m: j for j, m in enumerate(members)}
    parent = list(range(len(members)))

    def find(j):
        while parent[j] != j:
            parent[j] = parent[parent[j]]
            j = parent[j]
        return j

    waits: list[set] = [set() for _ in members]
    for j, m in enumerate(members):
        seen: set = set()
        stack = list(m.args)
        while stack:
            x = stack.pop()
            if x in seen:
                continue
            seen.add(x)
            if x in where:
                parent[find(j)] = find(where[x])      # reads another member: the same part
                continue
            if x.kind in Group.BUFFERS or x in sched.realized:
                for b in info.closure(base_of(x, sched.realized)):
                    if b in writer and writer[b] != i:
                        waits[j].add(writer[b])
                continue
            stack.extend(x.args)
    parts: dict[int, list] = {}
    for j in range(len(members)):
        parts.setdefault(find(j), []).append(j)
    groups: dict[frozenset, list] = {}
    for js in parts.values():
        groups.setdefault(frozenset().union(*(waits[j] for j in js)), []).extend(js)
    if len(groups) < 2:
        return None
    out = []
    for n, js in enumerate(sorted(groups.values(), key=min)):
        mine = [members[j] for j in sorted(js)]
        out.append(Kernel(f"{k.name}_{n}", k.shape, k.red, mine, [m for m in k.stores if m in set(mine)]))
    return out


def _split_updates(sched: Schedule, info: StepAccesses, sources: set) -> bool:
    """Split the pointwise kernels that store values copied into inputs; whether any was."""
    steps: list = []
    new_of_old: dict[int, int] = {}       # old step index -> new index (of a kernel: its first part)
    part_of: dict[Node, int] = {}         # member of a split kernel -> new index of its part
    writer = {w: i for i, ws in enumerate(info.writes) for w in ws}
    for i, s in enumerate(sched.steps):
        parts = None
        if isinstance(s, Kernel) and not s.red and any(m in sources for m in s.stores):
            parts = _split(sched, info, writer, i)
        new_of_old[i] = len(steps)
        if parts is None:
            steps.append(s)
            continue
        for p in parts:
            for m in p.members:
                part_of[m] = len(steps)
            steps.append(p)
    if len(steps) == len(sched.steps):
        return False
    step_of = {}
    for n, i in sched.step_of.items():
        x = n
        while x not in part_of and x.kind in Group.VIEWS and x.args:
            x = x.args[0]             # a view of a member: the step of the member's part
        step_of[n] = part_of.get(x, new_of_old[i])
    sched.steps = steps
    sched.step_of = step_of
    return True


def _copy_into_input(s) -> Optional[tuple[Node, Node]]:
    """(input, value) of a step `aten.copy_(input, value)` into a graph input, else None."""
    if isinstance(s, Kernel) or s.kind != Kind.EXTERN or s.attrs.get("target") is not _COPY:
        return None
    args, kwargs = s.attrs["args"], s.attrs["kwargs"]
    if len(args) != 2 or any(v for v in kwargs.values()) or not all(isinstance(a, Node) for a in args):
        return None
    d, m = args
    if d.kind != Kind.INPUT or "constant" in d.attrs:
        return None
    return d, m


def _reads_past(k: Kernel, m: Node, d: Node, realized) -> bool:
    """Whether a member of k after m reads d's memory (through inlined values): it would
    read the value stored over d instead of d's."""
    later = k.members[k.members.index(m) + 1:]
    members = set(k.members)
    seen: set = set()
    stack = [a for x in later for a in x.args]
    while stack:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        if x in members:
            continue            # a value the kernel holds, not memory
        if x.kind in Group.BUFFERS or x in realized:
            if base_of(x, realized) is d:
                return True
            continue
        if x.kind in Group.VIEWS and base_of(x, realized) is d:
            return True
        stack.extend(x.args)
    return False


def _candidates(sched: Schedule, info: StepAccesses) -> dict[int, tuple[Node, Node, int]]:
    """{index of a copy step: (value, input, index of the kernel storing the value)} for the
    copies whose value could be stored into the input where it is computed."""
    g = sched.graph
    copies = {i: c for i, s in enumerate(sched.steps) if (c := _copy_into_input(s)) is not None}
    dests: dict[Node, int] = {}
    srcs: dict[Node, int] = {}
    for d, m in copies.values():
        dests[d] = dests.get(d, 0) + 1
        srcs[m] = srcs.get(m, 0) + 1
    outs: set = set()
    for o in g.output_node.args:
        if isinstance(o, Node):
            outs.update(info.closure(base_of(o, sched.realized)))
    used = {a for n in g.nodes for a in n.args}
    out: dict[int, tuple[Node, Node, int]] = {}
    for i, (d, m) in copies.items():
        w = sched.step_of.get(m)
        k = sched.steps[w] if w is not None else None
        if not isinstance(k, Kernel) or k.red or m not in k.stores or member_role(k, m) != Role.FULL:
            continue
        if dests[d] != 1 or srcs[m] != 1 or m in outs or d in outs or sched.steps[i] in used:
            continue
        if tuple(m.shape) != tuple(d.shape) or m.dtype != d.dtype or not is_contiguous(d.shape, d.stride):
            continue
        if not _identity_reads_only(k, d, sched.realized) or _reads_past(k, m, d, sched.realized):
            continue
        out[i] = (m, d, w)
    return out


def _order(sched: Schedule, info: StepAccesses, removed: set, stores: dict) -> list[int]:
    """The step indices without `removed`, in the fused order as far as the dependencies
    allow (an earlier step first whenever it is ready): a value before its readers, every
    other reader of an input before the kernel storing into it, steps with side effects
    between the same neighbours, random draws in their order. Shorter than the steps
    when the dependencies form a cycle."""
    steps = [i for i in range(len(sched.steps)) if i not in removed]
    writer: dict[Node, int] = {}
    readers: dict[Node, set] = {}
    for i in steps:
        for w in info.writes[i]:
            writer[w] = i
        for b in info.reads[i]:
            for x in info.closure(b):
                readers.setdefault(x, set()).add(i)
    deps: dict[int, set] = {i: set() for i in steps}
    for i in steps:
        for b in info.reads[i]:
            for x in info.closure(b):
                j = writer.get(x)
                if j is not None and j != i:
                    deps[i].add(j)
    for m, d in stores.items():
        w = writer[m]
        deps[w].update(readers.get(d, set()) - {w})
    barrier, since, last_random = None, [], None
    for i in steps:
        kind = _ordered_kind(sched.steps[i])
        if barrier is not None:
            deps[i].add(barrier)
        if kind == "barrier":
            deps[i].update(since)        # and, through the last barrier, everything before it
            barrier, since = i, []
        else:
            since.append(i)
            if kind == "random":
                if last_random is not None:
                    deps[i].add(last_random)
                last_random = i
    users: dict[int, list] = {i: [] for i in steps}
    for i in steps:
        for j in deps[i]:
            users[j].append(i)
    waiting = {i: len(deps[i]) for i in steps}
    ready = [i for i in steps if waiting[i] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for u in users[i]:
            waiting[u] -= 1
            if waiting[u] == 0:
                heapq.heappush(ready, u)
    return order


def write_into_inputs(sched: Schedule) -> InputWrites:
    """Replace the copies into inputs that can be stores (see the module docstring); the
    schedule's steps are rewritten in place."""
    copies = [c for s in sched.steps if (c := _copy_into_input(s)) is not None]
    written = frozenset(d.name for d, _ in copies)
    if not copies:
        return InputWrites({}, written)
    info = StepAccesses(sched)
    if _split_updates(sched, info, {m for _, m in copies}):
        info = StepAccesses(sched)
    cands = _candidates(sched, info)
    order: list[int] = []
    while cands:
        order = _order(sched, info, set(cands), {m: d for m, d, _ in cands.values()})
        if len(order) == len(sched.steps) - len(cands):
            break
        # a cycle: the kernels left unordered keep their copies
        stuck = set(range(len(sched.steps))) - set(order) - set(cands)
        kept = {i: c for i, c in cands.items() if c[2] not in stuck}
        cands = kept if len(kept) < len(cands) else {}
    if not cands:
        return InputWrites({}, written)
    gone = {sched.steps[i] for i in cands}          # the copy steps: extern nodes
    new_index = {old: new for new, old in enumerate(order)}
    sched.steps = [sched.steps[i] for i in order]
    sched.step_of = {n: new_index[i] for n, i in sched.step_of.items() if i in new_index}
    sched.graph.nodes = [n for n in sched.graph.nodes if n not in gone]
    return InputWrites({m: d for m, d, _ in cands.values()}, written)
