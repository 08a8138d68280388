"""Training fidelity: 20 steps compiled equal 20 steps eager, with dropout on.

The model is compiled, the optimizer is torch's own (the compiled optimizer
step is tested in test_model_compiled_optimizer.py).
"""
import pytest

from fidelity import assert_losses_equal, assert_runs_compiled, assert_state_equal, assert_trained, train_pair
from model_cases import OPTIMIZERS, TRAINING_CASES

STEPS = 20


@pytest.mark.parametrize("optimizer", list(OPTIMIZERS))
@pytest.mark.parametrize("case", TRAINING_CASES)
def test_training_matches_eager(case, optimizer, kernel_cache):
    eager, compiled = train_pair(case, OPTIMIZERS[optimizer], STEPS, kernel_cache)
    assert_runs_compiled(compiled)
    assert_losses_equal(compiled.losses, eager.losses)
    if optimizer == "sgd_momentum":
        # Parameters are compared under SGD only: AdamW divides each update by
        # the root of the squared gradients, so the rounding noise of a gradient
        # that is zero in exact arithmetic becomes an update of full size.
        assert_trained(eager.model, case)
        assert_state_equal(compiled.model, eager.model)
