"""The pointwise and reduction ops of the IR: one metadata table.

Every pass and renderer that needs to know something about an op reads it here:

  arity     how many arguments a pointwise node of the op takes
  result    "compute": the node's dtype is the dtype it computes in;
            "bool": a predicate (comparisons, logical ops, isnan) returns bool
  cost      "cheap" (an add) or "transcendental" (exp, a division): the fusion
            pass's recompute-or-store decision weighs the two differently
  fold      a torch function computing the op on constants (simplify's folding),
            or None when constants of this op are left alone
  cpp       how the C++ renderer spells it: ("infix", "+"), ("libm", "exp") (a
            <cmath> function, with the float suffix in fp32; float args only), or
            None: the renderer has a dedicated rule (casts, where, relu, ...)
  triton    ("infix", "+"), ("tl", "tl.exp"), ("libdevice", "tanh") (float args
            only), or None: a dedicated rule in the Triton renderer

`tests/compiler/test_ops_table.py` renders every op with both renderers.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import torch


@dataclass(frozen=True)
class OpDef:
    name: str
    arity: int
    result: str = "compute"
    cost: str = "cheap"
    fold: Optional[Callable] = None
    cpp: Optional[tuple[str, str]] = None
    triton: Optional[tuple[str, str]] = None


OPS: dict[str, OpDef] = {}


def _op(name, arity, result="compute", cost="cheap", fold=None, cpp=None, triton=None):
    OPS[name] = OpDef(name, arity, result, cost, fold, cpp, triton)


T = "transcendental"

# -- unary ------------------------------------------------------------------------------
_op("neg", 1, fold=torch.neg)
_op("abs", 1, fold=torch.abs)
_op("relu", 1)
_op("reciprocal", 1, fold=torch.reciprocal)
_op("sigmoid", 1, cost=T, fold=torch.sigmoid)
_op("rsqrt", 1, cost=T, fold=torch.rsqrt, triton=("libdevice", "rsqrt"))
_op("sqrt", 1, cost=T, fold=torch.sqrt, cpp=("libm", "sqrt"), triton=("libdevice", "sqrt"))
_op("round", 1)
_op("frac", 1)
_op("sign", 1)
_op("logical_not", 1, result="bool", fold=torch.logical_not)
_op("bitwise_not", 1)
_op("isnan", 1, result="bool")
_op("isinf", 1, result="bool")
# constants are folded only where torch's result on a 0-dim tensor is the op's value
_FOLDED = {"exp", "log", "tanh", "erf"}
for _name, _tl in {"exp": "tl.exp", "log": "tl.log", "sin": "tl.sin", "cos": "tl.cos", "erf": "tl.erf",
                   "exp2": "tl.exp2", "log2": "tl.log2"}.items():
    _op(_name, 1, cost=T, fold=getattr(torch, _name) if _name in _FOLDED else None, cpp=("libm", _name),
        triton=("tl", _tl))
for _name in ("floor", "ceil"):
    _op(_name, 1, cpp=("libm", _name), triton=("tl", f"tl.{_name}"))
_op("trunc", 1, cpp=("libm", "trunc"), triton=("libdevice", "trunc"))
for _name in ("tanh", "expm1", "log1p", "log10", "tan", "atan", "asin", "acos", "sinh", "cosh", "erfc"):
    _op(_name, 1, cost=T, fold=getattr(torch, _name) if _name in _FOLDED else None, cpp=("libm", _name),
        triton=("libdevice", _name))
for _name in ("asinh", "acosh", "atanh"):
    _op(_name, 1, cpp=("libm", _name), triton=("libdevice", _name))

# -- binary -----------------------------------------------------------------------------
for _name, _sym, _fold in (("add", "+", torch.add), ("sub", "-", torch.sub), ("mul", "*", torch.mul)):
    _op(_name, 2, fold=_fold, cpp=("infix", _sym), triton=("infix", _sym))
_op("div", 2, cost=T, fold=torch.div, cpp=("infix", "/"), triton=("infix", "/"))
for _name, _sym in (("bitwise_and", "&"), ("bitwise_or", "|"), ("bitwise_xor", "^")):
    _op(_name, 2, triton=("infix", _sym))
for _name, _sym in (("eq", "=="), ("ne", "!="), ("lt", "<"), ("le", "<="), ("gt", ">"), ("ge", ">=")):
    _op(_name, 2, result="bool", fold=getattr(torch, _name), cpp=("infix", _sym), triton=("infix", _sym))
_op("logical_and", 2, result="bool", fold=torch.logical_and, cpp=("infix", "&&"))
_op("logical_or", 2, result="bool", fold=torch.logical_or, cpp=("infix", "||"))
_op("logical_xor", 2, result="bool")
_op("maximum", 2, fold=torch.maximum)
_op("minimum", 2, fold=torch.minimum)
_op("pow", 2, cost=T, fold=torch.pow)
_op("atan2", 2, cost=T)
_op("copysign", 2)
_op("fmod", 2)
_op("remainder", 2)
_op("floordiv", 2)     # division rounding to -inf (div rounding_mode="floor")
_op("truncdiv", 2)     # division rounding to 0 (div rounding_mode="trunc")

# -- other ------------------------------------------------------------------------------
_op("where", 3)
_op("cast", 1)                 # to the node's dtype

CAST = "cast"
REDUCE_OPS = ("sum", "max", "min", "prod", "any")


def opdef(name: str) -> OpDef:
    if name not in OPS:
        raise KeyError(f"unknown pointwise op {name!r}")
    return OPS[name]


def returns_bool(name: str) -> bool:
    return OPS[name].result == "bool"


def is_transcendental(name: str) -> bool:
    return OPS[name].cost == T
