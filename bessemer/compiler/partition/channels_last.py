"""Convolutions on the CPU with channels-last operands: a rewrite of the joint graph (or of a
whole-step graph) before it is partitioned. Off for now (ENABLED, below, says why).

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


# Off: it did not pay end to end (one thread, a loaded machine, the least CPU time of 6-12
# steps at scale small, without -> with): ResNet-50 84 -> 85 ms, ResNet-18 149 -> 168 ms,
# MobileNetV2 109 -> 168 ms. The convolutions gain (about 15 ms of ResNet-50's step); the
# kernels around them lose as much: the stem's decomposed max pool splits into two kernels
# that store its where-chain's masks in eager's layout, the weights are copied forward and
# again backward (ResNet-18's kernels move 40 -> 76 MB forward), and at one thread ATen runs
# 1x1 convolutions at batch < 16 through its own kernel, not oneDNN. Deterministic: bytes
# the kernels move per step (ResNet-50 166 -> 187 MB, MobileNetV2 507 -> 511 MB).
ENABLED = False


def available() -> bool:
    return ENABLED and torch.backends.mkldnn.is_available()


def _eligible(n: fx.Node) -> bool:
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

    def pool_backward(self, n: fx.Node) -> bool:
        """ATen's max-pool backward over channels-last gradients and indices, its input's
        stand-in (read for its sizes and layout) channels-last: its output is channels-last."""
        grad, x, idx = n.args[0], n.args[1], n.args[7]
        vg, vx, vi = _val(grad), _val(x), _val(idx)
        if not (_wants(vg) and _static4(vx) and vx.is_contiguous() and _static4(vi) and vi.is_contiguous()):
            return False
        kw = {"dtype": vx.dtype, "layout": torch.strided, "device": vx.device, "pin_memory": False}
        stride = vx.clone(memory_format=CL).stride()
        with self.g.inserting_before(n):
            e = self.g.call_function(aten.empty_strided.default, (list(vx.shape), list(stride)), kw)
        e.meta["val"] = vx.new_empty_strided(vx.shape, stride)
        n.args = (self.channels_last(grad), e, *n.args[2:7], self.channels_last(idx, any_dtype=True))
        self._outputs(n)
        return True

    def convolution(self, n: fx.Node) -> None:
        g = self.g
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
        if _eligible(n):
            r.convolution(n)
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


def _follows(old, new) -> bool:
    """Is `new` (an op's value over channels-last operands) `old` (its value over eager's
    layout) in the same or the channels-last layout, element for element?"""
    if isinstance(old, (tuple, list)):
        return (isinstance(new, (tuple, list)) and len(old) == len(new)
                and all(_follows(a, b) for a, b in zip(old, new)))
    if not isinstance(old, torch.Tensor):
        return not isinstance(new, torch.Tensor) and old == new
    if not isinstance(new, torch.Tensor) or new.shape != old.shape or new.dtype != old.dtype:
        return False
    return tuple(new.stride()) == tuple(old.stride()) or (old.is_contiguous() and _is_cl(new))


def _propagate(g: fx.Graph) -> int:
    """Lets the readers of a convolution's channels-last output read it as it is, where the op
    takes it (ATen's own rule for its value's layout gives the same value in the same or the
    channels-last layout): a BatchNorm, a ReLU, a residual add between two convolutions then
    run channels-last end to end, their outputs channels-last in turn, and the kernels read and
    write in one order. What cannot (a view, a graph output, a random op whose draws follow
    its layout) reads the clone in eager's layout. The number of ops that now read
    channels-last operands."""
    changed = 0
    for n in list(g.nodes):
        if n.op != "call_function" or n.target in _CONVS or _back_of(n) is not None:
            continue
        tags = getattr(n.target, "tags", ())
        if torch.Tag.nondeterministic_seeded in tags or torch.Tag.inplace_view in tags:
            continue
        backs = {a: _back_of(a) for a in n.all_input_nodes}
        backs = {a: b for a, b in backs.items() if b is not None}
        if not backs:
            continue
        args = fx.node.map_arg(n.args, lambda a: backs.get(a, a))
        kwargs = fx.node.map_arg(n.kwargs, lambda a: backs.get(a, a))
        old = _val(n)
        try:
            new = n.target(*fx.node.map_arg(args, _val), **fx.node.map_arg(kwargs, _val))
        except Exception:  # noqa: BLE001 - an op that does not take the layout: it reads eager's
            continue
        if old is None or not _follows(old, new):
            continue
        n.args, n.kwargs = args, kwargs
        _set_outputs(g, n, old, new)
        changed += 1
    return changed


def _set_outputs(g: fx.Graph, n: fx.Node, old, new) -> None:
    """n's value is `new` now; each output that turned channels-last is read by n's other
    users through a clone in eager's layout (which _propagate may let them skip in turn)."""
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
    for u, o, v in outs:
        if v is None or o is None or tuple(v.stride()) == tuple(o.stride()):
            continue
        with g.inserting_after(u):
            back = g.call_function(aten.clone.default, (u,), {"memory_format": torch.contiguous_format})
        back.meta = {**u.meta, "val": o}
        u.replace_all_uses_with(back, delete_user_cb=lambda user: user is not back)
