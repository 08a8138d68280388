"""Large float32 matrix products on the CPU run on ATen's BLAS in one call, on oneDNN, or on
ATen's BLAS in blocks of columns, whichever was measured fastest (passes/gemm_choice.py). The
measurement is forced each way here, so that every program is checked whatever this
machine's timings say: values, gradients and trained parameters against eager; the products
that qualify, and those that do not."""
from __future__ import annotations

import copy
import pickle

import pytest
import torch

import bessemer
from bessemer.compiler.passes import gemm_choice
from bessemer.compiler.runtime import gemm

pytestmark = pytest.mark.skipif(gemm.linear_op() is None, reason="this torch has no oneDNN linear")


class MLP(torch.nn.Module):
    """Products of both kinds: a linear with a bias (addmm), one without (mm), the input and
    weight gradients of each, and a small head under MIN_FLOPS."""

    def __init__(self):
        super().__init__()
        self.up = torch.nn.Linear(256, 512)
        self.down = torch.nn.Linear(512, 256, bias=False)
        self.head = torch.nn.Linear(256, 3)

    def forward(self, x):
        h = self.down(torch.nn.functional.gelu(self.up(x)))
        return self.head(torch.tanh(h + x))


def _batches():
    gen = torch.Generator().manual_seed(0)
    return [(torch.randn(512, 256, generator=gen), torch.randint(0, 3, (512,), generator=gen)) for _ in range(3)]


def _train(model, compiled: bool, gemm_mode: str = "auto"):
    torch.manual_seed(0)
    if compiled:
        torch._dynamo.reset()
        bessemer.compile(model, config=bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False,
                                                                       gemm=gemm_mode))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    losses, grads = [], None
    for x, y in _batches():
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        if grads is None:
            grads = [p.grad.clone() for p in model.parameters()]
        opt.step()
        losses.append(loss.detach())
    return losses, grads, [p.detach().clone() for p in model.parameters()]


def _products(model) -> dict:
    """{wrapper constant name: callable} of the products the compiled programs call."""
    out = {}
    for cg in model.forward._bessemer_backend.compiled:
        for name, v in cg.consts.items():
            if v in (gemm.onednn_mm, gemm.blocked_mm, torch.ops.aten.mm.default, torch.ops.aten.addmm.default):
                out[f"{cg.name}.{name}"] = v
    return out


@pytest.fixture
def forced(monkeypatch):
    def force(way):
        """Every product measured fastest `way` where it is offered (None: ATen's one call)."""
        monkeypatch.setattr(gemm_choice, "_decisions", {})
        monkeypatch.setattr(gemm_choice, "_fastest", lambda *key, ways: way if way in ways else None)
    return force


def test_products_on_onednn_train_as_eager(forced):
    forced("onednn")
    torch.manual_seed(0)
    ref = MLP()
    model = copy.deepcopy(ref)
    e_losses, e_grads, e_params = _train(ref, compiled=False)
    c_losses, c_grads, c_params = _train(model, compiled=True)
    for c, e in zip(c_losses + c_grads + c_params, e_losses + e_grads + e_params):
        torch.testing.assert_close(c, e, rtol=1e-4, atol=1e-5)
    calls = _products(model)
    on_dnn = [k for k, v in calls.items() if v is gemm.onednn_mm]
    # forward: up and down; backward: down's input gradient (a row-major `a`; the input
    # needs none); not the weight gradients (`a`: the gradient transposed) nor the head
    # (under MIN_FLOPS)
    assert len(on_dnn) == 3, calls
    assert any(v is not gemm.onednn_mm for v in calls.values()), calls


def test_products_measured_slower_stay_atens(forced):
    forced(None)
    torch.manual_seed(0)
    ref = MLP()
    model = copy.deepcopy(ref)
    x, _ = _batches()[0]
    expected = ref(x)
    torch._dynamo.reset()
    bessemer.compile(model, config=bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))
    got = model(x)
    assert model.forward._bessemer_backend.compiled
    assert not any(v is gemm.onednn_mm for v in _products(model).values())
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-6)


def test_gemm_aten_never_measures(monkeypatch):
    def boom(*key, ways):
        raise AssertionError("measured under gemm='aten'")
    monkeypatch.setattr(gemm_choice, "_decisions", {})
    monkeypatch.setattr(gemm_choice, "_fastest", boom)
    torch.manual_seed(0)
    ref = MLP()
    model = copy.deepcopy(ref)
    e = _train(ref, compiled=False)
    c = _train(model, compiled=True, gemm_mode="aten")
    for a, b in zip(c[0] + c[1] + c[2], e[0] + e[1] + e[2]):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)
    assert model.forward._bessemer_backend.compiled
    assert not any(v is gemm.onednn_mm for v in _products(model).values())


def test_measurement_times_real_tensors_under_a_fake_mode():
    from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
    seen = []

    def spy(a, b, bias=None):
        seen.append(any(isinstance(t, FakeTensor) for t in (a, b, bias)))
        return gemm.onednn_mm(a, b, bias)
    with FakeTensorMode():
        decided = gemm_choice._fastest(512, 256, 128, True, True, torch.get_num_threads(), ways={"onednn": spy})
    assert decided in (None, "onednn")
    assert seen and not any(seen)


def test_measurement_leaves_the_users_random_stream_alone():
    state = torch.get_rng_state()
    gemm_choice._fastest(512, 256, 128, False, False, torch.get_num_threads(),
                         ways={"onednn": gemm.onednn_mm, "blocked": gemm.blocked_mm})
    assert torch.equal(torch.get_rng_state(), state)


def test_onednn_mm_matches_aten_for_both_weight_orders():
    gen = torch.Generator().manual_seed(0)
    a = torch.randn(64, 32, generator=gen)
    w = torch.randn(48, 32, generator=gen)
    bias = torch.randn(48, generator=gen)
    torch.testing.assert_close(gemm.onednn_mm(a, w.t(), bias), torch.addmm(bias, a, w.t()), rtol=1e-5, atol=1e-5)
    b = torch.randn(32, 48, generator=gen)
    out = gemm.onednn_mm(a, b)
    torch.testing.assert_close(out, a @ b, rtol=1e-5, atol=1e-5)
    assert out.is_contiguous()
    # a stored program refers to it by name
    assert pickle.loads(pickle.dumps(gemm.onednn_mm)) is gemm.onednn_mm


def test_gemm_config_is_checked():
    with pytest.raises(ValueError, match="gemm"):
        bessemer.TrainingCompilerConfig(gemm="mkl")


class Head(torch.nn.Module):
    """An LM head's shape, scaled down: a wide product (3000 columns: two whole blocks and a
    part) with and without a bias, and a narrow one."""

    def __init__(self):
        super().__init__()
        self.inner = torch.nn.Linear(64, 96)
        self.head = torch.nn.Linear(96, 3000)
        self.tied = torch.nn.Parameter(torch.randn(3000, 96) * 0.05)

    def forward(self, x):
        h = torch.tanh(self.inner(x))
        return self.head(h) + h @ self.tied.t()


def test_products_in_blocks_of_columns_train_as_eager(forced):
    forced("blocked")
    torch.manual_seed(0)
    ref = Head()
    model = copy.deepcopy(ref)
    gen = torch.Generator().manual_seed(1)
    batches = [(torch.randn(128, 64, generator=gen), torch.randint(0, 3000, (128,), generator=gen)) for _ in range(3)]

    def train(m, compiled):
        if compiled:
            torch._dynamo.reset()
            bessemer.compile(m, config=bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))
        opt = torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9)
        out = []
        for x, y in batches:
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(m(x), y)
            loss.backward()
            out += [loss.detach()] + [p.grad.clone() for p in m.parameters()]
            opt.step()
        return out + [p.detach().clone() for p in m.parameters()]
    e, c = train(ref, False), train(model, True)
    for a, b in zip(c, e):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)
    calls = _products(model)
    blocked = [k for k, v in calls.items() if v is gemm.blocked_mm]
    # the two forward products 3000 wide (with the bias, and the tied weight's), and the
    # weight gradients' products are 96 wide or have a column-major `a`: two
    assert len(blocked) == 2, calls


@pytest.mark.parametrize("b_col", [False, True])
@pytest.mark.parametrize("with_bias", [False, True])
def test_blocked_mm_is_atens_product(b_col, with_bias):
    gen = torch.Generator().manual_seed(0)
    a = torch.randn(37, 19, generator=gen)
    b = torch.randn(2500, 19, generator=gen).t() if b_col else torch.randn(19, 2500, generator=gen)
    bias = torch.randn(2500, generator=gen) if with_bias else None
    got = gemm.blocked_mm(a, b, bias)
    want = torch.mm(a, b) if bias is None else torch.addmm(bias, a, b)
    assert got.is_contiguous() and got.shape == (37, 2500)
    torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-5)
    # each block is a whole ATen product of its columns
    j = gemm.BLOCK_COLUMNS
    block = torch.mm(a, b[:, j:2 * j]) if bias is None else torch.addmm(bias[j:2 * j], a, b[:, j:2 * j])
    assert torch.equal(got[:, j:2 * j], block)


def test_only_wide_products_are_timed_in_blocks(monkeypatch):
    offered = []

    def spy(*key, ways):
        offered.append((key[2], sorted(ways)))
        return None
    monkeypatch.setattr(gemm_choice, "_decisions", {})
    monkeypatch.setattr(gemm_choice, "_fastest", spy)
    torch.manual_seed(0)
    model = Head()
    torch._dynamo.reset()
    bessemer.compile(model, config=bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))
    model(torch.randn(128, 64)).sum().backward()
    assert offered
    for n, ways in offered:
        assert ("blocked" in ways) == (n >= gemm_choice.MIN_BLOCKED_COLUMNS), offered
    assert any("blocked" in ways for _, ways in offered)


def test_no_product_is_timed_beside_a_build(monkeypatch, tmp_path):
    """A graph's library is built in the background; the next graph's products are timed only
    after every build has ended (gcc would share the cores with the timing)."""
    from bessemer.compiler.codegen import backends
    futures, at_timing = [], []
    real_submit, real_fastest = backends._builder.submit, gemm_choice._fastest

    def submit(*a, **k):
        futures.append(real_submit(*a, **k))
        return futures[-1]

    def timed(*key, ways):
        at_timing.append([f.done() for f in futures])
        return real_fastest(*key, ways=ways)
    monkeypatch.setattr(backends._builder, "submit", submit)
    monkeypatch.setattr(gemm_choice, "_decisions", {})
    monkeypatch.setattr(gemm_choice, "_fastest", timed)
    torch.manual_seed(0)
    model = Head()
    torch._dynamo.reset()
    bessemer.compile(model, config=bessemer.TrainingCompilerConfig(
        fallback="error", graph_cache=False, cache_dir=str(tmp_path / "cache")))
    x = torch.randn(128, 64)
    model(x).sum().backward()
    # the forward's library was building when the backward's products came to be timed
    assert futures and any(len(done) > 0 for done in at_timing), at_timing
    assert all(all(done) for done in at_timing), at_timing
