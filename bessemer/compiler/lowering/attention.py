"""Scaled-dot-product attention's backward in bf16 / fp16 on a CPU, as plain ATen ops.

The forward stays ATen's fused flash kernel (capture keeps it whole); its backward,
`_scaled_dot_product_flash_attention_for_cpu_backward`, is decomposed here when the inputs
are bf16 or fp16. ATen's CPU flash backward in those dtypes is several times slower than
the same gradients computed from the saved log-sum-exp: [8, 4, 128, 64], causal, bf16, one
thread: 10.1 ms against 5.0 ms for the unfused ATen ops below (and their pointwise parts
fuse once compiled); BERT small's four attention backwards took 24.7 ms of a 74 ms bf16
step. In float32 ATen's kernel is as fast as the ops below and stays.

The decomposition computes in float32 from the low-precision inputs and rounds each gradient
once: farther from eager's bf16 kernel than that kernel's own rounding (which rounds the
probabilities before its products), closer to the float64 gradients. The same example
against float64: the flash kernel's gradients off by 2.7e-3 / 6.5e-3 / 7.1e-3 of their
largest value (q, k, v), these by 2.8e-3 / 3.1e-3 / 2.8e-3.

    P  = exp(Q K^T * scale + mask - lse)        (0 where causal masks)
    dV = P^T dO
    dS = P * (dO V^T - rowsum(dO * O))
    dQ = dS K * scale,   dK = dS^T Q * scale

With grouped-query attention (fewer key/value heads than query heads), query head h reads
key/value head h // (heads / kv heads), and that head's gradients sum over its group.
"""
from __future__ import annotations

import math

import torch

from bessemer.compiler.ir.graph import LOW_FLOATS


def flash_attention_backward_cpu(grad_out, query, key, value, out, logsumexp, dropout_p=0.0,
                                 is_causal=False, *, attn_mask=None, scale=None):
    """The decomposition of aten._scaled_dot_product_flash_attention_for_cpu_backward; NotImplemented
    (ATen's kernel runs) in float32, with dropout, or with a boolean mask."""
    if (query.dtype not in LOW_FLOATS or query.device.type != "cpu" or dropout_p != 0.0
            or (attn_mask is not None and attn_mask.dtype == torch.bool)):
        return NotImplemented
    L, E = query.shape[-2], query.shape[-1]
    S = key.shape[-2]
    heads, kv_heads = query.shape[1], key.shape[1]
    group = heads // kv_heads
    sc = scale if scale is not None else 1.0 / math.sqrt(E)
    f32 = torch.float32
    q, g, o = query.to(f32), grad_out.to(f32), out.to(f32)
    k, v = key.to(f32), value.to(f32)
    if group > 1:
        k = k.repeat_interleave(group, dim=1)
        v = v.repeat_interleave(group, dim=1)
    s = torch.matmul(q, k.transpose(-2, -1)) * sc
    if attn_mask is not None:
        s = s + attn_mask.to(f32)
    p = torch.exp(s - logsumexp.unsqueeze(-1))
    if is_causal:
        above = torch.ones(L, S, dtype=torch.bool, device=query.device).triu(1)
        p = torch.where(above, torch.zeros((), dtype=f32, device=query.device), p)
    dv = torch.matmul(p.transpose(-2, -1), g)
    dp = torch.matmul(g, v.transpose(-2, -1))
    ds = p * (dp - (g * o).sum(-1, keepdim=True))
    dq = torch.matmul(ds, k) * sc
    dk = torch.matmul(ds.transpose(-2, -1), q) * sc
    if group > 1:
        dk = dk.unflatten(1, (kv_heads, group)).sum(2)
        dv = dv.unflatten(1, (kv_heads, group)).sum(2)
    return dq.to(query.dtype), dk.to(key.dtype), dv.to(value.dtype)
