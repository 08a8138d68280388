"""Decompositions that keep eager's NaN semantics where torch's own table does not.

The activation backwards below are decomposed into a `where` over comparisons. A
comparison with NaN is false, so which branch NaN takes depends on how the condition is
written; torch's decompositions send it to another branch than ATen's CPU kernels do.
Eager itself is not of one mind: its vectorized loop and its scalar loop, which takes
the last elements of a tensor that do not fill two vectors (a tensor of fewer than 16
float32 elements on AVX2 is all tail), disagree at NaN. The decompositions here follow
the vectorized loop, which computes all but that tail of any tensor of some size, in
every dtype:

  op                    eager at NaN      torch's decomposition
  hardtanh_backward     0                 the incoming gradient
  hardshrink_backward   0                 the incoming gradient
  hardshrink            gradient 0        the incoming gradient: torch registers a Python
                                          kernel on hardshrink's Autograd key, which
                                          decomposes it before its backward is traced;
                                          capture.aten_upsampling lifts it (ATEN_AUTOGRAD)
                                          so the trace records hardshrink_backward
  hardswish_backward    NaN               the incoming gradient
  elu_backward          NaN               the incoming gradient (celu and selu too)
  gelu at +inf          NaN where torch   inf (the formula): eager's GELU of a contiguous
                        hands it to       tensor of more than one element is oneDNN's on
                        oneDNN            AVX-512 CPUs (GELU_NAN_AT_INF, probed at import);
                                          a strided or one-element tensor takes torch's

  layer norm backward   NaN across the row    N*dy - sum(dy) - x_hat*sum(dy*x_hat): an
                        at an infinite dy     element can stay infinite (and the rounding
                        (ATen: rstd*dy*g      differs everywhere)
                        + b*x + c per row)
  batch norm output     x * alpha + beta  (x - mean) * rstd * weight + bias: at an infinite
                        (alpha, beta per  weight, eager's inf - inf is NaN where torch's is
                        channel; a non-   +-inf (and the rounding differs everywhere)
                        contiguous weight,
                        bias or input:
                        torch's formula)

Each is written here with its condition turned so NaN takes eager's branch; every other
input gives what torch's decomposition gives (tests/ops: OpInfo's NaN and Inf samples).
"""
from __future__ import annotations

import functools
import math

import torch
from torch import Tensor
from torch._decomp import get_decompositions
from torch._decomp.decompositions import pw_cast_for_opmath
from torch._prims_common import get_computation_dtype
from torch.fx.experimental.symbolic_shapes import guard_or_false, guard_or_true

aten = torch.ops.aten


@pw_cast_for_opmath
def hardtanh_backward(grad_output: Tensor, self: Tensor, min_val: float, max_val: float) -> Tensor:
    return torch.where((self > min_val) & (self < max_val), grad_output, 0.0)


@pw_cast_for_opmath
def hardshrink_backward(grad_out: Tensor, self: Tensor, lambd: float) -> Tensor:
    return torch.where((self < -lambd) | (self > lambd), grad_out, 0.0)


# ops traced whole, without torch's Python autograd kernel (see hardshrink above)
ATEN_AUTOGRAD = ("hardshrink",)


def hardshrink(self: Tensor, lambd: float = 0.5) -> Tensor:
    return torch.where((self >= -lambd) & (self <= lambd), 0.0, self)


@pw_cast_for_opmath
def hardswish_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    return torch.where(self <= -3, 0.0, torch.where(self >= 3, grad_output, grad_output * ((self / 3) + 0.5)))


@pw_cast_for_opmath   # in float, rounded once, as ATen's bf16 / fp16 kernel (and torch's decomposition)
def elu_backward(grad_output: Tensor, alpha: float, scale: float, input_scale: float, is_result: bool,
                 self_or_result: Tensor) -> Tensor:
    negcoef, poscoef, negiptcoef = alpha * scale, scale, input_scale
    x = self_or_result
    if is_result:
        neg = grad_output * negiptcoef * (x + negcoef)
    else:
        neg = grad_output * negiptcoef * negcoef * torch.exp(x * negiptcoef)
    return torch.where(x > 0, grad_output * poscoef, neg)


def _gelu_nan_at_inf(dtype: torch.dtype) -> bool:
    return bool(torch.nn.functional.gelu(torch.full((64,), math.inf, dtype=dtype)).isnan().all())


# Whether eager's GELU of a contiguous CPU tensor gives NaN at +inf, where the formula gives
# inf: where torch hands contiguous tensors of more than one element to oneDNN's GELU
# (AVX-512 CPUs: float32, bf16, fp16) it does; torch's own kernel, which takes strided and
# one-element tensors and float64, does not. The decomposition below asks the traced
# tensor, whose strides are eager's, which path eager takes.
# Probed once, at import: while AOTAutograd traces, a GELU call would be traced, not run.
GELU_NAN_AT_INF = frozenset(dt for dt in (torch.float32, torch.bfloat16, torch.float16) if _gelu_nan_at_inf(dt))


@functools.cache
def _torch_gelu():
    return get_decompositions([aten.gelu])[aten.gelu.default]


def _takes_onednn(self: Tensor) -> bool:
    """ATen's test for handing a GELU to oneDNN: contiguous, more than one element."""
    return bool(self.is_contiguous()) and guard_or_true(self.numel() > 1)


def gelu(self: Tensor, approximate: str = "none") -> Tensor:
    """torch's decomposition, NaN at +inf where eager's is (GELU_NAN_AT_INF)."""
    y = _torch_gelu()(self, approximate=approximate)
    if (approximate == "none" and self.device.type == "cpu" and self.dtype in GELU_NAN_AT_INF
            and _takes_onednn(self)):
        y = torch.where(self == math.inf, math.nan, y)
    return y


def _batch_norm(input: Tensor, weight, bias, running_mean, running_var, training: bool, momentum: float,
                eps: float) -> tuple:
    """Batch norm's forward as ATen's CPU kernel computes it: per channel alpha = rstd * weight
    and beta = bias - mean * alpha, then input * alpha + beta (in float for a bf16 input). The
    statistics and running averages as torch's decomposition computes them. Returns (output,
    save_mean, save_rstd, new_running_mean, new_running_var)."""
    dims = [0] + list(range(2, input.dim()))
    compute = get_computation_dtype(input.dtype)
    x = input.to(compute)
    new_mean, new_var = running_mean, running_var
    if training:
        var, mean = torch.var_mean(x, dim=dims, correction=0)
        rstd = torch.rsqrt(var + eps)
        save_mean, save_rstd = mean, rstd
        if running_mean is not None:
            new_mean = momentum * mean + (1 - momentum) * running_mean
        if running_var is not None:
            n = input.numel() / input.shape[1]
            new_var = momentum * (var * (n / (n - 1))) + (1 - momentum) * running_var
    else:
        mean = running_mean.to(compute)
        rstd = 1 / torch.sqrt(running_var.to(compute) + eps)
        # (ATen's CPU kernel returns empty statistics in eval mode, its CUDA kernel these)
        save_mean, save_rstd = (input.new_zeros((0,)),) * 2 if input.device.type == "cpu" else (mean, rstd)
    shape = (-1,) + (1,) * (input.dim() - 2)
    if _fast_path(input, weight, bias, running_mean, running_var):
        alpha = rstd if weight is None else rstd * weight.flatten().to(compute)
        beta = -(mean * alpha) if bias is None else bias.flatten().to(compute) - mean * alpha
        out = x * alpha.reshape(shape) + beta.reshape(shape)
    else:
        # ATen's other loop, element by element: ((x - mean) * rstd) * weight + bias
        out = (x - mean.reshape(shape)) * rstd.reshape(shape)
        if weight is not None:
            out = out * weight.flatten().to(compute).reshape(shape)
        if bias is not None:
            out = out + bias.flatten().to(compute).reshape(shape)
    if input.device.type == "cpu":
        save_mean, save_rstd = save_mean.to(input.dtype), save_rstd.to(input.dtype)
    return out.to(input.dtype), save_mean, save_rstd, new_mean, new_var


def _fast_path(input: Tensor, *params) -> bool:
    """Whether ATen's CPU batch norm takes its per-channel alpha / beta loop: an input
    contiguous in some memory format and every parameter and running statistic given
    contiguous; otherwise it computes each element as ((x - mean) * rstd) * weight + bias
    (at an infinite weight, +-inf where the other loop's inf - inf is NaN: fuzz seed 58349,
    a weight with a stride of 2)."""
    formats = [torch.contiguous_format]
    if input.dim() == 4:
        formats.append(torch.channels_last)
    elif input.dim() == 5:
        formats.append(torch.channels_last_3d)
    laid = any(input.is_contiguous(memory_format=f) for f in formats)
    return laid and all(p is None or p.is_contiguous() for p in params)


def batch_norm_functional(input, weight, bias, running_mean, running_var, training, momentum, eps):
    return _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)


def batch_norm_legit(input, weight, bias, running_mean, running_var, training, momentum, eps):
    out, m, r, new_mean, new_var = _batch_norm(input, weight, bias, running_mean, running_var, training,
                                               momentum, eps)
    if training:
        # the op updates the running statistics in place
        if running_mean is not None:
            running_mean.copy_(new_mean)
        if running_var is not None:
            running_var.copy_(new_var)
    return out, m, r


def batch_norm_legit_no_stats(input, weight, bias, training, momentum, eps):
    return _batch_norm(input, weight, bias, None, None, training, momentum, eps)[:3]


def batch_norm_no_training(input, weight, bias, running_mean, running_var, momentum, eps):
    return _batch_norm(input, weight, bias, running_mean, running_var, False, momentum, eps)[:3]


def native_layer_norm_backward(grad_out: Tensor, input: Tensor, normalized_shape: list, mean: Tensor,
                               rstd: Tensor, weight, bias, output_mask: list) -> tuple:
    """Layer norm's backward as ATen's CPU kernel computes it: per row of N elements,
    ds = sum(dy * gamma * x) and db = sum(dy * gamma), then
    dx = rstd * dy * gamma + b * x + c with b = (db * mean - ds) * rstd^3 / N and
    c = -b * mean - db * rstd / N (in float for a bf16 input). torch's decomposition computes
    x_hat = (x - mean) * rstd and N * dy - sum(dy) - x_hat * sum(dy * x_hat): where dy holds
    an infinity, eager's inf - inf is NaN across the row where torch's leaves some elements
    infinite (and the rounding differs everywhere). The weight's and bias's gradients as
    ATen's: sums over the rows of dy * (x - mean) * rstd and of dy. On a GPU, torch's."""
    if input.device.type != "cpu":
        return _torch_layer_norm_backward()(grad_out, input, normalized_shape, mean, rstd, weight, bias,
                                            output_mask)
    compute = get_computation_dtype(input.dtype)
    axis = input.dim() - len(normalized_shape)
    inner = list(range(axis, input.dim()))
    outer = list(range(axis))
    n = 1
    for s in input.shape[axis:]:
        n *= s
    if guard_or_false(n == 0) or any(guard_or_false(s == 0) for s in input.shape[:axis]):
        return (input.new_zeros(input.shape) if output_mask[0] else None,
                input.new_zeros(input.shape[axis:]) if output_mask[1] and weight is not None else None,
                input.new_zeros(input.shape[axis:]) if output_mask[2] and bias is not None else None)
    dy, x = grad_out.to(compute), input.to(compute)
    shape = tuple(mean.shape) + (1,) * (input.dim() - mean.dim())
    mean_, rstd_ = mean.to(compute).reshape(shape), rstd.to(compute).reshape(shape)
    dx = dw = db_ = None
    if output_mask[0]:
        dy_g = dy if weight is None else dy * weight.to(compute)
        ds = torch.sum(dy_g * x, inner, keepdim=True)
        db = torch.sum(dy_g, inner, keepdim=True)
        b = (db * mean_ - ds) * rstd_ * rstd_ * rstd_ * (1.0 / n)
        c = -b * mean_ - db * rstd_ * (1.0 / n)
        dx = ((rstd_ * dy if weight is None else rstd_ * dy * weight.to(compute)) + b * x + c).to(input.dtype)
    if output_mask[1] and weight is not None:
        dw = dy * (x - mean_) * rstd_
        dw = (torch.sum(dw, outer) if outer else dw).to(weight.dtype)
    if output_mask[2] and bias is not None:
        db_ = (torch.sum(dy, outer) if outer else dy.clone()).to(bias.dtype)
    return dx, dw, db_


@functools.cache
def _torch_layer_norm_backward():
    return get_decompositions([aten.native_layer_norm_backward])[aten.native_layer_norm_backward.default]


def table() -> dict:
    """These decompositions by overload, to lay over torch's table."""
    return {aten._native_batch_norm_legit_functional.default: batch_norm_functional,
            aten._native_batch_norm_legit.default: batch_norm_legit,
            aten._native_batch_norm_legit.no_stats: batch_norm_legit_no_stats,
            aten._native_batch_norm_legit_no_training.default: batch_norm_no_training,
            aten.native_batch_norm.default: batch_norm_legit,
            aten.hardtanh_backward.default: hardtanh_backward,
            aten.gelu.default: gelu,
            aten.hardshrink_backward.default: hardshrink_backward,
            aten.hardshrink.default: hardshrink,
            aten.hardswish_backward.default: hardswish_backward,
            aten.elu_backward.default: elu_backward,
            aten.native_layer_norm_backward.default: native_layer_norm_backward}
