"""Max pooling as pointwise work: the decomposition AOTAutograd traces
`max_pool2d_with_indices` with (capture._decompositions).

ATen's CPU kernel for an NCHW max pool walks each window in scalar code (a ResNet
stem's 3x3/2 pool over [8, 64, 64, 64]: 3.8 ms, a tenth of that model's forward and
backward). Written as a chain over the window's positions -- each position a strided
view of the (padded) input, a `where` keeping the larger value and its flat index --
the whole pool is one fused pointwise kernel over the output.

The values and the indices are eager's exactly: ATen visits a window row by row and
takes a value when it is greater than the maximum so far or NaN, starting from -inf
with the index of the window's first position inside the input; the chain does the
same in the same order, padding being -inf (never greater, never NaN). The backward
stays ATen's `max_pool2d_with_indices_backward`, reading these indices, which the
forward saves (see KEEP).

Only what this covers is decomposed: 2-D pooling of a floating tensor with static sizes,
overlapping windows, no dilation, no ceil_mode. Anything else returns NotImplemented and
stays ATen's op.
"""
from __future__ import annotations

import math

import torch

aten = torch.ops.aten
# The nodes of the chain carry this key in node.meta["custom"]: the partitioner prices them
# as the one ATen call they replace (computed in the forward, the indices saved as eager
# saves them), not as pointwise ops to recompute in the backward.
KEEP = "bessemer_keep"


def _pair(v, default=None):
    if v is None or (isinstance(v, (list, tuple)) and len(v) == 0):
        return default
    if isinstance(v, int):
        return (v, v)
    v = tuple(v)
    return (v[0], v[0]) if len(v) == 1 else (v[0], v[1])


def max_pool2d_with_indices(x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(stride, (kh, kw))
    ph, pw = _pair(padding)
    dh, dw = _pair(dilation)
    if (ceil_mode or (dh, dw) != (1, 1) or x.dim() not in (3, 4) or not x.is_floating_point()
            or not all(isinstance(s, int) for s in x.shape)):
        return NotImplemented
    H, W = x.shape[-2:]
    OH, OW = (H + 2 * ph - kh) // sh + 1, (W + 2 * pw - kw) // sw + 1
    if OH <= 0 or OW <= 0 or x.numel() == 0:
        return NotImplemented
    if sh >= kh and sw >= kw:
        # Windows that do not overlap (a CNN's 2x2/2 pool) stay ATen's: there the chain's
        # kernel measured slower than ATen's (the cnn row of `bessemer bench`), where for
        # overlapping windows (a ResNet stem's 3x3/2) it is about twice as fast (resnet50).
        # Over many channels on a CPU that ATen call runs channels-last (joint.py).
        return NotImplemented
    with torch.fx.traceback.annotate({KEEP: "max_pool2d_with_indices"}):
        return _chain(x, H, W, OH, OW, kh, kw, sh, sw, ph, pw)


def _chain(x, H, W, OH, OW, kh, kw, sh, sw, ph, pw):
    xp = aten.constant_pad_nd(x, [pw, pw, ph, ph], -math.inf) if (ph or pw) else x
    rows = torch.arange(OH, device=x.device, dtype=torch.int64) * sh - ph     # window tops, [OH]
    cols = torch.arange(OW, device=x.device, dtype=torch.int64) * sw - pw     # window lefts, [OW]
    # ATen's starting point: -inf, and the index of the window's first position in the input
    best = torch.full((), -math.inf, dtype=x.dtype, device=x.device)
    index = (rows.clamp(min=0).unsqueeze(1) * W + cols.clamp(min=0)).expand(*x.shape[:-2], OH, OW)
    for i in range(kh):
        for j in range(kw):
            v = xp[..., i:i + sh * (OH - 1) + 1:sh, j:j + sw * (OW - 1) + 1:sw]
            take = (v > best) | (v != v)
            best = torch.where(take, v, best)
            index = torch.where(take, (rows + i).unsqueeze(1) * W + (cols + j), index)
    return best, index
