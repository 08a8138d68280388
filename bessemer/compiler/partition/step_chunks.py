"""The whole step's vocabulary-sized region, a block of rows at a time (`bessemer.compile_step`).

A language model's step spends the most memory per sample on one region: the lm head's
product `logits = h @ W^T`, [rows, vocabulary], the cross-entropy's row statistics, the
logits' gradient (softmax minus the one-hot target, scaled) and the two products that
consume it, `dh = dlogits @ W` and `dW = dlogits^T @ h`. Every [rows, vocabulary] tensor
of it is read only by work that treats each row on its own, and what leaves the region
is either row-indexed and narrow (dh, [rows, hidden]) or a sum over rows (the loss, dW).
So the region can run a block of rows at a time: per block, the logits, their statistics,
the loss's partial sum, their gradient, dh's rows and dW's partial sum; the blocks'
partial sums are added and dh's rows joined. No [rows, vocabulary] tensor exists at
once, only one block's.

In the whole step this is possible where two graphs cannot: the gradient's seed is a
constant of the program (`full([], 1)`), so the logits' gradient needs nothing computed
after the loss (the count of targets a mean divides by depends only on the labels). The
region's blocks run where the forward computed the logits, before the loss is known;
each block's logits die inside the block.

What is recognized, from an `mm`/`addmm` whose output is [N, V] (rows first), is the set
of its descendants that are row-wise: pointwise ops (operands of the same rank indexed by
the same row, others broadcast), reductions and softmaxes over dimensions other than the
first, gather, scatter, slices and slice_scatter along another dimension, views (which
keep the flat order), permutes that keep the first dimension first, products `x @ w` with
w not row-indexed (where the region ends: what reads dh is the model's own backward),
and factories of [N, ...] (the zeros the target's one-hot is scattered into), with the
row-indexed inputs computed only for it. What leaves it: a sum over the rows (the loss's
sum, a bias's gradient), a product over the rows `p^T @ q` (dW), or a row-indexed value
(dh), joined from its blocks. Anything else a row-indexed value flows into keeps that
value whole, and the region is not cut when what leaves it or comes into it row by row is
not at least MIN_RATIO times smaller than its largest tensor (the region would save
nothing: an MLP's activation read by its backward, a backward product of saved
activations). Random ops are not blocked (the draws would change order).

Rows are counted in groups: G is the greatest common divisor of the first dimensions of
every member and row-indexed input, and a block is a run of whole groups. With the
logits' rows kept (transformers' loss shifts the labels) G is the row count and a block
CHUNK_ROWS rows; where the loss drops each sequence's last position
(`logits[:, :-1].reshape(-1, V)`, a [B, T - 1, V] copy) the region passes through
[B, T, V] views and G is the batch: a block is whole sequences.

The trade: ATen's products run a block at a time, each reading W again (CHUNK_ROWS keeps
each block large enough that the products' speed is their full one: MKL's own row
blocking is of that order), and the partial sums are added in another order than one
product's (float32's last bits of the loss and dW; the tests compare with eager's
tolerance). Measured by `bessemer bench memory` (docs/memory.md).
"""
from __future__ import annotations

import heapq
import logging
import math
from typing import Optional

import torch
import torch.fx as fx

from bessemer.compiler.partition.cost import _is_impure, _is_random

log = logging.getLogger("bessemer")

aten = torch.ops.aten
prims = torch.ops.prims

# rows per block: 256 rows is of the order of MKL's own row blocking of a product, so a
# block's products run as fast as the whole one's; the block's [256, V] tensors are what
# the region still holds (8 MiB at V = 8192 in float32)
CHUNK_ROWS = 256
# the region is cut only when its largest tensor is at least this many times larger than
# anything row-indexed that enters or leaves it (what the blocks cannot save)
MIN_RATIO = 4
# nor when its largest tensor is under this: each block adds calls (three products and a few
# kernels, tens of microseconds), which a step of a few milliseconds feels more than it
# feels the megabyte saved
MIN_BYTES = 2 * 2 ** 20

_REDUCTIONS = {aten.sum.dim_IntList, aten.amax.default, aten.amin.default, aten.mean.dim,
               aten.logsumexp.default}
_SOFTMAX = {aten._log_softmax.default: 1, aten._softmax.default: 1,
            aten._log_softmax_backward_data.default: 2, aten._softmax_backward_data.default: 2}
_INDEXED = {aten.gather.default, aten.scatter.value, aten.scatter.src, aten.scatter_add.default}
_VIEWS = {aten.view.default, aten._unsafe_view.default, aten.reshape.default}
_COPIES = {aten.alias.default, aten.clone.default, aten.detach.default, aten._to_copy.default}
_FACTORIES = {aten.full.default, aten.zeros.default, aten.ones.default}


def _val(n):
    return n.meta.get("val") if isinstance(n, fx.Node) else None


def _tensor(n) -> Optional[torch.Tensor]:
    v = _val(n)
    if isinstance(v, torch.Tensor) and all(isinstance(d, int) for d in v.shape):
        return v
    return None


def _dims(d, rank: int) -> Optional[list[int]]:
    """A reduction's dims, normalized; None for "all"."""
    if d is None or (isinstance(d, (list, tuple)) and len(d) == 0):
        return None
    d = [d] if isinstance(d, int) else list(d)
    return [x % max(rank, 1) for x in d]


class _Region:
    """The row-wise descendants of one product, what they read and what leaves them."""

    def __init__(self, root: fx.Node):
        self.root = root
        self.groups = 1                         # G: every member's first dimension is G x its own r
        self.members: list[fx.Node] = []        # in graph order, root first
        self.inside: set[fx.Node] = set()
        self.row_inputs: set[fx.Node] = set()   # nodes from outside read a block of rows at a time
        self.sums: list[fx.Node] = []           # sums over the rows (sum nodes, p^T @ q products)
        self.transposes: set[fx.Node] = set()   # permute(p, [1, 0]) read by those products
        self.outputs: list[fx.Node] = []        # members something outside reads whole

    # --- which nodes are row-wise -------------------------------------------------------

    def _operand(self, a, out: torch.Tensor) -> bool:
        """a, as an operand of a row-wise node whose value is out: a member with out's rank
        and rows, or an outside value (row-indexed when it has them too; else broadcast)."""
        if not isinstance(a, fx.Node):
            return True
        v = _tensor(a)
        if a in self.inside:
            return v is not None and v.dim() == out.dim() and v.shape[0] == out.shape[0]
        if a in self.descendants:
            return False        # computed from the root, but not row by row
        if v is None:
            return not isinstance(_val(a), torch.Tensor)
        if v.dim() == out.dim() and v.shape[0] == out.shape[0] > 1:
            self.pending_rows.append(a)
        return True

    def _row_wise(self, n: fx.Node) -> bool:
        t = n.target
        out = _tensor(n)
        if not isinstance(t, torch._ops.OpOverload) or out is None or out.dim() == 0 or out.shape[0] < 2:
            return False
        if torch.Tag.nondeterministic_seeded in t.tags or t._schema.is_mutable:
            return False
        rank = out.dim()
        src = n.args[0] if n.args else None
        self.pending_rows = []
        # the region ends at its products by a matrix (dh = dlogits @ W: narrow again); what
        # reads them is the model's own backward, not the region's
        if any(a in self.inside and a is not self.root and a.target in (aten.mm.default, aten.addmm.default)
               for a in n.all_input_nodes):
            return False
        if t in (aten.mm.default, aten.addmm.default):
            x, w = (n.args[0], n.args[1]) if t is aten.mm.default else (n.args[1], n.args[2])
            if x not in self.inside or not isinstance(w, fx.Node) or w in self.descendants:
                return False
            if t is aten.addmm.default and not self._operand(n.args[0], out):
                return False
            return not n.kwargs or t is aten.addmm.default
        if t in _REDUCTIONS:
            if src not in self.inside:      # a member: a tensor of static shape
                return False
            d = _dims(n.args[1] if len(n.args) > 1 else n.kwargs.get("dim"), _tensor(src).dim())
            return d is not None and 0 not in d
        if t in _SOFTMAX:
            dim = n.args[_SOFTMAX[t]] % rank
            return dim != 0 and all(self._operand(a, out) for a in n.args[:_SOFTMAX[t]])
        if t in _INDEXED:
            dim = n.args[1] % rank
            return dim != 0 and all(self._operand(a, out) for a in (n.args[0], n.args[2], *n.args[3:]))
        if t is aten.slice.Tensor:
            dim = n.args[1] if len(n.args) > 1 else n.kwargs.get("dim", 0)
            return src in self.inside and dim % rank != 0
        if t is aten.slice_scatter.default:
            dim = (n.args[2] if len(n.args) > 2 else n.kwargs.get("dim", 0)) % rank
            return dim != 0 and self._operand(src, out) and self._operand(n.args[1], out) and \
                (src in self.inside or n.args[1] in self.inside)
        if t in _VIEWS:
            # the flat order is kept: rows of a group stay in it when G divides both sides
            return src in self.inside
        if t is aten.permute.default:
            return src in self.inside and n.args[1][0] % rank == 0
        if t is aten.unsqueeze.default:
            return src in self.inside and n.args[1] % rank != 0
        if t in (prims.squeeze.default, aten.squeeze.dims, aten.squeeze.dim):
            if src not in self.inside:
                return False
            d = _dims(n.args[1], _tensor(src).dim())
            return d is not None and 0 not in d
        if t is aten.expand.default:
            return src in self.inside and _tensor(src).dim() == rank and _tensor(src).shape[0] == out.shape[0]
        if t in _COPIES:
            if src not in self.inside:
                return False
            return t is not aten._to_copy.default or n.kwargs.get("device", out.device) == out.device
        if torch.Tag.pointwise in t.tags:
            # rows first in the output: some operand has the rows (the others broadcast)
            return all(self._operand(a, out) for a in (*n.args, *n.kwargs.values())) and \
                (any(a in self.inside for a in n.all_input_nodes) or bool(self.pending_rows))
        return False

    def _transpose_of_rows(self, a) -> bool:
        """a = permute(p, [1, 0]) of a member or of an outside [N, k] value."""
        if not isinstance(a, fx.Node) or a.op != "call_function" or a.target is not aten.permute.default \
                or list(a.args[1]) != [1, 0]:
            return False
        p = a.args[0]
        if p in self.inside:
            return True
        v = _tensor(p)
        return p not in self.descendants and v is not None and v.dim() == 2

    def _rows_operand(self, b) -> bool:
        if b in self.inside:
            return True
        v = _tensor(b)
        return isinstance(b, fx.Node) and b not in self.descendants and v is not None and v.dim() == 2

    def _sum_over_rows(self, n: fx.Node) -> bool:
        t = n.target
        if t is aten.sum.dim_IntList:
            src = n.args[0]
            if src not in self.inside or set(n.kwargs) - {"dtype"}:
                return False
            d = _dims(n.args[1] if len(n.args) > 1 else None, _tensor(src).dim())
            return d is None or 0 in d
        if t is aten.mm.default and not n.kwargs:
            a, b = n.args
            if not (self._transpose_of_rows(a) and self._rows_operand(b)):
                return False
            return a.args[0] in self.inside or b in self.inside
        return False

    def grow(self, order: dict) -> None:
        self.descendants = _descendants(self.root)
        self.members, self.inside = [self.root], {self.root}
        self.pending_rows = []
        out = _tensor(self.root)
        self._operand(self.root.args[0] if self.root.target is aten.mm.default else self.root.args[1], out)
        self.row_inputs = set(self.pending_rows)
        if self.root.target is aten.addmm.default:
            self.pending_rows = []
            self._operand(self.root.args[0], out)
            self.row_inputs |= set(self.pending_rows)
        dead = {n for n in self.descendants if _dead(n)}
        # only readers of members can join (every accepted node reads its descendant inputs
        # from members), visited in graph order so that a node's members are known before it
        frontier, seen = [(order[u], u) for u in self.root.users], set(self.root.users)
        heapq.heapify(frontier)
        while frontier:
            _, n = heapq.heappop(frontier)
            if n.op != "call_function" or n in dead:
                continue
            if self._row_wise(n):
                self.members.append(n)
                self.inside.add(n)
                self.row_inputs |= set(self.pending_rows)
            elif n.target is aten.permute.default and self._transpose_of_rows(n):
                self.transposes.add(n)
            else:
                if self._sum_over_rows(n):
                    self.sums.append(n)
                    if n.target is aten.mm.default:
                        for a in (n.args[0].args[0], n.args[1]):
                            if a not in self.inside:
                                self.row_inputs.add(a)
                continue
            for u in n.users:          # a member's or a transpose's readers may join
                if u not in seen:
                    seen.add(u)
                    heapq.heappush(frontier, (order[u], u))
        # a transpose read by anything but a sum over rows keeps its member whole
        for tr in list(self.transposes):
            if not all(u in self.sums for u in tr.users):
                self.transposes.discard(tr)
                self.sums = [s for s in self.sums if not (s.target is aten.mm.default and s.args[0] is tr)]
        for tr in self.transposes:
            if tr.args[0] not in self.inside:
                self.row_inputs.add(tr.args[0])
        self._absorb()
        self.members.sort(key=order.__getitem__)
        done = set(self.members) | set(self.sums) | self.transposes | dead
        self.outputs = [m for m in self.members if any(u not in done for u in m.users)]

    def _absorb(self) -> None:
        """Row-indexed inputs computed row by row from other inputs and read only by the
        region are computed a block at a time too (the target's one-hot: a scatter into
        [N, V] zeros, scaled by the loss's gradient, and the row sums of it). The largest
        such set: every row-indexed ancestor first, then those read outside or not row by
        row taken out until none is."""
        grow = [a for a in self.row_inputs if a.op == "call_function" and a.target not in _FACTORIES]
        cand = set()
        while grow:
            a = grow.pop()
            v = _tensor(a)
            if a in cand or a in self.descendants or v is None or v.dim() == 0 or v.shape[0] < 2 \
                    or a.op != "call_function" or a.target in _FACTORIES:
                continue
            cand.add(a)
            grow.extend(a.all_input_nodes)
        inside, done = set(self.inside), self.inside | set(self.sums) | self.transposes
        changed = True
        while changed:
            changed = False
            self.inside = inside | cand
            for a in list(cand):
                if all(u in done or u in cand for u in a.users) and self._row_wise(a):
                    continue
                cand.discard(a)
                changed = True
                self.inside = inside | cand
        self.inside = inside | cand
        for a in cand:
            self.pending_rows = []
            self._row_wise(a)
            self.row_inputs |= set(self.pending_rows)
        self.row_inputs -= cand
        self.members.extend(cand)

    def worth_it(self) -> bool:
        """Sets the groups G (the greatest common divisor of every member's and row-indexed
        input's first dimension: a block is a run of whole groups, a sequence where the loss
        drops each sequence's last position) and the groups a block takes; True when the
        region has at least two blocks and is wide enough to gain from them."""
        if len(self.members) < 2:
            return False
        firsts = [_tensor(a).shape[0] for a in (*self.members, *self.row_inputs)]
        self.groups = math.gcd(*firsts)
        rows = _tensor(self.root).shape[0] // self.groups       # the product's rows in a group
        self.per_block = max(1, CHUNK_ROWS // rows)
        if self.groups < 2 * self.per_block:
            return False
        widest = max(_tensor(m).nbytes for m in self.members)
        if widest < MIN_BYTES:
            return False
        narrow = [_tensor(m).nbytes for m in self.outputs] + \
            [_tensor(a).nbytes for a in self.row_inputs if a.target not in _FACTORIES]
        return widest >= MIN_RATIO * max(narrow, default=1)


def _is_view(n) -> bool:
    return isinstance(n, fx.Node) and n.op == "call_function" and n.target in (aten.view.default,
                                                                                aten._unsafe_view.default)


def _dead(n: fx.Node) -> bool:
    """Read by nothing and without effects (a view left by _collapse_views)."""
    return n.op == "call_function" and not n.users and not _is_impure(n)


def _descendants(root: fx.Node) -> set:
    seen, stack = set(), [root]
    while stack:
        for u in stack.pop().users:
            if u not in seen:
                seen.add(u)
                stack.append(u)
    return seen


def _collapse_views(root: fx.Node) -> list:
    """Among root's descendants, view(view(x, s1), s2) -> view(x, s2) and a view to x's own
    shape -> x, for a contiguous x (any view of it is valid): the logits' [B, T, V] round trip
    to [B*T, V] and back keeps the rows first, so that a batch of one long sequence still has
    rows to block. Returns what to restore (`_restore`) if the region is not cut after all."""
    undo = []

    def edit(n: fx.Node, change) -> None:
        undo.append((n, n.args, dict(n.kwargs)))
        change()
    changed = True
    while changed:
        changed = False
        for u in _descendants(root):
            if not _is_view(u) or not u.users:
                continue
            src = u.args[0]
            while _is_view(src) and _tensor(src.args[0]) is not None and _tensor(src.args[0]).is_contiguous():
                edit(u, lambda u=u, x=src.args[0]: u.update_arg(0, x))
                src, changed = src.args[0], True
            v, s = _tensor(u), _tensor(src)
            if v is not None and s is not None and s.is_contiguous() and tuple(v.shape) == tuple(s.shape):
                for user in list(u.users):
                    edit(user, lambda user=user, u=u, x=src: user.replace_input_with(u, x))
                changed = True
    return undo


def _restore(undo: list) -> None:
    for n, args, kwargs in reversed(undo):
        n.args, n.kwargs = args, kwargs


def _call(g: fx.Graph, target, args, kwargs, like: fx.Node) -> fx.Node:
    n = g.call_function(target, tuple(args), dict(kwargs))
    vals = fx.node.map_arg((tuple(args), dict(kwargs)), lambda a: a.meta["val"])
    n.meta = {k: v for k, v in like.meta.items() if k not in ("val", "tensor_meta")}
    n.meta["val"] = target(*vals[0], **vals[1])
    return n


def _block_rows(shape, n: fx.Node, groups: int, g0: int, g1: int) -> list:
    """shape (n's size argument) for groups g0..g1 of n's value."""
    return [(g1 - g0) * (_tensor(n).shape[0] // groups), *shape[1:]]


def _cut(g: fx.Graph, r: _Region) -> list[fx.Node]:
    """Builds the blocks after the graph's last node; returns every node made, in order."""
    made: list[fx.Node] = []
    acc: dict[fx.Node, fx.Node] = {}
    parts: dict[fx.Node, list] = {m: [] for m in r.outputs}
    G = r.groups
    for g0 in range(0, G, r.per_block):
        g1 = min(G, g0 + r.per_block)
        env: dict[fx.Node, fx.Node] = {}

        def block(a):
            if a in env:
                return env[a]
            if a in r.row_inputs:
                if a.target in _FACTORIES:
                    size = _block_rows(a.args[0], a, G, g0, g1)
                    env[a] = _call(g, a.target, (size, *a.args[1:]), a.kwargs, a)
                else:
                    per = _tensor(a).shape[0] // G
                    env[a] = _call(g, aten.slice.Tensor, (a, 0, g0 * per, g1 * per), {}, a)
                made.append(env[a])
                return env[a]
            return a

        for m in r.members:
            args = list(fx.node.map_arg(m.args, block))
            if m.target in _VIEWS or m.target is aten.expand.default:
                args[1] = _block_rows(list(m.args[1]), m, G, g0, g1)
            env[m] = _call(g, m.target, args, fx.node.map_arg(m.kwargs, block), m)
            made.append(env[m])
        for s in r.sums:
            if s.target is aten.mm.default:
                tr = s.args[0]
                a = _call(g, aten.permute.default, (block(tr.args[0]), [1, 0]), {}, tr)
                b = block(s.args[1])
                made.append(a)
                if s in acc:
                    part = _call(g, aten.addmm.default, (acc[s], a, b), {}, s)
                else:
                    part = _call(g, aten.mm.default, (a, b), {}, s)
            else:
                part = _call(g, s.target, fx.node.map_arg(s.args, block), s.kwargs, s)
                if s in acc:
                    made.append(part)
                    part = _call(g, aten.add.Tensor, (acc[s], part), {}, s)
            made.append(part)
            acc[s] = part
        for m in r.outputs:
            parts[m].append(env[m])
    for m in r.outputs:
        cat = _call(g, aten.cat.default, (parts[m], 0), {}, m)
        made.append(cat)
        m.replace_all_uses_with(cat)
    for s in r.sums:       # each block's part is the op itself, so of its dtype
        s.replace_all_uses_with(acc[s])
    return made


def _moved(r: _Region, order: dict) -> set:
    """What the blocks read that the graph computes after the region's product (the labels'
    preparation, the loss's gradient scale), with what that reads from there on: it moves
    before the blocks. None of it is computed from the region (an input of the region is
    not a descendant of its product)."""
    at = order[r.root]
    parts = [*r.members, *r.sums, *r.transposes]
    stack = [a for n in parts for a in n.all_input_nodes if a not in r.inside and a not in r.transposes]
    moved = set()
    while stack:
        a = stack.pop()
        if a in moved or order[a] < at:
            continue
        moved.add(a)
        stack.extend(a.all_input_nodes)
    return moved


def _reorder(g: fx.Graph, made: list[fx.Node], moved: set, at: int, order: dict) -> None:
    """Puts the blocks where the region's product was, one block after the other, with what
    they read moved before them; everything else keeps its order."""
    before = [n for n in order if order[n] < at]
    later = sorted(moved, key=order.__getitem__)
    rest = [n for n in order if order[n] >= at and n not in moved]
    seq = before + later + made + rest
    assert len(seq) == len(set(seq)) == len(g.nodes)
    prev = None
    for n in seq:
        if prev is not None:
            prev.append(n)
        prev = n


def _region(root: fx.Node, order: dict) -> Optional[tuple[_Region, set]]:
    """root's region and what moves before its blocks, when it is worth cutting."""
    r = _Region(root)
    r.grow(order)
    if not r.worth_it():
        return None
    moved = _moved(r, order)
    # a random draw or a side effect moved earlier would change what the step computes
    if any(_is_random(a) or _is_impure(a) for a in moved):
        return None
    return r, moved


def chunk_rows(gm: fx.GraphModule) -> int:
    """Runs each vocabulary-sized region of the whole step's graph a block of rows at a
    time (see the module's docstring); returns the number of regions cut."""
    g = gm.graph
    cut, tried = 0, set()
    while True:
        order = {n: i for i, n in enumerate(g.nodes)}
        region = None
        for n in g.nodes:
            if n.op != "call_function" or n.target not in (aten.mm.default, aten.addmm.default) or n in tried:
                continue
            v, x = _tensor(n), _tensor(n.args[0] if n.target is aten.mm.default else n.args[1])
            # a region's widest tensor is at least its product's output; its input is row-indexed
            if v is None or x is None or v.dim() != 2 or v.shape[0] < 2 * CHUNK_ROWS or \
                    v.shape[1] < MIN_RATIO * x.shape[1] * x.element_size() // v.element_size():
                continue
            tried.add(n)
            found = _region(n, order)
            if found is None:
                # a region whose rows are only grouped once its views' round trips are gone
                undo = _collapse_views(n)
                found = _region(n, order) if undo else None
                if found is None:
                    _restore(undo)
                    continue
            region, moved = found
            break
        if region is None:
            break
        made = _cut(g, region)
        _reorder(g, made, moved, order[region.root], order)
        g.eliminate_dead_code()
        cut += 1
        log.info("bessemer: the step runs a %s region (%d ops) in %d blocks",
                 list(_tensor(region.root).shape), len(region.members),
                 -(-region.groups // region.per_block))
    if cut:
        g.lint()
        gm.recompile()
    return cut
