"""The Triton backend trains like eager: the model cases compiled to Triton
kernels, run on CPU under Triton's interpreter (tests/conftest.py sets TRITON_INTERPRET=1
when there is no GPU; on a GPU machine test_model_gpu.py trains on CUDA instead).

The same fidelity bar as the C++ backend (test_model_training.py): losses of
every step, and parameters and buffers after training with SGD and momentum;
with dropout on, so the RNG calls must be eager's. Every kernel is then also
compiled for sm_90 by Triton's own compiler (no GPU needed to compile).
"""
import os

import pytest

from fidelity import assert_losses_equal, assert_runs_compiled, assert_state_equal, assert_trained, train_pair
from bessemer.compiler.codegen.triton_aot import check_graphs
from model_cases import BERT, CNN, GPT2, MLP, OPTIMIZERS

STEPS = 5

# CPU tensors through Triton's interpreter; on a GPU machine tests/gpu runs these checks on CUDA
pytestmark = pytest.mark.skipif(os.environ.get("TRITON_INTERPRET") != "1", reason="needs Triton's interpreter")


@pytest.mark.parametrize("case", [pytest.param(MLP, id="mlp"), pytest.param(GPT2, id="gpt2"),
                                  pytest.param(CNN, id="cnn"), pytest.param(BERT, id="bert")])
def test_triton_training_matches_eager(case, kernel_cache):
    eager, compiled = train_pair(case, OPTIMIZERS["sgd_momentum"], STEPS, kernel_cache, backend="triton")
    assert_runs_compiled(compiled)
    assert_losses_equal(compiled.losses, eager.losses)
    assert_trained(eager.model, case)
    assert_state_equal(compiled.model, eager.model)
    # the interpreter accepts code Triton's compiler may reject: every kernel of the
    # model must also compile for a real GPU (sm_90), in every autotuning candidate
    graphs = compiled.model.forward._bessemer_backend.compiled
    assert graphs and all(g.backend == "triton" for g in graphs)
    ok, report = check_graphs(graphs, 90, all_configs=True)
    assert ok, report


def test_triton_backend_is_used(kernel_cache):
    """The graphs really went through the Triton renderer (not the C++ one)."""
    import torch
    from bessemer.compiler.capture.backend import make_backend
    from bessemer.config import TrainingCompilerConfig

    backend = make_backend(TrainingCompilerConfig(cache_dir=kernel_cache, backend="triton", fallback="error"))
    f = torch.compile(lambda x: torch.softmax(x * 2, -1), backend=backend)
    x = torch.randn(16, 24, requires_grad=True)
    f(x).sum().backward()
    graphs = backend.bessemer.compiled
    assert graphs and all(g.backend == "triton" for g in graphs)
    assert all("@triton.jit" in g.source for g in graphs if g.n_kernels)
