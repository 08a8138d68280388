"""Lowerings of the ops that move data rather than compute it: views and reshapes, padding,
joins and splits (cat, slice_scatter, split, unbind), flips, repeats, and the indexed reads
and writes (gather, scatter, scatter_add). Registered in the one table, table.LOWERINGS
(rules.py imports this module)."""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import torch

from bessemer.compiler.ir.graph import IndexMap, Kind
from bessemer.compiler.ir.ranges import within
from bessemer.compiler.ir.views import Unsupported, broadcast, permute, reshape, select, slice_, slice_bounds
from bessemer.compiler.lowering.aten_calls import scatter_add_into_zeros
from bessemer.compiler.lowering.table import aten, is_node, lowers


# gathers and scatters ---------------------------------------------------------------
@lowers(aten.scatter.value, aten.scatter.src)
def _scatter(lower, node, x, dim, index, value):
    """One index per row (a loss gradient at the target class): a comparison with the
    position along `dim`, fused like any pointwise op. Other scatters run in ATen."""
    g, out = lower.g, lower.dtype(node)
    rank = len(x.shape)
    if not is_node(index) or len(index.shape) != rank or rank == 0:
        raise Unsupported("scatter with a general index")
    dim %= rank
    if index.shape[dim] != 1 or any(index.shape[d] != x.shape[d] for d in range(rank) if d != dim):
        raise Unsupported("scatter with several indices per row")
    pos = g.iota(x.shape, torch.int64, dim)
    hit = g.pointwise("eq", [pos, broadcast(g, g.cast(index, torch.int64), x.shape)], torch.bool)
    if is_node(value):
        if len(value.shape) != rank or any(value.shape[d] < index.shape[d] for d in range(rank)):
            raise Unsupported("scatter source shape")
        src = value
        for d in range(rank):
            src = slice_(g, src, d, 0, index.shape[d], 1)
        v = broadcast(g, g.cast(src, out), x.shape)
    else:
        v = g.const(value, x.shape, out)
    return g.pointwise("where", [hit, v, g.cast(x, out)], out)


@lowers(aten.gather.default)
def _gather(lower, node, x, dim, index, sparse_grad=False):
    """A gather whose index is provably in range (ir/ranges.py: DeBERTa's clamped relative
    positions) is a gather node: the source read at an address the kernel computes. Any
    other runs in ATen, which checks every index (a kernel does not)."""
    g = lower.g
    if sparse_grad or not is_node(x) or not is_node(index) or index.dtype != torch.int64:
        raise Unsupported("gather: arguments")
    rank = len(x.shape)
    if rank == 0 or len(index.shape) != rank or any(s == 0 for s in index.shape):
        raise Unsupported("gather: a 0-d or empty tensor")
    dim %= rank
    if any(not (s == t or (isinstance(s, int) and isinstance(t, int) and s <= t))
           for e, (s, t) in enumerate(zip(index.shape, x.shape)) if e != dim):
        raise Unsupported("gather: an index larger than its source")
    if not within(index, x.shape[dim]):
        raise Unsupported("gather: an index not known to be in range")
    return g.gather(x, dim, index)


@lowers(aten.scatter_add.default)
def _scatter_add(lower, node, x, dim, index, src):
    """A scatter_add into zeros (a gather's gradient). Along the last dim, with an index proved
    in range (ir/ranges.py) and one index row per row of the result, in float32 / float64, for
    the C++ kernels: a scatter node, computed by a kernel of its own that zeroes each row of the
    result and adds the row's values in ATen's order (the same sums), with the source's
    pointwise producers computed in it; no zeros written first, no source buffer. Any other
    into zeros runs ATen's scatter_add_ on zeros made for it, not on a copy of a zeros buffer
    (aten_calls.py); the rest stays the traced call."""
    if not (is_node(x) and is_node(index) and is_node(src)) or x.kind != Kind.CONST or \
            x.attrs["value"] != 0 or math.copysign(1.0, x.attrs["value"]) < 0 or x.dtype != src.dtype or \
            not all(isinstance(s, int) for s in x.shape):
        raise Unsupported("scatter_add: not into zeros of a static shape")
    rank = len(x.shape)
    d = dim % rank if rank else 0
    if lower.target == "cpp" and rank and d == rank - 1 and src.dtype in (torch.float32, torch.float64) \
            and index.dtype == torch.int64 and len(index.shape) == rank == len(src.shape) \
            and all(isinstance(s, int) and s > 0 for s in index.shape) \
            and all(index.shape[e] == x.shape[e] for e in range(rank - 1)) \
            and all(index.shape[e] <= src.shape[e] for e in range(rank)) and within(index, x.shape[d]):
        if tuple(src.shape) != tuple(index.shape):     # ATen reads src only where index is
            for e in range(rank):
                src = slice_(lower.g, src, e, 0, index.shape[e], 1)
        return lower.g.scatter_add(tuple(x.shape), d, index, src)
    val = lower.meta(node)
    lower.externs.append(str(node.target))
    return lower.g.extern(scatter_add_into_zeros, [tuple(x.shape), dim, index, src], {},
                          tuple(val.shape), val.dtype, tuple(val.stride()))


# views ------------------------------------------------------------------------------
@lowers(aten.view.default, aten._unsafe_view.default, aten.reshape.default)
def _view(lower, node, x, size):
    return reshape(lower.g, x, size)


@lowers(aten.permute.default)
def _permute(lower, node, x, dims):
    return permute(lower.g, x, dims)


@lowers(aten.t.default)
def _t(lower, node, x):
    return permute(lower.g, x, [1, 0]) if len(x.shape) == 2 else x


@lowers(aten.transpose.int)
def _transpose(lower, node, x, d0, d1):
    rank = len(x.shape)
    dims = list(range(rank))
    dims[d0 % rank], dims[d1 % rank] = dims[d1 % rank], dims[d0 % rank]
    return permute(lower.g, x, dims)


@lowers(aten.expand.default)
def _expand(lower, node, x, size, implicit=False):
    size = list(size)
    off = len(size) - len(x.shape)
    size = [x.shape[i - off] if s == -1 else s for i, s in enumerate(size)]
    return broadcast(lower.g, x, tuple(size))


@lowers(aten.repeat.default)
def _repeat(lower, node, x, repeats):
    """x tiled `repeats` times along each dim (x's dims first padded with leading 1s): the
    argument read through a broadcast [r0, s0, r1, s1, ...] (stride 0 along each r), copied
    by the kernel that computes it or reads it (no ATen call), its copy seen as [r0 * s0, ...].
    DeBERTa repeats its relative-position keys over the batch before a matmul."""
    g = lower.g
    repeats = list(repeats)
    if not is_node(x) or len(repeats) < len(x.shape) or \
            any(not isinstance(r, int) or isinstance(r, bool) or r < 1 for r in repeats) or \
            not all(isinstance(s, int) for s in x.shape) or 0 in x.shape:
        raise Unsupported("repeat: a symbolic, empty or zero repeat")
    shape = (1,) * (len(repeats) - len(x.shape)) + tuple(x.shape)
    spread = reshape(g, x, tuple(v for s in shape for v in (1, s)))
    tiled = broadcast(g, spread, tuple(v for r, s in zip(repeats, shape) for v in (r, s)))
    return reshape(g, lower.copy(tiled), tuple(r * s for r, s in zip(repeats, shape)))


@lowers(aten.unsqueeze.default, aten.squeeze.dim, aten.squeeze.dims, aten.squeeze.default,
        torch.ops.prims.squeeze.default)
def _squeeze(lower, node, x, *dims):
    return reshape(lower.g, x, lower.shape(node))


@lowers(aten.slice.Tensor)
def _slice(lower, node, x, dim=0, start=None, end=None, step=1):
    return slice_(lower.g, x, dim, start, end, step)


@lowers(aten.constant_pad_nd.default)
def _constant_pad_nd(lower, node, x, pad, value=0):
    """Padding by a constant: a pad node (computed in the kernel that reads it, or that
    computes its argument); a negative width is a slice of the argument."""
    g = lower.g
    if not is_node(x) or len(pad) % 2 or len(pad) // 2 > len(x.shape):
        raise Unsupported("constant_pad_nd: arguments")
    if any(not isinstance(p, int) for p in pad) or not isinstance(value, (bool, int, float)):
        raise Unsupported("constant_pad_nd: a symbolic pad width or fill")
    rank = len(x.shape)
    lo, hi = [0] * rank, [0] * rank
    for i in range(len(pad) // 2):
        d = rank - 1 - i
        a, b = pad[2 * i], pad[2 * i + 1]
        if a < 0 or b < 0:
            n = x.shape[d]
            if n + min(a, 0) + min(b, 0) <= 0:
                raise Unsupported("constant_pad_nd: a dim sliced to nothing")
            x = slice_(g, x, d, max(0, -a), n - max(0, -b), 1)
        lo[d], hi[d] = max(a, 0), max(b, 0)
    if any(s == 0 for s in x.shape):
        raise Unsupported("constant_pad_nd: an empty argument")
    if not any(lo) and not any(hi):
        return lower.copy(x)   # a new tensor, as ATen's
    # the fill as ATen writes it: converted to the tensor's dtype (0.1 in bf16 is 0.10009765625)
    fill = torch.tensor(value).to(x.dtype).item()
    return g.pad(x, lo, hi, fill)


# A concatenation of at most this many tensors along its last dim is lowered; any other stays
# ATen's copy. Lowered, every element of the result tests each part's bounds (one load made,
# the others masked off) and chooses among them, computed inside each kernel that reads it: a
# rotary embedding's cat([-b, a], -1) costs no buffer and no call. Along an outer dim the join
# is what ATen copies fastest (whole rows) and its readers are many: DenseNet-121's cats of
# 2-4 feature maps along channels, lowered, read by BatchNorm's statistics, its apply and
# their backward, took its step from 51.0 to 56.5 ms (bench, small, kernels 10.8 -> 15.1 ms);
# and a cat of more parts (a DenseNet block joins up to 24) would test every part at every
# element.
CAT_MAX_PARTS = 4
# A cat of more parts than this, empty ones included, stays ATen's unlooked-at: the
# partitioner asks for the form of a cat once for each of its parts, and the backward of an
# unbind into 21,698 pieces is a cat of 21,698 (a fuzzed program's compile took minutes
# looking at all of them each time)
CAT_MAX_LISTED = 64


def cat_lowered(shapes: Sequence[tuple], dim: int) -> bool:
    """Whether a cat of parts of these shapes along `dim` is lowered: at most CAT_MAX_PARTS
    non-empty parts (and CAT_MAX_LISTED parts in all), joined along the last dim, of static
    sizes along it."""
    if len(shapes) > CAT_MAX_LISTED:
        return False
    rank = max((len(s) for s in shapes), default=0)
    if rank == 0 or dim % rank != rank - 1:
        return False
    parts = [s for s in shapes if len(s) == rank and not (isinstance(s[-1], int) and s[-1] == 0)]
    return 1 <= len(parts) <= CAT_MAX_PARTS and all(isinstance(s[-1], int) for s in parts)


def _arg(n, i: int, name: str, default):
    return n.args[i] if len(n.args) > i else n.kwargs.get(name, default)


def _cat_form(n) -> bool:
    tensors = _arg(n, 0, "tensors", ())
    if len(tensors) > CAT_MAX_LISTED:
        return False
    vals = [a.meta.get("val") if hasattr(a, "meta") else None for a in tensors]
    return all(isinstance(v, torch.Tensor) for v in vals) and cat_lowered([tuple(v.shape) for v in vals],
                                                                           _arg(n, 1, "dim", 0))


# Ops lowered in some forms only, and the test of an FX node's form: the partitioner prices a
# node of another form as the ATen call it stays (partition/cost.py)
LOWERED_FORMS: dict[Callable, Callable[[Any], bool]] = {
    aten.cat.default: _cat_form,
    aten.slice_scatter.default: lambda n: _arg(n, 5, "step", 1) == 1,
}


@lowers(aten.cat.default)
def _cat(lower, node, tensors, dim=0):
    """A concatenation as a choice by position: each part padded out to the result's extent
    along `dim` (its loads masked by its own bounds), the part whose range holds an element's
    position along `dim` chosen for it; every element is its part's, bit for bit."""
    g = lower.g
    out = lower.dtype(node)
    if not isinstance(tensors, (list, tuple)) or not all(is_node(t) for t in tensors):
        raise Unsupported("cat: arguments")
    if out.is_complex:
        raise Unsupported("cat: a complex result")
    shape = lower.shape(node)
    rank = len(shape)
    if rank == 0:
        raise Unsupported("cat: arguments")
    dim %= rank
    # ATen skips the legacy empty parts ([0], of any rank); the others contribute nothing
    parts = [t for t in tensors if len(t.shape) == rank and not (isinstance(t.shape[dim], int) and t.shape[dim] == 0)]
    if not parts or any(s == 0 for s in shape):
        raise Unsupported("cat: an empty result")
    if not cat_lowered([tuple(t.shape) for t in tensors], dim) or not isinstance(shape[dim], int):
        raise Unsupported("cat: more parts than CAT_MAX_PARTS, along another dim than the last, or of a "
                          "symbolic size along it")
    if sum(t.shape[dim] for t in parts) != shape[dim]:
        raise Unsupported("cat: parts that do not add up to the result")
    if len(parts) == 1:
        return lower.copy(g.cast(parts[0], out))
    total, padded, ends = shape[dim], [], []
    start = 0
    for t in parts:
        lo, hi = [0] * rank, [0] * rank
        lo[dim], hi[dim] = start, total - start - t.shape[dim]
        padded.append(g.pad(g.cast(t, out), lo, hi, False if out == torch.bool else 0))
        start += t.shape[dim]
        ends.append(start)
    pos = g.iota(shape, torch.int64, dim)
    acc = padded[-1]
    for p, end in zip(reversed(padded[:-1]), reversed(ends[:-1])):
        inside = g.pointwise("lt", [pos, g.const(end, shape, torch.int64)], torch.bool)
        acc = g.pointwise("where", [inside, p, acc], out)
    return acc


@lowers(aten.slice_scatter.default)
def _slice_scatter(lower, node, x, src, dim=0, start=None, end=None, step=1):
    """x with the slice [start, end) along `dim` replaced by src: src padded out to x's extent,
    chosen where an element's position along `dim` is inside the slice (a shifted gradient's
    scatter into zeros is the padded gradient, computed in the kernel that reads it). A slice
    with a step, or symbolic bounds, stays ATen's (but for a slice that is all of x: src)."""
    g = lower.g
    out = lower.dtype(node)
    if not is_node(x) or not is_node(src) or not x.shape or len(src.shape) != len(x.shape):
        raise Unsupported("slice_scatter: arguments")
    rank = len(x.shape)
    dim %= rank
    n = x.shape[dim]
    if (start or 0) == 0 and step == 1 and (end is None or end >= n) and src.shape == x.shape:
        # all of x (a backward traced with symbolic sizes keeps this no-op, end = sys.maxsize)
        return lower.copy(g.cast(src, out))
    if step != 1 or not isinstance(n, int) or not all(v is None or isinstance(v, int) for v in (start, end)):
        raise Unsupported("slice_scatter: a step, or a symbolic bound")
    start, end = slice_bounds(n, start, end)
    if src.shape[dim] != end - start or any(a != b for d, (a, b) in enumerate(zip(src.shape, x.shape)) if d != dim):
        raise Unsupported("slice_scatter: a source of another shape")
    if end == start:
        return lower.copy(g.cast(x, out))
    lo, hi = [0] * rank, [0] * rank
    lo[dim], hi[dim] = start, n - end
    p = g.pad(g.cast(src, out), lo, hi, False if out == torch.bool else 0)
    pos = g.iota(tuple(x.shape), torch.int64, dim)
    inside = g.pointwise("logical_and", [g.pointwise("ge", [pos, g.const(start, pos.shape, torch.int64)], torch.bool),
                                         g.pointwise("lt", [pos, g.const(end, pos.shape, torch.int64)], torch.bool)],
                         torch.bool)
    return g.pointwise("where", [inside, p, g.cast(x, out)], out)


@lowers(aten.flip.default)
def _flip(lower, node, x, dims):
    """x reversed along `dims`: a view whose index runs backwards (element i of a flipped dim
    of n reads n - 1 - i), copied where a kernel reads it, as ATen's flip copies."""
    rank = len(x.shape)
    if rank == 0:
        return lower.copy(x)
    flipped = {d % rank for d in dims}
    if any(not isinstance(x.shape[d], int) for d in flipped):
        raise Unsupported("flip: a symbolic size along a flipped dim")
    coef = tuple(tuple((-1 if (j == k and j in flipped) else int(j == k)) for k in range(rank)) for j in range(rank))
    off = tuple((x.shape[j] - 1 if j in flipped else 0) for j in range(rank))
    return lower.copy(lower.g.view(x, tuple(x.shape), IndexMap(coef, off, rank), "flip"))


@lowers(aten.select.int)
def _select(lower, node, x, dim, index):
    return select(lower.g, x, dim, index)


@lowers(aten.split.Tensor, aten.split_with_sizes.default)
def _split(lower, node, x, sizes, dim=0):
    dim %= len(x.shape)
    if isinstance(sizes, int):
        n = x.shape[dim]
        sizes = [min(sizes, n - i) for i in range(0, n, sizes)]
    outs, start = [], 0
    for s in sizes:
        outs.append(slice_(lower.g, x, dim, start, start + s, 1))
        start += s
    return tuple(outs)


@lowers(aten.unbind.int)
def _unbind(lower, node, x, dim=0):
    return tuple(select(lower.g, x, dim, i) for i in range(x.shape[dim % len(x.shape)]))


@lowers(aten.unfold.default)
def _unfold(lower, node, x, dim, size, step):
    """Windows of `size` every `step` along dim, as a new last dim: the view whose index
    along dim is step * i + w (w the window's index), read by the kernels (no ATen call)."""
    rank = len(x.shape)
    if rank == 0 or not isinstance(x.shape[dim % rank], int):
        raise Unsupported("unfold: a scalar, or a symbolic size along the unfolded dim")
    dim %= rank
    shape = tuple(lower.shape(node))
    coef = tuple(tuple((step if k == dim else 0) + (1 if k == rank else 0) if j == dim else int(j == k)
                       for k in range(rank + 1)) for j in range(rank))
    return lower.g.view(x, shape, IndexMap(coef, (0,) * rank, rank + 1), "unfold")
