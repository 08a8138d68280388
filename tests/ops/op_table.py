"""The per-op table: every lowered op with its inputs, and the eager comparison.

Each case compiles a function that applies the op to three argument sets at once:
same-shape inputs, broadcasting inputs, and non-contiguous (transposed / sliced)
inputs; the outputs and the gradients of a weighted sum of them must equal
eager's. Each backend's test file runs the table (test_ops.py: C++,
test_ops_triton.py: Triton under its interpreter).
"""
from __future__ import annotations

import math
import warnings

import torch

import bessemer

F = torch.nn.functional

# name -> (function, arity, domain, differentiable)
# domain: "any" real inputs, "pos" positive, "unit" in (-1, 1), "int" integer-valued
OPS = {
    "add": (lambda a, b: a + b, 2, "any", True),
    "add_alpha": (lambda a, b: torch.add(a, b, alpha=2.5), 2, "any", True),
    "sub": (lambda a, b: a - b, 2, "any", True),
    "mul": (lambda a, b: a * b, 2, "any", True),
    "div": (lambda a, b: a / b, 2, "pos", True),
    "pow_scalar": (lambda a: a ** 3, 1, "any", True),
    "pow_tensor": (lambda a, b: a ** b, 2, "pos", True),
    "sqrt_pow": (lambda a: a ** 0.5, 1, "pos", True),
    "maximum": (torch.maximum, 2, "any", True),
    "minimum": (torch.minimum, 2, "any", True),
    "neg": (torch.neg, 1, "any", True),
    "abs": (torch.abs, 1, "any", True),
    "exp": (torch.exp, 1, "any", True),
    "expm1": (torch.expm1, 1, "any", True),
    "log": (torch.log, 1, "pos", True),
    "log1p": (torch.log1p, 1, "pos", True),
    "log2": (torch.log2, 1, "pos", True),
    "sqrt": (torch.sqrt, 1, "pos", True),
    "rsqrt": (torch.rsqrt, 1, "pos", True),
    # an index computed in the graph, provably in range: a gather inside the kernel (ir/ranges.py),
    # its gradient a scatter_add into zeros
    "gather_reversed": (lambda a: a.gather(-1, (a.shape[-1] - 1 - torch.arange(a.shape[-1], device=a.device))
                                           .expand(a.shape)), 1, "any", True),
    # a random draw (a drop-path's keep mask): eager's generator words, the same mask
    "bernoulli_p": (lambda a: a * torch.bernoulli(a.detach(), 0.6), 1, "any", True),
    # squeeze of a dim that is not of size 1: no change of shape, traced as prims.view_of (an alias)
    "squeeze_kept": (lambda a: a.squeeze(0) * 2, 1, "any", True),
    "sin": (torch.sin, 1, "any", True),
    "cos": (torch.cos, 1, "any", True),
    "tanh": (torch.tanh, 1, "any", True),
    "sigmoid": (torch.sigmoid, 1, "any", True),
    "erf": (torch.erf, 1, "any", True),
    "relu": (torch.relu, 1, "any", True),
    "reciprocal": (torch.reciprocal, 1, "pos", True),
    "floor": (torch.floor, 1, "any", False),
    "ceil": (torch.ceil, 1, "any", False),
    "round": (torch.round, 1, "any", False),
    "trunc": (torch.trunc, 1, "any", False),
    "sign": (torch.sign, 1, "any", False),
    "atan": (torch.atan, 1, "any", True),
    "clamp": (lambda a: torch.clamp(a, -0.5, 0.7), 1, "any", True),
    "where": (lambda a, b: torch.where(a > b, a, b * 2), 2, "any", True),
    "gt_mask": (lambda a, b: (a > b).to(a.dtype) * a, 2, "any", True),
    "eq_ne": (lambda a, b: ((a >= b) & (a != 0)).to(a.dtype) + b, 2, "any", True),
    "logical": (lambda a, b: torch.logical_or(a < 0, b > 0.5).to(a.dtype) * b, 2, "any", True),
    "floordiv": (lambda a, b: torch.div(a * 4, b, rounding_mode="floor"), 2, "pos", False),
    "truncdiv": (lambda a, b: torch.div(a * 4 - 2, b, rounding_mode="trunc"), 2, "pos", False),
    "remainder": (lambda a, b: torch.remainder(a * 4, b), 2, "pos", False),
    "gelu": (F.gelu, 1, "any", True),
    "gelu_tanh": (lambda a: F.gelu(a, approximate="tanh"), 1, "any", True),
    "silu": (F.silu, 1, "any", True),
    "leaky_relu": (F.leaky_relu, 1, "any", True),
    "hardtanh": (F.hardtanh, 1, "any", True),
    "softplus": (F.softplus, 1, "any", True),
    "elu": (F.elu, 1, "any", True),
    "softmax": (lambda a: torch.softmax(a, -1), 1, "any", True),
    "softmax_dim0": (lambda a: torch.softmax(a, 0), 1, "any", True),
    "log_softmax": (lambda a: torch.log_softmax(a, -1), 1, "any", True),
    "sum": (lambda a: a.sum(-1), 1, "any", True),
    "sum_all": (lambda a: a.sum(), 1, "any", True),
    "sum_dim0_keep": (lambda a: a.sum(0, keepdim=True), 1, "any", True),
    "mean": (lambda a: a.mean(-1, keepdim=True), 1, "any", True),
    "amax": (lambda a: a.amax(-1), 1, "any", True),
    "amin": (lambda a: a.amin(0), 1, "any", True),
    "var": (lambda a: a.var(-1), 1, "any", True),
    "std": (lambda a: a.std(-1, keepdim=True), 1, "any", True),
    "layer_norm": (lambda a: F.layer_norm(a, a.shape[-1:]), 1, "any", True),
    "rms_norm": (lambda a: a * torch.rsqrt(a.pow(2).mean(-1, keepdim=True) + 1e-6), 1, "any", True),
    "mse_loss": (lambda a, b: F.mse_loss(a, b.expand_as(a)), 2, "any", True),
    "bce_logits": (lambda a, b: F.binary_cross_entropy_with_logits(a, torch.sigmoid(b).expand_as(a)), 2, "any", True),
    "transpose_add": (lambda a, b: a.transpose(-1, -2) + b.transpose(-1, -2), 2, "any", True),
    "reshape_mul": (lambda a, b: (a * b).reshape(-1) * 2, 2, "any", True),
    "slice_cat_free": (lambda a: a[..., 1:] * a[..., :-1], 1, "any", True),
    "select_expand": (lambda a: a[..., 0:1].expand_as(a) * a, 1, "any", True),
    "unsqueeze_sum": (lambda a: (a.unsqueeze(0) * 2).sum(0), 1, "any", True),
    "arange_mask": (lambda a: a * (torch.arange(a.shape[-1], device=a.device) < 3).to(a.dtype), 1, "any", True),
    "full_like": (lambda a: a + torch.full_like(a, 0.25) * torch.ones_like(a), 1, "any", True),
    "scatter_row": (lambda a: a.scatter(-1, (a[..., :1] > 0).long() * 2, 0.5) * a, 1, "any", True),
    "cross_entropy": (lambda a: F.cross_entropy(a.reshape(-1, a.shape[-1]), torch.arange(a.reshape(-1, a.shape[-1]).shape[0], device=a.device) % a.shape[-1]), 1, "any", True),
    "cast_roundtrip": (lambda a: (a.to(torch.float64) * 3).to(a.dtype), 1, "any", True),
}

DTYPES = {"fp32": torch.float32, "fp64": torch.float64, "bf16": torch.bfloat16, "fp16": torch.float16}
# bf16 / fp16: about two units in the last place of the narrow type (fused kernels keep
# intermediates in fp32 where eager rounds after every op)
TOL = {torch.float32: (1e-5, 1e-5), torch.float64: (1e-10, 1e-10), torch.bfloat16: (1.6e-2, 1e-2),
       torch.float16: (2e-3, 2e-3)}


def _make(shape, dtype, domain, gen, noncontig=False, device="cpu"):
    if noncontig:  # a transposed view of a larger tensor
        big = torch.randn(*shape[:-2], shape[-1], shape[-2] * 2, generator=gen, dtype=torch.float64)
        t = big.to(device)[..., ::2].transpose(-1, -2)
    else:
        t = torch.randn(*shape, generator=gen, dtype=torch.float64).to(device)
    if domain == "pos":
        t = t.abs() + 0.5
    elif domain == "unit":
        t = torch.tanh(t) * 0.9
    # keep values away from the kinks of relu/floor/round/clamp/comparisons
    t = t + 0.0
    return t.to(dtype).detach()


def _arg_sets(arity, dtype, domain, device="cpu"):
    gen = torch.Generator().manual_seed(0)
    same = [_make((3, 5, 7), dtype, domain, gen, device=device) for _ in range(arity)]
    bcast = [_make((3, 5, 7), dtype, domain, gen, device=device)] + \
        [_make((5, 1), dtype, domain, gen, device=device) for _ in range(arity - 1)]
    noncontig = [_make((3, 7, 5), dtype, domain, gen, noncontig=True, device=device) for _ in range(arity)]
    return [same, bcast, noncontig]


def check_op(op_name: str, dtype_name: str, cache_dir: str, device: str = "cpu", **options) -> None:
    fn, arity, domain, differentiable = OPS[op_name]
    dtype = DTYPES[dtype_name]
    sets = _arg_sets(arity, dtype, domain, device)

    def f(*flat):
        return tuple(fn(*flat[i * arity:(i + 1) * arity]) for i in range(len(sets)))

    # `f` is one code object for every op: Dynamo keeps its compiles per code object, and
    # past its recompile limit it would run `f` eagerly, comparing eager with itself
    torch._dynamo.reset()
    compiled = bessemer.compile(f, cache_dir=cache_dir, fallback="error", **options)
    flat_e = [t.clone().requires_grad_(differentiable) for s in sets for t in s]
    flat_c = [t.clone().requires_grad_(differentiable) for s in sets for t in s]
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # no op may silently fall back
        warnings.filterwarnings("ignore", message=".*(TF32|not a leaf|has no lowering).*")
        torch.manual_seed(0)     # a random op draws the same numbers in both runs
        out_c = compiled(*flat_c)
    torch.manual_seed(0)
    out_e = f(*flat_e)
    rtol, atol = TOL[dtype]
    for oc, oe in zip(out_c, out_e):
        assert oc.dtype == oe.dtype and oc.shape == oe.shape
        torch.testing.assert_close(oc, oe, rtol=rtol, atol=atol)
    if not differentiable:
        return
    gen = torch.Generator().manual_seed(1)
    weights = [torch.randn(o.shape, generator=gen, dtype=torch.float64).to(o.device, dtype) for o in out_e]
    sum(((o.to(torch.float64) * w.to(torch.float64)).sum() for o, w in zip(out_e, weights))).backward()
    sum(((o.to(torch.float64) * w.to(torch.float64)).sum() for o, w in zip(out_c, weights))).backward()
    for tc, te in zip(flat_c, flat_e):
        assert (tc.grad is None) == (te.grad is None)
        if te.grad is not None:
            torch.testing.assert_close(tc.grad, te.grad, rtol=rtol * 4, atol=atol * 4)
