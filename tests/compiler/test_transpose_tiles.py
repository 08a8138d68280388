"""Pointwise kernels that read transposed and write contiguously run in tiles
(passes/kernel_plan_cpp.py, TRANSPOSE_TILE): values, several outputs of different dtypes, sizes that
are not multiples of the tile, and the backward (itself a transpose) match eager."""
import copy
import re

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


class MixedLayouts(torch.nn.Module):
    """A SiLU backward at the boundary of a channels-last region: an activation in eager's
    layout, a gradient channels-last, the result written channels-last."""

    def forward(self, x, g):
        s = torch.sigmoid(x)
        y = g * s * (1 + x * (1 - s))
        return y.contiguous(memory_format=torch.channels_last)


@pytest.mark.parametrize("shape", [(4, 64, 8, 8), (2, 40, 7, 9)])
def test_reads_laid_out_the_other_way_are_copied_into_tiles(shape):
    """The gradient, contiguous along the tile's last loop, is copied into a tile along its
    rows, and the computing loop reads nothing strided (left strided, gcc keeps the loop and
    its expf scalar)."""
    torch._dynamo.reset()
    model = bessemer.compile(MixedLayouts(), config=bessemer.TrainingCompilerConfig(
        fallback="error", graph_cache=False, backend="cpp"))
    torch.manual_seed(0)
    x = torch.randn(shape)
    g = torch.randn(shape).contiguous(memory_format=torch.channels_last)
    want = MixedLayouts()(x, g)
    got = model(x, g)
    torch.testing.assert_close(got, want)
    assert got.stride() == want.stride()
    codes = [k.code for cg in model.forward._bessemer_backend.compiled for k in cg.kernels]
    tiled = [c for c in codes if "tile0" in c]
    assert len(tiled) == 1, codes
    # the vector loop computing expf: its variable, and every buffer read in it
    loop = next(chunk for chunk in tiled[0].split("#pragma omp simd")[1:] if "expf" in chunk)
    var = re.search(r"for \(int64_t (\w+) =", loop).group(1)
    reads = re.findall(r"b\d+\[\(([^\]]*)\)\]", loop.split("tile0[")[0])
    assert reads and not [r for r in reads if re.search(rf"\d+\*{var}\b", r)], loop
