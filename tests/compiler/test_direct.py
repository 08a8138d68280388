"""The direct call (compiler/capture/direct.py): once a graph's first forward and backward have gone
through AOTAutograd, a graph whose metadata leaves AOTAutograd's runtime wrappers nothing to
do is called through bessemer's own autograd.Function. It must train exactly as eager (values,
gradients, parameters), behave as AOTAutograd does where the step asks for more (a retained
graph, create_graph, no_grad), and leave every other graph on AOTAutograd's path."""
import copy

import pytest
import torch

import bessemer
from bessemer.compiler.capture import direct


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(8, 32)
        self.b = torch.nn.Linear(32, 3)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


class LossAndLogits(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(8, 32)
        self.b = torch.nn.Linear(32, 64)

    def forward(self, x, y):
        logits = self.b(torch.tanh(self.a(x)))
        return torch.nn.functional.cross_entropy(logits, y), logits


class WithBatchNorm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(8, 16)
        self.bn = torch.nn.BatchNorm1d(16)

    def forward(self, x):
        return self.bn(self.a(x)).relu().sum(1)


def _compiled(model, tmp_path):
    m = copy.deepcopy(model)
    bessemer.compile(m, config=bessemer.TrainingCompilerConfig(cache_dir=str(tmp_path), fallback="error"))
    return m


def _counting(calls):
    """direct.CompiledFunction.forward, noting each call of the direct path in `calls`."""
    orig_call = direct.CompiledFunction.forward

    def forward(ctx, g, *args):
        calls.append("direct")
        return orig_call(ctx, g, *args)
    return forward


@pytest.fixture
def counted(monkeypatch):
    calls: list = []
    monkeypatch.setattr(direct.CompiledFunction, "forward", staticmethod(_counting(calls)))
    return calls


def _batch(i):
    g = torch.Generator().manual_seed(i)
    return torch.randn(16, 8, generator=g), torch.randint(0, 3, (16,), generator=g)


def _train(model, steps=6):
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses, grads = [], []
    for i in range(steps):
        opt.zero_grad(set_to_none=True)
        x, y = _batch(i)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        losses.append(loss.detach())
        grads.append([p.grad.clone() for p in model.parameters()])
        opt.step()
    return losses, grads


def test_trains_as_eager_through_the_direct_call(tmp_path, counted):
    torch.manual_seed(0)
    model = MLP()
    m = _compiled(model, tmp_path)
    got_l, got_g = _train(m)
    want_l, want_g = _train(model)
    # the first step goes through AOTAutograd (it compiles the backward); the others do not
    assert len(counted) == 5, counted
    for a, b in zip(got_l, want_l):
        torch.testing.assert_close(a, b)
    for ga, gb in zip(got_g, want_g):
        for a, b in zip(ga, gb):
            torch.testing.assert_close(a, b)
    for a, b in zip(m.parameters(), model.parameters()):
        torch.testing.assert_close(a, b)


def test_outputs_nobody_differentiates_and_other_patterns(tmp_path, counted):
    """A graph returning a loss and logits: the step differentiating the loss alone passes no
    tangent for the logits (None, tangents.py), a step differentiating both passes both."""
    torch.manual_seed(0)
    model = LossAndLogits()
    m = _compiled(model, tmp_path)
    for i, kind in enumerate(["loss", "loss", "loss", "both", "loss", "logits"]):
        x = torch.randn(16, 8, generator=torch.Generator().manual_seed(i))
        y = torch.randint(0, 64, (16,), generator=torch.Generator().manual_seed(i))
        grads = []
        for mod in (m, model):
            mod.zero_grad(set_to_none=True)
            loss, logits = mod(x, y)
            {"loss": loss, "both": loss + logits.square().mean(), "logits": logits.square().mean()}[kind].backward()
            grads.append([p.grad.clone() for p in mod.parameters()])
        for a, b in zip(*grads):
            torch.testing.assert_close(a, b)
    assert len(counted) == 5, counted


@torch._functorch.config.patch(donated_buffer=False)
def test_retained_graph_and_create_graph_as_eager(tmp_path, counted):
    """With donation off (the backward overwrites none of its saved values), a retained graph
    runs its backward twice and create_graph=True gives first-order gradients as eager; a second
    differentiation of those is refused, as under AOTAutograd."""
    torch.manual_seed(0)
    model = MLP()
    m = _compiled(model, tmp_path)
    _train(m, steps=2)
    _train(model, steps=2)
    x, y = _batch(9)
    results = []
    for mod in (m, model):
        mod.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(mod(x), y)
        loss.backward(retain_graph=True)
        loss.backward()
        results.append([p.grad.clone() for p in mod.parameters()])
    for a, b in zip(*results):
        torch.testing.assert_close(a, b)
    loss = torch.nn.functional.cross_entropy(m(x), y)
    gs = torch.autograd.grad(loss, list(m.parameters()), create_graph=True)
    want = torch.autograd.grad(torch.nn.functional.cross_entropy(model(x), y), list(model.parameters()))
    for a, b in zip(gs, want):
        torch.testing.assert_close(a, b)
    assert all(g.requires_grad for g in gs)
    with pytest.raises(RuntimeError, match="double backward"):
        sum(g.sum() for g in gs).backward()
    # the same where nothing reaching the backward requires grad (a sum's gradient is constant)
    gs = torch.autograd.grad(m(x).sum(), list(m.parameters()), create_graph=True)
    want = torch.autograd.grad(model(x).sum(), list(model.parameters()))
    for a, b in zip(gs, want):
        torch.testing.assert_close(a, b)
    assert all(g.requires_grad for g in gs)
    with pytest.raises(RuntimeError, match="double backward"):
        sum(g.sum() for g in gs).backward()
    assert len(counted) == 4, counted


@pytest.mark.parametrize("direct_on", ["1", "0"])
def test_retained_graph_refused_where_the_backward_donates(tmp_path, monkeypatch, direct_on):
    """A backward that writes over its saved values (donated buffers) cannot run twice: both
    paths refuse backward(retain_graph=True) with the same advice, and nothing is changed."""
    monkeypatch.setenv(direct.ENV, direct_on)
    torch.manual_seed(0)
    m = _compiled(MLP(), tmp_path)
    _train(m, steps=2)
    x, y = _batch(9)
    m.zero_grad(set_to_none=True)
    loss = torch.nn.functional.cross_entropy(m(x), y)
    with pytest.raises(RuntimeError, match="retain_graph=False"):
        loss.backward(retain_graph=True)
    assert all(p.grad is None for p in m.parameters())


def test_batchnorm_running_statistics_through_the_direct_call(tmp_path, counted):
    """BatchNorm updates its running statistics (an input mutation: new values the forward
    returns, copied into the buffers after the call); the direct call applies it as AOTAutograd
    does. A call under no_grad stays on AOTAutograd's path."""
    torch.manual_seed(0)
    model = WithBatchNorm()
    m = _compiled(model, tmp_path)
    opt, opt_ref = (torch.optim.SGD(x.parameters(), lr=0.1, momentum=0.9) for x in (m, model))
    for i in range(4):
        x, _ = _batch(i)
        for mod, o in ((m, opt), (model, opt_ref)):
            o.zero_grad(set_to_none=True)
            mod(x).square().mean().backward()
            o.step()
        for a, b in zip(m.parameters(), model.parameters()):
            torch.testing.assert_close(a.grad, b.grad, rtol=1e-4, atol=1e-5)   # the bias before BatchNorm: ~0
            torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)
        for name, b in model.bn.named_buffers():
            torch.testing.assert_close(getattr(m.bn, name), b, msg=name)
    assert m.forward._bessemer_backend.compiled
    # the first step goes through AOTAutograd (it compiles the backward); the others do not
    assert len(counted) == 3, counted
    with torch.no_grad():
        torch.testing.assert_close(m(_batch(7)[0]), model(_batch(7)[0]))
    assert len(counted) == 3
    m.eval(), model.eval()
    torch.testing.assert_close(m(_batch(8)[0]), model(_batch(8)[0]))


class ScalesItsInput(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(8, 3)

    def forward(self, x, seen):
        seen.mul_(0.5).add_(x.mean(0))    # a caller's tensor, updated in place
        return self.a(x)


def test_input_updated_in_place_through_the_direct_call(tmp_path, counted):
    torch.manual_seed(0)
    model = ScalesItsInput()
    m = _compiled(model, tmp_path)
    seen, seen_ref = torch.zeros(8), torch.zeros(8)
    for i in range(4):
        x, y = _batch(i)
        for mod, s in ((m, seen), (model, seen_ref)):
            mod.zero_grad(set_to_none=True)
            torch.nn.functional.cross_entropy(mod(x, s), y).backward()
        torch.testing.assert_close(seen, seen_ref)
        for a, b in zip(m.parameters(), model.parameters()):
            torch.testing.assert_close(a.grad, b.grad)
    assert len(counted) == 3, counted


def test_switched_off_by_the_environment(tmp_path, counted, monkeypatch):
    monkeypatch.setenv(direct.ENV, "0")
    torch.manual_seed(0)
    model = MLP()
    m = _compiled(model, tmp_path)
    got_l, _ = _train(m, steps=3)
    want_l, _ = _train(model, steps=3)
    for a, b in zip(got_l, want_l):
        torch.testing.assert_close(a, b)
    assert counted == []


def test_an_in_place_write_to_an_expanded_input_is_a_clear_error(tmp_path):
    """Eager fills an expanded tensor in place; compiled code cannot copy the new value back
    into it (nor can Inductor compile the graph): the error says so and what to pass
    instead, and a tensor with memory of its own then runs as eager."""
    def f(x):
        x.fill_(1.5)
        return x * 2

    g = bessemer.compile(f, fallback="warn", cache_dir=str(tmp_path))
    expanded = torch.zeros(1).expand(3)
    with pytest.raises(RuntimeError, match=r"writes in place to an input whose elements share memory "
                                           r"\(shape \(3,\), strides \(0,\).*x\.clone\(\)"):
        g(expanded)
    x, y = torch.zeros(3), torch.zeros(3)
    assert torch.equal(g(x), f(y)) and torch.equal(x, y)
