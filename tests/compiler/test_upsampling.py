"""Linear upsampling's backward by 2, 4 or 8 computed in the generated kernels
(compiler/lowering/upsampling.py): values, input gradients and trained weights are eager's, in
float32 and float64, NCHW and channels-last, 1-D, 2-D and 3-D; the backward graph holds no
ATen upsample backward; what the decomposition does not cover (align_corners, a factor of 3)
stays ATen's op and still matches."""
import copy

import pytest
import torch

import bessemer
from bessemer.compiler.lowering import upsampling
from test_aten_kernels import Up


# (input shape, interpolate arguments, whether the backward is decomposed)
CASES = [
    ((2, 4, 8, 8), dict(scale_factor=2, mode="bilinear"), True),
    ((2, 4, 5, 3), dict(scale_factor=(4, 2), mode="bilinear"), True),
    ((2, 4, 6, 6), dict(size=(12, 6), mode="bilinear"), True),              # the width kept
    ((2, 4, 1, 7), dict(scale_factor=8, mode="bilinear"), True),
    ((2, 4, 9), dict(scale_factor=2, mode="linear"), True),
    ((1, 2, 3, 4, 5), dict(scale_factor=2, mode="trilinear"), True),
    ((2, 4, 8, 8), dict(scale_factor=2, mode="bilinear", align_corners=True), False),
    ((2, 4, 5, 5), dict(scale_factor=3, mode="bilinear"), False),
]


def _upsample_backward_calls(compiled) -> int:
    return sum(1 for cg in compiled._bessemer_backend.compiled for line in cg.schedule_text.splitlines()
               if line.startswith("extern") and "upsample_" in line and "_backward" in line)


def _train(model, x, w, steps=3):
    """Per step: the output and the input's gradient; then the trained parameters."""
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    seen = []
    for _ in range(steps):
        opt.zero_grad()
        xi = x.clone().requires_grad_(True)
        y = model(xi)
        (y * w).sum().backward()
        seen += [y.detach(), xi.grad]
        opt.step()
    return seen + [p.detach() for p in model.parameters()]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape,interp,decomposed", CASES,
                         ids=[f"{i['mode']}{n}" for n, (_, i, _) in enumerate(CASES)])
def test_upsampling_trains_as_eager(shape, interp, decomposed, dtype):
    """float64 matches eager; float32 is at least about as close to a float64 run as eager's
    float32 (ATen's scatter sums a gradient of 64 terms, at 8x, in another order)."""
    torch._dynamo.reset()
    torch.manual_seed(0)
    ref = Up(shape[1], len(shape) - 2, **interp).to(dtype)
    model = bessemer.compile(copy.deepcopy(ref), config=bessemer.TrainingCompilerConfig(
        fallback="error", graph_cache=False))
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(shape, generator=gen, dtype=dtype)
    if len(shape) == 4 and shape[2] == 8:
        x = x.contiguous(memory_format=torch.channels_last)
    w = torch.randn_like(ref(x))
    truth = _train(copy.deepcopy(ref).double(), x.double(), w.double())
    got, eager = _train(model, x, w), _train(ref, x, w)
    for a, e, t in zip(got, eager, truth):
        if dtype == torch.float64:
            torch.testing.assert_close(a, e)
        else:
            ours, theirs = (a.double() - t).abs().max(), (e.double() - t).abs().max()
            assert ours <= 2 * theirs + 1e-6 * t.abs().max(), (ours, theirs)
    assert model.forward._bessemer_backend.compiled, "no graph compiled"
    calls = _upsample_backward_calls(model.forward)
    assert calls == (0 if decomposed else 1), [cg.schedule_text for cg in model.forward._bessemer_backend.compiled]


def test_what_is_not_covered_stays_atens():
    g = torch.randn(2, 3, 8, 8)
    assert upsampling.bilinear2d_backward(g, [8, 8], [2, 3, 4, 4], True) is NotImplemented
    assert upsampling.bilinear2d_backward(g.half(), [8, 8], [2, 3, 4, 4], False) is NotImplemented
    assert upsampling.bilinear2d_backward(g, [8, 8], [2, 3, 4, 4], False, 2.5, 2.0) is NotImplemented
    assert upsampling.bilinear2d_backward(g, [8, 8], [2, 3, 8, 8], False) is NotImplemented
    got = upsampling.bilinear2d_backward(g, [8, 8], [2, 3, 4, 4], False, 2.0, 2.0)
    torch.testing.assert_close(got, torch.ops.aten.upsample_bilinear2d_backward(g, [8, 8], [2, 3, 4, 4], False, 2.0, 2.0))
