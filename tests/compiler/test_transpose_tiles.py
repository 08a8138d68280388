"""Pointwise kernels that read transposed and write contiguously run in tiles
(passes/kernel_plan_cpp.py, TRANSPOSE_TILE): values, several outputs of different dtypes, sizes that
are not multiples of the tile, and the backward (itself a transpose) match eager."""
import copy

import pytest
import torch

import bessemer
from bessemer.compiler.passes import kernel_plan_cpp


class ToNHWC(torch.nn.Module):
    """An activation copied to channels-last order, and a mask of it (bool)."""

    def __init__(self, channels):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.linspace(0.5, 2.0, channels).view(1, channels, 1, 1))

    def forward(self, x):
        y = torch.relu(x * self.scale + 1.0)
        return y.permute(0, 2, 3, 1).contiguous(), (x > 0.5).permute(0, 2, 3, 1).contiguous()


def _both(shape):
    torch._dynamo.reset()
    torch.manual_seed(0)
    ref = ToNHWC(shape[1])
    model = bessemer.compile(copy.deepcopy(ref), config=bessemer.TrainingCompilerConfig(
        fallback="error", graph_cache=False, backend="cpp"))
    x = torch.randn(shape)
    g = torch.randn(shape[0], *shape[2:], shape[1])
    out = []
    for m in (ref, model):
        xi = x.clone().requires_grad_(True)
        y, mask = m(xi)
        (y * g).sum().backward()
        out.append((y, mask, xi.grad, m.scale.grad))
    return out, model


@pytest.mark.parametrize("shape", [(3, 40, 7, 9), (2, 16, 16, 2), (1, 64, 5, 5), (2, 33, 32, 1)])
def test_a_transposing_kernel_matches_eager_in_tiles(shape):
    (want, got), _ = _both(shape)
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b)   # the bool masks exactly
    assert got[0].stride() == want[0].stride() and got[1].stride() == want[1].stride()


def test_the_tiles_are_used_where_rows_are_read_across():
    _, model = _both((3, 40, 7, 9))
    sources = [k.code for cg in model.forward._bessemer_backend.compiled for k in cg.kernels]
    tiled = [s for s in sources if "tile0" in s]
    # the forward's copy to NHWC (two outputs: values and mask) and the backward's copy back
    assert len(tiled) == 2 and any("tile1" in s for s in tiled)
    assert all(f"[{kernel_plan_cpp.TRANSPOSE_TILE[1]}][{kernel_plan_cpp.TRANSPOSE_TILE[0]}]" in s for s in tiled)
