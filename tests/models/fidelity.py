"""Train a model eagerly and compiled on the same data and compare the two.

Both runs start from the same weights (a deepcopy), see the same batches, and
call torch.manual_seed(i) before the forward of micro-batch i, so dropout draws
the same numbers in both when the compiled code makes the same RNG calls as
eager.
"""
from __future__ import annotations

import copy
import warnings
from dataclasses import dataclass, field
from typing import Callable

import torch
import torch.nn as nn
from torch._dynamo.utils import counters

import bessemer

from model_cases import ModelCase

LOSS_RTOL = 1e-4
STATE_RTOL = 1e-4
# Absolute slack, relative to the size of a tensor's values (at least 1): a
# gradient that is zero in exact arithmetic (the attention key bias, a bias
# right before a normalization) comes out as rounding noise of about 1e-9 in
# either run, with a different sign and size in each; 20 SGD steps with
# momentum leave parameter differences below 1e-7 (measured), far below this
# slack, while a gradient that is wrong by 0.1% shows as differences of 1e-4.
STATE_ATOL_SCALE = 1e-6


@dataclass
class Run:
    model: nn.Module
    optimizer: torch.optim.Optimizer
    losses: torch.Tensor                                 # one per micro-batch
    graphs: list[int]                                    # graphs Dynamo has compiled, after each step
    warnings: list[str] = field(default_factory=list)   # the compiled run's "bessemer:" warnings


def train(model: nn.Module, opt: torch.optim.Optimizer, case: ModelCase, steps: int,
          accumulate: int = 1, shapes: Callable[[int], int] = lambda step: 0) -> tuple[torch.Tensor, list[int]]:
    """`steps` optimizer steps of `accumulate` micro-batches each, with `shapes(step)`
    selecting the input shape; the loss of every micro-batch, and the number of
    graphs compiled so far after each step."""
    model.train()
    losses, graphs = [], []
    for step in range(steps):
        opt.zero_grad(set_to_none=True)
        for micro in range(accumulate):
            i = step * accumulate + micro
            batch = case.batch(i, shapes(step))
            torch.manual_seed(i)
            loss = case.loss(model, batch)
            (loss / accumulate).backward()
            losses.append(loss.detach().clone())
        opt.step()
        graphs.append(counters["stats"]["unique_graphs"])
    return torch.stack(losses), graphs


def train_pair(case: ModelCase, make_opt, steps: int, cache_dir: str, *, compile_optimizer: bool = False,
               accumulate: int = 1, shapes: Callable[[int], int] = lambda step: 0,
               **options) -> tuple[Run, Run]:
    """The eager and the compiled run of the same training."""
    options.setdefault("fallback", "error")
    torch.manual_seed(0)
    eager_model = case.build()
    compiled_model = copy.deepcopy(eager_model)

    eager_opt = make_opt(eager_model, case)
    eager = Run(eager_model, eager_opt, *train(eager_model, eager_opt, case, steps, accumulate, shapes))

    compiled_opt = make_opt(compiled_model, case)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bessemer.compile(compiled_model, optimizer=compiled_opt if compile_optimizer else None,
                         cache_dir=cache_dir, **options)
        assert getattr(compiled_model.forward, "_bessemer_compiled", False)
        if compile_optimizer:
            # imported here so that the model-only tests do not depend on the optimizer compiler
            from bessemer.compiler.optim import fused_step_of
            assert fused_step_of(compiled_opt) is not None, "the optimizer step was not compiled"
        losses, graphs = train(compiled_model, compiled_opt, case, steps, accumulate, shapes)
    compiled = Run(compiled_model, compiled_opt, losses, graphs,
                   [str(w.message) for w in caught if "bessemer:" in str(w.message)])
    return eager, compiled


def assert_runs_compiled(run: Run) -> None:
    """Dynamo handed graphs to the bessemer backend, and nothing ran eagerly with a warning."""
    fallbacks = [w for w in run.warnings if "recompiling a graph" not in w]
    assert fallbacks == [], "\n".join(fallbacks)
    assert run.graphs[-1] >= 1, "no graph was compiled: the model ran eagerly"


def assert_losses_equal(compiled: torch.Tensor, eager: torch.Tensor) -> None:
    assert compiled.shape == eager.shape
    assert torch.isfinite(eager).all()
    torch.testing.assert_close(compiled, eager, rtol=LOSS_RTOL, atol=0.0)


def assert_tensor_equal(compiled: torch.Tensor, eager: torch.Tensor, name: str) -> None:
    """One parameter, buffer, gradient or optimizer state tensor agrees."""
    if eager.is_floating_point():
        atol = STATE_ATOL_SCALE * max(1.0, eager.abs().max().item()) if eager.numel() else 0.0
        torch.testing.assert_close(compiled, eager, rtol=STATE_RTOL, atol=atol, msg=lambda m: f"{name}: {m}")
    else:
        torch.testing.assert_close(compiled, eager, rtol=0, atol=0, msg=lambda m: f"{name}: {m}")


def assert_state_equal(compiled: nn.Module, eager: nn.Module) -> None:
    """Every parameter and buffer (running statistics, batch counters) agrees."""
    cs, es = compiled.state_dict(), eager.state_dict()
    assert list(cs) == list(es)
    for name, e in es.items():
        assert_tensor_equal(cs[name], e, name)


def assert_grads_equal(compiled: nn.Module, eager: nn.Module) -> None:
    cp, ep = dict(compiled.named_parameters()), dict(eager.named_parameters())
    for name, e in ep.items():
        c = cp[name]
        assert (c.grad is None) == (e.grad is None), name
        if e.grad is not None:
            assert_tensor_equal(c.grad, e.grad, f"{name}.grad")


def assert_trained(model: nn.Module, case: ModelCase) -> None:
    """Training moved the weights, so that equal weights mean something."""
    torch.manual_seed(0)
    initial = case.build().state_dict()
    moved = max((p.detach() - initial[n]).abs().max().item() for n, p in model.named_parameters())
    assert moved > 1e-3, f"parameters moved by at most {moved}"


def train_mixed(case: ModelCase, model: nn.Module, opt: torch.optim.Optimizer, steps: int,
                amp: "torch.dtype | None" = None, scaler=None, device: str = "cpu") -> torch.Tensor:
    """`steps` steps on `device`, the forward under torch.autocast(amp) when amp is
    given, the backward through a GradScaler when given; the loss of each step."""
    model.train()
    losses = []
    for i in range(steps):
        opt.zero_grad(set_to_none=True)
        batch = {k: v.to(device) for k, v in case.batch(i, 0).items()}
        torch.manual_seed(i)
        if amp is not None:
            with torch.autocast(device, dtype=amp):
                loss = case.loss(model, batch)
        else:
            loss = case.loss(model, batch)
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()
        losses.append(loss.detach().float())
    return torch.stack(losses)
