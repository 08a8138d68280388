"""Per-op fidelity of the C++ backend: forward and gradients of every lowered op
against eager, for fp32, fp64, bf16 and fp16 (the table is op_table.py)."""
from __future__ import annotations

import pytest

from op_table import DTYPES, OPS, check_op


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("bessemer-cache"))


# fp16 (rare in CPU training) runs in `make test-full`: every op compiles once per dtype
@pytest.mark.parametrize("dtype_name", [pytest.param(d, marks=pytest.mark.full) if d == "fp16" else d
                                        for d in DTYPES])
@pytest.mark.parametrize("op_name", list(OPS))
def test_op_matches_eager(op_name, dtype_name, cache_dir):
    check_op(op_name, dtype_name, cache_dir)
