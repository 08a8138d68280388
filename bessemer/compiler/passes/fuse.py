"""Dataflow-level pass: decide what gets a buffer and group the rest into kernels.

Claim, then fuse, then fall back: every extern is claimed by ATen; every other
node is claimed by the kernel generator. A node the generator computes is either
*inlined* (recomputed inside each kernel that reads it, no memory traffic) or
*realized* (written to a buffer once). Realized nodes and reductions are kernel
*members*; members with the same iteration domain are grouped into one kernel:

  pointwise kernel   domain S, one loop nest over S
  reduction kernel   domain S reduced over trailing dims R: for each outer index,
                     the reductions (softmax's max and sum, layer norm's sums) run
                     over the inner index, then the pointwise members of shape S
                     and the per-row members (mean, rstd) use their results.
  scatter kernel     one scatter node alone, over its source's domain reduced over the
                     scattered (last) dim: each row of the result zeroed, then its row's
                     values added at their indices; the source and index are computed in it.

A member may join an earlier kernel when everything it reads is computed before
that kernel, or inside it at the same outer index (an "aligned" read).
"""
from __future__ import annotations

import math
from typing import Optional

from bessemer.compiler.ir.graph import Graph, Group, IndexMap, Kind, Node
from bessemer.compiler.ir.ops import is_transcendental
from bessemer.compiler.ir.schedule import Kernel, Schedule, Role, Step, member_role, normalize_map, outer_map
from bessemer.compiler.ir.views import layout_of

# Inlining heuristic: a pointwise value read by several members is recomputed in
# each unless its inlined expression costs more than this many ops (a transcendental
# counts as TRANSCENDENTAL_COST). Recomputing trades arithmetic for memory traffic:
# on CPU a buffer round trip costs about as much as a dozen cheap ops per element.
REALIZE_COST = 12
TRANSCENDENTAL_COST = 4
# A gathered load (passes/kernel_walk.py) counts as this many ops: as much as a value worth a
# buffer, so a value read by several members that gathers (DeBERTa's attention scores, read by
# its softmax's max and exp passes) is computed once, into a contiguous buffer, and not in each
# pass. gcc emits no vector gathers for this CPU's tuning: a loop with a gathered load stays
# scalar, the softmax's exp with it. DeBERTa small's scores (two gathers, a softmax over
# [32, 128, 128]; one thread, loaded machine, best of 60 interleaved, two runs): gathers in ATen
# 3.20 / 3.36 ms, realized here 3.31 / 3.10 ms, recomputed in both passes 5.55 / 5.82 ms. The
# trade: one more buffer written and read, where a GPU would rather recompute.
GATHER_COST = REALIZE_COST
# A value read by this many users or more (each a different position: the nine windows of
# a 3x3 max pool over a BatchNorm + ReLU output) is stored once when computing it costs more
# than MANY_READS_COST ops, whatever REALIZE_COST says: inlined, it is computed once per reader
# per element, and each copy carries its reader's padding masks, which keep the loop from
# vectorizing. A ResNet stem's pool over [8, 32, 64, 64] (resnet50 at scale small) took 22.6 ms
# on one thread with the BatchNorm + ReLU computed nine times per output; with the padded
# activation stored once, 0.44 ms to write it and 1.7 ms for the pool (all of that step's
# kernels: 31.5 -> 11.4 ms). The trade: one buffer of the padded activation written and read
# where few readers would rather recompute. Index arithmetic (an iota plus a constant, read by
# every window position) costs less than MANY_READS_COST and stays inline.
MANY_READS = 4
MANY_READS_COST = 6
# A reduction kernel only takes pointwise members when it has at least this many
# rows: fewer rows would run the whole fused kernel on fewer threads than we have.
MIN_ROWS_FOR_EPILOGUE = 8
# An inlined expression is at most this many ops deep (views not counted: they compose into
# one index map); the value at that depth is stored and read back. A chain of a few thousand
# elementwise ops (an unrolled recurrence, a long series of activations) would otherwise be
# one expression thousands deep, past what the walks over it take (RecursionError at about
# 1000 ops). The trade: one buffer written and read per MAX_INLINE_DEPTH ops of a single-use
# chain, where a buffer round trip costs about as much as a dozen cheap ops: under a tenth of
# such a chain's arithmetic. The deepest expression in the zoo is about half of it: a 3x3 max
# pool's backward, its window's nine comparisons, casts and selects in a row (65 ops;
# tests/compiler/test_long_chains.py).
MAX_INLINE_DEPTH = 128


# ------------------------------------------------------------------------------
class Fuser:
    def __init__(self, g: Graph):
        self.g = g
        self.users = g.users()
        self.realized: set[Node] = set()
        self.shared: set[Node] = set()      # realized only because several members read them
        self.cost_cache: dict[Node, int] = {}

    # -- what needs a buffer ------------------------------------------------------
    def buffer_backed(self, n: Node) -> bool:
        return n.kind in Group.BUFFERS or n in self.realized

    def needs_tensor(self, n: Node) -> None:
        """n is handed to ATen or returned: it must be memory (possibly a view)."""
        if n.kind in Group.GENERATED or n.kind in (Kind.POINTWISE, Kind.PAD, Kind.GATHER, Kind.REDUCE,
                                                    Kind.SCATTER):
            self.realized.add(n)
            return
        if n.kind == Kind.VIEW and layout_of(n) is None:
            # a view of a computed value: realize the viewed value, keep the view
            base = n
            while base.kind == Kind.VIEW:
                base = base.args[0]
            if base.kind == Kind.REINTERPRET:
                self.realized.add(base.args[0])
            else:
                self.needs_tensor(base)

    def cost(self, n: Node) -> int:
        if n in self.cost_cache:
            return self.cost_cache[n]
        if n in self.realized or n.kind in (Kind.INPUT, Kind.EXTERN, Kind.GETITEM, Kind.REDUCE):
            c = 1
        elif n.kind in Group.GENERATED:
            c = 0
        elif n.kind == Kind.VIEW:
            # A broadcast (a per-row value read at every element of its row: the
            # one-hot scale of a cross-entropy gradient, a layer norm's rstd) is
            # computed once per row where the kernel hoists it, so per element it
            # costs a load; counting its whole expression would store full-size
            # tensors (a [tokens, vocabulary] one-hot) to save per-row work.
            base = n.args[0]
            c = 1 if n.numel() > base.numel() else self.cost(base)
        elif n.kind == Kind.REINTERPRET:
            c = 1
        elif n.kind == Kind.PAD:
            c = 1 + self.cost(n.args[0])   # a bounds test; its argument computed inside only
        elif n.kind == Kind.GATHER:
            c = GATHER_COST + self.cost(n.args[1])   # a load at an index computed inside
        else:
            c = (TRANSCENDENTAL_COST if is_transcendental(n.op) else 1) + sum(self.cost(a) for a in n.args)
        self.cost_cache[n] = c
        return c

    def bound_depth(self) -> None:
        """Store every inlined value whose expression is MAX_INLINE_DEPTH ops deep (in graph
        order, without recursion: a value's depth is one more than its deepest inlined arg's)."""
        depth: dict[Node, int] = {}
        inlined = (Kind.POINTWISE, Kind.VIEW, Kind.PAD, Kind.GATHER)
        for n in self.g.nodes:
            if n.kind not in inlined or n in self.realized:
                continue
            d = (n.kind != Kind.VIEW) + max((depth.get(a, 0) for a in n.args), default=0)
            if d >= MAX_INLINE_DEPTH and n.kind != Kind.VIEW:
                self.realized.add(n)
                self.cost_cache.clear()
                d = 0
            depth[n] = d

    def decide_buffers(self) -> None:
        g = self.g
        for n in g.nodes:
            if n.kind == Kind.EXTERN:
                for a in n.args:
                    self.needs_tensor(a)
            elif n.kind == Kind.OUTPUT:
                for a in n.args:
                    self.needs_tensor(a)
            elif n.kind == Kind.REINTERPRET:
                base = n.args[0]
                if base.kind not in Group.BUFFERS:
                    self.realized.add(base)
            elif n.kind == Kind.GATHER:
                # read at addresses the kernel computes: the source is memory (its index is
                # a value like any other, computed in the reading kernel)
                self.needs_tensor(n.args[0])
            elif n.kind == Kind.SCATTER:
                # written at addresses the kernel computes, complete only after its kernel:
                # memory to every reader
                self.realized.add(n)
            elif n.kind == Kind.POINTWISE and n.attrs.get("dense"):
                # a dense copy of a strided operand that kernels read many times (dense_reads.py)
                self.realized.add(n)
        self.bound_depth()
        # multi-use values: recompute cheap ones, store expensive ones
        for n in g.nodes:
            if n.kind not in (Kind.POINTWISE, Kind.PAD, Kind.GATHER) or n in self.realized:
                continue
            n_users = len(self._value_users(n))
            if (n_users >= 2 and self.cost(n) > REALIZE_COST) or (
                    n_users >= MANY_READS and self.cost(n) > MANY_READS_COST):
                self.realized.add(n)
                self.shared.add(n)
                self.cost_cache.clear()

    def _value_users(self, n: Node) -> list[Node]:
        """Users of n's value, looking through index views."""
        out = []
        for u in self.users[n]:
            if u.kind == Kind.VIEW:
                out.extend(self._value_users(u))
            else:
                out.append(u)
        return out

    # -- reads of a member ----------------------------------------------------------
    def reads(self, root: Node, shape: tuple) -> list[tuple[Node, Optional[IndexMap]]]:
        """(dependency, map from root's domain index to the dependency's index).

        A dependency is a realized node, a buffer, or a reduction. Reads through a
        layout view get map None (never aligned)."""
        out: list[tuple[Node, Optional[IndexMap]]] = []
        seen: set = set()

        def walk(n: Node, m: IndexMap, top: bool):
            key = (n, m)
            if key in seen:
                return
            seen.add(key)
            if not top and (n in self.realized or n.kind in (Kind.INPUT, Kind.EXTERN, Kind.GETITEM, Kind.REDUCE)):
                out.append((n, normalize_map(m, n.shape)))
                return
            if n.kind in Group.GENERATED:
                return
            if n.kind == Kind.VIEW:
                walk(n.args[0], m.compose(n.index_map), False)
                return
            if n.kind == Kind.REINTERPRET:
                out.append((n.args[0], None))
                return
            if n.kind == Kind.PAD:
                walk(n.args[0], m.compose(n.pad_map()), False)
                return
            if n.kind == Kind.GATHER:
                # the source's memory at any element: never aligned (computed by an earlier kernel)
                lay = layout_of(n.args[0], self.realized)
                out.append((lay[0] if lay is not None else n.args[0], None))
                walk(n.args[1], m, False)
                return
            for a in n.args:
                walk(a, m, False)

        if root.kind == Kind.REDUCE:
            walk(root.args[0], IndexMap.identity(len(shape)), False)
        elif root.kind == Kind.SCATTER:
            for a in root.args:   # index and source, over the source's domain
                walk(a, IndexMap.identity(len(shape)), False)
        else:
            walk(root, IndexMap.identity(len(root.shape)), True)
        return out

    # -- grouping -------------------------------------------------------------------
    def domain(self, n: Node) -> tuple[tuple, tuple]:
        if n.kind == Kind.REDUCE:
            return n.args[0].shape, tuple(n.attrs["dims"])
        if n.kind == Kind.SCATTER:
            return n.args[1].shape, (n.scatter_dim,)
        return n.shape, ()

    def run(self) -> Schedule:
        self.decide_buffers()
        steps: list[Step] = []
        step_of: dict[Node, int] = {}
        counter = 0
        for n in self.g.nodes:
            if n.kind in (Kind.INPUT, Kind.OUTPUT, Kind.GETITEM):
                if n.kind == Kind.GETITEM:
                    step_of[n] = step_of[n.args[0]]
                continue
            if n.kind == Kind.EXTERN:
                steps.append(n)
                step_of[n] = len(steps) - 1
                continue
            if not (n.kind == Kind.REDUCE or n in self.realized):
                continue
            shape, red = self.domain(n)
            reads = self.reads(n, shape)
            lo = max([step_of.get(d, -1) for d, _ in reads], default=-1)
            placed = False
            # a scatter runs in a kernel of its own (its loops are unlike any other's)
            for i in range(len(steps) - 1, max(lo, 0) - 1, -1) if n.kind != Kind.SCATTER else ():
                k = steps[i]
                if not isinstance(k, Kernel):
                    if i <= lo:
                        break
                    continue
                if self.can_join(k, n, shape, red, reads, step_of, i):
                    if n.kind == Kind.REDUCE and not k.red:
                        k.red = red
                    k.members.append(n)
                    step_of[n] = i
                    placed = True
                    break
                if i <= lo:
                    break
            if not placed:
                k = Kernel(f"k{counter}", shape, red, [n])
                counter += 1
                steps.append(k)
                step_of[n] = len(steps) - 1
        self.unshare(steps, step_of)
        # which members are stored: realized ones, and reductions read outside
        # their kernel or through a non-aligned map
        for i, s in enumerate(steps):
            if not isinstance(s, Kernel):
                continue
            for m in s.members:
                if m in self.realized:
                    s.stores.append(m)
        for i, s in enumerate(steps):
            if not isinstance(s, Kernel):
                continue
            for m in s.members:
                for d, mp in self.reads(m, self.domain(m)[0]):
                    if d.kind == Kind.REDUCE and d not in self.realized:
                        if step_of[d] != i or not self._aligned(s, m, d, mp):
                            self.realized.add(d)
                            ks = steps[step_of[d]]
                            if d not in ks.stores:
                                ks.stores.append(d)
        return Schedule(self.g, steps, set(self.realized), step_of)

    def unshare(self, steps: list, step_of: dict) -> None:
        """A value realized for its several readers (decide_buffers) whose readers all
        landed in its own pointwise kernel, reading it element for element, needs no
        buffer: it is computed once per element there (the renderer reuses an
        expression within an element) and never written. A max pool's chain of running
        maxima and comparisons (compiler/lowering/pooling.py) is such a value: stored, each step
        of the chain was a buffer written and freed unread."""
        if not self.shared:
            return
        readers: dict[Node, list] = {}
        for i, s in enumerate(steps):
            if not isinstance(s, Kernel):
                continue
            for m in s.members:
                for d, mp in self.reads(m, self.domain(m)[0]):
                    readers.setdefault(d, []).append((i, m, mp))
        for n in [n for n in self.g.nodes if n in self.shared]:
            i = step_of.get(n)
            k = steps[i] if i is not None else None
            if not isinstance(k, Kernel) or k.red or tuple(k.shape) != tuple(n.shape):
                continue
            ident = IndexMap.identity(len(n.shape))
            rs = readers.get(n, [])
            if rs and all(j == i and tuple(m.shape) == tuple(n.shape) and mp is not None
                          and mp == normalize_map(ident, n.shape) for j, m, mp in rs):
                self.realized.discard(n)
                self.shared.discard(n)
                k.members.remove(n)
                del step_of[n]

    def _aligned(self, k: Kernel, member: Node, dep: Node, m: Optional[IndexMap]) -> bool:
        if m is None:
            return False
        if member_role(k, member) == Role.OUTER:
            # the member is evaluated per row; compare maps after lifting
            lift = outer_map(k.shape, k.red, member.shape)
            if lift is None:
                return False
            m = lift.compose(m)
            m = normalize_map(m, dep.shape)
        if member_role(k, dep) in (Role.REDUCE, Role.OUTER):
            want = outer_map(k.shape, k.red, dep.shape)
            return want is not None and normalize_map(want, dep.shape) == m
        # the reads' maps are normalized (no coefficient on a size-1 dim): so is the identity
        return dep.shape == k.shape and m == normalize_map(IndexMap.identity(len(k.shape)), dep.shape)

    def can_join(self, k: Kernel, n: Node, shape, red, reads, step_of, idx) -> bool:
        if any(m.kind == Kind.SCATTER for m in k.members):
            return False
        if n.backward and not any(m.backward for m in k.members):
            # a whole step's backward value (partition/step_remat.py) in a forward kernel
            # would be computed in the forward and kept until the backward reads it
            return False
        if shape != k.shape:
            # a per-row value (mean, rstd) joins the reduction kernel of its rows
            if not (n.kind != Kind.REDUCE and k.red and outer_map(k.shape, k.red, n.shape) is not None):
                return False
        else:
            if n.kind == Kind.REDUCE:
                if k.red and red != k.red:
                    return False
                if not k.red:
                    if not _trailing(shape, red) or _rows(shape, red) < MIN_ROWS_FOR_EPILOGUE:
                        return False
                    if any(member_role(k, m) != Role.FULL for m in k.members):
                        return False
            elif k.red:
                if not _trailing(k.shape, k.red) or _rows(k.shape, k.red) < MIN_ROWS_FOR_EPILOGUE:
                    return False
        for d, m in reads:
            if step_of.get(d, -1) == idx:
                probe = Kernel(k.name, k.shape, k.red or red, k.members)
                if not self._aligned(probe, n, d, m):
                    return False
        return True


def _trailing(shape, red) -> bool:
    """The reduced dims are the last non-trivial dims (rows are contiguous)."""
    R = len(shape)
    nontrivial = [d for d in range(R) if shape[d] != 1]
    kept = [d for d in nontrivial if d not in red]
    reds = [d for d in nontrivial if d in red]
    return not kept or not reds or max(kept) < min(reds)


def _rows(shape, red) -> int:
    return math.prod(s for i, s in enumerate(shape) if i not in red)


def fuse(g: Graph) -> Schedule:
    return Fuser(g).run()
