"""ATen calls a lowering makes in place of the traced ones (the generated program calls
them as it calls any extern's target)."""
from __future__ import annotations

import torch


def scatter_add_into_zeros(shape: tuple, dim: int, index: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    """scatter_add(zeros(shape), dim, index, src) without the copy of the zeros: ATen's
    scatter_add clones its first argument before adding into it; here the zeros are made
    where the sums go (in src's dtype, which the zeros have). The same kernel adds in the same
    order, so the sums are eager's."""
    return torch.zeros(shape, dtype=src.dtype, device=src.device).scatter_add_(dim, index, src)
