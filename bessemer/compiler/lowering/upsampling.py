"""The backward of linear upsampling by a power of two as pointwise work: the decomposition
AOTAutograd traces `upsample_{linear1d,bilinear2d,trilinear3d}_backward` with
(capture._decompositions).

ATen's CPU backward scatters each output gradient into the two (four, eight) input
positions it was interpolated from, in scalar code: a UNet's three bilinear 2x upsamples
(the `unet` zoo model at scale small, [8, 128, 16, 16], [8, 64, 32, 32] and
[8, 32, 64, 64] gradients, channels-last) spent 7.2 ms of a 90 ms step there, seven times
the forward's 1.0 ms.

Written as a gather it is a few strided views and products per spatial dim. Along one dim
of input size n upsampled s times (align_corners=False), output o = s*k + r reads source
position src = k + d_r with d_r = (r + 0.5) / s - 0.5, clamped at 0: for d_r < 0 input k-1
gets weight -d_r and input k weight 1 + d_r; otherwise input k gets 1 - d_r and input k+1
gets d_r; an index past the last input is the last input. So the gradient of input i is

    sum_r  a_r(i) g[s*i + r]  +  sum_{r: d_r < 0} -d_r g[s*(i+1) + r]
                              +  sum_{r: d_r >= 0} d_r g[s*(i-1) + r]

with a_r = 1 + d_r or 1 - d_r, and 1 at the clamped ends (input 0 for d_r < 0, input n-1
for d_r >= 0). The dims are done one after another (the weights are separable). For a power
of two s every weight and source index is exact in binary floating point, so the weights
are ATen's; the sums run in another order than ATen's scatter (a float32 result can differ
in its last bits, as any reordered sum does).

Only that case is decomposed: float32 / float64 gradients with static sizes, each spatial
dim upsampled by 2, 4 or 8 exactly (or kept), align_corners=False. Anything else returns
NotImplemented and stays ATen's op.
"""
from __future__ import annotations

import torch

aten = torch.ops.aten
_FACTORS = (2, 4, 8)


def _factor(n_in: int, n_out: int, scale) -> int | None:
    """The dim's integer upsampling factor when this module covers it (1: the dim is kept)."""
    if n_in == n_out and (scale is None or scale == 1.0):
        return 1
    if n_in <= 0 or n_out % n_in:
        return None
    s = n_out // n_in
    # a scale given with the sizes is what ATen computes the source index from
    if s not in _FACTORS or (scale is not None and scale > 0 and scale != float(s)):
        return None
    return s


def _backward_along(g: torch.Tensor, dim: int, n: int, s: int) -> torch.Tensor:
    """The gradient of a linear s-times upsampling along `dim` (input size n) from the
    output's gradient g."""
    shape = list(g.shape)
    # [..., n * s, ...] seen as [..., n, s, ...]: position (k, r) is output s*k + r
    blocks = g.reshape(shape[:dim] + [n, s] + shape[dim + 1:])
    # the same blocks one input later and one earlier, zero past either end (a pad, which the
    # kernels read in place)
    after = [0, 0] * (blocks.dim() - 1 - dim)
    nxt = torch.nn.functional.pad(blocks.narrow(dim, 1, n - 1), after + [0, 1])
    prv = torch.nn.functional.pad(blocks.narrow(dim, 0, n - 1), after + [1, 0])
    idx = torch.arange(n, device=g.device).reshape([n] + [1] * (blocks.dim() - dim - 2))
    first, last = idx == 0, idx == n - 1
    total = None
    for r in range(s):
        d = (r + 0.5) / s - 0.5
        here = blocks.select(dim + 1, r)
        if d < 0:
            term = here * torch.where(first, 1.0, 1.0 + d).to(g.dtype) + nxt.select(dim + 1, r) * -d
        else:
            term = here * torch.where(last, 1.0, 1.0 - d).to(g.dtype) + prv.select(dim + 1, r) * d
        total = term if total is None else total + term
    return total


def _linear_backward(grad_output, output_size, input_size, align_corners, scales):
    spatial = len(scales)
    if (align_corners or grad_output.dtype not in (torch.float32, torch.float64)
            or not all(isinstance(v, int) for v in (*grad_output.shape, *input_size, *output_size))
            or tuple(grad_output.shape) != (*input_size[:-spatial], *output_size)):
        return NotImplemented
    factors = [_factor(i, o, sc) for i, o, sc in zip(input_size[-spatial:], output_size, scales)]
    if any(f is None for f in factors) or all(f == 1 for f in factors) or grad_output.numel() == 0:
        return NotImplemented
    g = grad_output
    for k, s in enumerate(factors):
        if s > 1:
            dim = g.dim() - spatial + k
            g = _backward_along(g, dim, input_size[dim], s)
    return g


def linear1d_backward(grad_output, output_size, input_size, align_corners, scales=None):
    return _linear_backward(grad_output, output_size, input_size, align_corners, (scales,))


def bilinear2d_backward(grad_output, output_size, input_size, align_corners, scales_h=None, scales_w=None):
    return _linear_backward(grad_output, output_size, input_size, align_corners, (scales_h, scales_w))


def trilinear3d_backward(grad_output, output_size, input_size, align_corners, scales_d=None, scales_h=None,
                         scales_w=None):
    return _linear_backward(grad_output, output_size, input_size, align_corners, (scales_d, scales_h, scales_w))


def table() -> dict:
    return {aten.upsample_linear1d_backward.default: linear1d_backward,
            aten.upsample_bilinear2d_backward.default: bilinear2d_backward,
            aten.upsample_trilinear3d_backward.default: trilinear3d_backward}
