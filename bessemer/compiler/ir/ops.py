"""The pointwise and reduction ops of the IR: one metadata table.

Every pass and renderer that needs to know something about an op reads it here:

  arity     how many arguments a pointwise node of the op takes
  result    "compute": the node's dtype is the dtype it computes in;
            "bool": a predicate (comparisons, logical ops, isnan) returns bool
  cost      "cheap" (an add) or "transcendental" (exp, a division): the fusion
            pass's recompute-or-store decision weighs the two differently
  fold      a torch function computing the op on constants (simplify's folding),
            or None when constants of this op are left alone
  cpp       how the C++ renderer spells it, and
  triton    how the Triton renderer spells it: a Spelling, {dtype class: template}
  exact_in_low  the result is exactly representable in the type of the arguments (or,
            for casts, rounds by itself): a bf16 / fp16 result needs no rounding

A template is filled by the renderer (str.format) with the argument expressions
{a} {b} {c} and its language's facts about the node's dtype:

  C++       {ct} the compute type (float, double, int64_t, ...), {f} the float
            suffix of a <cmath> function ("f" when {ct} is float, else "")
  Triton    {ct} the compute dtype (tl.float32, ...), {zero} 0 of it, {A} {B} the
            arguments as typed values (a Python literal is a weakly typed fp32 or
            int32 to Triton; libdevice wants both operands in the value's type),
            {a_bool} {b_bool} the arguments as predicates, {a_f32} the argument in
            fp32 (an integer converted first, as ATen converts int -> bf16)

The template used is the first of the node's dtype name ("bfloat16"), its class
("float", "int" or "bool") and "any" that the Spelling has; a dtype none of them
covers is an error (exp of an integer). A backend may overlay a table with rules
of its machine (cpp.py: ATen's vectorized erf where eager uses it).

tests/ops/test_ops.py and test_ops_triton.py run every op against eager;
tests/compiler/test_ops_table.py checks the table is complete for both languages.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import torch

Spelling = dict[str, str]   # dtype name | "float" | "int" | "bool" | "any" -> template


@dataclass(frozen=True)
class OpDef:
    name: str
    arity: int
    result: str = "compute"
    cost: str = "cheap"
    fold: Optional[Callable] = None
    cpp: Spelling = field(default_factory=dict)
    triton: Spelling = field(default_factory=dict)
    exact_in_low: bool = False


OPS: dict[str, OpDef] = {}


def _op(name, arity, result="compute", cost="cheap", fold=None, cpp=None, triton=None):
    OPS[name] = OpDef(name, arity, result, cost, fold, cpp or {}, triton or {}, name in _EXACT_IN_LOW)


# ops whose result is exactly representable in the type of their arguments (and casts,
# which round by themselves): a bf16 / fp16 result needs no rounding
_EXACT_IN_LOW = {"cast", "neg", "abs", "maximum", "minimum", "where", "relu", "sign", "floor", "ceil",
                 "trunc", "round", "copysign"}


def dtype_class(dt: torch.dtype) -> str:
    return "bool" if dt == torch.bool else ("float" if dt.is_floating_point else "int")


def spelling(table: Spelling, dt: torch.dtype) -> Optional[str]:
    """The template of `table` for a node of dtype dt (None: the op does not take dt)."""
    for key in (str(dt).replace("torch.", ""), dtype_class(dt), "any"):
        if key in table:
            return table[key]
    return None


T = "transcendental"


def _any(cpp: str, triton: str) -> dict:
    return {"cpp": {"any": cpp}, "triton": {"any": triton}}


def _float(cpp: str, triton: str) -> dict:
    """A function of floats only (libm / tl / libdevice)."""
    return {"cpp": {"float": cpp}, "triton": {"float": triton}}


# -- unary ------------------------------------------------------------------------------
# Triton's unary minus is 0 - x, which is +0.0 at x = +0.0: a float is negated as x * -1.0
_op("neg", 1, fold=torch.neg, cpp={"any": "(-{a})"}, triton={"float": "({a} * -1.0)", "any": "(-{a})"})
_op("abs", 1, fold=torch.abs, cpp={"bool": "{a}", "any": "std::abs({a})"},
    triton={"bool": "{a}", "any": "tl.abs({a})"})
_op("relu", 1, **_any("({a} < 0 ? ({ct})0 : {a})", "tl.where({a} < 0, {zero}, {a})"))
_op("reciprocal", 1, fold=torch.reciprocal, **_any("(({ct})1 / {a})", "(1.0 / {a})"))
_op("sigmoid", 1, cost=T, fold=torch.sigmoid,
    **_any("(({ct})1 / (({ct})1 + exp{f}(-{a})))", "(1.0 / (1.0 + tl.exp(-{a})))"))
_op("rsqrt", 1, cost=T, fold=torch.rsqrt, cpp={"any": "(({ct})1 / sqrt{f}({a}))"},
    triton={"float": "libdevice.rsqrt({a})"})
_op("sqrt", 1, cost=T, fold=torch.sqrt, **_float("sqrt{f}({a})", "libdevice.sqrt({a})"))
_op("round", 1, cpp={"float": "nearbyint{f}({a})", "any": "{a}"},
    triton={"float": "libdevice.nearbyint({a})", "any": "{a}"})
_op("frac", 1, **_any("({a} - trunc{f}({a}))", "({a} - libdevice.trunc({a}))"))
_op("sign", 1, **_any("sign_<{ct}>({a})", "(({a} > 0).to({ct}) - ({a} < 0).to({ct}))"))
_op("logical_not", 1, result="bool", fold=torch.logical_not, **_any("(!{a})", "({a} == 0)"))
_op("bitwise_not", 1, cpp={"bool": "(!{a})", "any": "(~{a})"}, triton={"bool": "({a} == 0)", "any": "(~{a})"})
_op("isnan", 1, result="bool", **_any("({a} != {a})", "({a} != {a})"))
_op("isinf", 1, result="bool", **_any("(std::isinf({a}))", "(tl.abs({a}) == float('inf'))"))
# constants are folded only where torch's result on a 0-dim tensor is the op's value
_FOLDED = {"exp", "log", "tanh", "erf"}
for _name, _tl in {"exp": "tl.exp", "log": "tl.log", "sin": "tl.sin", "cos": "tl.cos", "erf": "tl.erf",
                   "exp2": "tl.exp2", "log2": "tl.log2"}.items():
    _op(_name, 1, cost=T, fold=getattr(torch, _name) if _name in _FOLDED else None,
        **_float(_name + "{f}({a})", _tl + "({a})"))
# exp of an argument that may lie far below zero (a masked score): the same function, which the
# C++ kernels compute without libm's slow lanes (codegen/cpp.py's expf_lo); set on the loop
# program only (passes/cpp_loops.guard_low_exps), never in a graph
_op("exp_lo", 1, cost=T, cpp={"float64": "exp({a})", "float": "expf_lo({a})"}, triton={"float": "tl.exp({a})"})
for _name in ("floor", "ceil"):
    _op(_name, 1, **_float(_name + "{f}({a})", f"tl.{_name}({{a}})"))
_op("trunc", 1, **_float("trunc{f}({a})", "libdevice.trunc({a})"))
for _name in ("tanh", "expm1", "log1p", "log10", "tan", "atan", "asin", "acos", "sinh", "cosh", "erfc"):
    _op(_name, 1, cost=T, fold=getattr(torch, _name) if _name in _FOLDED else None,
        **_float(_name + "{f}({a})", f"libdevice.{_name}({{a}})"))
for _name in ("asinh", "acosh", "atanh"):
    _op(_name, 1, **_float(_name + "{f}({a})", f"libdevice.{_name}({{a}})"))

# -- binary -----------------------------------------------------------------------------
for _name, _sym, _fold in (("add", "+", torch.add), ("sub", "-", torch.sub), ("mul", "*", torch.mul)):
    _op(_name, 2, fold=_fold, **_any(f"({{a}} {_sym} {{b}})", f"({{a}} {_sym} {{b}})"))
_op("div", 2, cost=T, fold=torch.div, **_any("({a} / {b})", "({a} / {b})"))
for _name, _sym in (("bitwise_and", "&"), ("bitwise_or", "|"), ("bitwise_xor", "^")):
    _op(_name, 2, cpp={"bool": f"(bool)({{a}} {_sym} {{b}})", "any": f"({{a}} {_sym} {{b}})"},
        triton={"any": f"({{a}} {_sym} {{b}})"})
for _name, _sym in (("eq", "=="), ("ne", "!="), ("lt", "<"), ("le", "<="), ("gt", ">"), ("ge", ">=")):
    _op(_name, 2, result="bool", fold=getattr(torch, _name), **_any(f"({{a}} {_sym} {{b}})", f"({{a}} {_sym} {{b}})"))
_op("logical_and", 2, result="bool", fold=torch.logical_and, **_any("({a} && {b})", "({a_bool} & {b_bool})"))
_op("logical_or", 2, result="bool", fold=torch.logical_or, **_any("({a} || {b})", "({a_bool} | {b_bool})"))
_op("logical_xor", 2, result="bool", **_any("((bool){a} != (bool){b})", "({a_bool} ^ {b_bool})"))
# max and min of floats keep a NaN, as ATen's do
for _name, _cmp in (("maximum", ">"), ("minimum", "<")):
    _op(_name, 2, fold=getattr(torch, _name), cpp={"any": f"{_name}_<{{ct}}>({{a}}, {{b}})"},
        triton={"float": f"tl.where(({{a}} {_cmp} {{b}}) | ({{a}} != {{a}}), {{a}}, {{b}})",
                "any": f"tl.where({{a}} {_cmp} {{b}}, {{a}}, {{b}})"})
_op("pow", 2, cost=T, fold=torch.pow,
    cpp={"float": "pow{f}({a}, {b})", "any": "powi_<{ct}>(({ct}){a}, ({ct}){b})"},
    triton={"float": "libdevice.pow({A}, {B})",
            "any": "_powi({A}, {B}).to({ct})"})
_op("atan2", 2, cost=T, **_any("atan2{f}({a}, {b})", "libdevice.atan2({A}, {B})"))
_op("copysign", 2, **_any("copysign{f}({a}, {b})", "libdevice.copysign({A}, {B})"))
_op("fmod", 2, cpp={"float": "fmod{f}({a}, {b})", "any": "({a} % {b})"},
    triton={"float": "libdevice.fmod({A}, {B})", "any": "({A} % {B})"})
_op("remainder", 2, cpp={"float": "remainder_f<{ct}>({a}, {b})", "any": "remainder_i<{ct}>({a}, {b})"},
    triton={"float": "_remainder_f({A}, {B})", "any": "_remainder_i({A}, {B})"})
# division rounding to -inf (div rounding_mode="floor")
_op("floordiv", 2, cpp={"float": "floordiv_f<{ct}>({a}, {b})", "any": "floordiv_i<{ct}>({a}, {b})"},
    triton={"float": "_floordiv_f({A}, {B})", "any": "_floordiv_i({A}, {B})"})
# division rounding to 0 (div rounding_mode="trunc")
_op("truncdiv", 2, cpp={"float": "trunc{f}({a} / {b})", "any": "({a} / {b})"},
    triton={"float": "libdevice.trunc({a} / {b})", "any": "({a} // {b})"})

# -- other ------------------------------------------------------------------------------
# a * b + c rounded once: ATen's CPU add / sub with alpha (vec::fmadd(other, alpha, self)).
# Triton contracts a * b + c into one fma by itself on a GPU (its default fp fusion), and
# reads a number beside an fp64 tensor exactly only in a product
_op("fma", 3, cpp={"float": "fma{f}({a}, {b}, {c})", "any": "({a} * {b} + {c})"},
    triton={"any": "({a} * {b} + {c})"})
_op("where", 3, **_any("({a} ? {b} : {c})", "tl.where({a_bool}, {b}, {c})"))
# to the node's dtype; bf16 and fp16 values are kept in fp32, rounded to their type
_op("cast", 1, cpp={"bool": "({a} != 0)", "bfloat16": "bf16_round((float)({a}))",
                    "float16": "fp16_round((float)({a}))", "any": "(({ct})({a}))"},
    triton={"bool": "({a} != 0)", "bfloat16": "_to_bf16({a_f32}).to(tl.float32)",
            "float16": "({a_f32}).to(tl.float16).to(tl.float32)", "any": "({a}).to({ct})"})

CAST = "cast"


# -- reductions -------------------------------------------------------------------------
@dataclass(frozen=True)
class ReduceDef:
    """A reduction's facts and spellings. Templates as the pointwise ones', filled with
    {acc} the accumulator, {v} the value folded in, {at} the accumulator's type, {ct}
    the compute type, {name} the reduction node's name; keyed by the node's dtype.

    keeps_nan   a float NaN wins (max, min, as in ATen) -- which neither an OpenMP
                reduction nor tl.max does, so the renderers track it beside them
    cpp         acc (accumulator type), init, fold (a statement; keeps a NaN),
                fold_omp (the fold an OpenMP `reduction(omp: ...)` clause allows), omp
    triton      acc, ident (the identity, also a masked lane's value; {imin} {imax} the
                dtype's integer limits), val (the value
                accumulated), step (one looped chunk folded in; {val} {ident} filled),
                combine (the lanes of [XBLOCK, N] to [XBLOCK, 1]), read (the value
                other members read, "" when the accumulator is read as it is),
                splittable (may run as a split column reduction)
    """
    name: str
    keeps_nan: bool
    cpp: dict[str, Spelling]
    triton: dict[str, Spelling]
    splittable: bool = False


_TL_READ = {"bfloat16": "_to_bf16({acc}).to(tl.float32)", "float16": "({acc}).to(tl.float16).to(tl.float32)",
            "any": "{acc}.to({ct})"}


def _reduce(name, keeps_nan=False, splittable=False, cpp=None, triton=None):
    REDUCTIONS[name] = ReduceDef(name, keeps_nan, cpp, triton, splittable)


REDUCTIONS: dict[str, ReduceDef] = {}
# float sums and products accumulate in double in C++ (eager's fp32 cascade is less exact,
# so the difference to eager is eager's own rounding); in fp32 in Triton
for _name, _sym, _init in (("sum", "+", "0"), ("prod", "*", "1")):
    _reduce(_name, splittable=_name == "sum",
            cpp={"acc": {"float": "double", "any": "int64_t"}, "init": {"any": _init},
                 "fold": {"any": f"{{acc}} {_sym}= ({{at}}){{v}};"},
                 "fold_omp": {"any": f"{{acc}} {_sym}= ({{at}}){{v}};"}, "omp": {"any": _sym}},
            triton={"acc": {"float64": "{ct}", "float": "tl.float32", "any": "tl.int64"}, "ident": {"any": _init},
                    "val": {"any": "({v}).to({at})"},
                    "step": {"any": f"{{acc}} {_sym} tl.where(xrmask, {{val}}, {{ident}})"},
                    "combine": {"any": "tl.sum({acc}, 1)[:, None]" if _name == "sum"
                                else "tl.reduce({acc}, 1, _prod)[:, None]"},
                    "read": _TL_READ})
# `any` accumulates in a 64-bit int with `|`. gcc vectorizes no loop whose OpenMP reduction
# is a bool's `||` (its per-lane copies of a bool have no vector type), nor one that mixes a
# 32-bit flag with a double sum ("multiple types in ... condition reduction"): a softmax pass
# that sums exp in double and tracks whether a row is all -inf (T5's) stayed scalar either way
_reduce("any", cpp={"acc": {"any": "int64_t"}, "init": {"any": "0"},
                    "fold": {"any": "{acc} |= (int64_t)(bool){v};"},
                    "fold_omp": {"any": "{acc} |= (int64_t)(bool){v};"}, "omp": {"any": "|"}},
        triton={"acc": {"any": "tl.int32"}, "ident": {"any": "0"}, "val": {"any": "({v} != 0).to(tl.int32)"},
                "step": {"any": "{acc} + tl.where(xrmask, {val}, {ident})"},
                "combine": {"any": "(tl.max({acc}, 1)[:, None] > 0)"}, "read": {"any": ""}})
for _name, _cmp, _inf, _lim, _bool in (("max", ">", "-", "lowest", "0"), ("min", "<", "", "max", "1")):
    _take = f"({{v}} {_cmp} {{acc}}) ? {{v}} : {{acc}};"
    _tl = f"tl.{_name}({{acc}}, 1)[:, None]"
    _reduce(_name, keeps_nan=True, splittable=True,
            cpp={"acc": {"any": "{ct}"}, "init": {"float": f"{_inf}INFINITY",
                                                  "any": f"std::numeric_limits<{{ct}}>::{_lim}()"},
                 "fold": {"float": f"{{acc}} = ({{v}} {_cmp} {{acc}} || {{v}} != {{v}}) ? {{v}} : {{acc}};",
                          "any": "{acc} = " + _take},
                 "fold_omp": {"any": "{acc} = " + _take}, "omp": {"any": _name}},
            triton={"acc": {"float64": "{ct}", "float": "tl.float32", "any": "{ct}"},
                    "ident": {"float": f'float("{_inf}inf")', "bool": _bool,
                              "any": "{imin}" if _name == "max" else "{imax}"},
                    "val": {"any": "({v}).to({at})"},
                    "step": {"float": f"tl.where(xrmask & (({{v}} {_cmp} {{acc}}) | ({{v}} != {{v}})), {{val}}, {{acc}})",
                             "any": f"tl.where(xrmask & (({{v}} {_cmp} {{acc}})), {{val}}, {{acc}})"},
                    # tl.max / tl.min skip a NaN; ATen's propagate it
                    "combine": {"float": f"tl.where(tl.max(({{acc}} != {{acc}}).to(tl.int32), 1)[:, None] > 0, "
                                         f"float('nan'), {_tl})", "any": _tl},
                    "read": _TL_READ})
REDUCE_OPS = tuple(REDUCTIONS)


def reduce_spelling(op: str, lang: str, part: str, dt: torch.dtype) -> str:
    """The template of reduction `op`'s `part` in language `lang` for dtype dt."""
    template = spelling(getattr(REDUCTIONS[op], lang)[part], dt)
    if template is None:
        raise KeyError(f"reduction {op}: no {lang} {part} for {dt}")
    return template


def opdef(name: str) -> OpDef:
    if name not in OPS:
        raise KeyError(f"unknown pointwise op {name!r}")
    return OPS[name]


def returns_bool(name: str) -> bool:
    return OPS[name].result == "bool"


def is_transcendental(name: str) -> bool:
    return OPS[name].cost == T
