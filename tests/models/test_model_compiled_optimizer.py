"""Training fidelity with the optimizer step compiled too:
bessemer.compile(model, optimizer=opt) for 20 steps equals eager."""
import pytest

from bessemer.compiler.optim import fused_step_of

from fidelity import (assert_losses_equal, assert_runs_compiled, assert_state_equal, assert_tensor_equal,
                      assert_trained, train_pair)
from model_cases import CASES, OPTIMIZERS

STEPS = 20


@pytest.mark.parametrize("optimizer", list(OPTIMIZERS))
@pytest.mark.parametrize("case", CASES)
def test_training_with_compiled_optimizer_matches_eager(case, optimizer, kernel_cache):
    eager, compiled = train_pair(case, OPTIMIZERS[optimizer], STEPS, kernel_cache, compile_optimizer=True)
    assert_runs_compiled(compiled)
    runner = fused_step_of(compiled.optimizer)
    groups = len(compiled.optimizer.param_groups)
    assert (runner.fused_groups, runner.eager_groups) == (STEPS * groups, 0)
    assert_losses_equal(compiled.losses, eager.losses)
    if optimizer == "sgd_momentum":
        assert_trained(eager.model, case)
        assert_state_equal(compiled.model, eager.model)
        # the momentum buffers are the optimizer's state: they agree as well
        named = zip(eager.model.named_parameters(), compiled.model.parameters())
        for (name, pe), pc in named:
            assert_tensor_equal(compiled.optimizer.state[pc]["momentum_buffer"],
                                eager.optimizer.state[pe]["momentum_buffer"], f"{name} momentum_buffer")
