"""The C++ printer: a schedule's loop program (ir/loops.py) as OpenMP loops gcc can vectorize.

A kernel is one `extern "C"` function taking one pointer per buffer it reads or
writes, then the size symbols it uses. Every decision (loop order and merging,
parallel loops, tiles, column blocks, where each value is computed) was made by
passes/lower_kernels.py; this module spells what it made: statements and values by
the tables below (storage and compute types per dtype, literals, ops.py's C++
spellings of the pointwise ops and reductions).
"""
from __future__ import annotations

import functools
import math
import os
import platform
from typing import Optional

import torch

from bessemer.compiler.ir import loops as L
from bessemer.compiler.ir.ops import OPS, reduce_spelling, spelling
from bessemer.compiler.ir.schedule import Schedule
from bessemer.compiler.ir.symbolic import Dim
from bessemer.compiler.codegen.kernel import CodegenError, KernelSource, range_condition


_STORAGE = {
    torch.float32: "float", torch.float64: "double", torch.bfloat16: "uint16_t", torch.float16: "_Float16",
    torch.int64: "int64_t", torch.int32: "int32_t", torch.int16: "int16_t", torch.int8: "int8_t",
    # bool buffers are read and written as bytes: gcc 12 vectorizes no loop that loads or stores
    # C++ bool (a ReLU's backward mask over [8, 32, 64, 64]: 4.4 ms as bool, 0.13 ms as bytes)
    torch.uint8: "uint8_t", torch.bool: "uint8_t",
}
_COMPUTE = {
    torch.float32: "float", torch.float64: "double", torch.bfloat16: "float", torch.float16: "float",
    torch.int64: "int64_t", torch.int32: "int32_t", torch.int16: "int16_t", torch.int8: "int8_t",
    torch.uint8: "uint8_t", torch.bool: "bool",
}


def storage_type(dt: torch.dtype) -> str:
    if dt not in _STORAGE:
        raise CodegenError(f"dtype {dt} is not supported by the C++ backend")
    return _STORAGE[dt]


def compute_type(dt: torch.dtype) -> str:
    if dt not in _COMPUTE:
        raise CodegenError(f"dtype {dt} is not supported by the C++ backend")
    return _COMPUTE[dt]


# math functions with a vector variant in glibc's libmvec (x86_64)
_MVEC_F = ["expf", "logf", "sinf", "cosf", "tanhf", "erff", "erfcf", "expm1f", "log1pf", "log2f", "log10f",
           "exp2f", "tanf", "atanf", "asinf", "acosf", "sinhf", "coshf", "asinhf", "acoshf", "atanhf"]
_MVEC_F2 = ["powf", "atan2f"]


def _use_mvec() -> bool:
    return platform.machine() == "x86_64" and any(
        os.path.exists(p) for p in ("/usr/lib/x86_64-linux-gnu/libmvec.so", "/lib/x86_64-linux-gnu/libmvec.so",
                                    "/usr/lib64/libmvec.so"))


@functools.lru_cache(maxsize=None)
def _aten_vector_erf() -> bool:
    """Whether eager computes float erf with ATen's vectorized formula here (AVX2 / AVX-512
    kernels, which also give the FMA the formula is written with); elsewhere it calls std::erf."""
    try:
        return torch.backends.cpu.get_cpu_capability() in ("AVX2", "AVX512")
    except Exception:  # noqa: BLE001 - an unknown capability: libm's erff, as ATen's default kernels
        return False


def preamble() -> str:
    # no <algorithm> (min_i64 below): with it and C++17's <cmath> (its special functions) the
    # headers alone took 0.22 s of each unit's compile, 0.08 s without either
    lines = ["#include <cmath>", "#include <cstdint>", "#include <cstdlib>", "#include <cstring>", "#include <limits>",
             "#include <omp.h>", "", "static inline int64_t min_i64(int64_t a, int64_t b) { return b < a ? b : a; }", ""]
    # `const`: these functions read no memory and, under -fno-math-errno, write none; sinf and
    # cosf are no builtins (build.py's flags), and without the attribute gcc would not know it
    lines.append('extern "C" {')
    if _use_mvec():
        for f in _MVEC_F:
            lines += ["#pragma omp declare simd notinbranch", f"float {f}(float) noexcept __attribute__((const));"]
        for f in _MVEC_F2:
            lines += ["#pragma omp declare simd notinbranch",
                      f"float {f}(float, float) noexcept __attribute__((const));"]
    else:
        lines += ["float sinf(float) noexcept __attribute__((const));",
                  "float cosf(float) noexcept __attribute__((const));"]
    lines.append("}")
    lines.append(r'''
static inline float bf16_load(uint16_t v) { uint32_t u = ((uint32_t)v) << 16; float f; std::memcpy(&f, &u, 4); return f; }
static inline uint16_t bf16_store(float f) {
  uint32_t u; std::memcpy(&u, &f, 4);
  if (f != f) return (uint16_t)0x7fc0;
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}
static inline float bf16_round(float f) { return bf16_load(bf16_store(f)); }
// a float that is a bf16 value already (rounded, or loaded): its upper half
static inline uint16_t bf16_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return (uint16_t)(u >> 16); }
// fp16 is stored as _Float16 (gcc: IEEE half, round-to-nearest-even conversions, as c10::Half)
static inline float fp16_round(float f) { return (float)(_Float16)f; }
template <typename T> static inline T maximum_(T a, T b) { return (a > b || a != a) ? a : b; }
template <typename T> static inline T minimum_(T a, T b) { return (a < b || a != a) ? a : b; }
template <typename T> static inline T floordiv_f(T a, T b) {
  if (b == 0) return a / b;
  T mod = std::fmod(a, b); T div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
  T fl;
  if (div != 0) { fl = std::floor(div); if (div - fl > (T)0.5) fl += 1; } else { fl = std::copysign((T)0, a / b); }
  return fl;
}
template <typename T> static inline T floordiv_i(T a, T b) {
  T q = a / b; if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1; return q;
}
template <typename T> static inline T remainder_f(T a, T b) {
  T m = std::fmod(a, b); if (m != 0 && ((b < 0) != (m < 0))) m += b; return m;
}
template <typename T> static inline T remainder_i(T a, T b) {
  T m = a % b; if (m != 0 && ((b < 0) != (m < 0))) m += b; return m;
}
template <typename T> static inline T sign_(T a) { return (T)((a > 0) - (a < 0)); }
// an integer to an integer power as ATen's powi computes it: by squaring, wrapping around as
// eager's integer arithmetic does (computed in uint64, truncated to T); a negative exponent
// gives 1 for 1, +-1 for -1 and 0 otherwise
template <typename T> static inline T powi_(T a, T b) {
  if (b < 0) return (T)(a == 1 ? 1 : (a == -1 ? ((b % 2) ? -1 : 1) : 0));
  uint64_t r = 1, x = (uint64_t)(int64_t)a, e = (uint64_t)(int64_t)b;
  while (e) { if (e & 1) r *= x; x *= x; e >>= 1; }
  return (T)r;
}
// a float to a 32- or 64-bit integer as this CPU's truncating conversion gives it (what eager's
// kernels return): NaN and values out of range are the type's minimum, x86's "integer
// indefinite". Written out, the conversion is defined, so gcc cannot fold a conversion back
// to float into a truncation (NaN would stay NaN, inf stay inf).
template <typename I, typename F> static inline I f2i(F x) {
  const F lim = (F)((uint64_t)1 << (8 * sizeof(I) - 1));
  return (x == x && x < lim && x >= -lim) ? (I)x : (I)((uint64_t)1 << (8 * sizeof(I) - 1));
}
''')
    if _use_mvec():
        lines.append(r'''// exp of a value that may be far below zero (passes/cpp_loops.guard_low_exps). libmvec's
// vector expf computes a lane outside about [-87.3, 88.7] by a call of the scalar expf, one
// lane at a time, and a loop slows with every vector that holds one: a causal softmax's
// masked scores (-FLT_MAX or -inf, minus the row's max) are half its lanes. Below -87 the
// result is under float's smallest normal: computed as e^(x + 64 ln 2) * 2^-64 with the
// argument in the fast range (a subnormal, within a few of its ulps), and below -104 (a
// result that rounds to 0) as 0 times a normal value, which costs no subnormal arithmetic.
// The shift and the scale are selected apart from the call, so that gcc keeps one call.
static inline float expf_lo(float x) {
  const float shift = x < -87.0f ? 44.3614196f : 0.0f;
  const float scale = x < -87.0f ? (x < -104.0f ? 0.0f : 5.42101086e-20f) : 1.0f;
  return expf((x < -110.0f ? -110.0f : x) + shift) * scale;
}
''')
    else:
        lines.append("static inline float expf_lo(float x) { return expf(x); }")
    if _aten_vector_erf():
        lines.append(r'''// erf as ATen's vectorized CPU kernels compute it (Vectorized<float>::erf, what eager's
// erf, GELU and GELU backward use): Abramowitz & Stegun 7.1.26, absolute error < 1.5e-7.
// gcc vectorizes it inline (a GELU over [1576, 1024] at 512 bits: 0.61 ms, libmvec's erff 0.82).
// From x * x = 80 on, the exp term is below 2e-35 and the result is +-1 exactly, as it is
// with the exp of the square itself; the square is held at 80 there, so that libmvec's
// expf does not take its scalar path for the lanes below -87.3 (DeBERTa small's two GELU
// backward kernels over [1024, 1024]: 1.8 -> 1.05 ms each; BERT small's, whose values stay
// nearer zero, unchanged). Over all 2^32 floats the same bits as without the hold
// (scripts/erf_hold_check.py).
// NaN stays NaN (the comparison).
static inline float erf_aten(float x) {
  float a = std::fabs(x);
  float t = 1.0f / fmaf(0.3275911f, a, 1.0f);
  float r = fmaf(fmaf(fmaf(fmaf(1.061405429f, t, -1.453152027f), t, 1.421413741f), t, -0.284496736f), t,
                 0.254829592f);
  float q = x * x;
  q = q > 80.0f ? 80.0f : q;
  return std::copysign(fmaf(-expf(-q) * t, r, 1.0f), x);
}
''')
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------
# scalar expressions
# ------------------------------------------------------------------------------
def literal(v, dt: torch.dtype) -> str:
    ct = compute_type(dt)
    if isinstance(v, Dim):
        return f"(({ct}){v})"   # a size, from the symbols the kernel takes
    if dt == torch.bool:
        return "true" if v else "false"
    if dt.is_floating_point:
        v = float(v)
        if math.isnan(v):
            return f"(({ct})NAN)"
        if math.isinf(v):
            return f"(({ct})INFINITY)" if v > 0 else f"(-({ct})INFINITY)"
        return f"(({ct}){v!r})"
    return f"(({ct}){int(v)}LL)"


@functools.lru_cache(maxsize=None)
def code_for_op() -> dict[str, dict[str, str]]:
    """ops.py's C++ spellings, with this machine's overlay: where eager computes float erf
    with ATen's vectorized formula, the kernels do too (erf_aten in the preamble)."""
    table = {name: dict(d.cpp) for name, d in OPS.items()}
    if _aten_vector_erf():
        table["erf"].update({dt: "erf_aten({a})" for dt in ("float32", "bfloat16", "float16")})
    return table


def render_op(op: str, args: list[str], n, arg_dtypes: list[torch.dtype]) -> str:
    if op not in OPS:
        raise CodegenError(f"no C++ rendering for pointwise op {op!r}")
    template = spelling(code_for_op()[op], n.dtype)
    if template is None:
        raise CodegenError(f"{op} on {n.dtype}")
    ct = compute_type(n.dtype)
    a, b, c = (list(args) + [None, None, None])[:3]
    if op == "cast" and n.dtype in (torch.int32, torch.int64) and arg_dtypes and arg_dtypes[0].is_floating_point:
        return f"f2i<{ct}>({a})"
    return template.format(a=a, b=b, c=c, ct=ct, f="f" if ct == "float" else "")




def render_reduce(op: str, dt: torch.dtype, part: str, **fields) -> str:
    """Reduction `op`'s C++ `part` (ops.REDUCTIONS) for dtype dt, filled in."""
    return reduce_spelling(op, "cpp", part, dt).format(ct=compute_type(dt), **fields)


# ------------------------------------------------------------------------------
# the printer
# ------------------------------------------------------------------------------
def cond(c: tuple) -> str:
    return range_condition(c, render_op)


def _load(e: L.Load) -> str:
    ref = f"b{e.param}[{e.index.format()}{_indirect(e.indirect)}]"
    if e.dtype == torch.bfloat16:
        ref = f"bf16_load({ref})"
    elif e.dtype == torch.float16:
        ref = f"((float){ref})"
    elif e.dtype == torch.bool:
        ref = f"({ref} != 0)"
    if e.cond:   # a masked load: read only where the condition holds
        return render_op("where", [cond(e.cond), ref, literal(e.other, e.dtype)], e,
                         [torch.bool, e.dtype, e.dtype])
    return ref


def _indirect(i) -> str:
    """A gathered load's address term: the index value (in range, as lowering proved) times the stride."""
    return "" if i is None else f" + (int64_t)({expr(i.value)}) * {i.stride}"


def _acc(e: L.AccRef) -> str:
    a = f"{e.name}[o0 - ob]" if e.block else e.name
    if not e.narrow:
        return a
    # a reduction's accumulator as other members read it: in the reduction's dtype
    if e.dtype == torch.bfloat16:
        return f"bf16_round((float){a})"
    if e.dtype == torch.float16:
        return f"fp16_round((float){a})"
    return f"(({compute_type(e.dtype)}){a})"


def _iota(e: L.Iota) -> str:
    ct = compute_type(e.dtype)
    return f"(({ct}){literal(e.start, e.dtype)} + ({ct}){literal(e.step, e.dtype)} * ({ct})({e.index.format()}))"


def _round(e: L.Round) -> str:
    fn = "bf16_round" if e.dtype == torch.bfloat16 else "fp16_round"
    return f"{fn}((float)({expr(e.value)}))"


def _part(e: L.PartRef) -> str:
    at = render_reduce(e.op, e.dtype, "acc")
    return f"(({at}*)part)[((int64_t)t * {e.n_acc} + {e.slot}) * ({e.columns}) + o0]"


EXPRS = {
    L.Load: _load,
    L.Const: lambda e: literal(e.value, e.dtype),
    L.Iota: _iota,
    L.Op: lambda e: render_op(e.op, [expr(a) for a in e.args], e, list(e.arg_dtypes)),
    L.Select: lambda e: render_op("where", [cond(e.cond), expr(e.value), expr(e.other)], e,
                                  [torch.bool, e.dtype, e.dtype]),
    L.Round: _round,
    L.Temp: lambda e: e.name,
    L.AccRef: _acc,
    L.TileRef: lambda e: f"tile{e.tile}[{e.vl} - {e.vl}b][{e.vj} - {e.vj}b]",
    L.PartRef: _part,
    L.StageRef: lambda e: f"stage{e.stage}[{e.var} - {e.start}]",
}


def expr(e) -> str:
    return EXPRS[type(e)](e)


def stored(dt: torch.dtype, value: str, exact: bool = False) -> str:
    """`value` converted to storage type of dt (`exact`: it is one of dt's values already)."""
    if dt == torch.bfloat16:
        return f"bf16_bits({value})" if exact else f"bf16_store({value})"
    return f"({storage_type(dt)})({value})"


def _cond(cond: tuple) -> str:
    return f" if(parallel: {' && '.join(f'{a} {o} {b}' for a, o, b in cond)})" if cond else ""


def pragma(p: L.Parallel) -> str:
    collapse = f" collapse({p.collapse})" if p.collapse else ""
    return f"#pragma omp parallel for{' simd' if p.simd else ''}{collapse}{_cond(p.cond)}"


def _clause(r: L.Reduction) -> str:
    c = f"reduction({render_reduce(r.op, r.dtype, 'omp')}:{r.acc})"
    return c + (f" reduction(|:{r.nan_flag})" if r.nan_flag else "")


def _store(s: L.Store, pad: str) -> list[str]:
    value = expr(s.value)
    if not isinstance(s.value, L.TileRef):   # a tile holds values already in storage type
        value = stored(s.dtype, value, s.exact)
    return [f"{pad}b{s.param}[{s.index.format()}] = {value};"]


def _scatter_add(s: L.ScatterAdd, pad: str) -> list[str]:
    """A scatter's add: its index value is in range (lowering proved it)."""
    return [f"{pad}b{s.param}[{s.index.format()}{_indirect(s.indirect)}] += "
            f"({storage_type(s.dtype)})({expr(s.value)});"]


def _acc_decl(s: L.AccDecl, pad: str) -> list[str]:
    at, init = render_reduce(s.op, s.dtype, "acc"), render_reduce(s.op, s.dtype, "init")
    if s.block is not None:
        return [f"{pad}{at} {s.name}[{s.block}]; for (int i = 0; i < {s.block}; i++) {s.name}[i] = ({at}){init};"]
    out = [f"{pad}{at} {s.name} = ({at}){init};"]
    if s.nan_flag:
        out.append(f"{pad}int nan_{s.red} = 0;")
    return out


def _fold(s: L.Fold, pad: str) -> list[str]:
    at = render_reduce(s.op, s.dtype, "acc")
    v = expr(s.value)
    line = render_reduce(s.op, s.dtype, "fold_omp" if s.omp else "fold", acc=expr(s.acc), v=v, at=at, name=s.red)
    if s.keep_nan:
        line += f" nan_{s.red} |= ({v} != {v});"
    return [pad + line]


def _loop(s: L.Loop, pad: str) -> list[str]:
    out = []
    if s.parallel is not None:
        out.append(pad + pragma(s.parallel))
    elif s.simd is not None:
        out.append(f"{pad}#pragma omp simd {' '.join(_clause(r) for r in s.simd)}".rstrip())
    v = s.var
    step = f"{v}++" if s.step == 1 else f"{v} += {s.step}"
    out.append(f"{pad}for ({s.ctype} {v} = {s.start}; {v} < {s.stop}; {step}) {{")
    out += block(s.body, pad + "  ")
    out.append(pad + "}")
    return out


def _region(s: L.ThreadRegion, pad: str) -> list[str]:
    p2 = pad + "  "
    return [f"{pad}const int nt_max = omp_get_max_threads();",
            f"{pad}int nt_used = 1;",
            # one slice of doubles per thread and reduction (any accumulator type fits in 8 bytes)
            f"{pad}char* part = (char*)std::malloc((size_t)8 * {s.n_acc} * (size_t)({s.columns}) * nt_max);",
            f"{pad}#pragma omp parallel{_cond(s.cond)}",
            pad + "{",
            f"{p2}const int t = omp_get_thread_num(), nt = omp_get_num_threads();",
            f"{p2}if (t == 0) nt_used = nt;",
            f"{p2}const int64_t rb = (int64_t)({s.rows}) * t / nt, re = (int64_t)({s.rows}) * (t + 1) / nt;"
            ] + block(s.body, p2) + [pad + "}"]


def _ws_store(s: L.WorkspaceStore, pad: str) -> list[str]:
    at = render_reduce(s.op, s.dtype, "acc")
    return [f"{pad}(({at}*)part)[((int64_t)t * {s.n_acc} + {s.slot}) * ({s.columns}) + o0] = {s.acc}[o0 - ob];"]


STMTS = {
    L.Let: lambda s, pad: [f"{pad}{compute_type(s.dtype)} {s.name} = {expr(s.value)};"],
    L.Store: _store,
    L.ScatterAdd: _scatter_add,
    L.StageDecl: lambda s, pad: [f"{pad}{compute_type(s.dtype)} stage{s.stage}[{s.size}];"],
    L.StageStore: lambda s, pad: [f"{pad}stage{s.stage}[{s.position()}] = {expr(s.value)};"],
    L.TileDecl: lambda s, pad: [f"{pad}{storage_type(s.dtype)} tile{s.tile}[{s.shape[0]}][{s.shape[1]}];"],
    L.TileStore: lambda s, pad: [f"{pad}{expr(s.ref)} = {stored(s.dtype, expr(s.value), s.exact)};"],
    L.AccDecl: _acc_decl,
    L.Fold: _fold,
    L.NanRestore: lambda s, pad: [f"{pad}if (nan_{s.red}) {s.acc} = NAN;"],
    L.Loop: _loop,
    L.BlockEnd: lambda s, pad: [pad + "const int64_t " + ", ".join(
        f"{e} = min_i64({b} + {st}, {n})" for e, b, st, n in s.ends) + ";"],
    L.ThreadRegion: _region,
    L.WorkspaceStore: _ws_store,
    L.FreeParts: lambda s, pad: [f"{pad}std::free(part);"],
    L.Scope: lambda s, pad: [pad + "{"] + block(s.body, pad + "  ") + [pad + "}"],
}


def block(stmts, pad: str) -> list[str]:
    out: list[str] = []
    for s in stmts:
        out += STMTS[type(s)](s, pad)
    return out


def print_kernel(lk: L.LoopKernel) -> KernelSource:
    params = []
    for p in lk.params:
        const = "" if p.written else "const "
        # no two parameters of a kernel share memory (the memory plan hands a buffer
        # to a new one only after its last reader ran), so all are __restrict__, but
        # for an output written in place over an input
        restrict = "" if p.aliased else " __restrict__"
        params.append(f"{const}{storage_type(p.dtype)}*{restrict} {p.name}")
    code = block(lk.body, "  ")
    # symbolic sizes: passed by value after the buffers
    params += [f"const int64_t {s}" for s in lk.syms]
    head = f'extern "C" void {lk.name}({", ".join(params)}) {{'
    src = "\n".join([head] + code + ["}"]) + "\n"
    return KernelSource(lk.name, src, list(lk.nodes), list(lk.writes),
                        None, lk.kind, lk.bytes, lk.syms)


def print_program(program: L.LoopProgram) -> tuple[str, list[KernelSource]]:
    """The C++ translation unit of a loop program (lower_kernels(sched, "cpp"))."""
    kernels = [print_kernel(lk) for lk in program.kernels]
    return _unit(kernels), kernels


def _unit(kernels: list[KernelSource]) -> str:
    return preamble() + "\n" + "\n".join(k.code for k in kernels)


def translation_units(kernels: list[KernelSource], parts: int) -> list[str]:
    """The kernels in `parts` translation units of about equal length (the longest kernels
    placed first, each on the shortest unit so far), each with the preamble: together they
    define what print_program's one unit does, for a build that compiles them at once."""
    groups: list[list[KernelSource]] = [[] for _ in range(max(1, min(parts, len(kernels))))]
    sizes = [0] * len(groups)
    for k in sorted(kernels, key=lambda k: len(k.code), reverse=True):
        i = sizes.index(min(sizes))
        groups[i].append(k)
        sizes[i] += len(k.code)
    return [_unit(g) for g in groups]


def render(sched: Schedule, cores: Optional[int] = None) -> tuple[str, list[KernelSource]]:
    """The C++ translation unit for all kernels of a schedule, for a machine with
    `cores` cores (default: this one's): lower_kernels, then print_program."""
    from bessemer.compiler.passes.lower_kernels import lower_kernels
    return print_program(lower_kernels(sched, "cpp", cores=cores))
