"""Memory planning: the order the steps run in, when each buffer dies, which storage a new
buffer takes, and the peak that plan reaches.

order      The steps are reordered, a topological order of their buffer dependencies,
           to lower the peak: a greedy list schedule that runs first, among the steps
           whose inputs are ready, one that frees at least as many bytes as it
           allocates, else the earliest in the fused order. Steps that draw random
           numbers keep their relative order and steps with side effects (or unknown
           callables) stay between the same neighbours, so results do not change.
           A kernel storing a value into an input (`writes`, passes/input_writes.py)
           runs after every other reader of that input.
liveness   A buffer is live from the step that writes it to the last step that reads it
           (directly, through a view, or through an extern output aliasing it); graph
           outputs live past the end. The wrapper drops every buffer after its last
           use, so a gradient is freed as soon as its last consumer ran.
in place   A kernel's last member is written over a buffer that dies in that kernel
           (an input, or a member stored by an earlier phase) when the kernel reads
           that buffer only at the element it writes (same shape, element size and
           contiguous layout).
reuse      Otherwise a new kernel buffer takes over the storage of a dead one of its
           size class: at least as large, at most 1/8 larger, any dtype whose element
           size divides the storage's bytes (torch views it as that dtype only then). Fewer
           allocations; the 1/8 bounds what a smaller buffer keeps alive.
peak       The bytes of the storages the graph allocates itself (kernel buffers and
           extern outputs, not its inputs), at their highest: MemoryPlan.peak_bytes.
"""
from __future__ import annotations

from typing import Iterable, Optional

import torch

from bessemer.compiler.ir.symbolic import hint, known_le
from bessemer.compiler.ir.graph import Group, IndexMap, Kind, Node
from bessemer.compiler.ir.schedule import Kernel, MemoryPlan, Role, Schedule, member_role, normalize_map
from bessemer.compiler.ir.views import is_contiguous, layout_of

# A dead storage is handed to a new buffer needing at least this share of it: best fit
# within a size class, so that a small buffer does not keep a much larger one alive.
SIZE_CLASS = 1.125


def base_of(n: Node, realized=frozenset()) -> Node:
    """The buffer whose memory n reads (n itself when n has its own buffer)."""
    while n.kind in Group.VIEWS and n not in realized:
        n = n.args[0]
    return n


def _aliases_input(n: Node) -> bool:
    t = n.attrs.get("target")
    if isinstance(t, torch._ops.OpOverload):
        return any(r.alias_info is not None for r in t._schema.returns)
    return False


def nbytes(n: Node) -> int:
    return n.numel() * n.dtype.itemsize


# -- what each step reads and writes ---------------------------------------------------------
class StepAccesses:
    """What each step of a schedule reads and writes, and which buffers an extern's output may alias."""

    def __init__(self, sched: Schedule):
        self.sched = sched
        self.holders: dict[Node, list] = {}    # extern output -> the buffers it may alias
        self.reads: list[set] = []
        self.writes: list[list] = []
        for s in sched.steps:
            if isinstance(s, Kernel):
                self.reads.append({base_of(x, sched.realized) for x in self._kernel_reads(s)})
                self.writes.append(list(s.stores))
            else:
                self.reads.append({base_of(a, sched.realized) for a in s.args})
                outs = [s] + [u for u in self._getitems(s)]
                self.writes.append(outs)
                if _aliases_input(s):
                    self.holders[s] = [base_of(a, sched.realized) for a in s.args]

    def _getitems(self, s: Node) -> list:
        return [n for n in self.sched.graph.nodes if n.kind == Kind.GETITEM and n.args[0] is s]

    def _kernel_reads(self, k: Kernel) -> Iterable[Node]:
        seen = set()
        stack = [a for m in k.members for a in m.args]
        while stack:
            x = stack.pop()
            if x in seen:
                continue
            seen.add(x)
            if x.kind in Group.BUFFERS or (x in self.sched.realized and x not in k.members):
                yield x
                continue
            stack.extend(x.args)

    def closure(self, b: Node) -> list:
        """b and the buffers an extern output b may alias (reading b reads them)."""
        out, stack = [], [b]
        while stack:
            x = stack.pop()
            if x in out:
                continue
            out.append(x)
            stack.extend(self.holders.get(x, ()))
        return out


def _ordered_kind(s) -> Optional[str]:
    """"barrier" (side effects: stays between the same neighbours), "random" (keeps its
    order among random draws) or None."""
    if isinstance(s, Kernel):
        return None
    t = s.attrs.get("target")
    if isinstance(t, torch._ops.OpOverload):
        if t._schema.is_mutable:
            return "barrier"
        if torch.Tag.nondeterministic_seeded in t.tags:
            return "random"
        return None
    return "barrier"            # a Python callable: no schema to trust


# -- order ----------------------------------------------------------------------------------
def order_steps(sched: Schedule, info: StepAccesses, writes: Optional[dict] = None) -> list[int]:
    """The step indices in the order to run them (see the module docstring)."""
    writes = writes or {}
    n = len(sched.steps)
    writer: dict[Node, int] = {}
    for i, ws in enumerate(info.writes):
        for w in ws:
            writer[w] = i
    deps: list[set] = [set() for _ in range(n)]
    old_readers: dict[Node, set] = {d: set() for d in writes.values()}
    for i, rs in enumerate(info.reads):
        for b in rs:
            for x in info.closure(b):
                j = writer.get(x)
                if j is not None and j != i:
                    deps[i].add(j)
                if x in old_readers:
                    old_readers[x].add(i)
    for m, d in writes.items():     # the input's old value is read before it is written over
        deps[writer[m]].update(old_readers[d] - {writer[m]})
    last_random, last_barrier = None, None
    for i, s in enumerate(sched.steps):
        kind = _ordered_kind(s)
        if last_barrier is not None:
            deps[i].add(last_barrier)
        if kind == "barrier":
            deps[i].update(range(i))
            last_barrier = i
        elif kind == "random":
            if last_random is not None:
                deps[i].add(last_random)
            last_random = i
    if any(j > i for i in range(n) for j in deps[i]):
        return list(range(n))       # not a forward-only dependency order: keep what fusion chose
    outs = _output_bases(sched, info)
    written = set(writes.values())
    readers: dict[Node, int] = {}
    for rs in info.reads:
        for b in rs:
            readers[b] = readers.get(b, 0) + 1
    users: list[list] = [[] for _ in range(n)]
    for i in range(n):
        for j in deps[i]:
            users[j].append(i)
    waiting = [len(d) for d in deps]
    ready = [i for i in range(n) if waiting[i] == 0]
    order: list[int] = []
    while ready:
        best, best_key = None, None
        for i in ready:
            # a heuristic of order (any order is correct): sizes at the compiled shape
            alloc = hint(sum(nbytes(w) for w in _allocations(sched.steps[i], info.writes[i]) if w not in writes))
            freed = hint(sum(nbytes(b) for b in info.reads[i] if readers.get(b) == 1 and b not in outs
                             and b.kind != Kind.CONST and b not in written))
            key = (alloc > freed, i)
            if best_key is None or key < best_key:
                best, best_key = i, key
        ready.remove(best)
        order.append(best)
        for b in info.reads[best]:
            readers[b] -= 1
        for u in users[best]:
            waiting[u] -= 1
            if waiting[u] == 0:
                ready.append(u)
    return order if len(order) == n else list(range(n))


def _allocations(s, writes: list) -> list:
    """The buffers step s allocates: a kernel's stores; an extern's output (each tensor of a
    tuple), unless it is a view of its inputs."""
    if isinstance(s, Kernel):
        return list(writes)
    if _aliases_input(s):
        return []
    return list(writes[1:]) if s.attrs.get("n_outputs") else [s]


def _output_bases(sched: Schedule, info: StepAccesses) -> set:
    outs = set()
    for o in sched.graph.output_node.args:
        outs.update(info.closure(base_of(o, sched.realized)))
    return outs


def _apply_order(sched: Schedule, order: list[int]) -> None:
    if order == list(range(len(order))):
        return
    sched.steps = [sched.steps[i] for i in order]
    new_index = {old: new for new, old in enumerate(order)}
    sched.step_of = {n: new_index[i] for n, i in sched.step_of.items()}


# -- in place ---------------------------------------------------------------------------------
def _identity_reads_only(k: Kernel, d: Node, realized) -> bool:
    """Every read of d's memory in kernel k is of d itself, at the element of the domain
    index (an elementwise read: writing the same element after it is safe)."""
    ident = IndexMap.identity(len(k.shape))
    ok = True
    seen = set()

    def walk(x: Node, m: Optional[IndexMap], top: bool):
        nonlocal ok
        if not ok or (x, m) in seen:
            return
        seen.add((x, m))
        if not top and (x.kind in Group.BUFFERS or x in realized):
            if base_of(x, realized) is d and (x is not d or m is None or tuple(x.shape) != tuple(k.shape)
                                               or normalize_map(m, x.shape) != normalize_map(ident, x.shape)):
                ok = False
            return
        if x.kind == Kind.REDUCE and not top:      # its value, not memory
            return
        if x.kind in Group.GENERATED:
            return
        if x.kind == Kind.VIEW:
            walk(x.args[0], None if m is None else m.compose(x.index_map), False)
            return
        if x.kind == Kind.REINTERPRET:
            if base_of(x.args[0], realized) is d:
                # d read with other strides: elementwise only as d's contiguous memory in the
                # domain's own order (a reshape of it), at the domain index
                lay = layout_of(x, realized)
                if lay is None or lay[0] is not d or lay[2] != 0 or m is None \
                        or tuple(x.shape) != tuple(k.shape) or not is_contiguous(x.shape, lay[1]) \
                        or normalize_map(m, x.shape) != normalize_map(ident, x.shape):
                    ok = False
            return
        if x.kind == Kind.PAD:
            walk(x.args[0], None if m is None else m.compose(x.pad_map()), False)
            return
        if x.kind == Kind.GATHER:
            walk(x.args[0], None, False)   # any element of the source: not elementwise
            walk(x.args[1], m, False)
            return
        for a in x.args:
            walk(a, m, False)

    for member in k.members:
        if member.kind == Kind.REDUCE:
            walk(member.args[0], ident, False)
        elif member_role(k, member) == Role.FULL:
            walk(member, ident, True)
        else:
            walk(member, None, True)  # a per-row member: a read of d there is not elementwise
    return ok


# -- the plan -----------------------------------------------------------------------------------
def plan_memory(sched: Schedule, donated: frozenset = frozenset(), writes: Optional[dict] = None) -> MemoryPlan:
    """`donated`: names of the graph's inputs it may overwrite once they are dead (a backward's
    saved tensors that nothing else holds, per AOTAutograd). `writes`: {value: input} stored
    into the input's memory by the kernel computing it (input_writes.py): in place, and never
    a dead storage for another buffer (the memory is the caller's)."""
    writes = writes or {}
    info = StepAccesses(sched)
    order = order_steps(sched, info, writes)
    _apply_order(sched, order)
    info = StepAccesses(sched)
    g = sched.graph
    end = len(sched.steps)
    last_use: dict[Node, int] = {}
    for i, rs in enumerate(info.reads):
        for b in rs:
            for x in info.closure(b):
                last_use[x] = max(last_use.get(x, -1), i)
        for w in info.writes[i]:
            last_use[w] = max(last_use.get(w, -1), i)
    outs = _output_bases(sched, info)
    for b in outs:
        last_use[b] = end
    for n in g.nodes:
        if n.kind == Kind.INPUT:
            last_use.setdefault(n, -1)

    free_after: dict[int, list] = {}
    for b, i in last_use.items():
        if 0 <= i < end:
            free_after.setdefault(i, []).append(b)

    def owned(b: Node) -> bool:
        """A storage the graph allocated and nothing else can see: kernel buffers, and
        outputs of single-output externs that alias nothing."""
        if b in outs or b in writes:
            return False
        if b in sched.realized or (b.kind == Kind.INPUT and b.name in donated):
            return True
        return b.kind == Kind.EXTERN and not _aliases_input(b) and not b.attrs.get("n_outputs") \
            and b.kind != Kind.GETITEM

    inplace: dict[Node, Node] = dict(writes)
    for m, d in writes.items():
        k = sched.steps[sched.step_of[m]]
        k.aliased = k.aliased | {m, d}
    for i, s in enumerate(sched.steps):
        if isinstance(s, Kernel) and s.members:
            m = s.members[-1]
            if m in s.stores and m not in inplace and member_role(s, m) == Role.FULL:
                d = _inplace_donor(s, m, i, info.reads[i], last_use, owned, sched)
                if d is not None:
                    inplace[m] = d
                    s.aliased = s.aliased | {m, d}
    # reuse: only where holding the dead storage until it is taken does not raise the peak
    curve = _simulate(sched, info, free_after, {}, inplace, outs)
    ceiling = max(curve, default=0)
    reuse: dict[Node, Node] = {}
    dead: list[tuple[Node, int]] = []          # (dead buffer, the step it died at)
    cap: dict[Node, int] = {}                  # bytes of the storage a buffer holds
    grain: dict[Node, int] = {}                # the itemsize of the dtype that storage was made for

    def whole(old: Node, size, m: Node) -> bool:
        """Is the storage a whole number of m's elements? (torch views a storage as a dtype
        only then: a bf16 [1, 3, 17] storage, 102 bytes, is no float32 storage)"""
        k = m.dtype.itemsize
        return grain.get(old, old.dtype.itemsize) % k == 0 or (isinstance(size, int) and size % k == 0)
    for i, s in enumerate(sched.steps):
        if isinstance(s, Kernel):
            for m in s.stores:
                if m in inplace:
                    continue
                need = nbytes(m)
                # an output keeps its storage alive in the caller's hands: exact sizes only.
                # Which storage to take is a heuristic, weighed at the compiled shape (hint);
                # that it is large enough must hold at every shape (symbolic sizes: a storage
                # that fits only at some shapes is left, rather than the compile specialized)
                h_need = hint(need)
                most = h_need if m in outs else h_need * SIZE_CLASS
                fits = sorted((b for b in dead if h_need <= hint(cap.get(b[0], nbytes(b[0]))) <= most),
                              key=lambda b: (hint(cap.get(b[0], nbytes(b[0]))), b[0].name))
                for old, died in fits:
                    size = cap.get(old, nbytes(old))
                    held = curve[died + 1:i]
                    h_size = hint(size)
                    if max(held, default=0) + h_size <= ceiling and curve[i] + h_size - h_need <= ceiling \
                            and known_le(need, size) and (m not in outs or need == size) and whole(old, size, m):
                        for t in range(died + 1, i):
                            curve[t] += h_size
                        curve[i] += h_size - h_need
                        dead.remove((old, died))
                        reuse[m] = old
                        cap[m] = size
                        grain[m] = grain.get(old, old.dtype.itemsize)
                        break
        for b in free_after.get(i, []):
            if owned(b) and b not in inplace.values():
                dead.append((b, i))
    curve = _simulate(sched, info, free_after, reuse, inplace, outs)
    peak = max(curve, default=0)
    return MemoryPlan(free_after, reuse, outs, inplace, peak, curve.index(peak) if curve else -1)


def _inplace_donor(k: Kernel, m: Node, i: int, reads: set, last_use: dict, owned, sched) -> Optional[Node]:
    cands = [b for b in reads | set(k.stores) if b is not m and last_use.get(b) == i and owned(b)
             and nbytes(b) == nbytes(m) and b.dtype.itemsize == m.dtype.itemsize
             and (b in sched.realized or is_contiguous(b.shape, b.stride))]
    for d in sorted(cands, key=lambda b: b.name):
        if d in k.members and k.members.index(d) > k.members.index(m):
            continue
        if _identity_reads_only(k, d, sched.realized):
            return d
    return None


def _simulate(sched: Schedule, info: StepAccesses, free_after: dict, reuse: dict, inplace: dict,
              outs: set) -> list[int]:
    """Bytes of the storages the graph allocated itself that are live during each step, as
    the wrapper runs it: a reused buffer's storage stays held until it is taken."""
    alloc_of: dict[Node, Node] = {}           # buffer -> the allocation it lives in
    holders: dict[Node, int] = {}             # allocation -> live buffers in it
    size: dict[Node, int] = {}                # allocation -> its bytes (0: a donated input's storage)
    taken = set(reuse.values())
    live = 0
    curve = []
    for i, s in enumerate(sched.steps):
        for w in _allocations(s, info.writes[i]):
            src = inplace.get(w) or reuse.get(w)
            a = alloc_of.get(src) if src is not None else None
            if a is None and src is not None and src.kind == Kind.INPUT:
                a = alloc_of[src] = src
                holders[a], size[a] = 1, 0
            if a is None:
                a = w
                holders[a], size[a] = 0, hint(nbytes(w))   # a report and a heuristic: at the compiled shape
                live += size[a]
            alloc_of[w] = a
            holders[a] += 1
            if w in reuse:                    # the old name is dropped as the new one takes it
                holders[a] -= 1
        curve.append(live)
        for b in free_after.get(i, []):
            a = alloc_of.get(b)
            if a is None or b in outs or b in taken:
                continue
            holders[a] -= 1
            if holders[a] == 0:
                live -= size[a]
    return curve
