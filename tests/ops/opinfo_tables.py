"""The explained exceptions of the OpInfo run (test_opinfo.py) and the witness table
of the lowering coverage check (lowering_coverage.py).

XFAIL: op key -> reason, or op key -> {selector: reason} where a selector is
"cpp", "triton", "fp32", "bf16" or "backend/dtype" ("triton/bf16"); the most
specific selector wins. A listed op that passes fails its test: the table only
shrinks.
"""
from __future__ import annotations

from typing import Optional, Union

_TRITON_INTERP_SCALAR_LOGIC = (
    "Triton's interpreter gives a comparison of a single-element load the dtype of its operands, so "
    "broadcasting it to a block makes float data, and & | ^ with a boolean block raises in numpy; "
    "compiled Triton types it int1")

XFAIL: dict[str, Union[str, dict[str, str]]] = {
    # in eval mode the decomposition writes the running statistics back unchanged: AOTAutograd
    # copies them into the inputs after the forward, and the bessemer partitioner has saved those
    # same inputs for the backward (the min_cut partitioner saves their fp32 casts instead)
    "_native_batch_norm_legit": "the partitioner saves a running statistic the forward then writes back "
                                "in place; autograd refuses the saved tensor in the backward",
    "__rmod__": {"triton": _TRITON_INTERP_SCALAR_LOGIC},
    "__rpow__": {"triton": _TRITON_INTERP_SCALAR_LOGIC},
    "float_power": {"triton": _TRITON_INTERP_SCALAR_LOGIC},
    "fmax": {"triton": _TRITON_INTERP_SCALAR_LOGIC},
    "fmin": {"triton": _TRITON_INTERP_SCALAR_LOGIC},
    "logical_and": {"triton": _TRITON_INTERP_SCALAR_LOGIC},
    "logical_or": {"triton": _TRITON_INTERP_SCALAR_LOGIC},
    "logical_xor": {"triton": _TRITON_INTERP_SCALAR_LOGIC},
    "max.reduction_no_dim": {"triton": _TRITON_INTERP_SCALAR_LOGIC},
    "min.reduction_no_dim": {"triton": _TRITON_INTERP_SCALAR_LOGIC},
    "pow": {"triton": _TRITON_INTERP_SCALAR_LOGIC},
    "special.xlog1py": {"triton": _TRITON_INTERP_SCALAR_LOGIC},
    "xlogy": {"triton": _TRITON_INTERP_SCALAR_LOGIC},
}

# Ops of which Dynamo (with its default config) captures no graph: they break the
# graph before any op reaches the compiler, so nothing is compiled. Strict as XFAIL.
_DATA_DEPENDENT_BOOL = "returns a Python bool computed from tensor data (aten.{}): Dynamo graph-breaks"
NOT_CAPTURED: dict[str, str] = {
    "allclose": _DATA_DEPENDENT_BOOL.format("allclose"),
    "equal": _DATA_DEPENDENT_BOOL.format("equal"),
    "corrcoef": "checks its weights with aten.equal (a Python bool from tensor data): Dynamo graph-breaks",
    "cov": "checks its weights with aten.equal (a Python bool from tensor data): Dynamo graph-breaks",
    "argwhere": "output shape depends on the data (nonzero): Dynamo graph-breaks",
    "nonzero": "output shape depends on the data: Dynamo graph-breaks",
    "masked_select": "output shape depends on the data: Dynamo graph-breaks",
    "combinations": "output shape computed with nonzero from the data: Dynamo graph-breaks",
    "item": "Tensor.item() returns a Python number: Dynamo graph-breaks (capture_scalar_outputs is off)",
    "nn.functional.ctc_loss": "aten._ctc_loss's output shape depends on the data: Dynamo graph-breaks",
    "nn.functional.gaussian_nll_loss": "checks var >= 0 on the data before computing: Dynamo graph-breaks",
    "tensor_split": "split indices given as a tensor: Dynamo graph-breaks on reading them",
    "unique": "output shape depends on the data: Dynamo graph-breaks",
    "unique_consecutive": "output shape depends on the data: Dynamo graph-breaks",
    "to_sparse": "returns a sparse tensor: Dynamo does not trace sparse layouts",
    "sparse.mm.reduce": "takes a sparse CSR tensor: Dynamo does not trace sparse layouts",
    "sparse.sampled_addmm": "takes a sparse CSR tensor: Dynamo does not trace sparse layouts",
    "linalg.lstsq": "aten.linalg_lstsq's output shape (its residuals) depends on the data: Dynamo graph-breaks",
    "linalg.lstsq.grad_oriented": "aten.linalg_lstsq's output shape (its residuals) depends on the data: "
                                  "Dynamo graph-breaks",
    "resize_": "Dynamo does not trace Tensor.resize_()",
    "resize_as_": "Dynamo does not trace torch.resize_as_",
}


def expected_failure(key: str, backend: str, dtype_name: str) -> Optional[str]:
    entry = XFAIL.get(key)
    if entry is None or isinstance(entry, str):
        return entry
    for selector in (f"{backend}/{dtype_name}", backend, dtype_name):
        if selector in entry:
            return entry[selector]
    return None


# -- lowering coverage -------------------------------------------------------------
# case -> the LOWERINGS entries it is the witness for ("op_table:NAME@DTYPE" runs in
# test_ops.py / test_ops_triton.py, "opinfo:KEY@DTYPE" in test_opinfo.py). Made by
# `python tests/ops/lowering_coverage.py`.
WITNESSES: dict[str, list[str]] = {
}

# LOWERINGS entries no case of the suite lowers, and why.
UNCOVERED: dict[str, str] = {
}
