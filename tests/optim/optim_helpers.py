"""Shared pieces of the optimizer tests: a small MLP, its data, a training loop,
and the comparisons against eager (the oracle)."""
from __future__ import annotations

import torch
from torch import nn

from bessemer.compiler.optim import compile_optimizer

IN, OUT = 12, 4


def make_mlp(dtype: torch.dtype = torch.float32, seed: int = 0) -> nn.Module:
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(IN, 32), nn.Tanh(), nn.Linear(32, 33), nn.ReLU(),
                         nn.Linear(33, OUT)).to(dtype)


def batches(n: int, dtype: torch.dtype = torch.float32, seed: int = 1) -> list:
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(8, IN, generator=g, dtype=dtype), torch.randn(8, OUT, generator=g, dtype=dtype))
            for _ in range(n)]


def loss_fn(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return nn.functional.mse_loss(model(x), y)


def train(model, opt, data, clip=None, scheduler=None, use_closure=False) -> list[float]:
    losses = []
    for x, y in data:
        if use_closure:
            def closure():
                opt.zero_grad()
                loss = loss_fn(model, x, y)
                loss.backward()
                return loss
            losses.append(opt.step(closure).detach().item())
        else:
            opt.zero_grad()
            loss = loss_fn(model, x, y)
            loss.backward()
            if clip is not None:
                torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            opt.step()
            losses.append(loss.detach().item())
        if scheduler is not None:
            scheduler.step()
    return losses


def run_pair(make_opt, config, steps=10, dtype=torch.float32, via="auto", **train_kw):
    """Train the same MLP eagerly and with the compiled step; return both (model, opt)."""
    data = batches(steps, dtype)
    out = []
    for compiled in (False, True):
        model = make_mlp(dtype)
        opt = make_opt(model.parameters())
        if compiled:
            compile_optimizer(opt, config, via=via)
        train(model, opt, data, **train_kw)
        out.append((model, opt))
    return out


def assert_params_equal(model_a: nn.Module, model_b: nn.Module) -> None:
    for (name, a), b in zip(model_a.named_parameters(), model_b.parameters()):
        # The contract is rtol 1e-6; on CPU the fused update is in fact bit-identical.
        torch.testing.assert_close(b, a, rtol=1e-6, atol=0, msg=lambda m: f"{name}: {m}")
        assert torch.equal(a, b), f"{name}: not bit-identical to eager"


def assert_state_equal(opt_a, opt_b, params_a, params_b) -> None:
    for pa, pb in zip(params_a, params_b):
        sa, sb = opt_a.state.get(pa, {}), opt_b.state.get(pb, {})
        assert sorted(sa) == sorted(sb)
        for key in sa:
            ta, tb = sa[key], sb[key]
            assert isinstance(tb, torch.Tensor) and tb.dtype == ta.dtype and tb.shape == ta.shape, key
            assert torch.equal(ta, tb), key


def assert_params_close(model_a: nn.Module, model_b: nn.Module, **tol) -> None:
    """Equal to float rounding: the IR path's kernels round as bessemer's generated code does
    (fused expressions, the backend's sqrt), not op for op as eager."""
    for (name, a), b in zip(model_a.named_parameters(), model_b.parameters()):
        torch.testing.assert_close(b, a, **tol, msg=lambda m: f"{name}: {m}")


def assert_state_close(opt_a, opt_b, params_a, params_b, **tol) -> None:
    for pa, pb in zip(params_a, params_b):
        sa, sb = opt_a.state.get(pa, {}), opt_b.state.get(pb, {})
        assert sorted(sa) == sorted(sb)
        for key in sa:
            ta, tb = sa[key], sb[key]
            assert isinstance(tb, torch.Tensor) and tb.dtype == ta.dtype and tb.shape == ta.shape, key
            assert tb.device == ta.device, key
            if key == "step":
                assert torch.equal(ta, tb), key      # a count: exact
            else:
                torch.testing.assert_close(tb, ta, **tol, msg=lambda m: f"{key}: {m}")
