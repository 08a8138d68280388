"""The Triton printer: a schedule's loop program (ir/loops.py) as Triton functions for the GPU.

passes/kernel_plan_triton.py decided each kernel's tiling (pointwise, persistent,
looped or split; see there); this module spells it: the tile set-up, loads and stores
with their masks, the ops by ops.py's Triton spellings, the reductions' parts.

Identical kernels (each layer's copy of a block) become one function.

Static sizes are baked in; symbolic sizes (symbolic.py) are expressions over size
symbols the kernel takes as arguments, and its launcher evaluates the tiling
(numel, rows, row length) from them at each new size. XBLOCK, RBLOCK and
num_warps are chosen per kernel (and size) at launch (see triton_launch.py). bf16 and fp16 values are computed in
fp32, as ATen does, and each op's result is rounded to its type.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Optional

import torch

from bessemer.compiler.ir import loops as L
from bessemer.compiler.ir.graph import LOW_FLOATS
from bessemer.compiler.ir.ops import OPS, reduce_spelling, spelling
from bessemer.compiler.ir.schedule import Schedule
from bessemer.compiler.ir.symbolic import Dim
from bessemer.compiler.codegen.kernel import CodegenError, KernelSource, and_of, range_condition

TL_DTYPE = {
    torch.float32: "tl.float32", torch.float64: "tl.float64", torch.bfloat16: "tl.bfloat16",
    torch.float16: "tl.float16", torch.int64: "tl.int64", torch.int32: "tl.int32", torch.int16: "tl.int16",
    torch.int8: "tl.int8", torch.uint8: "tl.uint8", torch.bool: "tl.int1",
}


def tl_dtype(dt: torch.dtype) -> str:
    if dt not in TL_DTYPE:
        raise CodegenError(f"dtype {dt} is not supported by the Triton backend")
    return TL_DTYPE[dt]


def compute_dtype(dt: torch.dtype) -> str:
    return "tl.float32" if dt in LOW_FLOATS else tl_dtype(dt)


def literal(v, dt: torch.dtype) -> str:
    if isinstance(v, Dim):
        # a size, computed from the symbols the kernel takes (each >= 2: never one of
        # the values Triton turns into constants)
        return f"({v}).to({tl_dtype(dt)})" if dt.is_floating_point else str(v)
    if dt == torch.bool:
        return "True" if v else "False"
    if dt.is_floating_point:
        v = float(v)
        if math.isnan(v):
            return 'float("nan")'
        if math.isinf(v):
            return 'float("inf")' if v > 0 else 'float("-inf")'
        return repr(v)
    return str(int(v))


def narrow(expr: str, dt: torch.dtype) -> str:
    """expr (computed in fp32) in the storage type dt."""
    if dt == torch.bfloat16:
        return f"_to_bf16({expr})"
    return f"({expr}).to({tl_dtype(dt)})"


def _is_literal(v: str) -> bool:
    if v in ("True", "False") or v.startswith("float("):
        return True
    try:
        float(v)
        return True
    except ValueError:
        return False


def render_op(op: str, args: list[str], n, arg_dtypes: list[torch.dtype]) -> str:
    if op not in OPS:
        raise CodegenError(f"no Triton rendering for pointwise op {op!r}")
    dt = n.dtype
    template = spelling(OPS[op].triton, dt)
    if template is None:
        raise CodegenError(f"{op} on {dt}")
    ct = compute_dtype(dt)
    a, b, c = (list(args) + [None, None, None])[:3]
    da, db = (list(arg_dtypes) + [None, None])[:2]
    return template.format(
        a=a, b=b, c=c, ct=ct, zero="0.0" if dt.is_floating_point else "0",
        A=_typed(a, ct), B=_typed(b, ct), a_bool=_predicate(a, da), b_bool=_predicate(b, db),
        a_f32=a if da is None or da.is_floating_point else f"({a}).to(tl.float32)")


def _typed(x: Optional[str], ct: str) -> Optional[str]:
    """x as a value of type ct: a Python literal is weakly typed to Triton."""
    return f"tl.full([], {x}, {ct})" if x is not None and _is_literal(x) else x


def _predicate(x: Optional[str], dt: Optional[torch.dtype]) -> Optional[str]:
    return x if dt is None or dt == torch.bool else f"({x} != 0)"


def render_reduce(op: str, dt: torch.dtype, part: str, **fields) -> str:
    """Reduction `op`'s Triton `part` (ops.REDUCTIONS) for dtype dt, filled in."""
    info = torch.iinfo(dt) if not dt.is_floating_point and dt != torch.bool else None
    return reduce_spelling(op, "triton", part, dt).format(
        ct=compute_dtype(dt), imin=info.min if info else "", imax=info.max if info else "", **fields)


PREAMBLE = '''import triton
import triton.language as tl
from triton.language.extra import libdevice

if triton.knobs.runtime.interpret:  # libdevice has no interpreter version
    from bessemer.compiler.codegen import triton_interp as libdevice  # noqa: F811
    from bessemer.compiler.codegen.triton_interp import to_bf16 as _to_bf16
else:
    @triton.jit
    def _to_bf16(x):
        return x.to(tl.bfloat16)  # round to nearest even


@triton.jit
def _floordiv_f(a, b):
    # Python's floor division on floats (ATen's div(rounding_mode="floor"))
    mod = libdevice.fmod(a, b)
    div = (a - mod) / b
    div = tl.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1.0, div)
    fl = tl.floor(div)
    fl = tl.where(div - fl > 0.5, fl + 1.0, fl)
    fl = tl.where(div == 0, libdevice.copysign(div * 0.0, a / b), fl)
    return tl.where(b == 0, a / b, fl)


@triton.jit
def _floordiv_i(a, b):
    q = a // b
    return q - (((a % b) != 0) & ((a < 0) != (b < 0))).to(q.dtype)


@triton.jit
def _remainder_f(a, b):
    m = libdevice.fmod(a, b)
    return tl.where((m != 0) & ((b < 0) != (m < 0)), m + b, m)


@triton.jit
def _remainder_i(a, b):
    m = a % b
    return tl.where((m != 0) & ((b < 0) != (m < 0)), m + b, m)


@triton.jit
def _powi(a, b):
    # an integer to an integer power as ATen's powi computes it: by squaring in int64, wrapping
    # around as eager's integer arithmetic does (the caller truncates to the result's type); a
    # negative exponent gives 1 for 1, +-1 for -1 and 0 otherwise
    x = a.to(tl.int64) + b.to(tl.int64) * 0
    e = b.to(tl.int64) + a.to(tl.int64) * 0
    r = x * 0 + 1
    k = tl.where(e < 0, 0, e)
    for _ in range(64):
        r = tl.where((k & 1) != 0, r * x, r)
        x = x * x
        k = k >> 1
    neg = tl.where(a.to(tl.int64) == 1, 1, tl.where(a.to(tl.int64) == -1, 1 - 2 * (e & 1), 0))
    return tl.where(e < 0, neg, r)


@triton.jit
def _prod(a, b):
    return a * b

'''


@dataclass
class TritonMeta:
    """What the launcher needs to know about a kernel: its tiling."""
    kind: str          # "pointwise" | "reduce"
    numel: int         # elements of the domain
    rows: int          # rows of a reduction (numel for pointwise)
    rlen: int          # row length (1 for pointwise)
    persistent: bool   # a whole row in one tile
    column: bool       # the innermost dim is kept (rows are strided)
    bytes: int         # bytes the kernel reads and writes, for achieved bandwidth
    fn_name: str = ""  # the module's function for it (identical kernels share one)
    split: int = 0     # split column reduction: chunks of rows (0: not split)
    n_acc: int = 0     # split: fp32 partial results per column per chunk
    chunk: int = 0     # split with symbolic sizes: rows per chunk; the launcher derives `split`
                       # from the row length at run time and passes it (NSPLIT, SBLOCK)


# ------------------------------------------------------------------------------
# the printer
# ------------------------------------------------------------------------------
_MASK = {"": "None", "x": "xmask", "r": "rmask", "xr": "xrmask"}
_ZERO = {"": "", "x": " + xzero", "r": " + rzero", "xr": " + xrzero"}


def is_literal(e) -> bool:
    """A Python literal in the source: weakly typed to Triton (and without .to())."""
    return isinstance(e, L.Const) and not isinstance(e.value, Dim)


def _and(a: str, b: str) -> str:
    return and_of(render_op, a, b)


def cond(c: tuple) -> str:
    return range_condition(c, render_op)


def _load(e: L.Load) -> str:
    if e.cond:   # a masked load: the block's mask and the condition, `other` where either fails
        mask = cond(e.cond) if not e.mask else _and(_MASK[e.mask], cond(e.cond))
        v = f"tl.load(b{e.param} + {e.index.format()}{_ZERO[e.fill]}{_indirect(e.indirect)}, {mask}, " \
            f"other={literal(e.other, e.dtype)})"
    elif e.indirect is not None:   # a gathered load: the pointer takes the mask's shape
        mask = "" if not e.mask else f", {_MASK[e.mask]}, other=0"
        v = f"tl.load(b{e.param} + {e.index.format()}{_ZERO[e.fill]}{_indirect(e.indirect)}{mask})"
    else:
        mask = "" if not e.mask else f", {_MASK[e.mask]}, other=0"
        v = f"tl.load(b{e.param} + {e.index.format()}{mask})"
    return f"{v}.to(tl.float32)" if e.dtype in LOW_FLOATS else v


def _indirect(i) -> str:
    """A gathered load's address term: the index value (in range, as lowering proved) times the stride."""
    return "" if i is None else f" + ({expr(i.value)}) * {i.stride}"


def _iota(e: L.Iota) -> str:
    ct = compute_dtype(e.dtype)
    return f"({literal(e.start, e.dtype)} + {literal(e.step, e.dtype)} * ({e.index.format()}).to({ct}))"


EXPRS = {
    L.Load: _load,
    L.Const: lambda e: literal(e.value, e.dtype),
    L.Iota: _iota,
    L.Op: lambda e: render_op(e.op, [expr(a) for a in e.args], e, list(e.arg_dtypes)),
    L.Select: lambda e: render_op("where", [cond(e.cond), expr(e.value), expr(e.other)], e,
                                  [torch.bool, e.dtype, e.dtype]),
    L.Round: lambda e: f"{narrow(expr(e.value), e.dtype)}.to(tl.float32)",
    L.Temp: lambda e: e.name,
    L.AccRef: lambda e: e.name,
}


def expr(e) -> str:
    return EXPRS[type(e)](e)


def _store(s: L.Store, pad: str, plan) -> list[str]:
    value = expr(s.value) if is_literal(s.value) else narrow(expr(s.value), s.dtype)
    return [f"{pad}tl.store(b{s.param} + {s.index.format()}{_ZERO[s.fill]}, {value}, {_MASK[s.mask]})"]


def _fold(s: L.Fold, pad: str, plan) -> list[str]:
    at = render_reduce(s.op, s.dtype, "acc")
    v = expr(s.value)
    if is_literal(s.value):   # a reduction of a constant: a block of it (a literal has no .to())
        v = f"tl.full([XBLOCK, RBLOCK], {v}, {compute_dtype(s.value_dtype)})"
    ident = render_reduce(s.op, s.dtype, "ident")
    val = render_reduce(s.op, s.dtype, "val", v=v, at=at)
    if s.tile:
        return [f"{pad}{s.acc.name} = tl.where(xrmask, {val}, {ident})"]
    return [f"{pad}{s.acc.name} = " + render_reduce(s.op, s.dtype, "step", acc=s.acc.name, v=v, val=val, ident=ident)]


def _combine(s: L.Combine, pad: str, plan) -> list[str]:
    code = render_reduce(s.op, s.dtype, "read" if s.read else "combine", acc=s.acc)
    return [f"{pad}{s.acc} = {code}"] if code else []


def _acc_decl(s: L.AccDecl, pad: str, plan) -> list[str]:
    at, ident = render_reduce(s.op, s.dtype, "acc"), render_reduce(s.op, s.dtype, "ident")
    return [f"{pad}{s.name} = tl.full([XBLOCK, RBLOCK], {ident}, {at})"]


def _index_vars(s: L.IndexVars, pad: str, plan) -> list[str]:
    out = []
    for v, div, mod in s.vars:
        e = s.flat if div == 1 else f"({s.flat} // {div})"
        if mod is not None:
            e = f"({e} % {mod})"
        out.append(f"{pad}{v} = {e}")
    return out


def _xtile(s: L.XTile, pad: str, plan) -> list[str]:
    it = s.index_type
    return [f"{pad}xs = tl.program_id(0).to({it}) * XBLOCK + tl.arange(0, XBLOCK).to({it})"
            + ("[:, None]" if s.rows else ""), f"{pad}xmask = xs < {s.bound}", f"{pad}xzero = xs * 0"]


def _rbase(s: L.RBase, pad: str, plan) -> list[str]:
    out = [f"{pad}rbase = tl.arange(0, RBLOCK).to({s.index_type})[None, :]"]
    if s.chunk:
        out.append(f"{pad}rstart = tl.program_id(1).to({s.index_type}) * {s.chunk}")
    return out


def _row_tile(s: L.RowTile, pad: str, plan) -> list[str]:
    start = f"{s.start} + rbase" if s.start else "rbase"
    mask = f"(rs < {s.rlen}) & (roff + rbase < {s.chunk})" if s.chunk else f"rs < {s.rlen}"
    return [f"{pad}rs = {start}", f"{pad}rmask = {mask}", f"{pad}xrmask = xmask & rmask",
            f"{pad}rzero = rs * 0", f"{pad}xrzero = xzero + rzero"]


def _loop(s: L.Loop, pad: str, plan) -> list[str]:
    return [f"{pad}for {s.var} in range({s.start}, {s.stop}, {s.step}):"] + block(s.body, pad + "    ", plan)


def _ws_base(slot: int, plan: L.TritonPlan) -> str:
    return f"{slot} * NSPLIT * {plan.rows}" if plan.dynamic else str(slot * plan.split * plan.rows)


def _ws_store(s: L.WorkspaceStore, pad: str, plan) -> list[str]:
    return [f"{pad}tl.store(ws + {_ws_base(s.slot, plan)} + tl.program_id(1) * {s.columns} + xs, {s.acc}, xmask)"]


def _ws_load(s: L.WorkspaceLoad, pad: str, plan) -> list[str]:
    ident = render_reduce(s.op, s.dtype, "ident")
    return [f"{pad}{s.acc} = tl.load(ws + {_ws_base(s.slot, plan)} + sidx * {s.columns} + xs, smask, other={ident})"]


STMTS = {
    L.Let: lambda s, pad, plan: [f"{pad}{s.name} = {expr(s.value)}"],
    L.Store: _store,
    L.AccDecl: _acc_decl,
    L.Fold: _fold,
    L.Combine: _combine,
    L.IndexVars: _index_vars,
    L.XTile: _xtile,
    L.RBase: _rbase,
    L.RowTile: _row_tile,
    L.Loop: _loop,
    L.ChunkIndex: lambda s, pad, plan: [f"{pad}sidx = tl.arange(0, {s.block})[None, :]",
                                        f"{pad}smask = xmask & (sidx < {s.chunks})"],
    L.WorkspaceStore: _ws_store,
    L.WorkspaceLoad: _ws_load,
}


def block(stmts, pad: str, plan) -> list[str]:
    out: list[str] = []
    for s in stmts:
        out += STMTS[type(s)](s, pad, plan)
    return out


def print_kernel(lk: L.LoopKernel) -> KernelSource:
    plan: L.TritonPlan = lk.plan
    bodies = ["\n".join(block(lk.body, "    ", plan))]
    names = [p.name for p in lk.params] + list(lk.syms)
    if plan.mode == "split":
        bodies.append("\n".join(block(lk.fin, "    ", plan)))
        names += ["ws"] + (["NSPLIT"] if plan.dynamic else [])
    names += ["XBLOCK: tl.constexpr", "RBLOCK: tl.constexpr"]
    if plan.mode == "split" and plan.dynamic:
        names.append("SBLOCK: tl.constexpr")
    params = ", ".join(names)
    fn = _function_name(params, *bodies)
    src = f"@triton.jit\ndef {fn}({params}):\n{bodies[0]}\n"
    if plan.mode == "split":
        src += f"\n\n@triton.jit\ndef {fn}_fin({params}):\n{bodies[1]}\n"
    meta = TritonMeta("pointwise" if plan.mode == "pointwise" else "reduce", plan.numel, plan.rows, plan.rlen,
                      plan.mode == "persistent", plan.column, lk.bytes, fn,
                      split=plan.split, n_acc=plan.n_acc,
                      chunk=plan.chunk if plan.dynamic else 0)
    return KernelSource(lk.name, src, list(lk.nodes), list(lk.writes), meta, lk.kind, lk.bytes, lk.syms)


def _function_name(params: str, *bodies: str) -> str:
    """A function's name from its code: kernels with the same code (each layer's copy
    of a block) get the same name and become one function."""
    h = hashlib.sha256(params.encode())
    for b in bodies:
        h.update(b"\0" + b.encode())
    return "k_" + h.hexdigest()[:12]


def print_program(program: L.LoopProgram) -> tuple[str, list[KernelSource]]:
    """One Python module holding every Triton kernel of a loop program
    (lower_kernels(sched, "triton")).

    Kernels with the same code (the same block in each of a transformer's layers)
    become one function, named by a hash of its code: Triton compiles and the
    autotuner times it once, however many layers launch it."""
    kernels = [print_kernel(lk) for lk in program.kernels]
    bodies: dict[str, str] = {}
    for k in kernels:
        bodies.setdefault(k.meta.fn_name, k.code)
    src = PREAMBLE + "\n" + "\n\n".join(bodies.values())
    return src, kernels


def render(sched: Schedule) -> tuple[str, list[KernelSource]]:
    """The Triton module of a schedule: lower_kernels, then print_program."""
    from bessemer.compiler.passes.lower_kernels import lower_kernels
    return print_program(lower_kernels(sched, "triton"))
