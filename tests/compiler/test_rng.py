"""runtime/rng.py: dropout's Bernoulli masks drawn natively, the same as ATen's bit for bit, and the
generator left where ATen leaves it."""
from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn

import bessemer
from bessemer.compiler.runtime import rng


@pytest.fixture
def cache_dir(tmp_path):
    return str(tmp_path / "cache")


def _native(cache_dir):
    fn = rng._load(cache_dir)
    assert fn is not None, "the native draws did not pass their check on this machine"
    return fn


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16])
def test_masks_and_generator_state_are_atens(cache_dir, dtype):
    fn = _native(cache_dir)
    # sizes across the engine's 624-word twist (two words an element), odd offsets into a block,
    # p at its ends and where p * 2^53 is and is not an integer
    for seed, skip, n, p in [(0, 0, 1, 0.9), (1, 3, 311, 0.9), (2, 1, 312, 0.5), (3, 0, 313, 1 / 3),
                             (4, 7, 5000, 0.1), (5, 0, 2049, 1e-17), (6, 2, 1000, 0.0), (7, 5, 999, 1.0),
                             (8, 0, 64 * 512, 0.9)]:
        ref_gen, gen = torch.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)
        if skip:
            torch.empty(skip).uniform_(generator=ref_gen)
            torch.empty(skip).uniform_(generator=gen)
        ref = torch.empty(n, dtype=dtype).bernoulli_(p, generator=ref_gen)
        out = torch.empty(n, dtype=dtype)
        assert rng._draw(fn, out, p, gen)
        assert torch.equal(out, ref), (seed, n, p)
        assert torch.equal(gen.get_state(), ref_gen.get_state()), (seed, n, p)
        # and the next draws of both generators agree
        assert torch.equal(torch.rand(7, generator=gen), torch.rand(7, generator=ref_gen))


def test_bernoulli_like_draws_from_the_default_generator_as_eager(cache_dir):
    _native(cache_dir)
    x = torch.randn(3, 5, 7).transpose(0, 2)
    torch.manual_seed(11)
    ref = torch.empty_like(x, memory_format=torch.contiguous_format).bernoulli_(0.8)
    after_ref = torch.rand(4)
    torch.manual_seed(11)
    out = rng.bernoulli_like(x, 0.8, cache_dir)
    assert out.is_contiguous() and out.shape == x.shape and out.dtype == x.dtype
    assert torch.equal(out, ref)
    assert torch.equal(torch.rand(4), after_ref)


def test_a_library_that_fails_its_check_leaves_the_draws_to_aten(cache_dir, monkeypatch):
    monkeypatch.setattr(rng, "STATE_BYTES", 1)   # as a torch with another state layout would be
    monkeypatch.setattr(rng, "_native", {})
    with pytest.warns(RuntimeWarning, match="drawn by ATen's bernoulli_"):
        assert rng._load(cache_dir) is None
    torch.manual_seed(3)
    ref = torch.empty(100).bernoulli_(0.5)
    torch.manual_seed(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")     # one warning per process and cache, not one a draw
        out = rng.bernoulli_like(torch.empty(100), 0.5, cache_dir)
    assert torch.equal(out, ref)


class _Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(32, 64), nn.Linear(64, 8)
        self.drop = nn.Dropout(0.25)

    def forward(self, x):
        h = self.drop(torch.relu(self.a(x)))
        return self.b(self.drop(h)).square().mean()


def test_compiled_dropout_trains_with_eagers_masks_drawn_natively(cache_dir, monkeypatch):
    torch.manual_seed(0)
    eager_net = _Net()
    net = _Net()
    net.load_state_dict(eager_net.state_dict())
    opt_e = torch.optim.SGD(eager_net.parameters(), lr=0.1)
    opt_c = torch.optim.SGD(net.parameters(), lr=0.1)
    calls = []
    real = rng._draw
    def counted(fn, out, p, gen):
        if gen is torch.default_generator:       # not the library's own check at its loading
            calls.append(out.shape)
        return real(fn, out, p, gen)

    monkeypatch.setattr(rng, "_draw", counted)
    compiled = bessemer.compile(net, optimizer=opt_c, fallback="error", graph_cache=False,
                                cache_dir=cache_dir)
    xs = [torch.randn(16, 32) for _ in range(3)]
    for model, opt, seed in ((eager_net, opt_e, 5), (compiled, opt_c, 5)):
        torch.manual_seed(seed)
        losses = []
        for x in xs:
            opt.zero_grad()
            loss = model(x)
            loss.backward()
            opt.step()
            losses.append(loss.detach())
        if model is eager_net:
            eager_losses, eager_next = losses, torch.rand(3)
        else:
            torch.testing.assert_close(torch.stack(losses), torch.stack(eager_losses), rtol=1e-5, atol=1e-6)
            assert torch.equal(torch.rand(3), eager_next)     # the generator left where eager leaves it
    for pe, pc in zip(eager_net.parameters(), net.parameters()):
        torch.testing.assert_close(pc, pe, rtol=1e-5, atol=1e-6)
    # two dropouts a step, three steps: every mask was the native library's
    assert calls == [torch.Size([16, 64])] * 6


class _DropPath(nn.Module):
    """Stochastic depth as timm writes it: one keep/drop draw per sample, scaled."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(16, 16), nn.Linear(16, 16)

    def forward(self, x):
        keep = x.new_empty((x.shape[0], 1)).bernoulli_(0.7)
        h = x + self.a(x).relu() * keep / 0.7
        keep2 = torch.bernoulli(h.detach(), 0.6)     # bernoulli.p of a computed tensor's shape
        return (self.b(h) * keep2).square().mean()


def test_drop_path_draws_eagers_keep_masks_natively(cache_dir, monkeypatch):
    torch.manual_seed(0)
    eager_net = _DropPath()
    net = _DropPath()
    net.load_state_dict(eager_net.state_dict())
    calls = []
    real = rng._draw

    def counted(fn, out, p, gen):
        if gen is torch.default_generator:
            calls.append((tuple(out.shape), p))
        return real(fn, out, p, gen)

    monkeypatch.setattr(rng, "_draw", counted)
    compiled = bessemer.compile(net, fallback="error", graph_cache=False, cache_dir=cache_dir)
    xs = [torch.randn(12, 16) for _ in range(3)]
    results = []
    for model in (eager_net, compiled):
        torch.manual_seed(9)
        losses = []
        for x in xs:
            loss = model(x)
            loss.backward()
            losses.append(loss.detach())
        results.append((torch.stack(losses), torch.rand(3)))
    torch.testing.assert_close(results[1][0], results[0][0], rtol=1e-5, atol=1e-6)
    assert torch.equal(results[1][1], results[0][1])
    for pe, pc in zip(eager_net.parameters(), net.parameters()):
        torch.testing.assert_close(pc.grad, pe.grad, rtol=1e-5, atol=1e-6)
    assert calls == [((12, 1), 0.7), ((12, 16), 0.6)] * 3
