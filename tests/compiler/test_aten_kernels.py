"""Ops whose decomposed backward would be an index_put with accumulate (ATen's serial CPU
path) run as ATen's kernels: upsampling forward and backward (lowering.UPSAMPLE_OPS: torch
decomposes it while tracing; a linear upsampling's backward by 2, 4 or 8 is decomposed our way,
test_upsampling.py), the backward of reflection padding. Values, input gradients
and trained weights match eager; the graphs hold ATen's ops and no index_put; torch's own
decompositions are back in place after the compile."""
import copy

import pytest
import torch
import torch.nn.functional as F

import bessemer
from bessemer.compiler.capture.backend import aten_upsampling
from bessemer.compiler.lowering.lower import UPSAMPLE_OPS


class Up(torch.nn.Module):
    def __init__(self, channels, dims, **interp):
        super().__init__()
        conv = {1: torch.nn.Conv1d, 2: torch.nn.Conv2d, 3: torch.nn.Conv3d}[dims]
        self.conv = conv(channels, channels, 1)
        self.interp = interp

    def forward(self, x):
        return F.interpolate(self.conv(x), **self.interp).tanh()


CASES = [
    (2, dict(scale_factor=2, mode="bilinear")),
    (2, dict(scale_factor=2, mode="bilinear", align_corners=True)),
    (2, dict(size=(7, 9), mode="bilinear")),
    (2, dict(scale_factor=2, mode="nearest")),
    (2, dict(scale_factor=1.5, mode="nearest-exact")),
    (2, dict(scale_factor=2, mode="bicubic")),
    (1, dict(scale_factor=3, mode="linear")),
    (3, dict(scale_factor=2, mode="trilinear")),
    (3, dict(scale_factor=2, mode="nearest")),
]


def _graph_ops(model) -> str:
    return "\n".join(cg.schedule_text for cg in model.forward._bessemer_backend.compiled)


@pytest.mark.parametrize("dims,interp", CASES, ids=[f"{d}d-" + ",".join(f"{k}={v}" for k, v in i.items())
                                                    for d, i in CASES])
def test_upsampling_matches_eager_and_stays_atens(dims, interp):
    torch._dynamo.reset()
    torch.manual_seed(0)
    ref = Up(3, dims, **interp)
    model = bessemer.compile(copy.deepcopy(ref),
                             config=bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))
    x = torch.randn(2, 3, *(5, 6, 4)[:dims])
    g = torch.randn_like(ref(x))
    grads = []
    for m in (ref, model):
        xi = x.clone().requires_grad_(True)
        y = m(xi)
        (y * g).sum().backward()
        grads.append((y, xi.grad, m.conv.weight.grad, m.conv.bias.grad))
    for got, want in zip(grads[1], grads[0]):
        torch.testing.assert_close(got, want)
    ops = _graph_ops(model)
    assert "upsample" in ops and "index_put" not in ops and "_unsafe_index" not in ops


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_padded_convolutions_match_eager_and_run_atens_backward(mode):
    torch._dynamo.reset()
    torch.manual_seed(0)
    ref = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1, padding_mode=mode), torch.nn.Tanh(),
                              torch.nn.Conv2d(4, 2, 3, padding=(2, 1), padding_mode=mode))
    model = bessemer.compile(copy.deepcopy(ref),
                             config=bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))
    x = torch.randn(2, 3, 7, 6)
    g = torch.randn_like(ref(x))
    grads = []
    for m in (ref, model):
        xi = x.clone().requires_grad_(True)
        (m(xi) * g).sum().backward()
        grads.append((xi.grad, m[0].weight.grad, m[2].weight.grad, m[2].bias.grad))
    for got, want in zip(grads[1], grads[0]):
        torch.testing.assert_close(got, want)
    ops = _graph_ops(model)
    assert "index_put" not in ops
    if mode != "circular":
        assert f"{'reflection' if mode == 'reflect' else 'replication'}_pad2d_backward" in ops


def test_a_unet_trains_as_eager():
    """A small UNet (the zoo's, bilinear upsampling, BatchNorm): three AdamW steps, loss,
    parameters and running statistics as eager's."""
    from bessemer import zoo
    w = zoo.build("unet", "tiny", seed=0)
    ref = w.model
    model = copy.deepcopy(ref)
    torch._dynamo.reset()
    opts = [torch.optim.AdamW(m.parameters(), lr=1e-3) for m in (ref, model)]
    model = bessemer.compile(model, opts[1], config=bessemer.TrainingCompilerConfig(fallback="error",
                                                                                   graph_cache=False))
    for step in range(3):
        batch = w.make_batch(step)
        losses = []
        for m, opt in zip((ref, model), opts):
            opt.zero_grad(set_to_none=True)
            loss = w.loss_fn(m, batch)
            loss.backward()
            opt.step()
            losses.append(loss.detach())
        torch.testing.assert_close(losses[1], losses[0], rtol=1e-5, atol=1e-6)
    for (name, a), b in zip(ref.state_dict().items(), model.state_dict().values()):
        torch.testing.assert_close(b, a, rtol=1e-4, atol=1e-5, msg=name)
    # the forward is ATen's upsampling; its backward by 2 is decomposed (lowering/upsampling.py),
    # with no index_put
    ops = _graph_ops(model)
    assert "upsample_bilinear2d" in ops and "upsample_bilinear2d_backward" not in ops and "index_put" not in ops


def test_torchs_decompositions_are_restored():
    op = torch.ops.aten.upsample_bilinear2d.vec
    before = dict(op.py_kernels)
    with aten_upsampling():
        assert torch._C.DispatchKey.CompositeImplicitAutograd not in op.py_kernels
        assert torch._C.DispatchKey.Meta in op.py_kernels
    assert op.py_kernels == before
    assert all(hasattr(torch.ops.aten, name) for name in UPSAMPLE_OPS)
