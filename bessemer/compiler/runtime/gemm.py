"""Matrix products other than ATen's one call: the callables a generated program runs in
place of ATen's `mm` / `addmm` where the compiler measured them faster for that product
(passes/gemm_choice.py): oneDNN's product, and ATen's in blocks of columns.

ATen computes a float32 `mm` on the CPU with its BLAS (MKL in torch's wheels); torch also
ships oneDNN, whose matmul it uses for bf16 / fp16 but not for float32. On some CPUs
oneDNN's is the faster of the two for the shapes a transformer trains with (measured on
this project's AMD EPYC: see gemm_choice.py), so the compiler measures both and keeps the
faster. oneDNN sums in its own order: results agree with ATen's to float32 rounding, not
bit for bit.
"""
from __future__ import annotations

from typing import Optional

import torch


def _resolve():
    try:
        if torch.backends.mkldnn.is_available():
            return torch.ops.mkldnn._linear_pointwise.default
    except (AttributeError, RuntimeError):
        pass
    return None


_LINEAR = _resolve()


def linear_op():
    """oneDNN's linear (`x @ w.T + bias` with a dense weight) as torch exposes it, or None."""
    return _LINEAR


def onednn_mm(a: torch.Tensor, b: torch.Tensor, bias: Optional[torch.Tensor] = None) -> torch.Tensor:
    """a @ b (+ bias along the last dim) by oneDNN: `a` [M, K] row-major, `b` [K, N] of
    either major order, `bias` [N] contiguous or None. A new contiguous [M, N] tensor."""
    return _LINEAR(a, b.t(), bias, "none", [], "")


# the result is always a new contiguous tensor (the program checks no layout)
onednn_mm.contiguous_result = True


# Columns of the result per ATen call in `blocked_mm`.
BLOCK_COLUMNS = 1024


def blocked_mm(a: torch.Tensor, b: torch.Tensor, bias: Optional[torch.Tensor] = None) -> torch.Tensor:
    """a @ b (+ bias along the last dim) by ATen, BLOCK_COLUMNS columns of the result per call,
    each written in place into one new contiguous [M, N] result (`a` [M, K], `b` [K, N] of
    either major order, `bias` [N] contiguous or None). Each element is the same dot product
    over K as in one call. Where `b` is wide and K short (an LM head's [1024, 256] x [256, 8192]),
    MKL's one call streams all of `b` through the cache for each panel of rows it computes;
    a block's columns of `b` stay in cache across them (measured in gemm_choice.py)."""
    m, n = a.shape[0], b.shape[1]
    out = a.new_empty((m, n))
    with torch.no_grad():
        for j in range(0, n, BLOCK_COLUMNS):
            e = min(n, j + BLOCK_COLUMNS)
            if bias is None:
                torch.mm(a, b[:, j:e], out=out[:, j:e])
            else:
                torch.addmm(bias[j:e], a, b[:, j:e], out=out[:, j:e])
    return out


blocked_mm.contiguous_result = True
