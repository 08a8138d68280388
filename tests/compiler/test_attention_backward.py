"""Attention's bf16 / fp16 backward on a CPU from the saved log-sum-exp (lowering/attention.py).

The decomposition is judged against float64 gradients, as the families are: at least as close
to them as ATen's flash kernel (the eager result) is, on causal, masked, grouped-query and
non-square cases. Compiled, a bf16 attention block trains as eager does under the same rule, and
its backward calls no flash kernel, while float32 keeps ATen's.
"""
from __future__ import annotations

import copy

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import bessemer
from bessemer.compiler.lowering.attention import flash_attention_backward_cpu

aten = torch.ops.aten
FLASH_BACKWARD = "_scaled_dot_product_flash_attention_for_cpu_backward"

CASES = [  # batch, heads, kv heads, L, S, head dim, causal, float mask
    (2, 4, 4, 16, 16, 8, True, False),
    (2, 4, 2, 16, 16, 8, True, False),      # grouped-query: two query heads per key/value head
    (2, 4, 4, 16, 24, 8, False, True),      # an additive mask, more keys than queries
    (2, 2, 2, 9, 5, 8, True, False),        # causal, fewer keys than queries
    (1, 2, 1, 7, 7, 16, False, False),
]


def _rel(a: torch.Tensor, truth: torch.Tensor) -> float:
    return ((a.double() - truth).abs().max() / truth.abs().max()).item()


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("case", CASES)
def test_the_decomposition_is_as_close_to_float64_as_the_flash_kernel(case, dtype):
    B, H, Hk, L, S, E, causal, masked = case
    g = torch.Generator().manual_seed(0)
    q = torch.randn(B, H, L, E, generator=g).to(dtype)
    k = torch.randn(B, Hk, S, E, generator=g).to(dtype)
    v = torch.randn(B, Hk, S, E, generator=g).to(dtype)
    go = torch.randn(B, H, L, E, generator=g).to(dtype)
    mask = torch.randn(L, S, generator=g).to(dtype) if masked else None
    out, lse = aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, 0.0, causal, attn_mask=mask)[:2]
    flash = aten._scaled_dot_product_flash_attention_for_cpu_backward(go, q, k, v, out, lse, 0.0, causal,
                                                                      attn_mask=mask)
    ours = flash_attention_backward_cpu(go, q, k, v, out, lse, 0.0, causal, attn_mask=mask)
    q64, k64, v64 = (t.double().requires_grad_() for t in (q, k, v))
    o64 = F.scaled_dot_product_attention(q64, k64, v64, attn_mask=None if mask is None else mask.double(),
                                         is_causal=causal, enable_gqa=H != Hk)
    truth = torch.autograd.grad(o64, (q64, k64, v64), go.double())
    for name, a, b, t in zip("qkv", ours, flash, truth):
        assert a.dtype == b.dtype and a.shape == b.shape, name
        assert _rel(a, t) <= 1.5 * _rel(b, t) + 1e-3, (name, _rel(a, t), _rel(b, t))


def test_float32_dropout_and_boolean_masks_keep_the_flash_kernel():
    q = torch.randn(1, 2, 4, 8)
    args = (q, q, q, q, q, torch.zeros(1, 2, 4))
    assert flash_attention_backward_cpu(*args, 0.0, True) is NotImplemented
    low = tuple(t.bfloat16() if t.dim() == 4 else t for t in args)
    assert flash_attention_backward_cpu(*low, 0.1, False) is NotImplemented
    assert flash_attention_backward_cpu(*low, 0.0, False,
                                        attn_mask=torch.ones(4, 4, dtype=torch.bool)) is NotImplemented
    assert flash_attention_backward_cpu(*low, 0.0, False) is not NotImplemented


class Block(nn.Module):
    def __init__(self, dim=32, heads=4, kv_heads=2):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, dim // heads
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, 2 * kv_heads * self.hd)
        self.o = nn.Linear(dim, dim)

    def forward(self, x):
        B, T, _ = x.shape
        q = self.q(x).view(B, T, self.heads, self.hd).transpose(1, 2)
        k, v = self.kv(x).view(B, T, 2, self.kv_heads, self.hd).unbind(2)
        y = F.scaled_dot_product_attention(q, k.transpose(1, 2), v.transpose(1, 2), is_causal=True, enable_gqa=True)
        return self.o(y.transpose(1, 2).reshape(B, T, -1))


def _train(model, x, steps, amp):
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    losses, grads = [], None
    for i in range(steps):
        opt.zero_grad(set_to_none=True)
        with amp():
            loss = model(x).float().pow(2).mean()
        loss.backward()
        if grads is None:
            grads = torch.cat([p.grad.double().flatten() for p in model.parameters()])
        opt.step()
        losses.append(loss.item())
    return losses, grads, torch.cat([p.detach().double().flatten() for p in model.parameters()])


def _backward_text(model) -> str:
    graphs = model.forward._bessemer_backend.compiled
    assert any(cg.name.startswith("backward") for cg in graphs), "no backward graph was compiled"
    return "\n".join(cg.schedule_text for cg in graphs if cg.name.startswith("backward"))


def test_a_bf16_attention_block_trains_as_eager_without_the_flash_backward():
    torch.manual_seed(0)
    base = Block()
    x = torch.randn(4, 16, 32)
    bf16 = lambda: torch.autocast("cpu", dtype=torch.bfloat16)  # noqa: E731
    eager = _train(copy.deepcopy(base), x, 3, bf16)
    model = copy.deepcopy(base)
    bessemer.compile(model, fallback="error")
    compiled = _train(model, x, 3, bf16)
    assert FLASH_BACKWARD not in _backward_text(model)
    truth = _train(copy.deepcopy(base).double(), x.double(), 3, __import__("contextlib").nullcontext)
    for i in (0, 2):
        err_c, err_e = abs(compiled[0][i] - truth[0][i]), abs(eager[0][i] - truth[0][i])
        assert err_c <= 3 * err_e + 1e-6 * abs(truth[0][i]), (i, err_c, err_e)
    for got, want, t in zip(compiled[1:], eager[1:], truth[1:]):
        err_c, err_e = (got - t).norm().item(), (want - t).norm().item()
        assert err_c <= 3 * err_e + 1e-6 * t.norm().item(), (err_c, err_e)


def test_float32_attention_keeps_the_flash_backward():
    torch.manual_seed(0)
    model = Block()
    bessemer.compile(model, fallback="error")
    model(torch.randn(2, 8, 32)).pow(2).mean().backward()
    assert FLASH_BACKWARD in _backward_text(model)
