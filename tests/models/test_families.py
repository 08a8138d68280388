"""Model families from transformers train compiled as they train eagerly.

Each family of families.py (decoder LMs, encoders, encoder-decoders, speech and
vision models) is built tiny with random weights and trained STEPS steps of SGD
three times from the same weights and batches: eagerly in float32, compiled by
bessemer (fallback="error") in float32, and eagerly in float64, the truth both
float32 runs are judged against.

How close is close enough is the question Inductor's accuracy checks answer
with a float64 reference: a compiled float32 result is right when it is about
as close to the float64 result as eager's own float32 result is. For the first
step's loss, and for all parameters' gradients of the first step taken as one
vector:

    err(x) = |x - x64|  (the loss)   or   ||x - x64||_2  (the gradient vector)
    err(compiled) <= ERR_FACTOR * err(eager) + FLOOR_ULPS * eps32 * |x64|

The factor allows a different but equally good order of summation (eager
itself is one sample of float32 rounding; a fused kernel sums in another
order); the floor, a couple of float32 rounding steps of the value's size,
covers eager landing on the float64 value by chance. A wrong gradient in any
tensor that matters to the step lands orders of magnitude above both; an
rsqrt off by 1e-5 in ViT's layer norms already fails the loss check.

Later steps are judged the same way, more loosely (LATER_FACTOR, and a floor
of LATER_RTOL of the value): both float32 runs start them from parameters that
rounding has already moved apart, and a badly conditioned model amplifies that
from step to step (wav2vec2's CTC loss at a large learning rate, BatchNorm nets
at batch 2). Eager's own distance from float64 measures how much a family
amplifies, so the same rule holds for every family. The parameters after the
last step are judged as one vector, like the gradients.

A family that cannot compile is an entry of EXPECTED_FAILURES with the reason;
it runs as an expected failure (strict: once it passes, the entry must go).
"""
from __future__ import annotations

import copy
import os
import warnings
from dataclasses import dataclass

os.environ.setdefault("HF_HUB_OFFLINE", "1")   # configs are built in code; nothing is downloaded

import pytest
import torch
import torch.nn as nn
from torch.overrides import TorchFunctionMode

import bessemer
from bessemer.compiler.lowering import lower as lowering
from families import FAMILIES, Family, loss_of

STEPS = 3
LR = 0.05
EPS32 = torch.finfo(torch.float32).eps
ERR_FACTOR = 3.0
FLOOR_ULPS = 2.0
LATER_FACTOR = 10.0
LATER_RTOL = 1e-5

# family name -> why it does not compile (empty: every family compiles)
EXPECTED_FAILURES: dict[str, str] = {}


class Float64Everywhere(TorchFunctionMode):
    """Inside: every float32 the model code asks for is float64.

    transformers upcasts to float32 on purpose in places (RMSNorm's variance,
    the loss's logits, rotary tables), which in a model cast to float64 would be
    downcasts that round the reference to float32 precision. This mode turns
    `.float()` and any dtype=torch.float32 argument into float64, so the
    reference run is float64 from end to end."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch.Tensor.float:
            func = torch.Tensor.double
        args = tuple(torch.float64 if a is torch.float32 else a for a in args)
        kwargs = {k: torch.float64 if v is torch.float32 else v for k, v in kwargs.items()}
        return func(*args, **kwargs)


class _Float64Run:
    """Float64Everywhere, with float64 as the default dtype (tensors the model creates)."""

    def __enter__(self):
        self.before = torch.get_default_dtype()
        torch.set_default_dtype(torch.float64)
        self.mode = Float64Everywhere().__enter__()

    def __exit__(self, *exc):
        self.mode.__exit__(*exc)
        torch.set_default_dtype(self.before)


def _double(batch: dict) -> dict:
    return {k: v.double() if isinstance(v, torch.Tensor) and v.is_floating_point() else v
            for k, v in batch.items()}


def _grad_vector(model: nn.Module) -> torch.Tensor:
    return torch.cat([(p.grad if p.grad is not None else torch.zeros_like(p)).detach().double().flatten()
                      for p in model.parameters()])


def _param_vector(model: nn.Module) -> torch.Tensor:
    return torch.cat([p.detach().double().flatten() for p in model.parameters()])


@dataclass
class Run:
    losses: list[float]
    first_grads: torch.Tensor    # the gradient vector of the first step
    params: torch.Tensor         # the parameter vector after the last step


def train(model: nn.Module, family: Family, float64: bool = False) -> Run:
    """STEPS steps of SGD. With float64, the model is a float64 copy and every step
    runs in float64 (the batches are drawn in float32, as the other runs' are)."""
    if float64:
        model = copy.deepcopy(model).double()
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    losses, first_grads = [], None
    for step in range(STEPS):
        opt.zero_grad(set_to_none=True)
        batch = family.make_batch(step)
        torch.manual_seed(step)
        if float64:
            with _Float64Run():
                loss = loss_of(model, _double(batch))
                loss.backward()
            assert loss.dtype == torch.float64
        else:
            loss = loss_of(model, batch)
            loss.backward()
        if step == 0:
            first_grads = _grad_vector(model)
        losses.append(loss.item())
        opt.step()
    return Run(losses, first_grads, _param_vector(model))


def assert_as_close_as_eager(what: str, compiled, eager, truth, factor: float, floor: float) -> None:
    """compiled is about as close to the float64 truth as eager is (the rule above)."""
    err_c, err_e = float((compiled - truth).norm() if torch.is_tensor(truth) else abs(compiled - truth)), \
        float((eager - truth).norm() if torch.is_tensor(truth) else abs(eager - truth))
    size = float(truth.norm() if torch.is_tensor(truth) else abs(truth))
    bound = factor * err_e + floor * size
    assert err_c <= bound, (f"{what}: compiled float32 is {err_c:.3e} from float64, eager float32 "
                            f"{err_e:.3e}; allowed {bound:.3e} (size of the float64 value {size:.3e})")


# The slowest families to train (each a minute or more of two cores); their ops and
# structure (convolutions with attention, windowed attention, a convolutional speech
# front end) also appear in cheaper families. make test-full runs them.
FULL_ONLY = {"mobilevit", "swin", "wav2vec2"}


def _params(family: Family):
    marks = [pytest.mark.full] if family.name in FULL_ONLY else []
    if family.name in EXPECTED_FAILURES:
        marks.append(pytest.mark.xfail(reason=EXPECTED_FAILURES[family.name], strict=True))
    return pytest.param(family, id=family.name, marks=marks)


@pytest.mark.parametrize("family", [_params(f) for f in FAMILIES])
def test_family_trains_like_eager(family: Family, kernel_cache, monkeypatch):
    # An op without a lowering is reported once per process: this test sees its own.
    monkeypatch.setattr(lowering, "_reported", set())
    torch.manual_seed(0)
    model = family.build()
    initial = _param_vector(model)
    eager_model, compiled_model = copy.deepcopy(model), copy.deepcopy(model)

    truth = train(model, family, float64=True)
    eager = train(eager_model, family)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bessemer.compile(compiled_model, cache_dir=kernel_cache, fallback="error")
        compiled = train(compiled_model, family)
    reported = [str(w.message) for w in caught
                if "bessemer:" in str(w.message) and "recompiling" not in str(w.message)]
    assert reported == [], "\n".join(reported)
    graphs = compiled_model.forward._bessemer_backend.compiled
    assert len(graphs) >= 2, f"{len(graphs)} graphs compiled: the forward and backward did not both compile"
    print(f"{family.name}: error vs float64, compiled / eager: step-1 loss "
          f"{abs(compiled.losses[0] - truth.losses[0]):.1e} / {abs(eager.losses[0] - truth.losses[0]):.1e}, "
          f"step-1 gradients {(compiled.first_grads - truth.first_grads).norm():.1e} / "
          f"{(eager.first_grads - truth.first_grads).norm():.1e} (norm {truth.first_grads.norm():.1e}), "
          f"last loss {abs(compiled.losses[-1] - truth.losses[-1]):.1e} / {abs(eager.losses[-1] - truth.losses[-1]):.1e}")

    assert_as_close_as_eager("loss of step 1", compiled.losses[0], eager.losses[0], truth.losses[0],
                             ERR_FACTOR, FLOOR_ULPS * EPS32)
    assert_as_close_as_eager("gradients of step 1", compiled.first_grads, eager.first_grads, truth.first_grads,
                             ERR_FACTOR, FLOOR_ULPS * EPS32)
    for step in range(1, STEPS):
        assert_as_close_as_eager(f"loss of step {step + 1}", compiled.losses[step], eager.losses[step],
                                 truth.losses[step], LATER_FACTOR, LATER_RTOL)
    assert (truth.params - initial).norm() > 100 * (eager.params - truth.params).norm(), \
        "training moved the parameters by less than float32 rounding"
    assert_as_close_as_eager(f"parameters after {STEPS} steps", compiled.params, eager.params, truth.params,
                             LATER_FACTOR, FLOOR_ULPS * EPS32)
