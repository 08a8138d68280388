"""Decompositions that compute bf16 and fp16 results as ATen's CPU kernels do.

(addcmul, addcdiv and lerp in float, rounded once; logit, xlogy, and the losses mse,
binary cross-entropy and soft margin, each with its backward, op by op, each rounded; glu's
backward from a rounded sigmoid; fp16 sigmoid's backward op by op: below.)

torch's decompositions of addcmul, addcdiv and lerp are chains of ops, each rounded to the
narrow type: `self + value * (t1 * t2)` rounds the product, then the scaled product, then
the sum. ATen's CPU kernels take every operand to float once (a tensor operand of another
type narrowed to the result's type first, as the iterator's common dtype does), compute
the whole formula in float, and round once. Measured against eager over 4096 random bf16
values, torch's decomposition of `addcmul(x, x, s)` differs in 1312 elements and `lerp` in
1312; these in a few (ATen's vectorized loops fuse a multiply-add that the kernels, built with
-ffp-contract=off, round twice: 3 of 4096 for addcmul). A float32 or float64 result keeps
torch's decomposition.
"""
from __future__ import annotations

import torch
from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND, elementwise_dtypes

from bessemer.compiler.ir.graph import LOW_FLOATS, narrowed

aten = torch.ops.aten


def _result_dtype(*args) -> torch.dtype:
    return elementwise_dtypes(*args, type_promotion_kind=ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT)[1]


def _wide(x, dtype: torch.dtype):
    """An operand as the kernel reads it: narrowed to the result's type, then in float."""
    if isinstance(x, torch.Tensor):
        return x.to(dtype).to(torch.float32)
    return x


def _or_torch(torch_fn, narrow_fn):
    def fn(*args, **kwargs):
        dtype = _result_dtype(*args, *kwargs.values())
        if dtype not in LOW_FLOATS:
            return torch_fn(*args, **kwargs)
        return narrow_fn(dtype, *args, **kwargs)
    return fn


def _addcmul(dtype, self, t1, t2, *, value=1):
    s, a, b = (_wide(x, dtype) for x in (self, t1, t2))
    return (s + (value * a) * b).to(dtype)


def _addcdiv(dtype, self, t1, t2, *, value=1):
    s, a, b = (_wide(x, dtype) for x in (self, t1, t2))
    return (s + (value * a) / b).to(dtype)


def _lerp(dtype, start, end, weight):
    # ATen's lerp: start + w * (end - start) for |w| < 0.5, else end - (end - start) * (1 - w);
    # a number weight is read as a float, unrounded
    s, e = _wide(start, dtype), _wide(end, dtype)
    diff = e - s
    if not isinstance(weight, torch.Tensor):
        w = float(weight)
        return (s + w * diff if abs(w) < 0.5 else e - diff * (1 - w)).to(dtype)
    w = _wide(weight, dtype)
    return torch.where(w.abs() < 0.5, s + w * diff, e - diff * (1 - w)).to(dtype)


def _logit(torch_fn):
    # ATen's bf16 / fp16 logit computes log(x / (1 - x)) in the narrow type, each op rounded
    # (the one kernel here that does): torch's decomposition computes in float and rounds once,
    # which moved 36% of 100000 bf16 values by a step (fuzz seed 63174, through a sigmoid)
    def fn(self, eps=None):
        if self.dtype not in LOW_FLOATS:
            return torch_fn(self, eps)
        x = self
        if eps is not None:
            lo = narrowed(float(eps), self.dtype)
            x = torch.clamp(x, lo, narrowed(1 - lo, self.dtype))
        return torch.log(x / (1 - x))
    return fn


def _logit_backward(torch_fn):
    # ATen's bf16 / fp16 logit_backward as its forward: dy / (x * (1 - x)), each op rounded to
    # the narrow type (torch's decomposition computes in float and rounds once: 928 of 3360
    # bf16 gradients a step off; fuzz seeds 68544-68553, a bf16 logit(sigmoid) summed into a
    # float32 0-dim input's gradient). Outside [lo, hi] (eps narrowed, as the forward's clamp)
    # the gradient is 0; with no eps, NaN outside [0, 1].
    def fn(grad_output, self, eps=None):
        if self.dtype not in LOW_FLOATS or grad_output.dtype != self.dtype:
            return torch_fn(grad_output, self, eps)
        x = self
        g = grad_output / (x * (1 - x))
        if eps is None:
            return torch.where((x >= 0) & (x <= 1), g, torch.full((), float("nan"), dtype=x.dtype))
        lo = narrowed(float(eps), self.dtype)
        hi = narrowed(1 - lo, self.dtype)
        return torch.where((x >= lo) & (x <= hi), g, torch.zeros((), dtype=x.dtype))
    return fn


def _xlogy(torch_fn):
    # ATen's bf16 / fp16 xlogy: x * log(y), the log and the product each rounded to the narrow
    # type (torch's decomposition computes in float and rounds once: 975 of 4096 bf16 values
    # a step off); NaN where y is, 0 where x is 0
    def fn(self, other):
        if not (isinstance(self, torch.Tensor) and isinstance(other, torch.Tensor)) \
                or self.dtype not in LOW_FLOATS or other.dtype != self.dtype:
            return torch_fn(self, other)
        zero = torch.zeros((), dtype=self.dtype)
        return torch.where(other.isnan(), other, torch.where(self == 0, zero, self * torch.log(other)))
    return fn


def _glu_backward(torch_fn):
    # ATen's bf16 / fp16 glu_backward rounds the gate's sigmoid to the narrow type, then
    # computes both halves in float and rounds each once (torch's decomposition: float
    # throughout, 2514 of 8192 bf16 gradients a step off)
    def fn(grad_output, self, dim):
        if self.dtype not in LOW_FLOATS or grad_output.dtype != self.dtype:
            return torch_fn(grad_output, self, dim)
        a, b = self.chunk(2, dim)
        s = torch.sigmoid(b).float()
        g, af = grad_output.float(), a.float()
        return torch.cat([s * g, (1 - s) * s * af * g], dim).to(self.dtype)
    return fn


def _sigmoid_backward(torch_fn):
    # ATen's fp16 sigmoid_backward rounds each step of grad * (1 - y) * y to fp16 (its bf16
    # kernel computes in float and rounds once, as torch's decomposition: 1069 of 3360 fp16
    # gradients a step off it)
    def fn(grad_output, output):
        if output.dtype != torch.float16 or grad_output.dtype != torch.float16:
            return torch_fn(grad_output, output)
        return grad_output * (1 - output) * output
    return fn


def _reduce(loss, reduction: int):
    return loss.mean() if reduction == 1 else loss.sum() if reduction == 2 else loss


def _mse_loss(torch_fn):
    # ATen's bf16 / fp16 mse_loss: the difference rounded to the narrow type, then squared and
    # rounded (torch's decomposition squares the float difference: 755 of 2048 bf16 losses a
    # step off); the mean or sum as the narrow type's reduction
    def fn(self, target, reduction=1):
        if self.dtype not in LOW_FLOATS or target.dtype != self.dtype:
            return torch_fn(self, target, reduction)
        d = self - target
        return _reduce(d * d, reduction)
    return fn


def _mse_loss_backward(torch_fn):
    # ATen's bf16 / fp16 mse_loss_backward: (self - target), times the norm (2, or 2 / numel
    # for a mean) narrowed to the type, times the incoming gradient, each product rounded
    # (torch's decomposition: float throughout, about 1200 of 2010 bf16 gradients of a mean a
    # step off)
    def fn(grad_output, self, target, reduction):
        if self.dtype not in LOW_FLOATS or target.dtype != self.dtype or grad_output.dtype != self.dtype:
            return torch_fn(grad_output, self, target, reduction)
        norm = narrowed(2.0 / self.numel() if reduction == 1 else 2.0, self.dtype)
        return ((self - target) * norm) * grad_output
    return fn


def _narrow(*tensors) -> bool:
    """Every operand a tensor of one narrow type (the case ATen's narrow kernel computes)."""
    ts = [t for t in tensors if t is not None]
    return all(isinstance(t, torch.Tensor) for t in ts) and ts[0].dtype in LOW_FLOATS \
        and all(t.dtype == ts[0].dtype for t in ts)


def _binary_cross_entropy(torch_fn):
    # ATen's bf16 / fp16 binary_cross_entropy: (t - 1) * max(log1p(-p), -100) - t * max(log(p),
    # -100), every op rounded to the narrow type, then times the weight (rounded) and reduced
    # (torch's decomposition: float throughout, 696 of 2010 bf16 losses a step off)
    def fn(self, target, weight=None, reduction=1):
        if not _narrow(self, target, weight):
            return torch_fn(self, target, weight, reduction)
        loss = (target - 1) * torch.clamp_min(torch.log1p(-self), -100) \
            - target * torch.clamp_min(torch.log(self), -100)
        return _reduce(loss if weight is None else loss * weight, reduction)
    return fn


def _binary_cross_entropy_backward(torch_fn):
    # ATen's: g * (p - t) / max((1 - p) * p, 1e-12), every op rounded, then times the weight
    # and divided by numel for a mean, each rounded (793 of 2010 bf16 gradients a step off
    # torch's float decomposition)
    def fn(grad_output, self, target, weight=None, reduction=1):
        if not _narrow(grad_output, self, target, weight):
            return torch_fn(grad_output, self, target, weight, reduction)
        g = grad_output * (self - target) / torch.clamp_min((1 - self) * self, 1e-12)
        if weight is not None:
            g = g * weight
        return g / self.numel() if reduction == 1 else g
    return fn


def _soft_margin_loss(torch_fn):
    # ATen's: log1p(exp(-x * y)), each op rounded (373 of 2010 bf16 losses a step off torch's
    # float decomposition)
    def fn(self, target, reduction=1):
        if not _narrow(self, target):
            return torch_fn(self, target, reduction)
        return _reduce(torch.log1p(torch.exp(-self * target)), reduction)
    return fn


def _soft_margin_loss_backward(torch_fn):
    # ATen's: z = exp(-y * x); -norm * y * z / (1 + z) * g with the norm (1 / numel for a mean)
    # narrowed, each op rounded (736 of 2010 bf16 gradients a step off torch's decomposition)
    def fn(grad_output, self, target, reduction):
        if not _narrow(grad_output, self, target):
            return torch_fn(grad_output, self, target, reduction)
        norm = narrowed(1.0 / self.numel() if reduction == 1 else 1.0, self.dtype)
        z = torch.exp(-target * self)
        return target * -norm * z / (1 + z) * grad_output
    return fn


def table(torch_table: dict) -> dict:
    """These decompositions by overload, to lay over `torch_table` (torch's, whose
    decomposition each keeps for a wide result)."""
    ops = {aten.addcmul.default: _addcmul, aten.addcdiv.default: _addcdiv,
           aten.lerp.Scalar: _lerp, aten.lerp.Tensor: _lerp}
    out = {op: _or_torch(torch_table[op], fn) for op, fn in ops.items() if op in torch_table}
    if aten.logit.default in torch_table:
        out[aten.logit.default] = _logit(torch_table[aten.logit.default])
    for op, wrap in ((aten.logit_backward.default, _logit_backward), (aten.xlogy.Tensor, _xlogy),
                     (aten.glu_backward.default, _glu_backward), (aten.sigmoid_backward.default, _sigmoid_backward),
                     (aten.mse_loss.default, _mse_loss), (aten.mse_loss_backward.default, _mse_loss_backward),
                     (aten.binary_cross_entropy.default, _binary_cross_entropy),
                     (aten.binary_cross_entropy_backward.default, _binary_cross_entropy_backward),
                     (aten.soft_margin_loss.default, _soft_margin_loss),
                     (aten.soft_margin_loss_backward.default, _soft_margin_loss_backward)):
        if op in torch_table:
            out[op] = wrap(torch_table[op])
    return out
