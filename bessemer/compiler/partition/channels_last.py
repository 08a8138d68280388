"""Convolutions on the CPU with channels-last operands: a rewrite of the joint graph (or of a
whole-step graph) before it is partitioned (ENABLED, below, says what it gains).

oneDNN, ATen's CPU convolution, is faster on [N, H, W, C] than on [N, C, H, W]: over an NCHW
tensor it reorders input, weight and output into its own blocked layout on every call. ResNet-50
at scale small (batch 8, 128 px) on 2 threads, float32, forward and `convolution_backward`
(ms, NCHW -> channels-last input, weight and gradient; measured on a loaded machine):

    stem 7x7/2, 3 -> 32 at 128 px       fwd 5.07 -> 2.15   bwd 2.49 -> 2.16
    1x1, 32 -> 16 at 32 px              fwd 0.20 -> 0.13   bwd 0.39 -> 0.25
    3x3, 16 -> 16 at 32 px              fwd 0.39 -> 0.29   bwd 0.73 -> 0.62
    3x3/2, 32 -> 32 at 32 px            fwd 0.38 -> 0.28   bwd 0.95 -> 0.71
    3x3, 128 -> 128 at 8 px             fwd 0.98 -> 0.84   bwd 2.10 -> 2.04
    1x1, 256 -> 512 at 8 px             fwd 0.90 -> 0.81   bwd 1.81 -> 1.86
    depthwise 3x3, 96 at 32 px          fwd 2.06 -> 0.26   bwd 5.68 -> 0.51
    transposed 2x2/2, 32 -> 16 at 16 px fwd 0.31 -> 0.17   bwd 0.48 -> 0.31

It pays everywhere but at the smallest images with the most channels, where it is even; so
when on, every static 4-d float32 convolution on a CPU with oneDNN is rewritten (float64 does not run
through oneDNN, and ATen's own kernels show no such gain). The trade is the copies: each
convolution's input and the gradient its backward reads are written channels-last by the
kernels that produce them (the clone fuses into that kernel: the same writes, in another
order, transposed in tiles), the weight is copied per step (small), and a convolution's
outputs are read back in eager's layout through strided reads by the kernels that consume
them (BatchNorm's statistics, the ReLU, the residual add).

For each convolution:

    c  = clone(x, channels_last)          what the convolution (and its backward) reads
    x' = clone(c, contiguous_format)      what every other reader of x reads

so the kernel producing x writes only c, and x' is a strided read of it wherever it is used
(the saved activation is c, once). The outputs, channels-last now, are read by their other
users through clone(., contiguous_format), which gives graph outputs and parameter gradients
eager's strides. A clone back to contiguous of a channels-last node, read channels-last
again (a convolution after a convolution, or after the max pool of joint.py), is the node
itself. ATen's max-pool backward then reads channels-last gradients and indices (and a
channels-last stand-in for its input), so its output is channels-last as well.
"""
from __future__ import annotations

import operator
from typing import Optional

import torch
import torch.fx as fx

from bessemer.compiler.lowering.rules import IN_MEMORY_ORDER, laid_out_densely, memory_order

aten = torch.ops.aten
CL = torch.channels_last

_CONVS = (aten.convolution.default, aten.convolution_backward.default)


def _val(n):
    return n.meta.get("val") if isinstance(n, fx.Node) else None


def _static4(v) -> bool:
    return (isinstance(v, torch.Tensor) and v.dim() == 4
            and all(isinstance(d, int) for d in (*v.shape, *v.stride())))


def _is_cl(v) -> bool:
    """v is laid out channels-last and not (also) contiguous."""
    return v.is_contiguous(memory_format=CL) and not v.is_contiguous()


def _wants(v, any_dtype: bool = False) -> bool:
    """An eager-layout operand worth a channels-last copy: contiguous and not already
    channels-last by its strides (one channel, or 1x1 images, are both at once)."""
    return (_static4(v) and v.device.type == "cpu" and (any_dtype or v.dtype == torch.float32)
            and v.is_contiguous() and not v.is_contiguous(memory_format=CL))


# On: with the layout carried through the kernels between convolutions (_propagate; the
# kernels compute channels-last values in [N, H, W, C] order, lowering/lower.py) it pays on
# every conv net measured but ResNet-18. A training step in bessemer, scale small, 2 threads,
# the least of 5 x 5 steps, without -> with: bn-cnn 17.7 -> 14.5 ms, small-unet 8.7 -> 8.4,
# cnn 31.5 -> 27.9, ResNet-50 24.0 -> 20.6, MobileNetV2 57.2 -> 47.4, EfficientNet-B0 58.6 ->
# 45.2, DenseNet-121 42.8 -> 41.5, ConvNeXt-tiny 37.1 -> 28.8, RegNetY-4.0GF 34.5 -> 32.1;
# ResNet-18 39.5 -> 42.9 (its convolutions run no faster channels-last at batch 8).
ENABLED = True


# A convolution whose input has fewer elements than its weight (the last stages of a ResNet at
# a small image: [8, 256, 4, 4] through a 256 x 256 x 3 x 3 weight) stays in eager's layout:
# its weight would be copied channels-last forward and backward and its gradient copied back
# every step, for a convolution oneDNN runs no faster channels-last at that size (ResNet-18 at
# scale small, all convolutions rewritten: 40 -> 46 ms a step, convolutions even, kernels
# 4.7 -> 6.7 ms, the weight copies most of the difference).
MIN_INPUT_PER_WEIGHT = 1.0


def _strided_1x1(n: fx.Node, vw) -> bool:
    """A 1x1 convolution with a stride (a ResNet's downsampling shortcut)."""
    stride = n.args[3] if n.target is aten.convolution.default else n.args[4]
    return tuple(vw.shape[2:]) == (1, 1) and any(s != 1 for s in stride)


# oneDNN's weight gradient of a strided 1x1 convolution over a channels-last input came out
# wrong, and differently from call to call (torch 2.13 on an AVX2 AMD EPYC: [2, 4, 8, 8]
# through [8, 4, 1, 1] at stride 2, wrong in 14-20 of 20 calls on one machine, 1 of 100 on
# another; never the input gradient nor the forward; never at stride 1). Such a backward is
# split (`_Rewriter.strided_1x1_backward`): the input gradient (and the bias's) at the stride
# as before, the weight gradient as a stride-1 convolution's over the input's subsampled
# copy, x[:, :, ::s, ::s] -- the same products, the same sums. Kept in eager's layout instead
# (what it was before the split), the shortcut's output and gradient met the channels-last
# main path in kernels reading two layouts: bn-cnn's step 32.4 ms against 31.0 for Inductor.
def _wrong_weight_gradient(n: fx.Node) -> bool:
    """A backward of a strided 1x1 convolution whose weight gradient is wanted."""
    return (n.target is aten.convolution_backward.default and _strided_1x1(n, _val(n.args[2]))
            and bool(n.args[10][1]))


def _splits(n: fx.Node) -> bool:
    """Such a backward that splits (no padding, not transposed); another stays in eager's layout."""
    padding, transposed = n.args[5], n.args[7]
    return _wrong_weight_gradient(n) and not transposed and all(p == 0 for p in padding)


def available() -> bool:
    return ENABLED and torch.backends.mkldnn.is_available()


def _rewritable(n: fx.Node) -> bool:
    """A CPU float32 convolution (forward or backward) with static sizes, operands in eager's
    layout and large enough an input (MIN_INPUT_PER_WEIGHT)."""
    if n.op != "call_function" or n.target not in _CONVS:
        return False
    if n.target is aten.convolution.default:
        x, w = n.args[0], n.args[1]
        grads = ()
    else:
        go, x, w = n.args[:3]
        grads = (go,)
    vx, vw = _val(x), _val(w)
    if not (_static4(vx) and _static4(vw) and vx.device.type == "cpu" and vx.dtype == torch.float32):
        return False
    if vx.numel() < MIN_INPUT_PER_WEIGHT * vw.numel():
        return False
    # every operand in eager's layout (a model fed channels-last runs so in eager already)
    return all(_val(a).is_contiguous() for a in (x, w, *grads)) and (
        _wants(vx) or _wants(vw) or any(_wants(_val(a)) for a in grads))


class _Rewriter:
    def __init__(self, g: fx.Graph):
        self.g = g
        self.cl: dict[fx.Node, fx.Node] = {}       # node -> its channels-last form

    def channels_last(self, x: fx.Node, any_dtype: bool = False) -> fx.Node:
        """x's channels-last form: x itself when it is channels-last already, the node a clone
        back to eager's layout copied, or a clone that x's producer writes."""
        v = _val(x)
        if _is_cl(v):
            return x
        if (x.op == "call_function" and x.target is aten.clone.default
                and x.kwargs.get("memory_format") is torch.contiguous_format
                and isinstance(x.args[0], fx.Node) and _is_cl(_val(x.args[0]))):
            return x.args[0]
        if x in self.cl:
            return self.cl[x]
        for u in x.users:        # a clone another rewrite made (the max pool's, joint.py)
            if u.op == "call_function" and u.target is aten.clone.default and u.kwargs.get("memory_format") is CL:
                self.cl[x] = u
                return u
        if not _wants(v, any_dtype):
            return x
        g = self.g
        with g.inserting_after(x):
            c = g.call_function(aten.clone.default, (x,), {"memory_format": CL})
        c.meta = {**x.meta, "val": v.clone(memory_format=CL)}
        c.meta.pop("tensor_meta", None)
        if x.op != "placeholder":
            # the other readers of x read c in eager's layout: the producer writes c only
            with g.inserting_after(c):
                back = g.call_function(aten.clone.default, (c,), {"memory_format": torch.contiguous_format})
            back.meta = {**x.meta, "val": v.clone()}
            back.meta.pop("tensor_meta", None)
            x.replace_all_uses_with(back, delete_user_cb=lambda u: u is not c)
            self.cl[back] = c
        self.cl[x] = c
        return c

    def stand_in(self, v: torch.Tensor, before: fx.Node) -> fx.Node:
        """An uninitialized channels-last tensor of v's sizes, placed before `before`: what an
        op that reads its operand's sizes and layout only (not its values) is given instead."""
        kw = {"dtype": v.dtype, "layout": torch.strided, "device": v.device, "pin_memory": False}
        stride = v.clone(memory_format=CL).stride()
        with self.g.inserting_before(before):
            e = self.g.call_function(aten.empty_strided.default, (list(v.shape), list(stride)), kw)
        e.meta["val"] = v.new_empty_strided(v.shape, stride)
        return e

    def pool_backward(self, n: fx.Node) -> bool:
        """ATen's max-pool backward over channels-last gradients and indices, its input's
        stand-in (read for its sizes and layout) channels-last: its output is channels-last."""
        grad, x, idx = n.args[0], n.args[1], n.args[7]
        vg, vx, vi = _val(grad), _val(x), _val(idx)
        if not (_wants(vg) and _static4(vx) and vx.is_contiguous() and _static4(vi) and vi.is_contiguous()):
            return False
        e = self.stand_in(vx, n)
        n.args = (self.channels_last(grad), e, *n.args[2:7], self.channels_last(idx, any_dtype=True))
        self._outputs(n)
        return True

    def strided_1x1_backward(self, n: fx.Node) -> None:
        """The backward of a strided 1x1 convolution (`_splits`) as two: n keeps the input and
        bias gradients at the stride, over channels-last operands and a stand-in for its input
        (which it reads for its sizes and layout only); the weight gradient is a stride-1
        backward's over x[:, :, ::s, ::s], copied channels-last."""
        g = self.g
        go, x, w = n.args[:3]
        bias_sizes, stride, padding, dilation, transposed, output_padding, groups, mask = n.args[3:11]
        vx = _val(x)
        xc = self.channels_last(x)
        with g.inserting_before(n):
            rows = g.call_function(aten.slice.Tensor, (xc, 2, 0, vx.shape[2], stride[0]))
            cols = g.call_function(aten.slice.Tensor, (rows, 3, 0, vx.shape[3], stride[1]))
            sub = g.call_function(aten.clone.default, (cols,), {"memory_format": CL})
        rows.meta["val"] = _val(xc)[:, :, ::stride[0]]
        cols.meta["val"] = rows.meta["val"][:, :, :, ::stride[1]]
        sub.meta["val"] = cols.meta["val"].clone(memory_format=CL)
        go_cl, w_cl = self.channels_last(go), self.channels_last(w)
        with g.inserting_before(n):
            wg = g.call_function(aten.convolution_backward.default, (
                go_cl, sub, w_cl, bias_sizes, [1] * len(stride), padding, dilation, transposed,
                output_padding, groups, [False, True, False]))
        wg.meta["val"] = wg.target(*fx.node.map_arg(wg.args, _val))
        for u in list(n.users):
            if u.op == "call_function" and u.target is operator.getitem and u.args[1] == 1:
                u.args = (wg, 1)
                _set_outputs(g, wg, (None, u.meta["val"], None), wg.meta["val"])
        rest = [bool(mask[0]), False, bool(mask[2])]
        if not any(rest) and not n.users:
            g.erase_node(n)
            return
        n.args = (go_cl, self.stand_in(vx, n), w_cl, *n.args[3:10], rest)
        self._outputs(n)

    def convolution(self, n: fx.Node) -> None:
        if n.target is aten.convolution.default:
            args = (self.channels_last(n.args[0]), self.channels_last(n.args[1]), *n.args[2:])
        else:
            go, x, w = n.args[:3]
            args = (self.channels_last(go), self.channels_last(x), self.channels_last(w), *n.args[3:])
        n.args = args
        self._outputs(n)

    def _outputs(self, n: fx.Node) -> None:
        """n's value for its new arguments; its outputs that changed layout are read by their
        other users through a clone to eager's layout."""
        old = _val(n)
        _set_outputs(self.g, n, old, n.target(*fx.node.map_arg(n.args, _val), **n.kwargs))


def convolutions_channels_last(g: fx.Graph) -> int:
    """Rewrites g's eligible CPU convolutions (forward and backward) to channels-last operands;
    the number rewritten. Nothing without oneDNN."""
    if not available():
        return 0
    r = _Rewriter(g)
    changed = 0
    for n in list(g.nodes):
        if not _rewritable(n):
            continue
        if not _wrong_weight_gradient(n):
            r.convolution(n)
        elif _splits(n):
            r.strided_1x1_backward(n)
        else:
            continue
        changed += 1
    if changed:
        for n in list(g.nodes):
            if n.op == "call_function" and n.target is aten.max_pool2d_with_indices_backward.default:
                changed += r.pool_backward(n)
        changed += _propagate(g)
    return changed


def _back_of(n: fx.Node) -> Optional[fx.Node]:
    """The channels-last node n is a clone of in eager's layout, if it is one."""
    if (n.op == "call_function" and n.target is aten.clone.default
            and n.kwargs.get("memory_format") is torch.contiguous_format
            and isinstance(n.args[0], fx.Node) and _is_cl(_val(n.args[0]))):
        return n.args[0]
    return None


def _follows(old, new, view: bool = False) -> bool:
    """Is `new` (an op's value over channels-last operands) `old` (its value over eager's
    layout) in a layout the kernels can compute and read, element for element? A view's
    value in any layout (it computes nothing; its readers answer in turn); a computed value
    in the same layout, or laid out densely in some order of its dims (the kernels compute
    such a value in its memory order, lowering/lower.py)."""
    if isinstance(old, (tuple, list)):
        return (isinstance(new, (tuple, list)) and len(old) == len(new)
                and all(_follows(a, b, view) for a, b in zip(old, new)))
    if not isinstance(old, torch.Tensor):
        return not isinstance(new, torch.Tensor) and old == new
    if not isinstance(new, torch.Tensor) or new.shape != old.shape or new.dtype != old.dtype:
        return False
    if tuple(new.stride()) == tuple(old.stride()) or view:
        return True
    if old.dim() == 4 and memory_order(old) == _order_of(old, (0, 1, 2, 3)) \
            and memory_order(new) == _order_of(new, (0, 2, 3, 1)):
        # eager's value laid out by N, C, H, W (contiguous, or a view of such as a slice is),
        # the new one by N, H, W, C
        return True
    return old.is_contiguous() and laid_out_densely(new)


def _order_of(t: torch.Tensor, order: tuple) -> tuple:
    return tuple(d for d in order if t.shape[d] != 1)


# ops that read their operand's memory through strides of their own: over a channels-last
# operand they would read other elements
_BY_STRIDES = {aten.as_strided.default, aten.as_strided_scatter.default, aten.as_strided_copy.default,
               aten._reshape_alias.default}


def _propagate(g: fx.Graph) -> int:
    """Lets the readers of a convolution's channels-last output read it as it is, where the op
    takes it (ATen's own rule for its value's layout gives the same value in the same or the
    channels-last layout): a BatchNorm, a ReLU, a residual add, the slices of a padded max
    pool between two convolutions then run channels-last end to end, their outputs
    channels-last in turn, and the kernels read and write in one order. What cannot (a
    reshape, a graph output, a random op whose draws follow its layout) reads a value in
    eager's layout: the clone back to it, or the view it took of such a clone. The number of
    ops that now read channels-last operands."""
    twin = {n: _back_of(n) for n in g.nodes}        # a value in eager's layout -> its channels-last twin
    twin = {n: t for n, t in twin.items() if t is not None}
    changed = 0
    for n in list(g.nodes):
        if n.op != "call_function" or n.target in _CONVS or n.target in _BY_STRIDES or n in twin:
            continue
        tags = getattr(n.target, "tags", ())
        if torch.Tag.nondeterministic_seeded in tags or torch.Tag.inplace_view in tags:
            continue
        backs = {a: twin[a] for a in n.all_input_nodes if a in twin}
        if not backs:
            continue
        args = fx.node.map_arg(n.args, lambda a: backs.get(a, a))
        kwargs = fx.node.map_arg(n.kwargs, lambda a: backs.get(a, a))
        old = _val(n)
        try:
            new = n.target(*fx.node.map_arg(args, _val), **fx.node.map_arg(kwargs, _val))
        except Exception:  # noqa: BLE001 - an op that does not take the layout: it reads eager's
            continue
        is_view = getattr(n.target, "is_view", False)
        if old is None or not _follows(old, new, is_view):
            continue
        changed += 1
        if is_view:
            # the same view of the channels-last operand beside n, which stays for the readers
            # that need eager's strides
            with g.inserting_after(n):
                t = g.call_function(n.target, args, kwargs)
            t.meta = {**n.meta, "val": new}
            t.meta.pop("tensor_meta", None)
            twin[n] = t
            continue
        n.args, n.kwargs = args, kwargs
        n.meta[IN_MEMORY_ORDER] = True
        twin.update(_set_outputs(g, n, old, new))
    return changed


def _set_outputs(g: fx.Graph, n: fx.Node, old, new) -> dict:
    """n's value is `new` now; each output that turned channels-last is read by n's other
    users through a clone in eager's layout (which _propagate may let them skip in turn):
    {clone: the output it copies}."""
    n.meta["val"] = new
    n.meta.pop("tensor_meta", None)
    if not isinstance(new, (tuple, list)):
        outs = [(n, old, new)]
    else:
        outs = []
        for u in list(n.users):
            if u.op == "call_function" and u.target is operator.getitem:
                i = u.args[1]
                u.meta["val"] = new[i]
                u.meta.pop("tensor_meta", None)
                outs.append((u, old[i], new[i]))
    backs = {}
    for u, o, v in outs:
        if v is None or o is None or tuple(v.stride()) == tuple(o.stride()):
            continue
        with g.inserting_after(u):
            back = g.call_function(aten.clone.default, (u,), {"memory_format": torch.contiguous_format})
        back.meta = {**u.meta, "val": o}
        u.replace_all_uses_with(back, delete_user_cb=lambda user: user is not back)
        backs[back] = u
    return backs
