"""Batched matmuls with a size of 1 among their three, as the pointwise products and sums
they are.

`bmm(a [B, M, K], b [B, K, N])` with K = 1 is an outer product per batch (a * b, exact);
with N = 1 or M = 1 it is a batch of matrix-vector products, a product summed over K.
ATen's bmm runs these as B separate GEMM calls and first copies an operand that is not laid
out as GEMM wants (an einsum's permuted views): a top-k mixture of experts combining its
experts' outputs with the router's gates ("etd,te->td", 128 tokens, 8 experts) made three
such calls per layer and step (a third of its bmm calls). As a product and a sum they fuse
into the kernels around them and read their operands where they lie. The sum's order is
the kernels' (in float64 for float32), not the GEMM's: within rounding of eager's result,
not bit for bit (K = 1 is exact).

A vector product longer than THIN_MAX_K stays a GEMM call: there the call's fixed cost is
small against its reads, and MKL's vectorized dot beats a strided reduction.
"""
from __future__ import annotations

import torch

THIN_MAX_K = 256


def _static(*sizes) -> bool:
    return all(isinstance(s, int) for s in sizes)


def thin_bmm(a: torch.Tensor, b: torch.Tensor):
    """The decomposition of aten.bmm for a size of 1 (CPU, float32 / float64); NotImplemented
    (ATen's bmm) otherwise."""
    if a.device.type != "cpu" or a.dtype not in (torch.float32, torch.float64) or b.dtype != a.dtype:
        return NotImplemented
    B, M, K = a.shape
    N = b.shape[2]
    if not _static(B, M, K, N) or 0 in (B, M, K, N):
        return NotImplemented
    if K == 1:
        return a * b                                              # [B, M, 1] * [B, 1, N]
    if K > THIN_MAX_K:
        return NotImplemented
    if N == 1:
        return (a * b.transpose(1, 2)).sum(2, keepdim=True)       # [B, M, K] * [B, 1, K]
    if M == 1:
        return (a.transpose(1, 2) * b).sum(1, keepdim=True)       # [B, K, 1] * [B, K, N]
    return NotImplemented
