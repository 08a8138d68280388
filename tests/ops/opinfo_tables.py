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


# -- what `make test` runs of the table -----------------------------------------------
# `make test-full` runs every op in every config. `make test` runs a fixed spread
# (test_opinfo.py): per config every SPREAD_STEP-th op by sorted name, at an offset of
# its own, and each XFAIL entry in the first config it applies to. Every other (op,
# config) case is left out of `make test`, about 79 in 80: the whole table is some 2,400
# compiles (four configs, Triton's under its interpreter), more than `make test` can
# spend on one file on two cores. What it must not miss it runs always, in every
# `make test`, whatever the spread picks:
ALWAYS: dict[str, str] = {
    # test_opinfo_regression (C++, float32, with the graph cache on)
    "frexp": "its gradient was written over the int32 exponent and read as integers",
    "linalg.lu_factor": "the backward wrote over the LU the caller held (AOTAutograd's donation "
                        "indices are one off in a graph with an effect token)",
    "polar": "complex output: raised in the backend (abs of a complex value was lowered)",
    "linalg.eig": "complex outputs: a backward with an effect token did not pickle for the graph cache",
    "linalg.eigvals": "complex output: as linalg.eig",
    # test_nan_inf_semantics (C++ float32; bf16 and Triton in make test-full)
    "nn.functional.gelu": "NaN and +-Inf: eager's value and gradient at the special sample",
    "nn.functional.hardtanh": "gradient at NaN: eager 0 (torch's decomposition gave 1)",
    "nn.functional.relu6": "gradient at NaN: eager 0 (hardtanh's backward)",
    "nn.functional.hardswish": "gradient at NaN: eager NaN (torch's decomposition gave 1)",
    "nn.functional.elu": "gradient at NaN: eager NaN (torch's decomposition gave 1)",
    "nn.functional.celu": "gradient at NaN: elu's backward",
    "nn.functional.selu": "gradient at NaN: elu's backward",
    "nn.functional.hardshrink": "gradient at NaN: eager 0 (torch's Python autograd kernel gave 1)",
}
REGRESSIONS = [k for k in ALWAYS if not k.startswith("nn.functional.")]
NAN_CASES = [k for k in ALWAYS if k.startswith("nn.functional.")]


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
    'op_table:add@fp32': ['aten.add.Tensor', 'aten.sum.dim_IntList', 'aten.view.default'],
    'op_table:add_alpha@fp32': ['aten.mul.Scalar'],
    'op_table:sub@fp32': ['aten.neg.default', 'aten.sub.Tensor'],
    'op_table:mul@fp32': ['aten.mul.Tensor'],
    'op_table:gather_reversed@fp32': ['aten.gather.default', 'aten.scatter_add.default'],
    'op_table:bernoulli_p@fp32': ['aten.bernoulli.p'],
    'op_table:squeeze_kept@fp32': ['prims.view_of.default'],
    'op_table:div@fp32': ['aten.div.Tensor'],
    'op_table:pow_scalar@fp32': ['aten.pow.Tensor_Scalar'],
    'op_table:pow_tensor@fp32': ['aten.alias.default', 'aten.eq.Scalar', 'aten.ge.Scalar', 'aten.log.default', 'aten.logical_and.default', 'aten.pow.Tensor_Tensor', 'aten.scalar_tensor.default', 'aten.sub.Scalar', 'aten.where.self'],
    'op_table:maximum@fp32': ['aten.clone.default', 'aten.div.Scalar', 'aten.eq.Tensor', 'aten.gt.Tensor', 'aten.lt.Tensor', 'aten.maximum.default'],
    'op_table:minimum@fp32': ['aten.minimum.default'],
    'op_table:abs@fp32': ['aten.abs.default', 'aten.sign.default'],
    'op_table:exp@fp32': ['aten.exp.default'],
    'op_table:expm1@fp32': ['aten.add.Scalar', 'aten.expm1.default'],
    'op_table:log1p@fp32': ['aten.log1p.default'],
    'op_table:log2@fp32': ['aten.log2.default'],
    'op_table:sqrt@fp32': ['aten.sqrt.default'],
    'op_table:rsqrt@fp32': ['aten.rsqrt.default'],
    'op_table:sin@fp32': ['aten.cos.default', 'aten.sin.default'],
    'op_table:tanh@fp32': ['aten.tanh.default'],
    'op_table:sigmoid@fp32': ['aten.sigmoid.default'],
    'op_table:erf@fp32': ['aten.erf.default'],
    'op_table:relu@fp32': ['aten.le.Scalar', 'aten.relu.default'],
    'op_table:reciprocal@fp32': ['aten.reciprocal.default'],
    'op_table:floor@fp32': ['aten.floor.default'],
    'op_table:ceil@fp32': ['aten.ceil.default'],
    'op_table:round@fp32': ['aten.round.default'],
    'op_table:trunc@fp32': ['aten.trunc.default'],
    'op_table:atan@fp32': ['aten.atan.default'],
    'op_table:clamp@fp32': ['aten.clamp.default'],
    'op_table:gt_mask@fp32': ['aten._to_copy.default'],
    'op_table:eq_ne@fp32': ['aten.bitwise_and.Tensor', 'aten.ge.Tensor', 'aten.ne.Scalar'],
    'op_table:logical@fp32': ['aten.gt.Scalar', 'aten.logical_or.default', 'aten.lt.Scalar'],
    'op_table:floordiv@fp32': ['aten.div.Tensor_mode'],
    'op_table:remainder@fp32': ['aten.remainder.Tensor'],
    'op_table:leaky_relu@fp32': ['aten.leaky_relu.default'],
    'op_table:softmax@fp32': ['aten.amax.default'],
    'op_table:sum@fp32': ['aten.expand.default', 'aten.unsqueeze.default'],
    'op_table:mean@fp32': ['aten.mean.dim'],
    'op_table:amin@fp32': ['aten.amin.default'],
    'op_table:var@fp32': ['aten.var.correction'],
    'op_table:layer_norm@fp32': ['aten.var_mean.correction'],
    'op_table:mse_loss@fp32': ['aten.mean.default'],
    'op_table:bce_logits@fp32': ['aten.full.default'],
    'op_table:transpose_add@fp32': ['aten.permute.default'],
    'op_table:slice_cat_free@fp32': ['aten.slice.Tensor'],
    'op_table:unsqueeze_sum@fp32': ['prims.squeeze.default'],
    'op_table:arange_mask@fp32': ['aten.arange.start_step'],
    'op_table:full_like@fp32': ['aten.full_like.default'],
    'op_table:scatter_row@fp32': ['aten.scatter.value'],
    'op_table:cross_entropy@fp32': ['aten.remainder.Scalar'],
    'opinfo:all@fp32': ['aten.any.dim', 'aten.any.dims', 'aten.logical_not.default'],
    'opinfo:logaddexp2@fp32': ['aten.exp2.default', 'aten.isinf.default', 'aten.pow.Scalar'],
    'opinfo:nn.functional.multi_head_attention_forward@fp32': ['aten.native_dropout.default', 'aten.native_dropout_backward.default', 'aten.split_with_sizes.default'],
    'opinfo:clamp@fp32': ['aten.clamp.Tensor', 'aten.le.Tensor'],
    'opinfo:repeat@fp32': ['aten.repeat.default'],
    'opinfo:cosh@fp32': ['aten.cosh.default', 'aten.sinh.default'],
    'opinfo:masked.cumprod@fp32': ['aten.bitwise_not.default', 'aten.lift_fresh_copy.default'],
    'opinfo:nanmean@fp32': ['aten.isnan.default', 'aten.ne.Tensor'],
    'opinfo:prod@fp32': ['aten.prod.default', 'aten.prod.dim_int'],
    'opinfo:acos@fp32': ['aten.acos.default'],
    'opinfo:any@fp32': ['aten.any.default'],
    'opinfo:as_strided_copy@fp32': ['aten.copy.default'],
    'opinfo:asin@fp32': ['aten.asin.default'],
    'opinfo:atan2@fp32': ['aten.atan2.default'],
    'opinfo:cartesian_prod@fp32': ['aten.select.int'],
    'opinfo:copysign@fp32': ['aten.copysign.Tensor'],
    'opinfo:erfc@fp32': ['aten.erfc.default'],
    'opinfo:fft.fftshift@fp32': ['aten.fmod.Scalar'],
    'opinfo:fmod@fp32': ['aten.fmod.Tensor'],
    'opinfo:kthvalue@fp32': ['aten.scatter.src'],
    'opinfo:log10@fp32': ['aten.log10.default'],
    'opinfo:logical_xor@fp32': ['aten.logical_xor.default'],
    'opinfo:tan@fp32': ['aten.tan.default'],
    'opinfo:as_strided_scatter@fp32': ['aten.as_strided_scatter.default'],
    'opinfo:isclose@fp32': ['aten.bitwise_or.Tensor'],
    'opinfo:constant_pad_nd@fp32': ['aten.constant_pad_nd.default'],
    'opinfo:cat@fp32': ['aten.cat.default'],
    'opinfo:slice_scatter@fp32': ['aten.slice_scatter.default'],
    'opinfo:flip@fp32': ['aten.flip.default'],
    'opinfo:unfold@fp32': ['aten.unfold.default'],
    'opinfo:renorm@bf16': ['prims.convert_element_type.default'],
}

_DECOMPOSED = ("capture.decompositions() rewrites it into other ops before lowering, so bessemer.compile "
               "never hands it to the lowering")
_INTEGER_ONLY = "an integer-only op (no float kernel): the suite's cases are float32 and bfloat16"

# LOWERINGS entries no case of the suite lowers, and why (checked by make test-full).
# Reached by graphs with symbolic sizes only, where Dynamo passes Python floats as 0-dim
# float64 tensors (tests/compiler/test_dynamic.py: test_python_floats_of_a_symbolic_graph_...)
_SYMBOLIC_FLOATS = ("graphs with symbolic sizes only (Python floats as 0-dim tensors); see test_dynamic.py")

UNCOVERED: dict[str, str] = {
    'aten._unsafe_view.default': _DECOMPOSED,
    'aten.arange.default': _DECOMPOSED,
    'aten.arange.start': _DECOMPOSED,
    'aten.bitwise_and.Scalar': _INTEGER_ONLY,
    'aten.bitwise_or.Scalar': _INTEGER_ONLY,
    'aten.bitwise_xor.Scalar': _INTEGER_ONLY,
    'aten.bitwise_xor.Tensor': _INTEGER_ONLY,
    'aten.clamp_max.Tensor': _DECOMPOSED,
    'aten.clamp_max.default': _DECOMPOSED,
    'aten.clamp_min.Tensor': _DECOMPOSED,
    'aten.clamp_min.default': _DECOMPOSED,
    'aten.detach.default': _DECOMPOSED,
    'aten.div.Scalar_mode': "tracing wraps the Python scalar divisor in a tensor: div.Tensor_mode is what reaches the lowering",
    'aten.empty_like.default': _DECOMPOSED,
    'aten.fill.Scalar': _DECOMPOSED,
    'aten.gelu.default': _DECOMPOSED,
    'aten.hardtanh.default': _DECOMPOSED,
    'aten.ones.default': _DECOMPOSED,
    'aten.ones_like.default': _DECOMPOSED,
    'aten.reshape.default': "CompositeImplicit: tracing turns it into view (or clone + view) before any graph is made",
    'aten.rsub.Scalar': _DECOMPOSED,
    'aten.rsub.Tensor': _DECOMPOSED,
    'aten.sigmoid_backward.default': _DECOMPOSED,
    'aten.true_divide.Tensor': _SYMBOLIC_FLOATS,
    'aten.split.Tensor': _DECOMPOSED,
    'aten.squeeze.default': _DECOMPOSED,
    'aten.squeeze.dim': _DECOMPOSED,
    'aten.squeeze.dims': _DECOMPOSED,
    'aten.sum.default': _DECOMPOSED,
    'aten.t.default': _DECOMPOSED,
    'aten.tanh_backward.default': _DECOMPOSED,
    'aten.threshold_backward.default': _DECOMPOSED,
    'aten.transpose.int': _DECOMPOSED,
    'aten.unbind.int': _DECOMPOSED,
    'aten.where.Scalar': _DECOMPOSED,
    'aten.where.ScalarOther': _DECOMPOSED,
    'aten.where.ScalarSelf': _DECOMPOSED,
    'aten.zeros.default': _DECOMPOSED,
    'aten.zeros_like.default': _DECOMPOSED,
}
