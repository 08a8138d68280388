"""PyTorch's own OpInfo database (op_db) through bessemer, the way Inductor tests
itself: every op with a float32 CPU kernel, its first N_SAMPLES samples compiled
with fallback="error" and compared with eager, outputs and gradients, on the C++
backend and on the Triton backend (under Triton's interpreter), in float32 and,
for the ops that support it, bfloat16 (opinfo_harness.py).

An op that fails is listed in opinfo_tables.XFAIL with the reason; one that now
passes fails the test until its entry is removed, so the table only shrinks. An op
Dynamo captures no graph of is listed in NOT_CAPTURED, also strictly.

`make test` runs a fixed spread of the cases (below); `make test-full`
(BESSEMER_TEST_FULL=1) runs all of them.
"""
from __future__ import annotations

import os

import pytest

from opinfo_harness import check_opinfo, ops_for
from opinfo_tables import NAN_CASES, NOT_CAPTURED, REGRESSIONS, expected_failure

FULL = os.environ.get("BESSEMER_TEST_FULL") == "1"
CONFIGS = [("cpp", "fp32"), ("triton", "fp32"), ("cpp", "bf16"), ("triton", "bf16")]

# The spread `make test` runs: every SPREAD_STEP-th op by sorted name, each config
# starting at another offset so the four configs sample different ops, plus each
# XFAIL entry in the first config it applies to (so a fixed op is noticed at once;
# they fail within seconds). It trades breadth for time: about 1 in SPREAD_STEP ops
# per config; `make test-full` runs every op in every config (and so every
# NOT_CAPTURED entry and every config of an XFAIL entry). opinfo_tables.ALWAYS lists the
# ops every `make test` checks besides (the regression tests below), and why.
SPREAD_STEP = 80


def _cases() -> list:
    cases, xfail_seen = [], set()
    for ci, (backend, dtype_name) in enumerate(CONFIGS):
        offset = ci * SPREAD_STEP // len(CONFIGS)
        for i, key in enumerate(ops_for(dtype_name)):
            first_xfail = expected_failure(key, backend, dtype_name) is not None and key not in xfail_seen
            if first_xfail:
                xfail_seen.add(key)
            if FULL or first_xfail or i % SPREAD_STEP == offset:
                cases.append(pytest.param(backend, dtype_name, key, id=f"{backend}-{dtype_name}-{key}"))
    return cases


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory):
    """One kernel cache for the whole session: ops that share kernels build them once."""
    return str(tmp_path_factory.mktemp("bessemer-opinfo-cache"))


@pytest.mark.parametrize("backend,dtype_name,key", _cases())
def test_opinfo(backend, dtype_name, key, cache_dir):
    if backend == "triton" and os.environ.get("TRITON_INTERPRET") != "1":
        pytest.skip("CPU tensors on the Triton backend need Triton's interpreter")
    reason = expected_failure(key, backend, dtype_name)
    try:
        res = check_opinfo(key, dtype_name, backend, cache_dir)
    except Exception as e:  # noqa: BLE001
        if reason is None:
            raise
        pytest.xfail(f"{reason} [{type(e).__name__}: {(str(e).strip().splitlines() or [''])[0][:200]}]")
    if reason is not None:
        pytest.fail(f"{key} now passes on {backend}/{dtype_name}: remove its entry from "
                    f"opinfo_tables.XFAIL ({reason})")
    if res.n_samples == 0:
        pytest.skip(f"{key} has no CPU sample in {dtype_name}")
    if key in NOT_CAPTURED:
        assert res.graphs == 0, f"Dynamo now captures {key}: remove it from opinfo_tables.NOT_CAPTURED"
    else:
        assert res.graphs > 0, f"Dynamo captured no graph of {key}: nothing was compiled"


# -- regressions the OpInfo run found (always run) ---------------------------------
@pytest.mark.parametrize("key", REGRESSIONS)
def test_opinfo_regression(key, cache_dir, monkeypatch):
    """Ops that once went wrong, whatever the spread picks: frexp's gradient was written
    into the int32 buffer of its saved exponent and read as integers; the backward of
    lu_factor wrote over the LU the caller held (AOTAutograd's donation indices are one
    off in a graph with an effect token); polar, eig and eigvals (complex outputs) raised
    inside the backend. The complex ones run as ATen calls, their results carried
    through the graph, with gradients. With the graph cache on, as a user runs: a backward
    with an effect token (eig's) did not pickle, and that raised inside the backend."""
    monkeypatch.setenv("BESSEMER_GRAPH_CACHE", "1")
    monkeypatch.setenv("BESSEMER_FRAME_CACHE", "0")   # every op's module has the same code
    res = check_opinfo(key, "fp32", "cpp", cache_dir)
    assert res.graphs > 0 and res.grad_checked


def _check_fn(fn, args, cache_dir, backend="cpp"):
    import warnings

    import torch

    import bessemer
    torch._dynamo.reset()
    compiled = bessemer.compile(fn, cache_dir=cache_dir, fallback="error", backend=backend)
    xe = [a.clone().requires_grad_(a.is_floating_point()) for a in args]
    xc = [a.clone().requires_grad_(a.is_floating_point()) for a in args]
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="bessemer:.*runs eagerly")
        out_c = compiled(*xc)
    out_e = fn(*xe)
    torch.testing.assert_close(out_c, out_e)
    if out_e.requires_grad:
        w = torch.randn_like(out_e)
        (out_e * w).sum().backward()
        (out_c * w).sum().backward()
        for a, b in zip(xc, xe):
            torch.testing.assert_close(a.grad, b.grad, rtol=1e-4, atol=1e-4)


# eager's NaN and Inf semantics, on the OpInfo special-values sample (opinfo_harness.special_sample)
@pytest.mark.parametrize("backend,dtype_name", [("cpp", "fp32"), pytest.param("cpp", "bf16", marks=pytest.mark.full),
                                               pytest.param("triton", "fp32", marks=pytest.mark.full)])
@pytest.mark.parametrize("key", NAN_CASES)
def test_nan_inf_semantics(key, backend, dtype_name, cache_dir):
    """Values and gradients at NaN and +-Inf as eager gives them: hardtanh's and relu6's
    gradient at NaN is 0, hardswish's and elu's NaN, gelu(-inf) NaN (nan_semantics.py)."""
    if backend == "triton" and os.environ.get("TRITON_INTERPRET") != "1":
        pytest.skip("needs Triton's interpreter")
    res = check_opinfo(key, dtype_name, backend, cache_dir)
    assert res.graphs > 0 and res.grad_checked


def test_effect_token_graph(cache_dir):
    """linalg ops check their results through with_effects, which threads an effect
    token; AOTAutograd passes None for it at run time."""
    import torch
    gen = torch.Generator().manual_seed(0)
    a = torch.randn(4, 4, generator=gen) + 4 * torch.eye(4)
    b = torch.randn(4, 3, generator=gen)
    _check_fn(lambda a, b: torch.linalg.solve(a, b) * 2 + torch.linalg.inv(a).sum(), [a, b], cache_dir)
    _check_fn(lambda a: torch.linalg.cholesky(a @ a.mT).relu(), [a], cache_dir)


@pytest.mark.parametrize("op", ["sum", "amax", "any"])
def test_triton_reduction_of_a_constant(op, cache_dir):
    """A reduction whose member folds to a literal: the kernel reduces a block of it."""
    import torch
    if os.environ.get("TRITON_INTERPRET") != "1":
        pytest.skip("needs Triton's interpreter")
    red = {"sum": lambda t: t.sum(-1, keepdim=True), "amax": lambda t: t.amax(-1, keepdim=True),
           "any": lambda t: t.bool().any(-1, keepdim=True).float()}[op]
    x = torch.randn(4, 6, generator=torch.Generator().manual_seed(0))
    _check_fn(lambda x: x * red(torch.ones_like(x)), [x], cache_dir, backend="triton")
