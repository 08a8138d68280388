"""The partitioner's cost model: what saving each value of a joint graph costs, and what
recomputing it in the backward costs, by the kind of op that computes it (in bytes of memory
traffic through our generated code; partition/partitioner.py builds the flow network from these)."""
from __future__ import annotations

import enum
import math
import operator
from dataclasses import dataclass
from typing import Any, Optional, Union

import torch
import torch.fx as fx

from bessemer.compiler.lowering.pooling import KEEP

# -- the cost model (units: bytes of memory traffic) ----------------------------------
# Recomputing a pointwise op in the backward fuses into the kernel that reads it
# there when that reader is one of ours: almost free (FUSED_COST of its bytes, so
# that among cuts saving equal bytes the one recomputing less wins). When a reader
# is an ATen call (a matmul) the value is written to memory once more: a tenth of
# its bytes, so recompute wins whenever it saves ten times what it rewrites.
FUSED_COST = 0.02
POINTWISE_COST = 0.1
# An input is in memory already: saving it adds no buffer to the forward, where a
# computed value saved in its place coexists with it. Inputs are charged this share
# of their bytes, so that of two equal choices the input is kept.
INPUT_SAVE_SHARE = 0.9
# A value the forward returns is in memory at its end anyway (a language model's logits):
# saving it adds nothing to the forward's peak, where a value computed from it and saved in
# its place coexists with it. Charged this share, so that of two equal choices it is kept.
OUTPUT_SAVE_SHARE = 0.9
# Saving a pointwise value the forward would otherwise keep inside a kernel (every forward
# reader is one of our kernels) makes the forward write it once more: charged this share of
# its bytes on top, so that a matmul's output (written anyway) is saved and the bias or
# activation after it is recomputed in the backward's kernel rather than written for it.
UNWRITTEN_SAVE_SHARE = 0.1
# A reduction whose output is at least this many times smaller than its input is a
# "large" reduction (a row statistic, a sum over the batch): its result is cheap to
# save and costs a full pass to recompute, so the default plan saves it.
LARGE_REDUCTION_RATIO = 4
# An input the forward mutates is saved only when nothing else can stand in for it (the
# backward then sees the mutated tensor and autograd refuses it, as it would eagerly).
MUTATED_SAVE_COST = 1e15
# Matmul-class ops are charged FLOPs / FLOPS_PER_BYTE: the arithmetic intensity at
# which a CPU core is as busy computing as moving bytes (GPUs are higher still, so
# this undercharges them: only matters when the budget forces matmul recompute).
FLOPS_PER_BYTE = 16

_HEAVY = {"mm", "bmm", "addmm", "baddbmm", "convolution", "_convolution", "convolution_backward",
          "_scaled_dot_product_flash_attention_for_cpu", "_scaled_dot_product_flash_attention",
          "_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention",
          "_efficient_attention_forward", "_flash_attention_forward", "scaled_dot_product_attention",
          "_scaled_dot_product_attention_math", "linear", "matmul"}
REDUCTIONS = {"sum", "mean", "amax", "amin", "prod", "any", "all", "var", "var_mean", "std", "std_mean",
               "max", "min", "argmax", "argmin", "logsumexp", "norm", "linalg_vector_norm", "cumsum"}
# views the generated code computes by index arithmetic (no copy): never saved
# themselves (their base is), recomputing them is free
_VIEW_LIKE = {"_unsafe_view", "view", "reshape", "expand", "squeeze", "unsqueeze", "permute", "t",
              "transpose", "slice", "select", "alias", "split", "split_with_sizes", "unbind", "detach",
              "unflatten", "flatten", "narrow", "view_as", "expand_as", "lift_fresh"}

BudgetT = Union[float, int]


# -- node classification ----------------------------------------------------------------
def op_name(n: fx.Node) -> str:
    t = n.target
    if isinstance(t, torch._ops.OpOverload):
        return t.overloadpacket.__name__
    return getattr(t, "__name__", str(t))


def val(n: Any):
    return n.meta.get("val") if isinstance(n, fx.Node) else None


def is_sym(n: fx.Node) -> bool:
    return isinstance(val(n), (torch.SymInt, torch.SymFloat, torch.SymBool))


def hint(s) -> int:
    if isinstance(s, int):
        return s
    try:
        h = s.node.hint
    except AttributeError:
        h = None
    return int(h) if h is not None else 1024


def nbytes(n: Any) -> int:
    v = val(n)
    if isinstance(v, torch.Tensor):
        return math.prod(hint(s) for s in v.shape) * v.dtype.itemsize
    if isinstance(v, (list, tuple)):
        return sum(math.prod(hint(s) for s in t.shape) * t.dtype.itemsize
                   for t in v if isinstance(t, torch.Tensor))
    return 0


def is_tensor(n: fx.Node) -> bool:
    return isinstance(val(n), torch.Tensor)


def _is_random(n: fx.Node) -> bool:
    t = n.target
    if isinstance(t, torch._ops.OpOverload):
        return torch.Tag.nondeterministic_seeded in t.tags
    return op_name(n) in ("rand", "randn", "bernoulli", "rand_like", "randn_like", "randint")


def _is_impure(n: fx.Node) -> bool:
    """Side effects: must run exactly once, in the graph AOTAutograd placed them in."""
    t = n.target
    if isinstance(t, torch._ops.OpOverload):
        if t._schema.is_mutable or t.namespace in ("_c10d_functional", "c10d_functional"):
            return True
    if getattr(t, "__name__", "") == "with_effects":
        return True
    return n.op == "call_function" and n.is_impure() and not _is_random(n)


def is_view(n: fx.Node) -> bool:
    if n.target is operator.getitem:
        return False
    t = n.target
    if isinstance(t, torch._ops.OpOverload) and t.is_view:
        return True
    return op_name(n) in _VIEW_LIKE


def _flops(n: fx.Node) -> float:
    name = op_name(n)
    shapes = [tuple(hint(s) for s in val(a).shape) if isinstance(val(a), torch.Tensor) else None
              for a in n.args]
    out = val(n)
    out_numel = math.prod(hint(s) for s in out.shape) if isinstance(out, torch.Tensor) else 0
    try:
        if name in ("mm", "matmul", "linear"):
            (m, k), (_, nn) = shapes[0][-2:], shapes[1][-2:]
            return 2.0 * m * k * nn * math.prod(shapes[0][:-2])
        if name == "addmm":
            (m, k), (_, nn) = shapes[1], shapes[2]
            return 2.0 * m * k * nn
        if name == "bmm":
            b, m, k = shapes[0]
            return 2.0 * b * m * k * shapes[1][2]
        if name == "baddbmm":
            b, m, k = shapes[1]
            return 2.0 * b * m * k * shapes[2][2]
        if "convolution" in name:
            w = shapes[1]
            return 2.0 * out_numel * math.prod(w[1:]) if w else 1e9
        if "attention" in name:
            q, k = shapes[0], shapes[1]
            return 4.0 * math.prod(q) * k[-2]
    except (TypeError, IndexError, ValueError):
        pass
    return 100.0 * max(out_numel, nbytes(n))


class OpClass(enum.StrEnum):
    """What an op of the joint graph is, for what recomputing it costs."""
    VIEW = "view"
    POINTWISE = "pointwise"
    ROW = "row"
    REDUCTION = "reduction"
    HEAVY = "heavy"
    EXTERN = "extern"
    RANDOM = "random"
    IMPURE = "impure"
    INPUT = "input"
    OTHER = "other"


@dataclass
class _Kind:
    kind: OpClass
    cost: float        # bytes of memory traffic to recompute it
    banned: bool       # the default plan never recomputes it
    never: bool        # no plan recomputes it


NO_KIND = _Kind(OpClass.OTHER, 0.0, False, False)


def classify(n: fx.Node, lowered) -> _Kind:
    if n.op == "placeholder":
        return _Kind(OpClass.INPUT, 0.0, True, True)
    if n.op != "call_function":
        return _Kind(OpClass.OTHER, 0.0, False, False)
    if _is_random(n):
        return _Kind(OpClass.RANDOM, math.inf, True, True)
    if _is_impure(n):
        return _Kind(OpClass.IMPURE, math.inf, True, True)
    if n.target is operator.getitem:
        src = n.args[0]
        if isinstance(src, fx.Node) and src.op == "call_function" and is_view(src):
            return _Kind(OpClass.VIEW, 0.0, False, False)        # a piece of split/unbind: a view
        return _Kind("getitem", 0.0, False, False)         # one tensor of a tuple: priced on its producer
    if is_view(n):
        return _Kind(OpClass.VIEW, 0.0, False, False)
    name = op_name(n)
    out_b = nbytes(n)
    in_b = sum(nbytes(a) for a in n.all_input_nodes)
    if name in _HEAVY:
        return _Kind(OpClass.HEAVY, _flops(n) / FLOPS_PER_BYTE, True, False)
    if name in REDUCTIONS:
        if out_b * LARGE_REDUCTION_RATIO <= in_b:
            return _Kind(OpClass.REDUCTION, float(in_b), True, False)
        return _Kind(OpClass.ROW, POINTWISE_COST * in_b, False, False)
    if n.meta.get("custom", {}).get(KEEP):
        # a decomposed ATen call (pooling.py): computed where the call was, as the call
        return _Kind(OpClass.EXTERN, float(in_b + out_b), True, False)
    if is_lowered(n, lowered):
        return _Kind(OpClass.POINTWISE, out_b * (POINTWISE_COST if materialized(n, lowered) else FUSED_COST),
                     False, False)
    # any other ATen call (gather, embedding, cat, pooling, ...): a memory-bound kernel of its own
    return _Kind(OpClass.EXTERN, float(in_b + out_b), True, False)


def materialized(n: fx.Node, lowered, among: Optional[set] = None) -> bool:
    """Is n written to memory where it is computed: is one of its readers (looking through
    views; only those in `among`, when given) an ATen call rather than one of our kernels?"""
    stack, seen = list(n.users), set()
    while stack:
        u = stack.pop()
        if u in seen or u.op != "call_function" or (among is not None and u not in among):
            continue
        seen.add(u)
        if u.target is operator.getitem or is_view(u):
            stack.extend(u.users)
        elif not is_lowered(u, lowered) and op_name(u) not in REDUCTIONS:
            return True
    return False


def is_lowered(n: fx.Node, lowered) -> bool:
    """Is n computed by our kernels: its op has a lowering, and for an op lowered in some forms
    only (lowered_ops' tests), n's form is one of them."""
    if n.target not in lowered:
        return False
    form = lowered.get(n.target) if isinstance(lowered, dict) else None
    return form is None or form(n)


def lowered_ops() -> dict:
    """The ops with a lowering, each with the test of the forms it lowers (None: every form)."""
    try:
        from bessemer.compiler.lowering.movement import LOWERED_FORMS
        from bessemer.compiler.lowering.rules import LOWERINGS
        return {op: LOWERED_FORMS.get(op) for op in LOWERINGS}
    except Exception:  # noqa: BLE001 - without the table every op is an extern (the safe side)
        return {}
