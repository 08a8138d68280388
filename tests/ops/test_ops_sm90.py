"""Every kernel the Triton backend generates for the op table compiles for a real
GPU (sm_90, Hopper) with Triton's own compiler, on this CPU-only machine.

The interpreter (test_ops_triton.py) checks the values; it accepts some code the
real compiler rejects (types, shapes, constexpr use), so the same kernels also go
through Triton's compiler down to a cubin here, in every launch configuration the
autotuner may pick."""
from __future__ import annotations

import os

import pytest
import torch

from bessemer.compiler.capture.backend import make_backend
from bessemer.compiler.passes import kernel_plan_triton
from bessemer.compiler.codegen.triton_aot import check_graphs
from bessemer.config import TrainingCompilerConfig
from op_table import DTYPES, OPS, _arg_sets

pytestmark = pytest.mark.skipif(os.environ.get("TRITON_INTERPRET") != "1", reason="needs Triton's interpreter")

REDUCTIONS = ["softmax", "log_softmax", "sum_all", "sum_dim0_keep", "amax", "amin", "var", "layer_norm",
              "cross_entropy"]


def _compile_ops(ops, dtypes, cache_dir):
    backend = make_backend(TrainingCompilerConfig(cache_dir=cache_dir, backend="triton", fallback="error"))
    for name in ops:
        fn, arity, domain, differentiable = OPS[name]
        for dt in dtypes:
            torch._dynamo.reset()
            args = [t.clone().requires_grad_(differentiable) for t in _arg_sets(arity, DTYPES[dt], domain)[0]]
            out = torch.compile(fn, backend=backend, dynamic=False)(*args)
            if differentiable:
                out.float().sum().backward()
    return backend.bessemer.compiled


@pytest.mark.parametrize("dtypes,all_configs", [
    (("fp32",), True),
    (("bf16", "fp64"), False),                                  # the first launch configuration
    pytest.param(("bf16", "fp64"), True, marks=pytest.mark.full),
], ids=["fp32", "bf16-fp64", "bf16-fp64-all-configs"])
def test_op_table_kernels_compile_for_sm90(dtypes, all_configs, tmp_path):
    graphs = _compile_ops(list(OPS), dtypes, str(tmp_path))
    ok, report = check_graphs(graphs, 90, all_configs=all_configs)
    assert ok, report


def test_looped_reduction_kernels_compile_for_sm90(tmp_path, monkeypatch):
    monkeypatch.setattr(kernel_plan_triton, "PERSISTENT_MAX", 2)
    monkeypatch.setattr(kernel_plan_triton, "SPLIT_MIN_RLEN", 2)   # column reductions split into chunks
    graphs = _compile_ops(REDUCTIONS, ("fp32", "bf16"), str(tmp_path))
    ok, report = check_graphs(graphs, 90, all_configs=True)
    assert ok, report
