"""clip_grad_norm_ over a compiled optimizer's parameters, its scaling native
(compiler/runtime/clip.py): the same total norm and clipped gradients as torch's function, bit
for bit; torch's own function for every other call."""
import copy
import math

import pytest
import torch
import torch.nn as nn

import bessemer
from bessemer.compiler.runtime import clip


def _pair(seed=0):
    torch.manual_seed(seed)
    m = nn.Sequential(nn.Linear(16, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 5))
    ref = copy.deepcopy(m)
    opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    opt_ref = torch.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    bessemer.compile(m, optimizer=opt, fallback="error", graph_cache=False)
    return m, opt, ref, opt_ref


def _grads(model, x, y):
    model.zero_grad(set_to_none=True)
    nn.functional.cross_entropy(model(x), y).backward()


@pytest.mark.parametrize("max_norm", [0.05, 1e3])
def test_training_with_clipping_matches_eager(max_norm):
    """Trained 4 steps with clipping active (0.05) and not (1e3): each step's total norm, the
    clipped gradients and the trained parameters as eager's; every call served natively."""
    m, opt, ref, opt_ref = _pair()
    before = clip.calls["native"]
    for i in range(4):
        g = torch.Generator().manual_seed(i)
        x, y = torch.randn(32, 16, generator=g), torch.randint(0, 5, (32,), generator=g)
        _grads(m, x, y)
        _grads(ref, x, y)
        got = torch.nn.utils.clip_grad_norm_(m.parameters(), max_norm)
        want = torch.nn.utils.clip_grad_norm_(ref.parameters(), max_norm)
        assert got.dtype == want.dtype == torch.float32 and got.shape == want.shape == ()
        torch.testing.assert_close(got, want, rtol=1e-5, atol=0)
        for p, q in zip(m.parameters(), ref.parameters()):
            torch.testing.assert_close(p.grad, q.grad, rtol=1e-5, atol=1e-8)
        opt.step()
        opt_ref.step()
    for p, q in zip(m.parameters(), ref.parameters()):
        torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-7)
    assert clip.calls["native"] == before + 4


def test_other_calls_are_torchs():
    """A parameter of no compiled optimizer, another norm, a non-contiguous gradient: torch's
    function, with its results."""
    m, opt, ref, opt_ref = _pair(1)
    x, y = torch.randn(8, 16), torch.randint(0, 5, (8,))
    _grads(m, x, y)
    _grads(ref, x, y)
    before = dict(clip.calls)
    stray = nn.Parameter(torch.randn(3))
    stray.grad = torch.randn(3)
    twins = [nn.Parameter(p.detach().clone()) for p in ref.parameters()]
    for t, p in zip(twins, ref.parameters()):
        t.grad = p.grad.clone()
    assert torch.equal(torch.nn.utils.clip_grad_norm_(list(ref.parameters()), 0.1), clip._original(twins, 0.1))
    assert all(torch.equal(t.grad, p.grad) for t, p in zip(twins, ref.parameters()))
    torch.nn.utils.clip_grad_norm_([*m.parameters(), stray], 0.1)
    torch.nn.utils.clip_grad_norm_(m.parameters(), 0.1, norm_type=math.inf)
    w = m[0].weight
    w.grad = w.grad.t().contiguous().t()
    torch.nn.utils.clip_grad_norm_(m.parameters(), 0.1)
    assert clip.calls["native"] == before["native"]
    assert clip.calls["torch"] == before["torch"] + 4


def test_non_finite_norms_as_eager():
    """An infinite gradient: error_if_nonfinite raises torch's error with nothing scaled; without
    it the total is inf and the gradients are scaled by 0 (inf * 0 is NaN), as eager's."""
    m, opt, ref, opt_ref = _pair(2)
    x, y = torch.randn(8, 16), torch.randint(0, 5, (8,))
    for model in (m, ref):
        _grads(model, x, y)
        model[0].bias.grad[0] = math.inf
    kept = [p.grad.clone() for p in m.parameters()]
    with pytest.raises(RuntimeError, match="non-finite"):
        torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0, error_if_nonfinite=True)
    assert all(torch.equal(p.grad, k) for p, k in zip(m.parameters(), kept))
    got = torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
    want = torch.nn.utils.clip_grad_norm_(ref.parameters(), 1.0)
    assert math.isinf(got) and math.isinf(want)
    for p, q in zip(m.parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad, equal_nan=True)


def test_gradients_read_between_clip_and_step_are_clipped():
    """The gradients are scaled in place before the call returns: a hook reading them between
    the clip and the step sees eager's clipped values, and the step uses them."""
    m, opt, ref, opt_ref = _pair(3)
    x, y = torch.randn(8, 16), torch.randint(0, 5, (8,))
    _grads(m, x, y)
    _grads(ref, x, y)
    torch.nn.utils.clip_grad_norm_(m.parameters(), 0.01)
    torch.nn.utils.clip_grad_norm_(ref.parameters(), 0.01)
    norm = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(p.grad) for p in m.parameters()]))
    assert float(norm) == pytest.approx(0.01, rel=1e-4)
    opt.step()
    opt_ref.step()
    for p, q in zip(m.parameters(), ref.parameters()):
        torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("max_norm", [1e-3, 0.7, 1e9])
def test_bit_for_bit_on_the_same_gradients(max_norm):
    """On the same gradients (shapes around vector widths, one large) the total norm and every
    clipped gradient equal torch's function's, bit for bit."""
    torch.manual_seed(5)
    shapes = [(1,), (7,), (16,), (17, 3), (64, 33), (300, 257)]
    ps = [nn.Parameter(torch.randn(s)) for s in shapes]
    twins = [nn.Parameter(p.detach().clone()) for p in ps]
    opt = torch.optim.SGD(ps, lr=0.1)
    bessemer.compile(nn.Linear(1, 1), optimizer=opt)
    for p, t in zip(ps, twins):
        p.grad = torch.randn(p.shape) * 3
        t.grad = p.grad.clone()
    before = clip.calls["native"]
    got = torch.nn.utils.clip_grad_norm_(ps, max_norm)
    want = clip._original(twins, max_norm)
    assert clip.calls["native"] == before + 1
    assert torch.equal(got, want)
    assert all(torch.equal(p.grad, t.grad) for p, t in zip(ps, twins))
