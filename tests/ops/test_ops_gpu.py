"""Per-op fidelity on a CUDA GPU: the op table (op_table.py) compiled to real
Triton kernels, forward and gradients against eager on the same GPU."""
from __future__ import annotations

import pytest

from op_table import OPS, check_op

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("no_tf32")]


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("bessemer-gpu-cache"))


@pytest.mark.parametrize("dtype_name", ["fp32", "bf16"])
@pytest.mark.parametrize("op_name", list(OPS))
def test_op_matches_eager_on_gpu(op_name, dtype_name, cache_dir):
    check_op(op_name, dtype_name, cache_dir, device="cuda")
