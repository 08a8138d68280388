"""Joint-graph rewrites (compiler/joint.py): a gather through subtracted row statistics reads
the unshifted tensor, and only where that is exact; every case trains as eager."""
import pytest
import torch

import bessemer
from bessemer.compiler import joint

F = torch.nn.functional


def _gm(fn, *args):
    """fn's ATen graph with FakeTensor values, as AOTAutograd hands a joint graph over."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.proxy_tensor import make_fx
    with FakeTensorMode(allow_non_fake_inputs=True):
        return make_fx(fn, tracing_mode="fake")(*args)


def _ops(gm):
    return [n.target for n in gm.graph.nodes if n.op == "call_function"]


def test_gather_moves_onto_the_logits_and_full_like_loses_its_input():
    x, t = torch.randn(8, 64), torch.randint(0, 64, (8, 1))

    def f(x, t):
        ls = x - x.amax(1, keepdim=True)
        ls = ls - ls.exp().sum(1, keepdim=True).log()
        return ls.gather(1, t), torch.full_like(ls, 0.0)
    gm = _gm(f, x, t)
    assert joint.rewrite(gm) == 2
    (g,) = [n for n in gm.graph.nodes if n.target is torch.ops.aten.gather.default]
    assert g.args[0].name == "x_1"                          # reads the input itself
    assert torch.ops.aten.full_like.default not in _ops(gm)
    torch.testing.assert_close(gm(x, t)[0], f(x, t)[0])


@pytest.mark.parametrize("case", ["fewer_rows", "not_row_constant", "dim0"])
def test_the_rewrite_applies_only_where_exact(case):
    x = torch.randn(8, 64)
    if case == "fewer_rows":      # the gather reads 5 of 8 rows: the statistic would not line up
        t = torch.randint(0, 64, (5, 1))
        f = lambda x, t: (x - x.amax(1, keepdim=True)).gather(1, t)   # noqa: E731
        expect = 0
    elif case == "not_row_constant":   # subtracted along the gathered dimension: not constant
        t = torch.randint(0, 8, (8, 1))
        f = lambda x, t: (x - x.amax(1, keepdim=True)).gather(0, t)   # noqa: E731
        expect = 0
    else:                         # a statistic over dim 0, gathered along dim 0: exact
        t = torch.randint(0, 8, (1, 64))
        f = lambda x, t: (x - x.amax(0, keepdim=True)).gather(0, t)   # noqa: E731
        expect = 1
    gm = _gm(f, x, t)
    assert joint.rewrite(gm) == expect
    torch.testing.assert_close(gm(x, t), f(x, t))


@pytest.mark.parametrize("case", ["cross_entropy", "ignore_index", "fewer_rows", "dim0"])
def test_compiled_gathers_train_as_eager(case):
    torch.manual_seed(0)
    w = torch.randn(16, 64, requires_grad=True)
    w_ref = w.detach().clone().requires_grad_()
    x = torch.randn(32, 16)
    y = torch.randint(0, 64, (32,))
    if case == "ignore_index":
        y[::3] = -100

    def loss(w):
        logits = x @ w
        if case in ("cross_entropy", "ignore_index"):
            return F.cross_entropy(logits, y)
        if case == "fewer_rows":
            return logits.log_softmax(1).gather(1, y[:20, None]).sum()
        return logits.log_softmax(0).gather(0, (y % 32)[None, :]).sum()
    f = bessemer.compile(loss, config=bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))
    got, want = f(w), loss(w_ref)
    got.backward()
    want.backward()
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(w.grad, w_ref.grad)
