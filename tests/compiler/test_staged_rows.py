"""Pointwise kernels whose innermost loop would run over a few elements (the channels of one
group) stage the values the same along the rows per block of rows, then run one vector loop
over the whole inner extent (passes/kernel_plan_staged.py): values and gradients match eager,
the staged loops are the ones generated, and the plan changes nothing a kernel computes."""
import copy

import pytest
import torch

import bessemer
from bessemer.compiler.passes import kernel_plan_staged

CONFIG = dict(fallback="error", graph_cache=False, backend="cpp")


def _compile(module):
    torch._dynamo.reset()
    return bessemer.compile(module, config=bessemer.TrainingCompilerConfig(**CONFIG))


def _sources(model) -> list[str]:
    return [k.code for cg in model.forward._bessemer_backend.compiled for k in cg.kernels]


def _staged(model) -> list[str]:
    return [s for s in _sources(model) if "stage0[(" in s]


class GroupAffine(torch.nn.Module):
    """x [*prefix, rows, G, Cg] scaled by per-group statistics and a per-channel weight:
    `a` is read both by the per-group part (-a * c) and by the per-element part (x * a)."""

    def __init__(self, groups, per_group):
        super().__init__()
        self.w = torch.nn.Parameter(torch.linspace(0.5, 1.5, groups * per_group).view(groups, per_group))

    def forward(self, x, a, c, v):
        return (x * a + (-a) * c) * torch.rsqrt(v + 1e-5) * self.w


@pytest.mark.parametrize("shape", [(4, 100, 8, 2), (2, 3, 70, 4, 4), (1, 256, 3, 3)])
def test_group_values_are_staged_and_match_eager(shape):
    *prefix, rows, groups, per_group = shape
    torch.manual_seed(0)
    ref = GroupAffine(groups, per_group)
    model = _compile(copy.deepcopy(ref))
    x = torch.randn(shape)
    stats = (*prefix, 1, groups, 1)
    a, c, v = torch.randn(stats), torch.randn(stats), torch.rand(stats) + 0.1
    g = torch.randn(shape)
    results = []
    for m in (ref, model):
        leaves = [t.clone().requires_grad_(True) for t in (x, a, c, v)]
        y = m(*leaves)
        (y * g).sum().backward()
        results.append((y, *(t.grad for t in leaves), m.w.grad))
    for got, want in zip(results[1], results[0]):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    staged = _staged(model)
    assert staged, "no kernel was staged"
    # the staging loop runs over the inner dims, one loop each, before the rows' vector loop
    assert any("for (int64_t s1 = 0;" in s and "#pragma omp simd" in s for s in staged)


def test_a_staged_kernel_computes_what_the_flat_one_does(monkeypatch):
    """Bit for bit: the same operations per element, only moved out of the row loop."""
    torch.manual_seed(1)
    x = torch.randn(3, 200, 8, 2)
    a, c, v = torch.randn(3, 1, 8, 1), torch.randn(3, 1, 8, 1), torch.rand(3, 1, 8, 1) + 0.1
    ref = GroupAffine(8, 2)
    staged_model = _compile(copy.deepcopy(ref))
    with torch.no_grad():
        y_staged = staged_model(x, a, c, v)
    assert _staged(staged_model)
    monkeypatch.setattr(kernel_plan_staged, "STAGED_INNER_MIN", 0)
    flat_model = _compile(copy.deepcopy(ref))
    with torch.no_grad():
        y_flat = flat_model(x, a, c, v)
    assert not _staged(flat_model)
    assert torch.equal(y_staged, y_flat)


class ConvGroupNorm(torch.nn.Module):
    """A small UNet's block: convolution (channels-last inside bessemer), GroupNorm, SiLU."""

    def __init__(self, channels, groups):
        super().__init__()
        self.conv = torch.nn.Conv2d(channels, channels, 3, padding=1)
        self.norm = torch.nn.GroupNorm(groups, channels)
        self.conv2 = torch.nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x):
        return self.conv2(torch.nn.functional.silu(self.norm(self.conv(x))))


@pytest.mark.parametrize("channels,groups", [(16, 8), (24, 6)])
def test_group_norm_between_convolutions_trains_as_eager(channels, groups):
    """Against a float64 run of the same steps: eager float32 and bessemer both within its
    tolerance; the group norm's kernels staged (2 and 4 channels per group)."""
    torch.manual_seed(0)
    ref = ConvGroupNorm(channels, groups)
    truth = copy.deepcopy(ref).double()
    model = _compile(copy.deepcopy(ref))
    opts = [torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9) for m in (ref, model, truth)]
    for step in range(3):
        x = torch.randn(2, channels, 12, 12)
        outs = []
        for m, opt in zip((ref, model, truth), opts):
            opt.zero_grad()
            xi = (x.double() if m is truth else x.clone()).requires_grad_(True)
            loss = m(xi).square().mean()
            loss.backward()
            opt.step()
            outs.append((loss.detach().double(), xi.grad.double()))
        for got in outs[:2]:
            torch.testing.assert_close(got[0], outs[2][0], rtol=1e-5, atol=1e-6)
            torch.testing.assert_close(got[1], outs[2][1], rtol=1e-4, atol=1e-6)
    for (name, p), q, t in zip(ref.named_parameters(), model.parameters(), truth.parameters()):
        torch.testing.assert_close(q.double(), t, rtol=1e-4, atol=1e-6, msg=name)
        torch.testing.assert_close(p.double(), t, rtol=1e-4, atol=1e-6, msg=name)
    assert _staged(model)
