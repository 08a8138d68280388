"""Mixed precision from the config: precision="bf16" (and "fp16" with a
GradScaler) trains like eager under torch.autocast, with both backends.

Eager runs the same steps under torch.autocast("cpu", dtype); the compiled model
gets only `precision=` and must match within the narrow type's tolerance, step
by step."""
from __future__ import annotations

import copy
import warnings

import pytest
import torch

import bessemer
from fidelity import train_mixed
from model_cases import BERT, GPT2, MLP

STEPS = 8
BACKENDS = ["cpp", pytest.param("triton", marks=pytest.mark.skipif(
    __import__("os").environ.get("TRITON_INTERPRET") != "1", reason="needs Triton's interpreter"))]


def _adamw(model):
    return torch.optim.AdamW(model.parameters(), lr=1e-3)


def _compare(case, dtype, precision, backend, cache, scaler=False):
    torch.manual_seed(0)
    eager = case.build()
    comp = copy.deepcopy(eager)
    le = train_mixed(case, eager, _adamw(eager), STEPS, dtype, torch.amp.GradScaler("cpu") if scaler else None)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        bessemer.compile(comp, cache_dir=cache, precision=precision, backend=backend, fallback="error")
        lc = train_mixed(case, comp, _adamw(comp), STEPS, None, torch.amp.GradScaler("cpu") if scaler else None)
    warned = [str(w.message) for w in rec if "bessemer:" in str(w.message) and "recompiling" not in str(w.message)]
    assert warned == []
    assert torch.isfinite(le).all()
    torch.testing.assert_close(lc, le, rtol=2e-2, atol=0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", [GPT2, BERT], ids=["gpt2", "bert"])
def test_bf16_precision_trains_like_eager_autocast(case, backend, kernel_cache):
    _compare(case, torch.bfloat16, "bf16", backend, kernel_cache)


@pytest.mark.parametrize("backend", BACKENDS)
def test_fp16_precision_with_grad_scaler_trains_like_eager(backend, kernel_cache):
    _compare(MLP, torch.float16, "fp16", backend, kernel_cache, scaler=True)
