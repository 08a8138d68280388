"""Index helpers for lowerings: broadcasting and views as IR view nodes.

A view of a value is an affine index map (permute, expand, slice, select, adding
or dropping size-1 dims); a reshape that needs more is a `reinterpret` node that
reads the value's buffer with new strides, exactly as torch's view() would.
"""
from __future__ import annotations

import math

from bessemer.compiler.ir.graph import Graph, Group, IndexMap, Kind, Node
from bessemer.compiler.ir.symbolic import Dim


class Unsupported(Exception):
    """A lowering cannot handle these arguments: the op runs as an extern instead."""


def broadcast(g: Graph, x: Node, shape: tuple) -> Node:
    """x read as if expanded to `shape` (numpy broadcasting)."""
    shape = tuple(shape)
    if x.shape == shape:
        return x
    r, R = len(x.shape), len(shape)
    if r > R:
        raise Unsupported(f"cannot broadcast {x.shape} to {shape}")
    coef = []
    for j in range(r):
        k = j + R - r
        if x.shape[j] == shape[k]:
            coef.append(tuple(int(m == k) for m in range(R)))
        elif x.shape[j] == 1:
            coef.append((0,) * R)
        else:
            raise Unsupported(f"cannot broadcast {x.shape} to {shape}")
    return g.view(x, shape, IndexMap(tuple(coef), (0,) * r, R), "expand")


def contiguous_strides(shape) -> tuple:
    """The strides torch gives a new tensor of `shape` (a size-0 dim counts as 1)."""
    st, acc = [], 1
    for s in reversed(shape):
        st.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(st))


def is_contiguous(shape, strides) -> bool:
    """Whether `strides` lay `shape` out as a new tensor would, as torch's is_contiguous
    judges it: the stride of a size-1 dim does not matter. (Sizes may be symbolic.)"""
    return all(st == c for n, st, c in zip(shape, strides, contiguous_strides(shape)) if n != 1)


def may_overlap(shape, strides) -> bool:
    """Whether two indices of a view of this shape and these strides may name one address:
    walking its dims (size > 1) by increasing stride, each stride must exceed the span of the
    dims before it (conservative: a layout it cannot prove free of overlap counts as one)."""
    span = 0
    for stride, size in sorted((abs(st), sz) for sz, st in zip(shape, strides) if sz != 1):
        if stride <= span:
            return True
        span += stride * (size - 1)
    return False


def reads_backwards(x) -> bool:
    """Is x a view (of views) whose index runs backwards along some dim (a flip)? No torch
    tensor has such strides: ATen must be handed a copy."""
    while isinstance(x, Node) and x.kind == Kind.VIEW:
        if any(isinstance(c, int) and c < 0 for row in x.index_map.coef for c in row):
            return True
        x = x.args[0]
    return False


def layout_of(x: Node, realized=frozenset()):
    """(base buffer node, strides, offset) when x reads memory through views only.

    `realized` holds the computed nodes that own a (contiguous) buffer; before
    fusion decides them it is empty."""
    if x.kind in Group.BUFFERS:
        return x, tuple(x.stride), 0
    if x in realized:
        return x, contiguous_strides(x.shape), 0
    if x.kind == Kind.REINTERPRET:
        return x.args[0], x.view_strides, x.view_offset
    if x.kind == Kind.VIEW:
        inner = layout_of(x.args[0], realized)
        if inner is None:
            return None
        base, st, off = inner
        st, off = x.index_map.map_strides(st, off)
        return base, st, off
    return None


def reshape(g: Graph, x: Node, shape) -> Node:
    shape = tuple(s if isinstance(s, Dim) else int(s) for s in shape)
    if any(s == -1 for s in shape):
        known = math.prod(s for s in shape if s != -1)
        shape = tuple((x.numel() // max(known, 1)) if s == -1 else s for s in shape)
    if shape == x.shape:
        return x
    # Only inserting/removing size-1 dims: an index map, no memory needed.
    if [s for s in shape if s != 1] == [s for s in x.shape if s != 1]:
        src = [i for i, s in enumerate(x.shape) if s != 1]
        dst = [k for k, s in enumerate(shape) if s != 1]
        R = len(shape)
        coef = [[0] * R for _ in x.shape]
        for i, k in zip(src, dst):
            coef[i][k] = 1
        return g.view(x, shape, IndexMap(tuple(map(tuple, coef)), (0,) * len(x.shape), R), "reshape")
    lay = layout_of(x)
    if lay is None:
        # views rearranging a computed value (a channels-last value is one computed [N, H, W, C]
        # and seen as [N, C, H, W], lowering/rules.in_order): that value realized, in its own
        # order, and read through the view where one can express the reshape
        base = x
        while base.kind == Kind.VIEW:
            base = base.args[0]
        if base is not x and base.kind not in Group.BUFFERS and base.numel() == x.numel():
            lay = layout_of(x, frozenset([base]))
    if lay is not None:
        base, st, off = lay
        # (torch's view() is not asked: under the trace's Python dispatcher its meta kernel
        # gives strides where the view has none: [4, 2, 1, 2] with strides (2, 8, 1, 1) as
        # [4, 1, 4] came out (2, 16, 1), its elements overlapping)
        new = view_strides(x.shape, st, shape)
        if new is not None:
            return g.reinterpret(base, shape, new, off, "reshape")
    # A computed value (or a layout view cannot express): the fusion pass realizes
    # `x` as a contiguous buffer and this view reads it.
    return g.reinterpret(x, shape, contiguous_strides(shape), 0, "reshape")


def view_strides(old_shape, old_strides, new_shape):
    """The strides of a tensor of `old_shape`/`old_strides` viewed as `new_shape` without
    a copy (as torch's view() computes them), or None when no view can express it.
    Works on symbolic sizes: each comparison is a decision on the sizes."""
    if not old_shape:
        return tuple(1 for _ in new_shape)
    if any(s == 0 for s in old_shape):
        return None
    new = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base = old_strides[-1]
    tensor_numel, view_numel = 1, 1
    for d in range(len(old_shape) - 1, -1, -1):
        tensor_numel = tensor_numel * old_shape[d]
        # a chunk ends where the next (outer) dim does not continue it in memory
        if d == 0 or (old_shape[d - 1] != 1 and old_strides[d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new[view_d] = view_numel * chunk_base
                view_numel = view_numel * new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk_base = old_strides[d - 1]
                tensor_numel, view_numel = 1, 1
    if view_d != -1:
        return None
    return tuple(new)


def permute(g: Graph, x: Node, dims) -> Node:
    rank = len(x.shape)
    dims = [d % rank for d in dims]
    if dims == list(range(rank)):
        return x
    coef = [[0] * rank for _ in range(rank)]
    for k, d in enumerate(dims):
        coef[d][k] = 1
    return g.view(x, tuple(x.shape[d] for d in dims), IndexMap(tuple(map(tuple, coef)), (0,) * rank, rank),
                  "permute")


def slice_bounds(n, start, end) -> tuple:
    """[start, end) of a slice of a dim of n elements as Python resolves it: None for the ends,
    negative bounds counted from the end, then clamped into [0, n]."""
    start = 0 if start is None else start
    end = n if end is None else end
    start = max(0, min(n, start + n if start < 0 else start))
    return start, max(start, min(n, end + n if end < 0 else end))


def slice_(g: Graph, x: Node, dim: int, start, end, step: int) -> Node:
    rank = len(x.shape)
    dim %= rank
    n = x.shape[dim]
    start, end = slice_bounds(n, start, end)
    length = (end - start + step - 1) // step
    if start == 0 and length == n and step == 1:
        return x
    coef = [tuple((step if (j == dim and k == dim) else int(j == k)) for k in range(rank)) for j in range(rank)]
    off = tuple(start if j == dim else 0 for j in range(rank))
    shape = tuple(length if j == dim else s for j, s in enumerate(x.shape))
    return g.view(x, shape, IndexMap(tuple(coef), off, rank), "slice")


def select(g: Graph, x: Node, dim: int, index: int) -> Node:
    rank = len(x.shape)
    dim %= rank
    index = index + x.shape[dim] if index < 0 else index
    R = rank - 1
    coef, off = [], []
    k = 0
    for j in range(rank):
        if j == dim:
            coef.append((0,) * R)
            off.append(index)
        else:
            coef.append(tuple(int(m == k) for m in range(R)))
            off.append(0)
            k += 1
    shape = tuple(s for j, s in enumerate(x.shape) if j != dim)
    return g.view(x, shape, IndexMap(tuple(coef), tuple(off), R), "select")
