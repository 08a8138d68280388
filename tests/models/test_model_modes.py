"""The other ways a model is used: inference, a second input shape, gradient
accumulation, and the default config (fallback="warn") running compiled code."""
import copy
import warnings

import pytest
import torch
import torch.nn as nn

import bessemer

from fidelity import (assert_grads_equal, assert_losses_equal, assert_runs_compiled, assert_state_equal,
                      assert_tensor_equal, train_pair)
from model_cases import CASES, sgd_momentum


def _randomize_running_stats(model: nn.Module) -> None:
    # Fresh BatchNorm statistics (mean 0, variance 1) would make a compiled
    # inference that ignores them look right; these make them matter.
    g = torch.Generator().manual_seed(7)
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=g) * 0.5)
            m.running_var.copy_(torch.rand(m.running_var.shape, generator=g) + 0.5)


@pytest.mark.parametrize("case", CASES)
def test_eval_inference_matches_eager(case, kernel_cache):
    torch.manual_seed(0)
    eager = case.build()
    _randomize_running_stats(eager)
    compiled = copy.deepcopy(eager)
    bessemer.compile(compiled, cache_dir=kernel_cache, fallback="error")
    eager.eval()
    compiled.eval()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.no_grad():
            for step in range(2):
                batch = case.batch(step, 0)
                torch.manual_seed(step)
                want = case.output(eager, batch)
                torch.manual_seed(step + 100)   # eval has no dropout: the seed must not matter
                got = case.output(compiled, batch)
                assert not got.requires_grad
                assert_tensor_equal(got, want, f"output of batch {step}")
    assert [str(w.message) for w in caught if "bessemer:" in str(w.message)] == []
    assert torch._dynamo.utils.counters["stats"]["unique_graphs"] >= 1
    # inference leaves the running statistics alone
    assert_state_equal(compiled, eager)


# the transformers cases recompile the same way, at several times the cost: test-full only
SHAPE_CASES = [c if c.id in ("mlp", "cnn") else pytest.param(*c.values, id=c.id, marks=[*c.marks, pytest.mark.full])
               for c in CASES]


@pytest.mark.parametrize("case", SHAPE_CASES)
def test_recompiles_for_a_new_input_shape(case, kernel_cache):
    # Steps alternate between two input shapes: the second shape compiles the
    # model's graphs once more (a model with a graph break has several), going
    # back to the first shape reuses its graphs, and every step equals eager.
    steps = 6
    eager, compiled = train_pair(case, sgd_momentum, steps, kernel_cache, shapes=lambda step: step % 2)
    assert_runs_compiled(compiled)
    # the new shape is reported, not silent
    assert any("recompiling a graph for new input shapes" in w for w in compiled.warnings)
    per_shape = compiled.graphs[0]
    assert compiled.graphs == [per_shape] + [2 * per_shape] * (steps - 1)
    assert_losses_equal(compiled.losses, eager.losses)
    assert_state_equal(compiled.model, eager.model)


@pytest.mark.parametrize("case", CASES)
def test_gradient_accumulation_matches_eager(case, kernel_cache):
    # Two micro-batches per optimizer step: the compiled backward adds into
    # .grad as eager's does.
    steps = 5
    eager, compiled = train_pair(case, sgd_momentum, steps, kernel_cache, accumulate=2)
    assert_runs_compiled(compiled)
    assert len(eager.losses) == 2 * steps
    assert_losses_equal(compiled.losses, eager.losses)
    assert_grads_equal(compiled.model, eager.model)
    assert_state_equal(compiled.model, eager.model)


@pytest.mark.parametrize("case", CASES)
def test_default_config_runs_compiled_code(case, kernel_cache):
    # With the default fallback ("warn") a graph the compiler cannot handle
    # would run eagerly with a "bessemer: ... runs eagerly" warning: there is none.
    eager, compiled = train_pair(case, sgd_momentum, 2, kernel_cache, fallback="warn")
    assert_runs_compiled(compiled)
    assert_losses_equal(compiled.losses, eager.losses)
