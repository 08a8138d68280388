"""Per-op fidelity of the Triton backend (on CPU under Triton's interpreter, which
tests/conftest.py turns on when there is no GPU):
forward and gradients of every lowered op against eager (the table is op_table.py).

Every tiling of a reduction is covered: rows that fit one tile (persistent) and,
with the limits lowered, rows that loop over chunks and column reductions split
into chunks combined by a second launch."""
from __future__ import annotations

import os

import pytest

from op_table import OPS, check_op

from bessemer.compiler.passes import kernel_plan_triton

# CPU tensors through Triton's interpreter; on a GPU machine tests/gpu runs these checks on CUDA
pytestmark = pytest.mark.skipif(os.environ.get("TRITON_INTERPRET") != "1", reason="needs Triton's interpreter")

REDUCTIONS = ["softmax", "softmax_dim0", "log_softmax", "sum", "sum_all", "sum_dim0_keep", "mean", "amax",
              "amin", "var", "layer_norm", "rms_norm", "cross_entropy"]


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("bessemer-triton-cache"))


# fp16 runs in `make test-full` (bf16 covers the narrow-type rounding paths in `make test`)
@pytest.mark.parametrize("dtype_name", ["fp32", "bf16", pytest.param("fp16", marks=pytest.mark.full)])
@pytest.mark.parametrize("op_name", list(OPS))
def test_op_matches_eager_triton(op_name, dtype_name, cache_dir):
    check_op(op_name, dtype_name, cache_dir, backend="triton")


@pytest.mark.parametrize("op_name", ["add", "div", "tanh", "pow_tensor", "floordiv", "remainder", "softmax",
                                     "sum_all", "amax", "cast_roundtrip"])
def test_op_matches_eager_triton_fp64(op_name, cache_dir):
    check_op(op_name, "fp64", cache_dir, backend="triton")


@pytest.mark.parametrize("op_name", REDUCTIONS)
def test_looped_reduction_matches_eager(op_name, cache_dir, monkeypatch):
    monkeypatch.setattr(kernel_plan_triton, "PERSISTENT_MAX", 2)
    monkeypatch.setattr(kernel_plan_triton, "SPLIT_MIN_RLEN", 2)   # column reductions split into chunks
    check_op(op_name, "fp32", cache_dir, backend="triton")
