"""CPU convolutions with channels-last operands (compiler/partition/channels_last.py), and the
kernels around them reading channels-last buffers (passes/kernel_plan_cpp.py): small conv
nets compiled with fallback="error" train as eager does (values, gradients, parameters
after SGD steps against a float64 reference), parameter gradients and outputs keep eager's
strides, and the joint graph's convolutions did read channels-last operands."""
import copy
import operator

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import bessemer
from bessemer.compiler.partition import channels_last, joint

EPS32 = torch.finfo(torch.float32).eps
CL = torch.channels_last

pytestmark = pytest.mark.skipif(not torch.backends.mkldnn.is_available(), reason="needs oneDNN")


class Block(nn.Module):
    """conv 3x3 + BN + ReLU, conv 1x1 + BN, residual add, ReLU."""

    def __init__(self, c):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
        self.c2, self.b2 = nn.Conv2d(c, c, 1, bias=False), nn.BatchNorm2d(c)

    def forward(self, x):
        return F.relu(self.b2(self.c2(F.relu(self.b1(self.c1(x))))) + x)


class Net(nn.Module):
    """A stem, a max pool (2x2: ATen's over a channels-last copy; 3x3/2: decomposed), a
    residual block, a depthwise conv, global pooling and a classifier."""

    def __init__(self, pool, c=16):
        super().__init__()
        self.stem, self.bn = nn.Conv2d(3, c, 3, padding=1), nn.BatchNorm2d(c)
        self.pool = pool
        self.block = Block(c)
        self.dw = nn.Conv2d(c, c, 3, padding=1, groups=c)
        self.fc = nn.Linear(c, 10)

    def forward(self, x):
        y = F.relu(self.bn(self.stem(x)))
        y = F.max_pool2d(y, 2) if self.pool == 2 else F.max_pool2d(y, 3, 2, 1)
        y = F.relu(self.dw(self.block(y)))
        return self.fc(y.mean((2, 3))), y


@pytest.fixture
def rewrites(monkeypatch):
    """Turns the rewrite on; records, per joint graph, how many convolutions it rewrote and
    whether each convolution of the rewritten graph reads channels-last operands."""
    monkeypatch.setattr(channels_last, "ENABLED", True)
    seen = []
    original = joint.convolutions_channels_last

    def spy(g):
        n = original(g)
        convs = [x for x in g.nodes if x.op == "call_function" and x.target in channels_last._CONVS]
        cl = []
        for c in convs:
            ops = c.args[:2] if c.target is torch.ops.aten.convolution.default else c.args[:3]
            cl.append(all(a.meta["val"].is_contiguous(memory_format=CL) for a in ops))
        # values copied back to eager's layout that anything but the graph's outputs reads
        # (directly or through views)
        def readers(x):
            for u in x.users:
                if getattr(u.target, "is_view", False):
                    yield from readers(u)
                else:
                    yield u
        stray = [x.name for x in g.nodes if channels_last._back_of(x) is not None
                 and any(u.op != "output" for u in readers(x))]
        seen.append((n, len(convs), cl, stray))
        return n
    monkeypatch.setattr(joint, "convolutions_channels_last", spy)
    return seen


def _compile(model):
    torch._dynamo.reset()
    return bessemer.compile(model, config=bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))


def _step(model, x, target):
    logits, feat = model(x)
    loss = F.cross_entropy(logits, target) + feat.square().mean()
    loss.backward()
    return loss, logits, feat


def _train(model, xs, ts, dtype=torch.float32):
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    losses, grads = [], None
    for i, (x, t) in enumerate(zip(xs, ts)):
        opt.zero_grad(set_to_none=True)
        loss, _, _ = _step(model, x.to(dtype), t)
        if i == 0:
            grads = torch.cat([p.grad.double().flatten() for p in model.parameters()])
        losses.append(loss.item())
        opt.step()
    params = torch.cat([p.detach().double().flatten() for p in model.parameters()])
    stats = [b.detach().double().flatten() for b in model.buffers() if b.is_floating_point()]
    return losses, grads, params, torch.cat(stats) if stats else None


def _as_close_as_eager(what, compiled, eager, truth, factor, floor):
    """compiled float32 is about as close to float64 as eager's float32 is (BatchNorm at a
    small batch amplifies float32 rounding; tests/zoo/test_convnets.py)."""
    dist = (lambda a: float((a - truth).norm())) if torch.is_tensor(truth) else (lambda a: abs(a - truth))
    size = float(truth.norm()) if torch.is_tensor(truth) else abs(truth)
    bound = factor * dist(eager) + floor * size
    assert dist(compiled) <= bound, f"{what}: {dist(compiled):.3e} from float64, eager {dist(eager):.3e}"


@pytest.mark.parametrize("pool", [2, 3])
def test_conv_net_runs_channels_last_and_matches_eager(rewrites, pool):
    torch.manual_seed(0)
    ref = Net(pool)
    model = _compile(copy.deepcopy(ref))
    x = torch.randn(4, 3, 16, 16)
    t = torch.randint(0, 10, (4,))
    xr, xc = x.clone().requires_grad_(True), x.clone().requires_grad_(True)
    _, l0, f0 = _step(ref, xr, t)
    _, l1, f1 = _step(model, xc, t)
    torch.testing.assert_close(l1, l0, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(f1, f0, rtol=1e-4, atol=1e-5)
    assert l1.stride() == l0.stride() and f1.stride() == f0.stride()
    torch.testing.assert_close(xc.grad, xr.grad, rtol=1e-3, atol=1e-5)
    assert xc.grad.stride() == xr.grad.stride()
    for (name, p), q in zip(ref.named_parameters(), model.parameters()):
        torch.testing.assert_close(q.grad, p.grad, rtol=1e-3, atol=1e-5, msg=name)
        assert q.grad.stride() == p.grad.stride(), name
    # compiled, forward and backward, and every convolution read channels-last operands
    graphs = model.forward._bessemer_backend.compiled
    assert {g.name.rstrip("0123456789") for g in graphs} >= {"forward", "backward"}
    assert rewrites, "the joint graph was not rewritten"
    n, n_convs, cl, stray = rewrites[-1]
    assert n_convs == 8 and n >= n_convs and all(cl), rewrites[-1]   # 4 forward, 4 backward
    # between the convolutions everything (BatchNorm, ReLU, the max pool, the residual add, and
    # their backward) reads the channels-last values themselves
    assert not stray, stray
    # kernels that transpose in tiles: the input image's copy and the like, not the activations'
    transposing = [k.name for g in graphs for k in g.kernels if "tile0" in k.code]
    assert len(transposing) <= 4, transposing
    # BatchNorm's statistics over a channels-last convolution output run as column reductions
    fw = [g for g in graphs if g.name.startswith("forward")][0]
    reductions = [k for k in fw.kernels if k.kind != "pointwise"]
    assert sum("ob += " in k.code for k in reductions) >= 3, [k.code for k in reductions]


def test_conv_net_trains_as_eager(rewrites):
    """Three SGD steps: losses, first gradients, parameters and BatchNorm statistics as close
    to float64 training as eager's float32 training is."""
    torch.manual_seed(1)
    ref = Net(2)
    xs = [torch.randn(4, 3, 16, 16) for _ in range(3)]
    ts = [torch.randint(0, 10, (4,)) for _ in range(3)]
    truth = _train(copy.deepcopy(ref).double(), xs, ts, torch.float64)
    eager = _train(copy.deepcopy(ref), xs, ts)
    model = _compile(copy.deepcopy(ref))
    compiled = _train(model, xs, ts)
    assert rewrites and rewrites[-1][0] > 0
    (lc, gc, pc, bc), (le, ge, pe, be), (lt, gt, pt, bt) = compiled, eager, truth
    _as_close_as_eager("first loss", lc[0], le[0], lt[0], 3.0, 2 * EPS32)
    _as_close_as_eager("first gradients", gc, ge, gt, 3.0, 2 * EPS32)
    for i in range(1, 3):
        _as_close_as_eager(f"loss {i + 1}", lc[i], le[i], lt[i], 10.0, 1e-5)
    _as_close_as_eager("parameters", pc, pe, pt, 10.0, 1e-5)
    _as_close_as_eager("BatchNorm statistics", bc, be, bt, 10.0, 1e-5)


def test_on_by_default_and_nothing_without_convolutions():
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.proxy_tensor import make_fx
    with FakeTensorMode(allow_non_fake_inputs=True):
        conv = make_fx(lambda x, w: F.relu(F.conv2d(x, w)), tracing_mode="fake")(
            torch.randn(2, 8, 6, 6), torch.randn(8, 8, 3, 3))
        linear = make_fx(lambda x, w: F.relu(F.linear(x, w)), tracing_mode="fake")(
            torch.randn(2, 8, 6, 6), torch.randn(8, 6))
    assert channels_last.ENABLED is True
    assert channels_last.convolutions_channels_last(conv.graph) >= 1
    assert channels_last.convolutions_channels_last(linear.graph) == 0


class ChannelStats(nn.Module):
    def forward(self, x):
        return x.sum((0, 2, 3)), (x * x).mean((0, 2, 3))


class GlobalPool(nn.Module):
    def forward(self, x):
        return (x.mean((2, 3)) * 3).sin(), x.amax((2, 3))


@pytest.mark.parametrize("module,shape", [(ChannelStats, (4, 24, 9, 7)), (GlobalPool, (6, 40, 9, 7))],
                         ids=["per-channel", "global-pool"])
def test_a_reduction_over_a_channels_last_input_reads_columns(module, shape):
    """A per-channel sum over an NHWC buffer is a column reduction over [N*H*W, C] in memory;
    a mean over H, W keeps N outside the reduced dims and C inside them: for each image, a
    column reduction over [H*W, C]. Either way the kernel walks rows of C values, not each
    channel C values apart."""
    m = _compile(module())
    x = torch.randn(*shape).contiguous(memory_format=CL)
    for got, want in zip(m(x), module()(x)):
        torch.testing.assert_close(got, want)
    codes = [k.code for g in m.forward._bessemer_backend.compiled for k in g.kernels]
    assert codes and all("ob += " in c for c in codes), codes


def test_batchnorm_statistics_over_few_channels_last_channels_split_rows_among_threads(monkeypatch):
    """A BatchNorm over 16 channels of an NHWC buffer: its mean, then its variance about the
    mean, are column reductions over one block of columns; each phase splits the rows among
    the threads (a parallel region of its own, reading the finished mean), and the values,
    input gradient and running statistics are as close to float64 as eager's."""
    import os
    monkeypatch.setattr(os, "cpu_count", lambda: 2)    # the plan for a machine of two cores
    torch.manual_seed(0)
    ref = nn.BatchNorm2d(16)
    m = _compile(copy.deepcopy(ref))
    x = torch.randn(32, 16, 16, 16).contiguous(memory_format=CL) * 3 + 1
    g = torch.randn(32, 16, 16, 16)
    outs = []
    for mod, dt in ((m, torch.float32), (ref, torch.float32), (copy.deepcopy(ref).double(), torch.float64)):
        xi = x.detach().clone().to(dt).requires_grad_()
        y = mod(xi)
        y.backward(g.to(dt))
        outs.append((y.double(), xi.grad.double(), mod.running_var.double()))
    for what, c, e, t in zip(("values", "input gradient", "running variance"), *outs):
        _as_close_as_eager(what, c, e, t, 3.0, 2 * EPS32)
    fw = [cg for cg in m.forward._bessemer_backend.compiled if cg.name.startswith("forward")][0]
    stats = [k for k in fw.kernels if k.kind != "pointwise"]
    assert any(k.code.count("std::malloc") >= 2 and k.code.count("omp parallel") >= 2 for k in stats), \
        [k.code for k in stats]


class PermutedLayerNorm(nn.Module):
    """ConvNeXt's block norm: a LayerNorm over C of an NCHW activation seen as NHWC, its
    result handed on in NCHW."""

    def __init__(self, c):
        super().__init__()
        self.norm = nn.LayerNorm(c)

    def forward(self, x):
        return self.norm(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2).contiguous()


def test_a_channels_last_view_of_nchw_memory_reduces_its_channels_by_rows():
    """The weight and bias gradients of a LayerNorm over the channels of a permuted NCHW
    activation reduce over N, H, W with C the innermost domain dim; in memory each channel's
    H*W values are consecutive, so the kernel sums rows (one channel at a time, contiguous),
    not blocks of columns 1024 elements apart."""
    torch.manual_seed(0)
    ref = PermutedLayerNorm(16)
    with torch.no_grad():
        ref.norm.weight.normal_()
        ref.norm.bias.normal_()
    m = _compile(copy.deepcopy(ref))
    x = torch.randn(4, 16, 12, 12, requires_grad=True)
    x_ref = x.detach().clone().requires_grad_()
    g = torch.randn(4, 16, 12, 12)
    m(x).backward(g)
    ref(x_ref).backward(g)
    # sums over N*H*W = 576 elements: both against float64, compiled at most as far as eager
    ref64 = copy.deepcopy(ref).double()
    x64 = x.detach().double().requires_grad_()
    ref64(x64).backward(g.double())
    for got, want, truth in ((x.grad, x_ref.grad, x64.grad),
                             (m.norm.weight.grad, ref.norm.weight.grad, ref64.norm.weight.grad),
                             (m.norm.bias.grad, ref.norm.bias.grad, ref64.norm.bias.grad)):
        err, err_eager = (got.double() - truth).abs().max(), (want.double() - truth).abs().max()
        assert err <= 3 * err_eager + 1e-6 * truth.abs().max(), (err, err_eager)
    backward = [g for g in m.forward._bessemer_backend.compiled if g.name.startswith("backward")]
    assert backward
    param_grads = []
    for cg in backward:
        names = {line.split()[1] for line in cg.schedule_text.splitlines()
                 if line.startswith("kernel ") and "reduce over [0, 1, 2]" in line}
        param_grads += [k for k in cg.kernels if k.name in names]
    assert param_grads and all("ob += " not in k.code for k in param_grads), [k.code for k in param_grads]


class GroupNormBlock(nn.Module):
    """A diffusion UNet's block: conv, GroupNorm, SiLU, twice, with a residual add."""

    def __init__(self, c=16, groups=4):
        super().__init__()
        self.c1, self.n1 = nn.Conv2d(c, c, 3, padding=1), nn.GroupNorm(groups, c)
        self.c2, self.n2 = nn.Conv2d(c, c, 3, padding=1), nn.GroupNorm(groups, c)
        self.fc = nn.Linear(c, 10)

    def forward(self, x):
        y = F.silu(self.n2(self.c2(F.silu(self.n1(self.c1(x)))))) + x
        return self.fc(y.mean((2, 3))), y


def test_group_norm_runs_channels_last_and_trains_as_eager(rewrites):
    """GroupNorm's statistics over its [N, G, C/G, H*W] view of a channels-last convolution
    output: per channel over H*W (column reductions, rows of C values), then combined per
    group (lowering/rules._var_in_stages); its backward's per-channel sums likewise. Nothing
    between the convolutions reads eager's layout, and three SGD steps are as close to
    float64 training as eager's."""
    torch.manual_seed(0)
    ref = GroupNormBlock()
    with torch.no_grad():
        for n in (ref.n1, ref.n2):
            n.weight.normal_()
            n.bias.normal_()
    xs = [torch.randn(4, 16, 12, 12) * 2 + 1 for _ in range(3)]
    ts = [torch.randint(0, 10, (4,)) for _ in range(3)]
    truth = _train(copy.deepcopy(ref).double(), xs, ts, torch.float64)
    eager = _train(copy.deepcopy(ref), xs, ts)
    model = _compile(copy.deepcopy(ref))
    compiled = _train(model, xs, ts)
    (lc, gc, pc, _), (le, ge, pe, _), (lt, gt, pt, _) = compiled, eager, truth
    _as_close_as_eager("first loss", lc[0], le[0], lt[0], 3.0, 2 * EPS32)
    _as_close_as_eager("first gradients", gc, ge, gt, 3.0, 2 * EPS32)
    _as_close_as_eager("parameters", pc, pe, pt, 10.0, 1e-5)
    assert rewrites and all(cl for _, _, cl, _ in rewrites for cl in cl)
    stray = [s for *_, s in rewrites if s]
    assert not stray, stray
    fw = [g for g in model.forward._bessemer_backend.compiled if g.name.startswith("forward")][0]
    stats = [k for k in fw.kernels if k.kind != "pointwise" and "reduce over [3]" in
             next(line for line in fw.schedule_text.splitlines() if line.startswith(f"kernel {k.name} "))]
    assert len(stats) == 2 and all("ob += " in k.code for k in stats), fw.schedule_text
    # kernels that transpose in tiles: the block's input and output (its gradient and the
    # input's in the backward), not the activations between the convolutions
    for g in model.forward._bessemer_backend.compiled:
        transposing = [k.name for k in g.kernels if "tile0" in k.code]
        assert len(transposing) <= 2, (g.name, transposing)


class GroupStats(nn.Module):
    """GroupNorm's statistics over the [N, G, C/G, H*W] view of a channels-last activation
    (memory N, H*W, G, C/G): a kept dim, G, between the reduced ones."""

    def forward(self, x):
        n, c, h, w = x.shape
        return torch.var_mean(x.view(n, 4, c // 4, h * w), (2, 3), correction=0, keepdim=True)


def test_statistics_with_a_kept_dim_between_reduced_ones_reduce_in_two_stages():
    """Per channel over H*W first (a column reduction per image, rows of C values), then per
    group (lowering/rules._var_in_stages): as close to float64 as eager's var_mean; and for
    groups whose values are all equal, the mean is that value and the variance 0, exactly, as
    eager's (each stage shifted by its first value)."""
    m = _compile(GroupStats())
    torch.manual_seed(0)
    x = (torch.randn(4, 16, 9, 7) * 3 + 100).contiguous(memory_format=CL)
    for got, want, truth in zip(m(x), GroupStats()(x), GroupStats()(x.double())):
        _as_close_as_eager("statistics", got.double(), want.double(), truth, 3.0, 2 * EPS32)
    codes = [k.code for g in m.forward._bessemer_backend.compiled for k in g.kernels if k.kind != "pointwise"]
    assert any("ob += " in c for c in codes), codes
    const = torch.tensor([0.1, -3.7, 1 / 3, 2.9]).repeat_interleave(4).view(1, 16, 1, 1).expand(4, 16, 9, 7)
    const = const.contiguous(memory_format=CL)
    var, mean = m(const)
    assert torch.equal(var, torch.zeros_like(var))
    assert torch.equal(mean, torch.tensor([0.1, -3.7, 1 / 3, 2.9]).view(1, 4, 1, 1).expand(4, 4, 1, 1))
    assert torch.equal(mean, GroupStats()(const)[1])


class Shortcut(nn.Module):
    """A ResNet's downsampling shortcut: a 1x1 convolution at stride 2, then BatchNorm."""
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 8, 1, stride=2, bias=False)
        self.bn = nn.BatchNorm2d(8)

    def forward(self, x):
        return self.bn(self.conv(x)).relu().mean((2, 3))


def test_a_strided_1x1_convolutions_weight_gradient_runs_at_stride_1_and_trains_as_eager():
    """oneDNN's weight gradient of a strided 1x1 convolution over a channels-last input came
    out wrong on an AVX2 CPU, differently from call to call: its backward is split, the
    weight gradient computed at stride 1 over the input's subsampled copy; the weight's
    gradient equals eager's on every one of several steps."""
    torch.manual_seed(0)
    x = torch.randn(2, 4, 8, 8)
    ref = Shortcut()
    model = copy.deepcopy(ref)
    bessemer.compile(model, fallback="error", graph_cache=False)
    for step in range(6):
        for m in (ref, model):
            m.zero_grad(set_to_none=True)
            m(x).square().sum().backward()
        torch.testing.assert_close(model.conv.weight.grad, ref.conv.weight.grad, rtol=1e-4, atol=1e-6,
                                   msg=lambda m: f"step {step}: {m}")
    assert model.forward._bessemer_backend.compiled


def _strided_1x1_graph(mask):
    conv_bwd = torch.ops.aten.convolution_backward.default
    g = torch.fx.symbolic_trace(lambda go, x, w: conv_bwd(
        go, x, w, None, [2, 2], [0, 0], [1, 1], False, [0, 0], 1, mask)).graph
    n = next(n for n in g.nodes if n.op == "call_function")
    g.erase_node(next(n for n in g.nodes if n.op == "output"))
    n.meta["val"] = conv_bwd(torch.empty(2, 8, 4, 4), torch.empty(2, 4, 8, 8), torch.empty(8, 4, 1, 1),
                             None, [2, 2], [0, 0], [1, 1], False, [0, 0], 1, mask)
    for a, v in zip(n.args[:3], (torch.empty(2, 8, 4, 4), torch.empty(2, 4, 8, 8), torch.empty(8, 4, 1, 1))):
        a.meta["val"] = v
    with g.inserting_after(n):
        items = [g.call_function(operator.getitem, (n, i)) for i in range(3) if mask[i]]
    for it in items:
        it.meta["val"] = n.meta["val"][it.args[1]]
    g.output(tuple(items))
    return g


@pytest.mark.parametrize("mask", [[True, True, False], [False, True, False]])
def test_the_split_of_a_strided_1x1_backward(mask):
    """The input gradient stays at the stride, reading a stand-in for the input (its sizes and
    layout only); the weight gradient is a stride-1 backward over x[:, :, ::2, ::2] copied
    channels-last; a backward that wants no input gradient is the stride-1 one alone."""
    g = _strided_1x1_graph(mask)
    assert channels_last.convolutions_channels_last(g) >= 1
    bwds = [n for n in g.nodes if n.op == "call_function" and n.target is torch.ops.aten.convolution_backward.default]
    by_stride = {tuple(n.args[4]): n for n in bwds}
    assert len(bwds) == (2 if mask[0] else 1) and (1, 1) in by_stride
    w = by_stride[(1, 1)]
    assert list(w.args[10]) == [False, True, False]
    sub = w.args[1]
    assert sub.target is torch.ops.aten.clone.default and sub.kwargs["memory_format"] is torch.channels_last
    assert tuple(sub.meta["val"].shape) == (2, 4, 4, 4)
    assert [a.args[4] for a in (sub.args[0], sub.args[0].args[0])] == [2, 2]      # the slices' steps
    if mask[0]:
        d = by_stride[(2, 2)]
        assert list(d.args[10]) == [True, False, False]
        assert d.args[1].target is torch.ops.aten.empty_strided.default
        assert d.args[1].meta["val"].is_contiguous(memory_format=torch.channels_last)
    out = next(n for n in g.nodes if n.op == "output")
    assert all(isinstance(a, torch.fx.Node) for a in out.args[0])
    g.lint()


def test_a_float64_strided_1x1_backward_is_left_alone():
    """Only a convolution oneDNN runs (CPU, float32) is split: in float64 the graph stays."""
    g = _strided_1x1_graph([True, True, False])
    for n in g.nodes:
        if isinstance(n.meta.get("val"), torch.Tensor):
            n.meta["val"] = n.meta["val"].double()
        elif isinstance(n.meta.get("val"), tuple):
            n.meta["val"] = tuple(v.double() if v is not None else None for v in n.meta["val"])
    before = [(n.target, n.args) for n in g.nodes]
    assert channels_last.convolutions_channels_last(g) == 0
    assert [(n.target, n.args) for n in g.nodes] == before
