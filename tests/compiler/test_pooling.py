"""Max pooling lowered as one pointwise kernel (compiler/lowering/pooling.py): values, indices,
input gradients and trained weights are eager's, ties, NaN, -inf and padding included;
what the decomposition does not cover stays ATen's op and still matches."""
import copy
import math
import re

import pytest
import torch
import torch.nn.functional as F

import bessemer


class Pool(torch.nn.Module):
    def __init__(self, channels, **pool):
        super().__init__()
        self.conv = torch.nn.Conv2d(channels, channels, 1)
        self.pool = pool

    def forward(self, x):
        y, idx = F.max_pool2d(self.conv(x), return_indices=True, **self.pool)
        return y, idx


# (pool arguments, whether the chain replaces ATen's op)
CASES = [
    (dict(kernel_size=3, stride=2, padding=1), True),               # a ResNet stem
    (dict(kernel_size=2), False),                                   # a CNN stage: windows do not overlap
    (dict(kernel_size=(3, 2), stride=(1, 2), padding=(1, 0)), True),
    (dict(kernel_size=3, stride=2, padding=1, ceil_mode=True), False),
    (dict(kernel_size=3, stride=1, dilation=2), False),
]


def _compiled(model):
    torch._dynamo.reset()   # a fresh shape compiles statically (a second shape would go symbolic)
    return bessemer.compile(copy.deepcopy(model),
                            config=bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))


def _pool_both(ref, model, x):
    """(values, indices, input grad, conv weight grad) of eager's module, then the compiled one."""
    g = torch.randn_like(ref(x)[0])
    outs = []
    for m in (ref, model):
        xi = x.clone().requires_grad_(True)
        y, idx = m(xi)
        torch.nan_to_num(y * g, nan=0.0).sum().backward()
        outs.append((y, idx, xi.grad, m.conv.weight.grad))
    return outs


@pytest.mark.parametrize("pool,decomposed", CASES,
                         ids=[",".join(f"{k}={v}" for k, v in p.items()) for p, _ in CASES])
def test_max_pool_matches_eager(pool, decomposed):
    torch.manual_seed(0)
    ref = Pool(3, **pool)
    model = _compiled(ref)
    x = torch.randn(2, 3, 11, 10)
    x[0, 0, :4, :4] = 1.0                   # ties: the first position wins
    x[0, 1, 2, 3] = math.nan                # NaN wins its windows
    x[1, 2] = -math.inf                     # a plane of -inf: the first valid index
    with torch.no_grad():                   # the 1x1 conv as the identity, so x reaches the pool
        ref.conv.weight.copy_(torch.eye(3).view(3, 3, 1, 1))
        ref.conv.bias.zero_()
    model.conv.load_state_dict(ref.conv.state_dict())
    (y0, i0, gx0, gw0), (y1, i1, gx1, gw1) = _pool_both(ref, model, x)
    torch.testing.assert_close(y1, y0, equal_nan=True)
    assert torch.equal(i1, i0)
    torch.testing.assert_close(gx1, gx0, equal_nan=True)
    torch.testing.assert_close(gw1, gw0, equal_nan=True)
    fw = [cg for cg in model.forward._bessemer_backend.compiled if cg.name.startswith("forward")][0]
    assert ("max_pool2d_with_indices" in fw.schedule_text) != decomposed


@pytest.mark.parametrize("channels_last", [False, True])
def test_a_stem_pool_is_a_kernel_not_an_aten_call(monkeypatch, channels_last):
    """One kernel in eager's layout; channels-last, the convolution's input is copied to that
    layout and the pool's outputs back to eager's (graph outputs), the pool itself one kernel."""
    from bessemer.compiler.partition import channels_last as cl
    monkeypatch.setattr(cl, "ENABLED", channels_last)
    torch.manual_seed(0)
    model = _compiled(Pool(4, kernel_size=3, stride=2, padding=1))
    model(torch.randn(2, 4, 16, 16))[0].sum().backward()
    fw = [cg for cg in model.forward._bessemer_backend.compiled if cg.name.startswith("forward")][0]
    assert "max_pool2d_with_indices" not in fw.schedule_text and fw.n_kernels == 1 + 2 * channels_last, \
        fw.schedule_text



def test_a_stem_pool_reads_its_batchnorm_relu_input_from_memory():
    """A 3x3/2 pool over BatchNorm + ReLU reads each input element in nine windows: the
    activation is computed once into a buffer (fuse.MANY_READS), not nine times inside the
    pool's kernel, and the step trains as eager."""
    torch.manual_seed(0)
    ref = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1, bias=False), torch.nn.BatchNorm2d(8),
                              torch.nn.ReLU(), torch.nn.MaxPool2d(3, stride=2, padding=1))
    model = _compiled(copy.deepcopy(ref))
    x = torch.randn(2, 3, 16, 16)
    out_c, out_e = model(x), ref(x)
    out_c.square().sum().backward()
    out_e.square().sum().backward()
    torch.testing.assert_close(out_c, out_e)
    for a, b in zip(ref.parameters(), model.parameters()):   # float32 BatchNorm over 2 images
        torch.testing.assert_close(b.grad, a.grad, rtol=1e-3, atol=1e-4)
    fw = [cg for cg in model.forward._bessemer_backend.compiled if cg.name.startswith("forward")][0]
    assert "max_pool2d_with_indices" not in fw.schedule_text
    # the BatchNorm's 1 / sqrt(var + eps) once per element computed, not once per window position
    assert fw.source.count("sqrtf(") <= 2, fw.source

def test_a_cnn_trains_as_eager():
    torch.manual_seed(0)
    ref = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                              torch.nn.Conv2d(8, 8, 3, padding=1), torch.nn.ReLU(),
                              torch.nn.MaxPool2d(3, stride=2, padding=1), torch.nn.Flatten(), torch.nn.LazyLinear(5))
    ref(torch.randn(1, 3, 16, 16))
    model = _compiled(ref)
    opts = [torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9) for m in (ref, model)]
    gen = torch.Generator().manual_seed(1)
    for _ in range(3):
        x, y = torch.randn(4, 3, 16, 16, generator=gen), torch.randint(0, 5, (4,), generator=gen)
        for m, opt in zip((ref, model), opts):
            opt.zero_grad(set_to_none=True)
            F.cross_entropy(m(x), y).backward()
            opt.step()
    for a, b in zip(ref.parameters(), model.parameters()):
        torch.testing.assert_close(b, a, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("pool", [torch.nn.MaxPool2d(2), torch.nn.MaxPool2d(3, stride=2, padding=1),
                                  torch.nn.AvgPool2d(2), torch.nn.AdaptiveAvgPool2d(3)],
                         ids=["max2", "max3s2", "avg2", "adaptive"])
def test_a_pool_backward_reads_no_activation_for_its_shape(pool):
    """ATen's pooling backwards read their input's sizes only: the backward gets an uninitialized
    stand-in (joint.py) instead of recomputing BatchNorm + ReLU's output or having the forward
    save it, and still trains as eager."""
    torch.manual_seed(0)
    ref = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
                              pool, torch.nn.Flatten(), torch.nn.LazyLinear(5))
    ref(torch.randn(2, 3, 12, 12))
    model = _compiled(ref)
    opts = [torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9) for m in (ref, model)]
    gen = torch.Generator().manual_seed(1)
    for _ in range(3):
        x, y = torch.randn(4, 3, 12, 12, generator=gen, dtype=torch.float64), torch.randint(0, 5, (4,), generator=gen)
        for m, opt in zip((ref, model), opts):
            opt.zero_grad(set_to_none=True)
            F.cross_entropy(m(x.float()), y).backward()
            opt.step()
    for a, b in zip(ref.parameters(), model.parameters()):
        torch.testing.assert_close(b, a, rtol=1e-4, atol=1e-5)
    for a, b in zip(ref.buffers(), model.buffers()):
        torch.testing.assert_close(b, a, rtol=1e-4, atol=1e-5)
    bw = [cg for cg in model.forward._bessemer_backend.compiled if cg.name.startswith("backward")][0]
    text = bw.schedule_text
    backward = [line for line in text.splitlines() if "pool2d" in line and "backward" in line]
    if backward:   # ATen's pool backward: its input is the stand-in
        assert len(backward) == 1 and "empty_strided" in text, text
        stand_in = text.split("empty_strided")[0].rsplit("%", 1)[1].split(":")[0]
        assert re.search(rf"%{stand_in}\b", backward[0].split("(", 1)[1]), text


@pytest.mark.parametrize("size", [(8, 8), (11, 10)])
def test_a_wide_2x2_pool_runs_channels_last_and_matches_eager(size):
    """A 2x2 pool over 16 or more channels reads a channels-last copy of its input (ATen's
    vectorized kernel; joint.py) and hands eager's layout on: values, indices (ties and NaN
    included), input and weight gradients are eager's, and the outputs have eager's strides."""
    torch.manual_seed(0)
    ref = Pool(16, kernel_size=2)
    model = _compiled(ref)
    x = torch.randn(2, 16, *size)
    x[0, 0, :4, :4] = 1.0                   # ties: the first position wins
    x[0, 1, 2, 3] = math.nan                # NaN wins its window
    with torch.no_grad():
        ref.conv.weight.copy_(torch.eye(16).view(16, 16, 1, 1))
        ref.conv.bias.zero_()
    model.conv.load_state_dict(ref.conv.state_dict())
    (y0, i0, gx0, gw0), (y1, i1, gx1, gw1) = _pool_both(ref, model, x)
    torch.testing.assert_close(y1, y0, equal_nan=True)
    assert torch.equal(i1, i0)
    assert y1.stride() == y0.stride() and i1.stride() == i0.stride()
    torch.testing.assert_close(gx1, gx0, equal_nan=True)
    torch.testing.assert_close(gw1, gw0, equal_nan=True)
    # the conv's output written as [N, H, W, C] by a kernel, the pool reading it through a view
    fw = [cg for cg in model.forward._bessemer_backend.compiled if cg.name.startswith("forward")][0]
    text = fw.schedule_text
    assert f"[2, {size[0]}, {size[1]}, 16] pointwise" in text, text
    assert re.search(r"extern aten.max_pool2d_with_indices.default\(%v\d+", text), text
