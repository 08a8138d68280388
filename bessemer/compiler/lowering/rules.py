"""The lowering rules: how each ATen op that computes becomes bessemer IR primitives.

LOWERINGS maps an ATen overload to a function `(lower, fx_node, *args, **kwargs)` that
builds IR nodes in `lower.g` from the lowered arguments (IR nodes or Python values), or
raises views.Unsupported, in which case the op runs as an ATen call (lowering/lower.py).
`lower` is the lowering in progress (lower.py's Lowerer: the graph `g`, `dtype(fx_node)`).
"""
from __future__ import annotations

import logging
import math
from typing import Any, Optional, Sequence

import torch

from bessemer.compiler.ir import symbolic as symbolic_mod
from bessemer.compiler.ir.graph import LOW_FLOATS, Graph, Kind, Node
from bessemer.compiler.ir.ops import returns_bool
from bessemer.compiler.ir.views import Unsupported, broadcast, contiguous_strides, permute, reshape, slice_
from bessemer.compiler.lowering.table import LOWERINGS, aten, is_node, lowers  # noqa: F401 (LOWERINGS: the table)
from bessemer.compiler.runtime.rng import bernoulli_like

log = logging.getLogger("bessemer")


def op_name(target) -> str:
    if isinstance(target, torch._ops.OpOverload):
        return target.overloadpacket.__name__
    return getattr(target, "__name__", str(target))




# ----------------------------------------------------------------------------------
# helpers used by the lowerings
# ----------------------------------------------------------------------------------
def as_node(g: Graph, x: Any, shape: tuple, dtype: torch.dtype) -> Node:
    if is_node(x):
        return broadcast(g, g.cast(x, dtype), shape) if x.dtype != dtype else broadcast(g, x, shape)
    return g.const(x, shape, dtype)


def _shape_of(x) -> tuple:
    return x.shape if is_node(x) else ()


def broadcast_shapes(*shapes) -> tuple:
    """numpy broadcasting of shapes (sizes may be symbolic: each size-1 test is a decision)."""
    rank = max((len(s) for s in shapes), default=0)
    out: list = [1] * rank
    for s in shapes:
        for i, n in enumerate(s):
            j = rank - len(s) + i
            if n == 1:
                continue
            if out[j] == 1:
                out[j] = n
            elif out[j] != n:
                raise Unsupported(f"shapes {shapes} do not broadcast")
    return tuple(out)


def _one_element(x) -> bool:
    return not is_node(x) or all(d == 1 for d in x.shape)


def scalar_operand_wide(compute: torch.dtype, b) -> bool:
    """Whether ATen's CPU kernels take `b` at float precision: a mul or a division computed
    in bf16 or fp16 whose second operand has one element (a number, a 0-dim tensor of any
    type) reads that operand's own value as a float and rounds the result once (`bf16 * 0.3`
    multiplies by 0.3f, `bf16 / f32_scalar` divides by it unrounded), as do the kernels that
    scale by a number argument (leaky_relu's slope, dropout's scale); add's and a
    comparison's number, and a tensor operand, are narrowed to the narrow type first."""
    return compute in LOW_FLOATS and _one_element(b)


def pointwise(g: Graph, op: str, args: Sequence[Any], out_dtype: torch.dtype,
              compute: Optional[torch.dtype] = None) -> Node:
    """An elementwise op with broadcasting; args are cast to the compute dtype."""
    compute = compute or out_dtype
    if op in ("mul", "div") and len(args) == 2 and scalar_operand_wide(compute, args[1]):
        compute = torch.float32
    shape = broadcast_shapes(*[_shape_of(a) for a in args])
    nodes = [as_node(g, a, shape, compute) for a in args]
    result = torch.bool if returns_bool(op) else compute
    return g.cast(g.pointwise(op, nodes, result), out_dtype)



def promote(*args) -> torch.dtype:
    """ATen's type promotion for tensor args (Python scalars only lift the category)."""
    tensors = [a for a in args if is_node(a)]
    dims = [a for a in tensors if a.shape]
    zero_d = [a for a in tensors if not a.shape]
    dt = None
    for group in (dims, zero_d):
        for a in group:
            dt = a.dtype if dt is None else torch.promote_types(dt, a.dtype)
        if dt is not None and group is dims and zero_d:
            # 0-dim tensors only participate when they are a higher category
            for a in zero_d:
                if _category(a.dtype) > _category(dt):
                    dt = torch.promote_types(dt, a.dtype) if a.dtype.is_floating_point else a.dtype
            break
    if dt is None:
        dt = torch.get_default_dtype()
    for a in args:
        if not is_node(a):
            if isinstance(a, bool):
                continue
            if isinstance(a, float) and not dt.is_floating_point:
                dt = torch.get_default_dtype()
            elif isinstance(a, int) and dt == torch.bool:
                dt = torch.int64
    return dt


def _category(dt: torch.dtype) -> int:
    if dt == torch.bool:
        return 0
    if dt.is_floating_point:
        return 2
    return 1


def reduce(g: Graph, op: str, x: Node, dims, keepdim: bool, out_dtype: torch.dtype) -> Node:
    rank = len(x.shape)
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        dims = list(range(rank))
    if isinstance(dims, int):
        dims = [dims]
    dims = [d % rank for d in dims] if rank else []
    x = g.cast(x, out_dtype) if op != "any" else g.cast(x, torch.bool)
    if not dims:  # reducing a 0-dim tensor is the identity
        return g.cast(x, out_dtype)
    return g.cast(g.reduce(op, x, dims, keepdim, x.dtype), out_dtype)


# ----------------------------------------------------------------------------------
# The rules (the table, LOWERINGS, and its decorator `lowers` are table.py's)
# ----------------------------------------------------------------------------------
def _unary(name: str, float_only: bool = True):
    def fn(lower, node, x):
        out = lower.dtype(node)
        return pointwise(lower.g, name, [x], out, out if (float_only or out == x.dtype) else x.dtype)
    return fn


for _name, _ops in {
    "neg": [aten.neg.default], "abs": [aten.abs.default], "exp": [aten.exp.default],
    "expm1": [aten.expm1.default], "log": [aten.log.default], "log1p": [aten.log1p.default],
    "log2": [aten.log2.default], "sqrt": [aten.sqrt.default], "rsqrt": [aten.rsqrt.default],
    "sin": [aten.sin.default], "cos": [aten.cos.default], "tanh": [aten.tanh.default],
    "sigmoid": [aten.sigmoid.default], "erf": [aten.erf.default], "relu": [aten.relu.default],
    "reciprocal": [aten.reciprocal.default], "floor": [aten.floor.default], "ceil": [aten.ceil.default],
    "round": [aten.round.default], "trunc": [aten.trunc.default], "sign": [aten.sign.default],
    "tan": [aten.tan.default], "atan": [aten.atan.default], "asin": [aten.asin.default],
    "acos": [aten.acos.default], "sinh": [aten.sinh.default], "cosh": [aten.cosh.default],
    "exp2": [aten.exp2.default], "log10": [aten.log10.default], "erfc": [aten.erfc.default],
    "bitwise_not": [aten.bitwise_not.default],
}.items():
    lowers(*_ops)(_unary(_name))


@lowers(aten.logical_not.default)
def _logical_not(lower, node, x):
    return pointwise(lower.g, "logical_not", [lower.g.cast(x, torch.bool)], torch.bool, torch.bool)


@lowers(aten.isnan.default, aten.isinf.default)
def _isx(lower, node, x):
    return pointwise(lower.g, op_name(node.target), [x], torch.bool, x.dtype)


def _binary(name: str, compare: bool = False):
    def fn(lower, node, a, b, alpha=None, **kw):
        out = lower.dtype(node)
        g = lower.g
        if alpha is not None and alpha != 1:
            if out.is_floating_point:
                # ATen: b * alpha + a in one fused multiply-add (sub: alpha negated), alpha
                # rounded to the result's type; a bf16 / fp16 result computes it from its
                # operands narrowed to that type, in float, rounded once
                shape = broadcast_shapes(_shape_of(a), _shape_of(b))
                wide = torch.float32 if out in LOW_FLOATS else out
                a_n, b_n = as_node(g, a, shape, out), as_node(g, b, shape, out)
                k = g.const(alpha if name == "add" else -alpha, shape, out)
                return pointwise(g, "fma", [b_n, k, a_n], out, wide)
            b = pointwise(g, "mul", [b, alpha], promote(b, alpha) if is_node(b) else out)
        compute = promote(a, b) if compare else out
        return pointwise(g, name, [a, b], out, compute)
    return fn


for _name, _ops in {
    "add": [aten.add.Tensor, aten.add.Scalar], "sub": [aten.sub.Tensor, aten.sub.Scalar],
    "mul": [aten.mul.Tensor, aten.mul.Scalar], "div": [aten.div.Tensor, aten.div.Scalar, aten.true_divide.Tensor],
    "pow": [aten.pow.Tensor_Scalar, aten.pow.Tensor_Tensor, aten.pow.Scalar],
    "maximum": [aten.maximum.default], "minimum": [aten.minimum.default],
    "remainder": [aten.remainder.Tensor, aten.remainder.Scalar], "fmod": [aten.fmod.Tensor, aten.fmod.Scalar],
    "atan2": [aten.atan2.default], "copysign": [aten.copysign.Tensor],
    "bitwise_and": [aten.bitwise_and.Tensor, aten.bitwise_and.Scalar],
    "bitwise_or": [aten.bitwise_or.Tensor, aten.bitwise_or.Scalar],
    "bitwise_xor": [aten.bitwise_xor.Tensor, aten.bitwise_xor.Scalar],
}.items():
    lowers(*_ops)(_binary(_name))

for _name, _ops in {
    "eq": [aten.eq.Tensor, aten.eq.Scalar], "ne": [aten.ne.Tensor, aten.ne.Scalar],
    "lt": [aten.lt.Tensor, aten.lt.Scalar], "le": [aten.le.Tensor, aten.le.Scalar],
    "gt": [aten.gt.Tensor, aten.gt.Scalar], "ge": [aten.ge.Tensor, aten.ge.Scalar],
}.items():
    lowers(*_ops)(_binary(_name, compare=True))


@lowers(aten.logical_and.default, aten.logical_or.default, aten.logical_xor.default)
def _logical(lower, node, a, b):
    g = lower.g
    return pointwise(g, op_name(node.target), [g.cast(a, torch.bool) if is_node(a) else bool(a),
                                               g.cast(b, torch.bool) if is_node(b) else bool(b)],
                     torch.bool, torch.bool)


@lowers(aten.div.Tensor_mode, aten.div.Scalar_mode)
def _div_mode(lower, node, a, b, rounding_mode=None):
    out = lower.dtype(node)
    if rounding_mode is None:
        return pointwise(lower.g, "div", [a, b], out)
    compute = promote(a, b)
    # a divisor of one element, or a number, ATen takes as a float scalar: the quotient is
    # computed in float and rounded once, after the rounding mode
    narrow_steps = (compute in LOW_FLOATS and is_node(b)
                    and not all(d == 1 for d in b.shape))
    if rounding_mode == "trunc" and narrow_steps:
        # ATen rounds the quotient to the narrow type before truncating (7.0 from 6.986 in bf16)
        q = pointwise(lower.g, "div", [a, b], compute, torch.float32)
        return pointwise(lower.g, "trunc", [q], out, compute)
    if rounding_mode == "floor" and narrow_steps:
        return lower.g.cast(_floordiv_narrow(lower.g, a, b, compute), out)
    op = "floordiv" if rounding_mode == "floor" else "truncdiv"
    return pointwise(lower.g, op, [a, b], out, torch.float32 if scalar_operand_wide(compute, b) else compute)


def _floordiv_narrow(g, a, b, dt: torch.dtype) -> Node:
    """Python's floor division in bf16 or fp16 as ATen's CPU kernel computes it: Python's
    algorithm (fmod, then the quotient of what is left, corrected by one and rounded) with
    every step rounded to the narrow type (-1760 // 4.34375 is -408 in bf16, not -406).
    Each node below is of the narrow type, so each step rounds."""
    p = lambda op, *xs: pointwise(g, op, list(xs), dt)                  # noqa: E731
    t = lambda op, *xs: pointwise(g, op, list(xs), torch.bool, dt)      # noqa: E731

    where = lambda c, x, y: select_where(g, c, x, y, dt)                # noqa: E731
    mod = p("fmod", a, b)
    div = p("div", p("sub", a, mod), b)
    signs = pointwise(g, "ne", [t("lt", b, 0.0), t("lt", mod, 0.0)], torch.bool, torch.bool)
    corr = pointwise(g, "where", [t("ne", mod, 0.0), signs, False], torch.bool, torch.bool)
    div = where(corr, p("sub", div, 1.0), div)
    fl = p("floor", div)
    fl = where(t("gt", p("sub", div, fl), 0.5), p("add", fl, 1.0), fl)
    quot = p("div", a, b)
    fl = where(t("eq", div, 0.0), p("copysign", 0.0, quot), fl)
    return where(t("eq", b, 0.0), quot, fl)


@lowers(aten.rsub.Scalar, aten.rsub.Tensor)
def _rsub(lower, node, a, b, alpha=1):
    # b - a * alpha: sub with its operands swapped (a bf16 / fp16 result rounded once, as ATen)
    return _SUB(lower, node, b, a, alpha=alpha)


_SUB = _binary("sub")


@lowers(aten.where.self, aten.where.ScalarSelf, aten.where.ScalarOther, aten.where.Scalar)
def _where(lower, node, c, a, b):
    return select_where(lower.g, c, a, b, lower.dtype(node))


def select_where(g, c, a, b, dt: torch.dtype) -> Node:
    """where(c, a, b) of dtype dt, broadcast; c read as a bool, a and b cast to dt."""
    shape = broadcast_shapes(_shape_of(c), _shape_of(a), _shape_of(b))
    return g.pointwise("where", [as_node(g, c, shape, torch.bool), as_node(g, a, shape, dt),
                                 as_node(g, b, shape, dt)], dt)


@lowers(aten.clamp.default, aten.clamp.Tensor)
def _clamp(lower, node, x, lo=None, hi=None):
    out = lower.dtype(node)
    r = x
    if lo is not None:
        r = pointwise(lower.g, "maximum", [r, lo], out)
    if hi is not None:
        r = pointwise(lower.g, "minimum", [r, hi], out)
    return lower.g.cast(r, out)


@lowers(aten.clamp_min.default, aten.clamp_min.Tensor)
def _clamp_min(lower, node, x, lo):
    return pointwise(lower.g, "maximum", [x, lo], lower.dtype(node))


@lowers(aten.clamp_max.default, aten.clamp_max.Tensor)
def _clamp_max(lower, node, x, hi):
    return pointwise(lower.g, "minimum", [x, hi], lower.dtype(node))


@lowers(aten.hardtanh.default)
def _hardtanh(lower, node, x, lo=-1.0, hi=1.0):
    return _clamp(lower, node, x, lo, hi)


@lowers(aten.leaky_relu.default)
def _leaky_relu(lower, node, x, slope=0.01):
    g, out = lower.g, lower.dtype(node)
    return pointwise(g, "where", [pointwise(g, "gt", [x, 0], torch.bool, out), x,
                                  pointwise(g, "mul", [x, slope], out)], out)


@lowers(aten.threshold_backward.default)
def _threshold_backward(lower, node, grad, x, threshold):
    g, out = lower.g, lower.dtype(node)
    return pointwise(g, "where", [pointwise(g, "le", [x, threshold], torch.bool, x.dtype), 0.0, grad], out)


@lowers(aten.sigmoid_backward.default)
def _sigmoid_backward(lower, node, grad, y):
    g, out = lower.g, lower.dtype(node)
    one_minus = pointwise(g, "sub", [1.0, y], out)
    return pointwise(g, "mul", [grad, pointwise(g, "mul", [y, one_minus], out)], out)


@lowers(aten.tanh_backward.default)
def _tanh_backward(lower, node, grad, y):
    g, out = lower.g, lower.dtype(node)
    return pointwise(g, "mul", [grad, pointwise(g, "sub", [1.0, pointwise(g, "mul", [y, y], out)], out)], out)


@lowers(aten.fill.Scalar)
def _fill(lower, node, x, value):
    return lower.g.const(value, x.shape, lower.dtype(node))


@lowers(aten.full.default)
def _full(lower, node, size, value, **kw):
    return lower.g.const(value, tuple(size), lower.dtype(node))


@lowers(aten.full_like.default, aten.zeros_like.default, aten.ones_like.default, aten.empty_like.default)
def _full_like(lower, node, x, value=None, **kw):
    name = op_name(node.target)
    value = {"zeros_like": 0, "ones_like": 1, "empty_like": 0}.get(name, value)
    return lower.g.const(value, x.shape, lower.dtype(node))


@lowers(aten.zeros.default, aten.ones.default)
def _zeros(lower, node, size, **kw):
    return lower.g.const(0 if op_name(node.target) == "zeros" else 1, tuple(size), lower.dtype(node))


@lowers(aten.scalar_tensor.default)
def _scalar_tensor(lower, node, value, **kw):
    return lower.g.const(value, (), lower.dtype(node))


@lowers(aten.arange.start_step, aten.arange.default, aten.arange.start)
def _arange(lower, node, *args, **kw):
    out = lower.dtype(node)
    n = lower.shape(node)[0]
    if op_name(node.target) == "arange" and len(args) == 1:
        start, step = 0, 1
    else:
        start = args[0]
        step = args[2] if len(args) > 2 else kw.get("step", 1)
    return lower.g.iota((n,), out, 0, start, step)


@lowers(aten._to_copy.default)
def _to_copy(lower, node, x, dtype=None, **kw):
    dev = kw.get("device")
    if dev is not None and torch.device(dev) != lower.device:
        raise Unsupported("device transfer")
    if kw.get("memory_format") not in (None, torch.preserve_format, torch.contiguous_format):
        raise Unsupported("memory format")
    return lower.g.cast(x, lower.dtype(node)) if x.dtype != lower.dtype(node) else lower.copy(x)


@lowers(torch.ops.prims.convert_element_type.default)
def _convert_element_type(lower, node, x, dtype):
    """A dtype conversion (graphs with symbolic sizes carry Python floats as 0-dim float64
    tensors through it: math.sqrt(2 / pi) in a GELU)."""
    return lower.g.cast(x, lower.dtype(node)) if x.dtype != lower.dtype(node) else lower.copy(x)


def channels_last(g, x: Node) -> Node:
    """x computed into an [N, H, W, C] buffer, seen as [N, C, H, W] with channels-last strides."""
    return in_order(g, x, (0, 2, 3, 1))


def in_order(g, x: Node, order: Sequence[int]) -> Node:
    """x computed into a buffer laid out by its dims in `order` (outermost first), seen in
    x's own order of dims."""
    if list(order) == list(range(len(x.shape))):
        return x
    laid = g.add(Node(Kind.POINTWISE, [permute(g, x, order)], tuple(x.shape[d] for d in order),
                      x.dtype, {"op": "cast", "keep": True}))
    return permute(g, laid, [list(order).index(d) for d in range(len(order))])


def memory_order(t: torch.Tensor) -> tuple:
    """t's dims of more than one element, outermost in memory first."""
    dims = [d for d in range(t.dim()) if t.shape[d] != 1]
    return tuple(sorted(dims, key=lambda d: -t.stride()[d]))


def laid_out_densely(t: torch.Tensor) -> bool:
    """t's elements fill its memory without gaps or overlaps, in some order of its dims."""
    if not all(isinstance(s, int) for s in (*t.shape, *t.stride())):
        return False
    expected = 1
    for stride, size in sorted((st, sz) for sz, st in zip(t.shape, t.stride()) if sz != 1):
        if stride != expected:
            return False
        expected *= size
    return True


# The fx meta key of an op the channels-last rewrite (partition/channels_last.py) let read
# channels-last operands: its value, laid out densely in some order of its dims, is computed
# in that order (lowering/lower.py).
IN_MEMORY_ORDER = "bessemer_in_memory_order"

# The fx meta key of a node of the whole step's backward, recomputed forward values
# included (partition/step_remat.py): its IR nodes are marked `backward`.
BACKWARD = "bessemer_backward"


@lowers(aten.clone.default)
def _clone(lower, node, x, memory_format=None):
    if memory_format is torch.channels_last and len(x.shape) == 4:
        return channels_last(lower.g, x)
    if memory_format not in (None, torch.preserve_format, torch.contiguous_format):
        raise Unsupported("memory format")
    return lower.copy(x)


@lowers(aten.alias.default, aten.lift_fresh_copy.default, aten.detach.default, torch.ops.prims.view_of.default)
def _alias(lower, node, x):
    return x


@lowers(aten.copy.default)
def _copy(lower, node, dst, src, non_blocking=False):
    return lower.g.cast(broadcast(lower.g, src, dst.shape), dst.dtype) if src.dtype != dst.dtype else \
        lower.copy(broadcast(lower.g, src, dst.shape))


@lowers(aten.as_strided_scatter.default)
def _as_strided_scatter(lower, node, x, src, size, stride, storage_offset=None):
    """x with the elements its view as_strided(size, stride, offset) covers replaced
    by src. Lowered when that view is all of x in order: the backward of a view op
    (AOTAutograd writes the gradient into a zero buffer through as_strided) is this
    case, and it is src reshaped. Any other layout runs in ATen, like its
    sibling select_scatter."""
    base = lower.meta(node.args[0])
    size = tuple(size)
    covers_in_order = all(st == c for n, st, c in zip(size, stride, contiguous_strides(size)) if n != 1)
    if not (covers_in_order and (storage_offset or 0) == 0 and math.prod(size) == base.numel()
            and base.is_contiguous() and base.storage_offset() == 0):
        raise Unsupported("as_strided_scatter over part of its input, or out of order")
    return lower.copy(reshape(lower.g, lower.g.cast(src, x.dtype) if src.dtype != x.dtype else src, x.shape))


# reductions ---------------------------------------------------------------------
@lowers(aten.sum.dim_IntList, aten.sum.default)
def _sum(lower, node, x, dims=None, keepdim=False, dtype=None):
    return reduce(lower.g, "sum", x, dims, keepdim, lower.dtype(node))


@lowers(aten.prod.dim_int, aten.prod.default)
def _prod(lower, node, x, dim=None, keepdim=False, dtype=None):
    return reduce(lower.g, "prod", x, dim, keepdim, lower.dtype(node))


@lowers(aten.mean.dim, aten.mean.default)
def _mean(lower, node, x, dims=None, keepdim=False, dtype=None):
    out = lower.dtype(node)
    # a bf16 / fp16 mean is the float sum divided and rounded once, as ATen's (rounding the sum
    # first moved 89 of 384 bf16 means over 5 elements by a step: fuzz seed 63423)
    acc = torch.float32 if out in LOW_FLOATS else out
    s = reduce(lower.g, "sum", x, dims, keepdim, acc)
    total, kept = x.numel(), s.numel()
    if isinstance(total, int) and isinstance(kept, int):
        # a mean over no elements is 0 / 0: NaN, as eager's
        n = total // kept if kept else 1
    else:
        n = max(total // max(kept, 1), 1)
    return pointwise(lower.g, "div", [s, _as_float(n)], out, acc)


@lowers(aten.amax.default, aten.amin.default)
def _amax(lower, node, x, dims=(), keepdim=False):
    return reduce(lower.g, "max" if op_name(node.target) == "amax" else "min", x, dims, keepdim, lower.dtype(node))


@lowers(aten.any.dim, aten.any.dims, aten.any.default)
def _any(lower, node, x, dims=None, keepdim=False):
    return reduce(lower.g, "any", x, dims, keepdim, torch.bool)


def _as_float(n):
    """A count as a float scalar; a symbolic count stays a size (converted where it is used)."""
    return n if isinstance(n, symbolic_mod.Dim) else float(n)


def _memory_stages(layout, dims) -> Optional[tuple[list, list]]:
    """A reduction over `dims` of a value laid out as `layout` (its traced tensor), split in
    two where a kept dim lies between reduced ones in memory: first the reduced dims outside
    the innermost kept dim, then the rest. A GroupNorm's statistics over the [N, G, C/G, H*W]
    view of a channels-last activation (memory N, H*W, G, C/G) are then a reduction over H*W
    per channel, which reads whole rows of channels, and a combination over each group's
    channels; in one go each group's channels would be read C/G at a time, C apart. None:
    one stage."""
    if not (isinstance(layout, torch.Tensor) and all(isinstance(s, int) for s in (*layout.shape, *layout.stride()))):
        return None
    order = memory_order(layout)
    kept = [i for i, d in enumerate(order) if d not in dims]
    if not kept:
        return None
    first = [d for d in order[:kept[-1]] if d in dims]
    rest = [d for d in dims if d not in first and layout.shape[d] != 1]
    if not first or not rest:
        return None
    # Only where the runs inside the kept dim are the shorter part: a BatchNorm over an NCHW
    # activation (memory N, C, H*W) reads runs of H*W values per image, contiguous enough in
    # one stage; split, it would pay a kernel and a buffer of partial sums for nothing.
    if math.prod(layout.shape[d] for d in rest) >= math.prod(layout.shape[d] for d in first):
        return None
    return first, rest


def _first(g, x: Node, dims) -> Node:
    """x's first element along dims (kept, size 1)."""
    for dim in dims:
        x = slice_(g, x, dim, 0, 1, 1)
    return x


def _var(lower, x, dims, correction, keepdim, out, layout=None):
    g = lower.g
    rank = len(x.shape)
    dims = list(range(rank)) if not dims else [d % rank for d in ([dims] if isinstance(dims, int) else dims)]
    n = math.prod(x.shape[d] for d in dims)
    # a bf16 / fp16 variance and mean are computed in float32 and rounded once at the end, as
    # ATen's var_mean kernel does (rounded at each step, a bf16 mean of 3 values was 9% off)
    out_dt = out
    out = torch.float32 if out in LOW_FLOATS else out
    xs = g.cast(x, out)
    denom = max(n - (1 if correction is None else correction), 0)
    stages = _memory_stages(layout, dims) if n > 0 else None
    if stages is not None:
        var, mean_k = _var_in_stages(g, xs, stages, out)
    else:
        # The values are shifted by the first one of their row before summing: the
        # mean of a constant row is then that value exactly, so layer norm of such a
        # row is exactly 0 (eager's Welford pass also gives 0; sum/n is off in the
        # last bit, which rsqrt(var + eps) amplifies 300-fold), and rows far from 0
        # lose less to rounding. It costs one subtraction and one broadcast load per
        # element.
        shift = None
        if n > 0 and dims:
            shift = _first(g, xs, dims)
            xs = pointwise(g, "sub", [xs, shift], out)
        mean_k = pointwise(g, "div", [reduce(g, "sum", xs, dims, True, out), _as_float(n)], out)
        d = pointwise(g, "sub", [xs, mean_k], out)
        var = reduce(g, "sum", pointwise(g, "mul", [d, d], out), dims, True, out)
        if shift is not None:
            mean_k = pointwise(g, "add", [mean_k, shift], out)
    var = pointwise(g, "div", [var, _as_float(denom)], out)
    if not keepdim:
        kept = tuple(s for i, s in enumerate(var.shape) if i not in dims)
        var, mean_k = reshape(g, var, kept), reshape(g, mean_k, kept)
    return g.cast(var, out_dt), g.cast(mean_k, out_dt)


def _var_in_stages(g, xs: Node, stages, out) -> tuple[Node, Node]:
    """The sum of squared deviations and the mean over first + rest dims (kept), in two stages
    (_memory_stages): each part (the values along `first` for one index of the other dims) gets
    its mean and sum of squared deviations, both reductions over `first` alone, and the parts
    combine by Chan's rule: M2 = sum of the parts' M2 + part size * sum of (part mean - mean)^2.
    Each stage is shifted by its first value, as the one-stage form is by its row's: a constant
    group has its value for a mean and 0 for a variance, exactly."""
    first, rest = stages
    f64 = torch.float64
    size = float(math.prod(xs.shape[d] for d in first))
    count = float(math.prod(xs.shape[d] for d in rest))
    shift = _first(g, xs, first)
    xd = pointwise(g, "sub", [xs, shift], out)
    mean_p = pointwise(g, "div", [reduce(g, "sum", xd, first, True, out), size], out)
    d = pointwise(g, "sub", [xd, mean_p], out)
    m2_p = reduce(g, "sum", pointwise(g, "mul", [d, d], out), first, True, f64)
    mean_p = pointwise(g, "add", [mean_p, shift], out)            # each part's mean
    shift_g = _first(g, mean_p, rest)
    dev = pointwise(g, "sub", [mean_p, shift_g], out)
    mean = pointwise(g, "add", [pointwise(g, "div", [reduce(g, "sum", dev, rest, True, out), count], out),
                                shift_g], out)
    spread = pointwise(g, "sub", [g.cast(mean_p, f64), g.cast(mean, f64)], f64)
    m2 = pointwise(g, "add", [reduce(g, "sum", m2_p, rest, True, f64),
                              pointwise(g, "mul", [reduce(g, "sum", pointwise(g, "mul", [spread, spread], f64),
                                                          rest, True, f64), size], f64)], f64)
    return g.cast(m2, out), mean


def _traced(node, i: int = 0):
    a = node.args[i] if len(node.args) > i else None
    return a.meta.get("val") if isinstance(a, torch.fx.Node) else None


@lowers(aten.var.correction)
def _var_c(lower, node, x, dims=None, correction=None, keepdim=False):
    return _var(lower, x, dims, correction, keepdim, lower.dtype(node), _traced(node))[0]


@lowers(aten.var_mean.correction)
def _var_mean(lower, node, x, dims=None, correction=None, keepdim=False):
    return _var(lower, x, dims, correction, keepdim, lower.dtype(node), _traced(node))


# dropout: the random draw makes eager's generator calls (the same mask for the same seed: ATen's,
# or runtime/rng.py's faster native draws of the same words); scaling and masking are pointwise
# and fuse. On a GPU
# eager's dropout is one fused ATen kernel with its own use of the Philox stream, so
# the whole op stays an ATen call there: the same mask, at the cost of the fusion.
@lowers(aten.native_dropout.default)
def _native_dropout(lower, node, x, p, train):
    g = lower.g
    if not train or p == 0:
        return lower.copy(x), g.const(True, x.shape, torch.bool)
    if lower.device.type != "cpu":
        raise Unsupported("dropout on a GPU draws its mask inside ATen's fused kernel")
    p1m = 1.0 - p
    # eager's mask is `empty_like(x)`: x's layout where x is dense (a channels-last input's
    # mask is channels-last), its draws in that memory order
    strides = _dense_strides(node.meta.get("val")[1] if isinstance(node.meta.get("val"), (tuple, list)) else None)
    draw = g.extern(bernoulli_like, [x, p1m, lower.cache_dir, strides], {}, x.shape, x.dtype,
                    strides or contiguous_strides(x.shape))
    scale = 0.0 if p1m == 0 else 1.0 / p1m
    out = pointwise(g, "mul", [pointwise(g, "mul", [x, draw], x.dtype), scale], x.dtype)
    mask = pointwise(g, "ne", [draw, 0.0], torch.bool, x.dtype)
    return out, mask


def _dense_strides(val) -> Optional[tuple]:
    """The strides of a traced tensor when they are static, not contiguous, and lay it out
    densely (laid_out_densely), else None (contiguous)."""
    if not isinstance(val, torch.Tensor) or not laid_out_densely(val):
        return None
    strides = tuple(val.stride())
    return None if strides == contiguous_strides(tuple(val.shape)) else strides


# bernoulli(x, p) with a Python p: a new contiguous tensor of x's shape and dtype, drawn as
# `empty_like(x).bernoulli_(p)` (what ATen's bernoulli.p does): a drop-path's `x.new_empty(shape)
# .bernoulli_(keep)`, functionalized. The same draws as dropout's, from the default generator.
@lowers(aten.bernoulli.p)
def _bernoulli_p(lower, node, x, p=0.5, *, generator=None):
    if generator is not None:
        raise Unsupported("bernoulli with its own generator")
    if lower.device.type != "cpu":
        raise Unsupported("bernoulli on a GPU draws from the device's Philox stream")
    return lower.g.extern(bernoulli_like, [x, float(p), lower.cache_dir], {}, x.shape, x.dtype,
                          contiguous_strides(x.shape))


@lowers(aten.native_dropout_backward.default)
def _native_dropout_backward(lower, node, grad, mask, scale):
    out = lower.dtype(node)
    g = lower.g
    return pointwise(g, "mul", [pointwise(g, "mul", [grad, g.cast(mask, out)], out), scale], out)


@lowers(aten.gelu.default)
def _gelu(lower, node, x, approximate="none"):
    g, out = lower.g, lower.dtype(node)
    if approximate == "tanh":
        k = math.sqrt(2.0 / math.pi)
        x3 = pointwise(g, "mul", [pointwise(g, "mul", [x, x], out), x], out)
        inner = pointwise(g, "mul", [pointwise(g, "add", [x, pointwise(g, "mul", [x3, 0.044715], out)], out), k], out)
        return pointwise(g, "mul", [pointwise(g, "mul", [x, 0.5], out),
                                    pointwise(g, "add", [pointwise(g, "tanh", [inner], out), 1.0], out)], out)
    cdf = pointwise(g, "mul", [pointwise(g, "add", [pointwise(g, "erf", [pointwise(g, "mul", [x, 0.7071067811865476], out)], out), 1.0], out), 0.5], out)
    return pointwise(g, "mul", [x, cdf], out)


# the ops that move data (views, pads, joins, gathers and scatters) register their lowerings in
# LOWERINGS when their module is imported: with this one
from bessemer.compiler.lowering import movement  # noqa: E402,F401
