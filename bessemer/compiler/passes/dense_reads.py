"""Graph pass: small operands that kernels read broadcast are stored dense, once.

A value the kernels read broadcast (through a view that repeats it over some dims) is loaded,
or recomputed, once per copy. Two cases are worth a buffer of their own:

- a strided view of memory (its innermost stride neither 0 nor 1): each load is strided,
  which gcc vectorizes with gathers or not at all. The view's distinct elements are copied
  into a dense buffer in its own order of dims, and the kernels read that buffer (ATen calls
  keep reading the view).
- a computed value that reads memory through at least two ops: recomputed per broadcast copy,
  in every pass of a reduction that reads it. It is stored once (the fusion pass realizes
  a node marked `dense`).

T5's relative position bias is both: one [q, k, heads] embedding lookup, seen as
[1, heads, q, k] (stride `heads` along k), masked causally in the decoder
(where(q >= k, bias, -FLT_MAX), the mask from index arithmetic in int64), then broadcast over
the batch into every attention softmax of the stack, whose three passes (max, sum of exp,
normalize) each read it. T5 small (batch 8, seq 128, 4 heads), its two decoder and two encoder
softmaxes with the bias, forward, each timed on its own (bench's kernel profile, one run each
on 2 cores, AMD EPYC with AVX2): 1.89 + 1.46 + 0.95 + 0.85 ms before, 0.66 + 0.63 + 0.45 +
0.41 ms after, the copies under 0.13 ms each (tests/compiler/test_dense_reads.py checks the
kernels' loads and their results).

The trade: a kernel launch and a buffer of the value's distinct elements, against loading
(or computing) each of them once per broadcast copy. Only values broadcast at least REUSE
times take part, of at most MAX_ELEMENTS distinct elements (the buffer lives until its last
reader); a strided view needs readers making at least MIN_READS loads of it (a few strided
loads cost less than a launch); a computed value needs at least MIN_VALUE_ELEMENTS (below that a launch costs more
than what it saves) and readers loading it VALUE_REUSE times its size.
"""
from __future__ import annotations

import math

from bessemer.compiler.ir.graph import Graph, Group, IndexMap, Kind, Node, upstream
from bessemer.compiler.ir.views import layout_of

REUSE = 2
MAX_ELEMENTS = 1 << 22
MIN_VALUE_ELEMENTS = 1 << 14
MIN_READS = 1 << 14
VALUE_REUSE = 4
_ELEMENTWISE = (Kind.POINTWISE, Kind.PAD)


def _static(n: Node) -> bool:
    return bool(n.shape) and all(isinstance(s, int) for s in n.shape)


def _strided_view(n: Node):
    """(n's broadcast dims, its number of distinct elements) when n is a view with static
    sizes of a buffer, whose innermost stride is neither 0 nor 1, else None."""
    if n.kind != Kind.VIEW or not _static(n) or n.numel() == 0:
        return None
    lay = layout_of(n)
    if lay is None or lay[0].kind not in Group.BUFFERS:
        return None
    strides = lay[1]
    if not all(isinstance(s, int) for s in strides) or n.shape[-1] == 1 or strides[-1] in (0, 1):
        return None
    broadcast = tuple(d for d, (size, st) in enumerate(zip(n.shape, strides)) if st == 0 and size > 1)
    return broadcast, math.prod(s for d, s in enumerate(n.shape) if d not in broadcast)


class _Readers:
    """What the kernels do with a value, were every elementwise value recomputed where it is
    read (the fusion pass's default for cheap ones), up to the values marked `dense`:
    `copies(n)`, how many times a view downstream repeats each element (a broadcast: the
    largest value its elements flow into, over its size), and
    `loads(n)`, how many element loads its readers make (a reduction or an ATen call reads each
    element once; a softmax's input, read by its max, exp-sum and normalize passes, three times
    its size)."""

    def __init__(self, g: Graph):
        self.users = g.users()
        self._copies: dict[Node, int] = {}
        self._loads: dict[Node, int] = {}

    def _passes(self, u: Node) -> bool:
        # (a reader with symbolic sizes ends the walk: it counts as one load per element)
        return not u.attrs.get("dense") and (u.kind in Group.VIEWS or u.kind in _ELEMENTWISE) and \
            all(isinstance(s, int) for s in u.shape)

    def _follows(self, u: Node) -> bool:
        # (a pad adds elements, it repeats none: not followed)
        return self._passes(u) and u.kind != Kind.PAD

    def _memo(self, memo: dict, n: Node, follows, combine) -> int:
        """memo[n] = combine(n), each followed user's value first (an explicit stack: a chain
        of thousands of elementwise ops is as deep)."""
        stack = [n]
        while stack:
            x = stack[-1]
            if x in memo:
                stack.pop()
                continue
            pending = [u for u in self.users[x] if follows(u) and u not in memo]
            if pending:
                stack.extend(pending)
                continue
            memo[x] = combine(x)
            stack.pop()
        return memo[n]

    def _reach(self, n: Node) -> int:
        """The most elements of a value that n's elements flow into through views and
        elementwise ops."""
        memo = self._copies
        return self._memo(memo, n, self._follows, lambda x: max(
            [x.numel()] + [memo[u] for u in self.users[x] if self._follows(u)]))

    def copies(self, n: Node) -> int:
        return self._reach(n) // max(n.numel(), 1)

    def loads(self, n: Node) -> int:
        memo = self._loads
        return self._memo(memo, n, self._passes, lambda x: max(
            sum(memo[u] if self._passes(u) else x.numel() for u in self.users[x]), x.numel()))


def _reads_memory_through_ops(n: Node) -> bool:
    """n's expression reads a buffer and holds at least two ops (views and copies left out)."""
    nodes = list(upstream(n, set(_ELEMENTWISE) | set(Group.VIEWS)))
    ops = sum(1 for x in nodes if x.kind == Kind.POINTWISE
              and not (x.attrs["op"] == "cast" and x.dtype == x.args[0].dtype))
    return ops >= 2 and any(x.kind in Group.BUFFERS for x in nodes)


def dense_broadcast_reads(g: Graph) -> Graph:
    # strided views
    readers = _Readers(g)
    inserted: dict[Node, list[Node]] = {}
    for n in list(g.nodes):
        found = _strided_view(n)
        if found is None:
            continue
        broadcast, distinct = found
        kernels = [u for u in readers.users[n] if u.kind not in (Kind.EXTERN, Kind.OUTPUT)]
        copies = max([readers.copies(u) for u in kernels], default=1) * (n.numel() // distinct)
        if not kernels or distinct > MAX_ELEMENTS or copies < REUSE or distinct * copies < MIN_READS:
            continue
        rank = len(n.shape)
        once_shape = tuple(1 if d in broadcast else s for d, s in enumerate(n.shape))
        once = g.view(n.args[0], once_shape, n.index_map, "distinct")
        dense = g.add(Node(Kind.POINTWISE, [once], once_shape, n.dtype, {"op": "cast", "keep": True, "dense": True}))
        wide = dense
        if broadcast:
            expand = IndexMap(tuple(tuple(int(j == k and j not in broadcast) for k in range(rank)) for j in range(rank)),
                              (0,) * rank, rank)
            wide = g.view(dense, n.shape, expand, "expand")
        inserted[n] = [once, dense, wide] if broadcast else [once, dense]
        for u in kernels:
            u.args = [wide if a is n else a for a in u.args]
    if inserted:
        new = {x for xs in inserted.values() for x in xs}
        order: list[Node] = []
        for n in g.nodes:
            if n in new:
                continue
            order.append(n)
            order.extend(inserted.get(n, ()))
        g.nodes = order
    # computed values: readers first, so that a value feeding one that is stored counts that
    # one's reads only
    readers = _Readers(g)
    for n in reversed(g.nodes):
        if n.kind == Kind.POINTWISE and not n.attrs.get("dense") and _static(n) and \
                MIN_VALUE_ELEMENTS <= n.numel() <= MAX_ELEMENTS and readers.copies(n) >= REUSE and \
                readers.loads(n) >= VALUE_REUSE * n.numel() and _reads_memory_through_ops(n):
            n.attrs["dense"] = True
    return g
