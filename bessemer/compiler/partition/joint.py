"""Rewrites of the joint forward-backward graph before it is partitioned, so that the forward
does not write what only the backward reads.

The one that matters is cross-entropy. Its traced form computes the whole log-softmax,
`x - amax - log(sum(exp(x - amax)))`, a [rows, classes] tensor, only to `gather` one
value per row from it; the backward reads it again (exp(log-softmax) is the softmax). So
the forward writes a second tensor the size of the logits and the plan saves it. Since the
subtracted row statistics are constant along the gathered dimension,

    gather(x - r, dim, index) == gather(x, dim, index) - r

and with the gather moved onto the logits nothing in the forward reads the log-softmax any
more: the forward keeps the logits (returned anyway) and two row statistics, and the
backward recomputes the log-softmax inside the kernel that writes the logits' gradient.

`full_like(x, v)`, the zeros the gradient is scattered into, only reads x's metadata; it
becomes `full(shape, v)`, so it does not make x live in the backward. The same holds for the
input a pooling backward is given (ATen reads its sizes and memory format, never its values):
it becomes an uninitialized tensor of the same sizes and strides. Otherwise the backward
recomputes (or the forward saves) a CNN's whole pre-pool activation only for its shape.

A max pool left to ATen (windows that do not overlap, see pooling.py) over many channels
reads a channels-last copy of its input, where ATen's kernel is vectorized, and its outputs
are copied back to eager's layout (CHANNELS_LAST_POOL_MIN_CHANNELS). CPU convolutions read
channels-last operands (channels_last.py).

A linear layer's `addmm(bias, x, w)` whose every use is elementwise (through views) becomes
`mm(x, w) + bias`: ATen's CPU addmm first copies the broadcast bias into its output and then
accumulates the product onto it, a pass over the output the kernel that reads it anyway (the
GELU, the residual add before a LayerNorm) does for the price of reading one row
(_bias_into_consumers).

A concatenation of one tensor with empty ones (GPT-2's key and value joined to an empty
cache) read only by attention becomes that tensor (_cat_of_one_part).
"""
from __future__ import annotations

import operator
from typing import Optional

import torch
import torch.fx as fx

from bessemer.compiler.partition.channels_last import convolutions_channels_last

aten = torch.ops.aten


def _val(n):
    return n.meta.get("val") if isinstance(n, fx.Node) else None


def _static(v) -> bool:
    return isinstance(v, torch.Tensor) and all(isinstance(d, int) for d in (*v.shape, *v.stride()))


def _row_constant(src: fx.Node, dim: int, index: fx.Node):
    """(x, r) when src = x - r with r constant along `dim` and the gather reads every row of
    src (so that r broadcasts over the gathered values as over src); else None."""
    if src.op != "call_function" or src.target is not aten.sub.Tensor or src.kwargs.get("alpha", 1) != 1:
        return None
    x, r = src.args
    vs, vx, vr, vi = _val(src), _val(x), _val(r), _val(index)
    if not all(_static(v) for v in (vs, vx, vr, vi)):
        return None
    if vx.shape != vs.shape or vr.dim() != vs.dim() or vr.shape[dim] != 1 or len({vx.dtype, vr.dtype, vs.dtype}) != 1:
        return None
    if any(vi.shape[d] != vs.shape[d] for d in range(vs.dim()) if d != dim):
        return None
    if any(vr.shape[d] not in (1, vs.shape[d]) for d in range(vs.dim())):
        return None
    return x, r


def _gather_through_row_constants(g: fx.Graph) -> int:
    changed = 0
    for n in list(g.nodes):
        if n.op != "call_function" or n.target is not aten.gather.default or n.kwargs.get("sparse_grad"):
            continue
        src, dim, index = n.args[:3]
        dim = dim % _val(src).dim() if _val(src) is not None else dim
        parts = []
        while (xr := _row_constant(src, dim, index)) is not None:
            src, r = xr
            parts.append(r)
        if not parts:
            continue
        with g.inserting_before(n):
            out = g.call_function(aten.gather.default, (src, dim, index))
            out.meta["val"] = aten.gather.default(_val(src), dim, _val(index))
            for r in parts:
                prev = out
                out = g.call_function(aten.sub.Tensor, (prev, r))
                out.meta["val"] = aten.sub.Tensor(_val(prev), _val(r))
        n.replace_all_uses_with(out)
        g.erase_node(n)
        changed += 1
    return changed


def _full_like_by_shape(g: fx.Graph) -> int:
    changed = 0
    for n in list(g.nodes):
        if n.op != "call_function" or n.target is not aten.full_like.default:
            continue
        x, value = n.args[:2]
        v = _val(x)
        if not _static(v) or not v.is_contiguous() or n.kwargs.get("memory_format") not in (
                None, torch.preserve_format, torch.contiguous_format):
            continue
        kw = {"dtype": n.kwargs.get("dtype") or v.dtype, "layout": torch.strided,
              "device": n.kwargs.get("device") or v.device, "pin_memory": False}
        with g.inserting_before(n):
            f = g.call_function(aten.full.default, (list(v.shape), value), kw)
        f.meta = dict(n.meta)
        n.replace_all_uses_with(f)
        g.erase_node(n)
        changed += 1
    return changed


# Pooling backwards whose second argument, the forward's input, is read for its sizes and
# memory format only (ATen's CPU and CUDA kernels alike).
_POOL_BACKWARDS = (aten.max_pool2d_with_indices_backward.default, aten.avg_pool2d_backward.default,
                   aten._adaptive_avg_pool2d_backward.default)


def _pool_input_by_shape(g: fx.Graph) -> int:
    changed = 0
    for n in list(g.nodes):
        if n.op != "call_function" or n.target not in _POOL_BACKWARDS or len(n.args) < 2:
            continue
        x = n.args[1]
        v = _val(x)
        if not isinstance(x, fx.Node) or x.target is aten.empty_strided.default or not _static(v):
            continue
        kw = {"dtype": v.dtype, "layout": torch.strided, "device": v.device, "pin_memory": False}
        with g.inserting_before(n):
            e = g.call_function(aten.empty_strided.default, (list(v.shape), list(v.stride())), kw)
        e.meta["val"] = v.new_empty_strided(v.shape, v.stride())
        n.args = (n.args[0], e, *n.args[2:])
        changed += 1
    return changed


# ATen's max pool over an NCHW tensor walks each window in scalar code whose branch on
# "greater or NaN" mispredicts on real activations (the zoo cnn's four 2x2 pools, from
# [64, 32, 32, 32] down to [64, 256, 4, 4]: about 20 ms of an 80-100 ms step); over a
# channels-last tensor it runs vectorized across channels (about 2.4 ms for the four). So the pool reads a channels-last copy of its
# input (written by the kernel that produces the input, in that layout) and its outputs,
# a quarter of that size, are copied back to the layout eager has. The trade is those two
# copies; the backward stays as it was (its input is a stand-in of eager's layout, below).
# With few channels there is nothing to vectorize across. CPU only: a GPU's kernel has no
# such branch to lose.
CHANNELS_LAST_POOL_MIN_CHANNELS = 16


def _pool_input_channels_last(g: fx.Graph) -> int:
    changed = 0
    for n in list(g.nodes):
        if n.op != "call_function" or n.target is not aten.max_pool2d_with_indices.default:
            continue
        x = n.args[0]
        v = _val(x)
        outs = list(n.users)
        if (not isinstance(x, fx.Node) or not _static(v) or v.device.type != "cpu" or v.dim() != 4
                or not v.is_contiguous()
                or v.shape[1] < CHANNELS_LAST_POOL_MIN_CHANNELS or v.shape[2] * v.shape[3] == 1
                or not all(u.target is operator.getitem for u in outs)):
            continue
        with g.inserting_before(n):
            c = g.call_function(aten.clone.default, (x,), {"memory_format": torch.channels_last})
        c.meta["val"] = v.clone(memory_format=torch.channels_last)
        n.args = (c, *n.args[1:])
        n.meta["val"] = n.target(*fx.node.map_arg(n.args, lambda a: a.meta.get("val")), **n.kwargs)
        for u in outs:
            u.meta["val"] = operator.getitem(n.meta["val"], u.args[1])
            with g.inserting_after(u):
                back = g.call_function(aten.clone.default, (u,), {"memory_format": torch.contiguous_format})
            back.meta["val"] = u.meta["val"].clone(memory_format=torch.contiguous_format)
            u.replace_all_uses_with(back, delete_user_cb=lambda user: user is not back)
        changed += 1
    return changed


# A matmul operand with both of its last two dims strided (an einsum's permuted view of a
# kernel's output: [t, h, e] read as [e, t, h]) is copied by ATen before the GEMM, once per
# batch for bmm (a top-k mixture of experts: 37 copies a step). A clone to the contiguous
# layout of the view's shape makes the kernel that computes the operand write it in the order
# the GEMM reads (the clone fuses into that kernel: the same writes, in another order).
def _gemm_ready(v) -> bool:
    m, k = v.shape[-2], v.shape[-1]
    s = v.stride()
    return m == 1 or k == 1 or (s[-1] == 1 and s[-2] >= k) or (s[-2] == 1 and s[-1] >= m)


def _gemm_operands_contiguous(g: fx.Graph) -> int:
    changed = 0
    for n in list(g.nodes):
        if n.op != "call_function" or n.target not in (aten.bmm.default, aten.mm.default):
            continue
        for i in (0, 1):
            a = n.args[i]
            v = _val(a)
            if not isinstance(a, fx.Node) or not _static(v) or v.device.type != "cpu" or _gemm_ready(v):
                continue
            with g.inserting_before(n):
                c = g.call_function(aten.clone.default, (a,), {"memory_format": torch.contiguous_format})
            c.meta["val"] = v.clone(memory_format=torch.contiguous_format)
            n.replace_input_with(a, c)
            changed += 1
    return changed


# A linear layer's output reaches its elementwise uses through one of these (3-d activations
# are multiplied as 2-d).
_VIEWS = frozenset({aten.view.default, aten._unsafe_view.default, aten.reshape.default})


def _elementwise(n: fx.Node) -> bool:
    return (n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload)
            and torch.Tag.pointwise in n.target.tags)


def _bias_uses(n: fx.Node) -> Optional[list[fx.Node]]:
    """n's users if each is elementwise, or a view keeping the last dimension (where the bias
    broadcasts the same way) whose users all are; None otherwise."""
    users = list(n.users)
    for u in users:
        if _elementwise(u):
            continue
        v = _val(u)
        if (u.op != "call_function" or u.target not in _VIEWS or not isinstance(v, torch.Tensor)
                or v.dim() == 0 or v.shape[-1] != _val(n).shape[-1]
                or not all(_elementwise(w) for w in u.users)):
            return None
    return users


def _like(new: fx.Node, old: fx.Node, value) -> None:
    """new stands for (part of) old: its metadata (a checkpoint region's recompute tag, the
    stack trace) with its own value."""
    new.meta = {**old.meta, "val": value}
    new.meta.pop("tensor_meta", None)


def _bias_into_consumers(g: fx.Graph) -> int:
    """addmm(bias, x, w) -> mm(x, w) + bias where every use is elementwise, so the add is fused
    into the kernels that read the product (the add goes below a view, in its reader's shape).
    The trade: ATen's addmm costs 5-12% more than its mm on a CPU (the bias copied into the
    output, then read back by the GEMM); an output read by a matmul, an attention or the graph's
    output would need a kernel of its own to add the bias, so those keep addmm. CPU and
    float32/float64 only: in a reduced precision the product would round before the bias is
    added, and a GPU's GEMM adds the bias in its epilogue."""
    changed = 0
    for n in list(g.nodes):
        if n.op != "call_function" or n.target is not aten.addmm.default:
            continue
        bias, x, w = n.args[:3]
        v, b = _val(n), _val(bias)
        if (len(n.args) > 3 or n.kwargs.get("beta", 1) != 1 or n.kwargs.get("alpha", 1) != 1
                or not isinstance(v, torch.Tensor) or v.device.type != "cpu"
                or v.dtype not in (torch.float32, torch.float64)
                or not isinstance(b, torch.Tensor) or b.dtype != v.dtype or b.dim() != 1):
            continue
        users = _bias_uses(n)
        if users is None:
            continue
        with g.inserting_before(n):
            mm = g.call_function(aten.mm.default, (x, w))
        _like(mm, n, aten.mm.default(_val(x), _val(w)))
        for u in users:
            base = mm
            if not _elementwise(u):         # a view: the same view of the product
                with g.inserting_before(u):
                    base = g.call_function(u.target, (mm, *u.args[1:]), u.kwargs)
                size = fx.node.map_arg(u.args[1:], lambda a: a.meta["val"])   # sizes may be symbols
                _like(base, u, u.target(mm.meta["val"], *size, **u.kwargs))
            with g.inserting_before(u):
                add = g.call_function(aten.add.Tensor, (base, bias))
            _like(add, n, aten.add.Tensor(base.meta["val"], b))
            if base is mm:
                u.replace_input_with(n, add)
            else:
                u.replace_all_uses_with(add)
                g.erase_node(u)
        g.erase_node(n)
        changed += 1
    return changed


def _attention(n: fx.Node) -> bool:
    t = n.target
    return n.op == "call_function" and isinstance(t, torch._ops.OpOverload) and \
        t.overloadpacket.__name__.startswith("_scaled_dot_product")


def _cat_of_one_part(g: fx.Graph) -> int:
    """A concatenation of one tensor with empty ones (a decoder's key and value joined to an
    empty cache) read only by attention is that tensor: the attention reads it where it is
    (a view of the fused QKV projection), instead of a copy that the plan would save beside
    the projection it is a view of. ATen's CPU attention kernels read their operands through
    their strides and allocate their results by their own rule, so the values and layouts
    are the same (tests/compiler/test_joint.py)."""
    changed = 0
    for n in list(g.nodes):
        if n.op != "call_function" or n.target is not aten.cat.default or not n.users:
            continue
        if not all(_attention(u) for u in n.users):
            continue
        parts = n.args[0] if n.args else n.kwargs.get("tensors")
        dim = n.args[1] if len(n.args) > 1 else n.kwargs.get("dim", 0)
        out = _val(n)
        if not isinstance(out, torch.Tensor) or not isinstance(parts, (list, tuple)) or \
                not all(isinstance(p, fx.Node) and isinstance(_val(p), torch.Tensor) for p in parts):
            continue
        rank = out.dim()
        dim %= max(rank, 1)
        full = [p for p in parts if not (_val(p).dim() == 1 and _val(p).shape[0] == 0)
                and not (_val(p).dim() == rank and _val(p).shape[dim] == 0)]
        if len(full) != 1:
            continue
        v = _val(full[0])
        if tuple(v.shape) != tuple(out.shape) or v.dtype != out.dtype or v.device != out.device:
            continue
        n.replace_all_uses_with(full[0])
        g.erase_node(n)
        changed += 1
    return changed


def rewrite(gm: fx.GraphModule) -> int:
    """Applies the rewrites above to a joint graph in place; the number of nodes rewritten."""
    changed = (_gather_through_row_constants(gm.graph) + _full_like_by_shape(gm.graph)
               + _pool_input_channels_last(gm.graph) + convolutions_channels_last(gm.graph)
               + _pool_input_by_shape(gm.graph)
               + _bias_into_consumers(gm.graph) + _gemm_operands_contiguous(gm.graph)
               + _cat_of_one_part(gm.graph))
    if changed:
        gm.graph.eliminate_dead_code()
        gm.recompile()
    return changed
