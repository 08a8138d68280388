"""The C++ renderer: a Schedule's kernels as OpenMP loops gcc can vectorize.

A kernel is one `extern "C"` function taking one pointer per buffer it reads or
writes. Loads and stores are linear in the loop indices (views were folded into
index maps); adjacent loop dims are merged where every access allows it, so most
kernels become one or two flat loops. Reduction kernels loop over rows in parallel
and run their reductions and epilogues over each row.
"""
from __future__ import annotations

import functools
import math
import os
import platform
from typing import Optional

import torch

from bessemer.compiler.ir.graph import IndexMap, Node
from bessemer.compiler.ir.ops import OPS, REDUCTIONS, reduce_spelling, spelling
from bessemer.compiler.ir.views import contiguous_strides
from bessemer.compiler.ir.schedule import Kernel, Role, Schedule, outer_map
from bessemer.compiler.ir.symbolic import Dim, hint, symbols_in
from bessemer.compiler.codegen.kernel import CodegenError, KernelBuilder, KernelSource

# Loops with fewer elements of work than this run on one thread: forking an OpenMP
# team costs a few microseconds, about what 32K simple element updates take.
PARALLEL_MIN_WORK = 32768

# A pointwise kernel that reads a buffer transposed (contiguous along the second-to-last
# loop, strided by at least TRANSPOSE_MIN_STRIDE elements along the last) and writes its
# outputs contiguously along the last loop runs in tiles of TRANSPOSE_TILE (second-to-last,
# last) elements: each tile is computed along the contiguous reads into a small buffer, then
# written out along the contiguous stores. Without tiles the inner loop gathers across
# rows: an NCHW -> NHWC copy with BatchNorm and ReLU over [64, 32, 32, 32] took 2.2 ms on
# 2 threads, 0.8 ms in (16, 32) tiles (0.9 ms in (16, 16), 1.4 ms in (16, 8)); a plain copy
# of that size 0.5 ms.
TRANSPOSE_MIN_STRIDE = 16
TRANSPOSE_TILE = (16, 32)


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
    lines = ["#include <cmath>", "#include <cstdint>", "#include <cstdlib>", "#include <cstring>", "#include <algorithm>", "#include <limits>",
             "#include <omp.h>", ""]
    if _use_mvec():
        lines.append('extern "C" {')
        for f in _MVEC_F:
            lines += ["#pragma omp declare simd notinbranch", f"float {f}(float) noexcept;"]
        for f in _MVEC_F2:
            lines += ["#pragma omp declare simd notinbranch", f"float {f}(float, float) noexcept;"]
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
''')
    if _aten_vector_erf():
        lines.append(r'''// erf as ATen's vectorized CPU kernels compute it (Vectorized<float>::erf, what eager's
// erf, GELU and GELU backward use): Abramowitz & Stegun 7.1.26, absolute error < 1.5e-7.
// gcc vectorizes it inline (a GELU over [1576, 1024] at 512 bits: 0.61 ms, libmvec's erff 0.82).
static inline float erf_aten(float x) {
  float a = std::fabs(x);
  float t = 1.0f / fmaf(0.3275911f, a, 1.0f);
  float r = fmaf(fmaf(fmaf(fmaf(1.061405429f, t, -1.453152027f), t, 1.421413741f), t, -0.284496736f), t,
                 0.254829592f);
  return std::copysign(fmaf(-expf(-(x * x)) * t, r, 1.0f), x);
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


def render_op(op: str, args: list[str], n: Node, arg_dtypes: list[torch.dtype]) -> str:
    if op not in OPS:
        raise CodegenError(f"no C++ rendering for pointwise op {op!r}")
    template = spelling(code_for_op()[op], n.dtype)
    if template is None:
        raise CodegenError(f"{op} on {n.dtype}")
    ct = compute_type(n.dtype)
    a, b, c = (list(args) + [None, None, None])[:3]
    return template.format(a=a, b=b, c=c, ct=ct, f="f" if ct == "float" else "")


# ------------------------------------------------------------------------------
# kernels
# ------------------------------------------------------------------------------
def parallel_pragma(loops: list[tuple[str, int]], inner_simd: bool, cores: int, cond: str = "",
                    vector: bool = True) -> str:
    """The OpenMP pragma of the outermost of `loops` (perfectly nested; the last one
    carries its own `#pragma omp simd` when `inner_simd`). `vector=False`: the body
    holds its own vector loops (a reduction kernel's rows), and the loop over rows is
    not one (gcc's attempt to vectorize it as well costs 7% on a layer norm's rows).

    A small outer loop (fewer than 4 iterations per core) leaves threads idle, so
    the loops are collapsed into one parallel iteration space -- but only the loops
    above a `simd` one: OpenMP requires collapsed loops to be perfectly nested, and
    a pragma between them breaks that (gcc: "not enough for loops to collapse").
    Keeping the vector loop out of the collapse trades some parallelism in a
    two-loop nest with a tiny outer loop for the inner loop's vectorization."""
    size = hint(loops[0][1])   # symbolic sizes: collapsing or not is correct either way
    collapsible = len(loops) - 1 if inner_simd else len(loops)
    collapse = f" collapse({collapsible})" if collapsible >= 2 and size < 4 * max(cores, 1) else ""
    # a lone parallel loop is also the vector loop: without `simd` gcc does not
    # vectorize the body OpenMP outlines
    simd = " simd" if len(loops) == 1 and vector else ""
    return f"#pragma omp parallel for{simd}{collapse}{cond}"


def parallel_if(work, extra: str = "") -> tuple[bool, str]:
    """(parallel or not, the pragma's run-time condition). Static sizes decide here; a
    symbolic amount of work decides at run time (OpenMP's `if(parallel: ...)`), so one
    kernel serves small and large shapes."""
    if isinstance(work, Dim):
        return True, f" if(parallel: {work} >= {PARALLEL_MIN_WORK}{extra})"
    return work >= PARALLEL_MIN_WORK, ""


class KernelWriter(KernelBuilder):
    """C++ syntax for the KernelBuilder, and the OpenMP loop structure.

    `cores` is the only machine fact the code depends on (whether small outer
    loops are collapsed); the tests render and build kernels for several counts."""

    def __init__(self, k: Kernel, sched: Schedule, cores: int):
        super().__init__(k, sched)
        self.cores = cores

    def literal(self, v, dt: torch.dtype) -> str:
        return literal(v, dt)

    def iota(self, n: Node, idx: str) -> str:
        ct = compute_type(n.dtype)
        return f"(({ct}){literal(n.attrs['start'], n.dtype)} + ({ct}){literal(n.attrs['step'], n.dtype)} * ({ct})({idx}))"

    def pointwise(self, n: Node, args: list[str]) -> str:
        return render_op(n.op, args, n, [a.dtype for a in n.args])

    def declare(self, name: str, dt: torch.dtype, code: str) -> str:
        return f"{compute_type(dt)} {name} = {code};"

    def round_low(self, code: str, dt: torch.dtype) -> str:
        return f"bf16_round((float)({code}))" if dt == torch.bfloat16 else f"fp16_round((float)({code}))"

    def load(self, base: Node, strides, offset, m: IndexMap, dt: torch.dtype) -> str:
        addr = self.address(base, strides, offset, m)
        ref = f"{self.param(base)}[{addr}]"
        if dt == torch.bfloat16:
            return f"bf16_load({ref})"
        if dt == torch.float16:
            return f"((float){ref})"
        if dt == torch.bool:
            return f"({ref} != 0)"
        return ref

    # -- expressions ---------------------------------------------------------------
    # -- stores ----------------------------------------------------------------------
    def store(self, n: Node, value: str, m_to_node: IndexMap) -> str:
        addr = self.address(n, contiguous_strides(n.shape), 0, m_to_node)
        return f"{self.param(n)}[{addr}] = {self.stored(n, value)};"

    def stored(self, n: Node, value: str) -> str:
        """`value` converted to n's storage type."""
        if n.dtype == torch.bfloat16:
            return f"bf16_store({value})"
        return f"({storage_type(n.dtype)})({value})"

    # -- the kernel ----------------------------------------------------------------------
    def render(self) -> KernelSource:
        k = self.k
        D = self.D
        red = set(k.red)
        outer_dims = [d for d in range(D) if d not in red and k.shape[d] != 1]
        inner_dims = [d for d in range(D) if d in red and k.shape[d] != 1]
        ident = IndexMap.identity(D)
        row_cache: dict = {}

        if not k.red:
            lines: list[str] = []
            cache: dict = {}
            stores = []
            for mbr in k.members:
                v = self.expr(mbr, ident, lines, cache, top=True)
                lines.append(self.store(mbr, v, ident))
                stores.append((mbr, v, len(lines) - 1, len(self.lins) - 1))   # its address: the last lin
                cache[(mbr, ident)] = v
            return self._finish(outer_dims + inner_dims, [], lines, [], reduction=False, stores=stores)

        phases = self.phases()
        # Column mode when the innermost dim is kept (a bias gradient over [rows, C]):
        # a block of columns is read contiguously from each row. When the innermost
        # dim is reduced (batch norm over N, H, W), row mode already reads rows
        # contiguously, one channel per thread.
        if _innermost_kept(k) and all(role != Role.FULL for role, _ in phases) and len(outer_dims) >= 1:
            col = self._render_column(phases, outer_dims, inner_dims)
            if col is not None:
                return col
            self.__init__(k, self.sched, self.cores)  # outer dims do not merge into one loop: use row mode
        row_code: list = []
        for role, mbrs in phases:
            if role == Role.REDUCE:
                decl, lines, after, reds = [], [], [], []
                cache: dict = {}
                pre: list[str] = []
                self.hoist = (pre, row_cache)
                for r in mbrs:
                    acc = f"acc_{r.name}"
                    ct, at, init = self._reduce_parts(r)
                    decl.append(f"{at} {acc} = ({at}){init};")
                    v = self.expr(r.args[0], ident, lines, cache)
                    fold = _reduce_code(r, "fold_omp", acc=acc, v=v, at=at)
                    omp = f"reduction({_reduce_code(r, 'omp')}:{acc})"
                    if REDUCTIONS[r.op].keeps_nan and r.dtype.is_floating_point:
                        # OpenMP's max / min drop a NaN: a flag beside the reduction keeps it
                        decl.append(f"int nan_{r.name} = 0;")
                        fold += f" nan_{r.name} |= ({v} != {v});"
                        omp += f" reduction(|:nan_{r.name})"
                        after.append(f"if (nan_{r.name}) {acc} = NAN;")
                    lines.append(fold)
                    reds.append(omp)
                    # the value other members read: in the reduction's own dtype
                    self.acc[r] = _narrow(r.dtype, ct, acc)
                    if r in k.stores:
                        after.append(self.store(r, acc, self._row_map(r)))
                self.hoist = None
                row_code.append(("decl", decl + pre))
                row_code.append(("loop", " ".join(reds), lines))
                row_code.append(("decl", after))
            elif role == Role.FULL:
                lines, cache, pre = [], {}, []
                self.hoist = (pre, row_cache)
                for mbr in mbrs:
                    v = self.expr(mbr, ident, lines, cache, top=True)
                    lines.append(self.store(mbr, v, ident))
                self.hoist = None
                row_code.append(("decl", pre))
                row_code.append(("loop", "", lines))
            else:  # per-row values
                lines = []
                for mbr in mbrs:
                    rm = outer_map(k.shape, k.red, mbr.shape)
                    v = self.expr(mbr, rm, lines, row_cache, top=True)
                    lines.append(self.store(mbr, v, rm))
                    self.row_vals[mbr] = v
                row_code.append(("decl", lines))
        return self._finish(outer_dims, inner_dims, None, row_code, reduction=True)

    def _reduce_parts(self, r: Node):
        """(value C type, accumulator C type, initial value). Float sums accumulate in
        double: more accurate than eager's float cascade, so the difference to eager is
        eager's own rounding."""
        ct = compute_type(r.dtype)
        return ct, _reduce_code(r, "acc"), _reduce_code(r, "init")

    def _render_column(self, phases, outer_dims, inner_dims) -> Optional[KernelSource]:
        """Reductions over leading dims (a bias gradient): rows stream through memory
        while a block of column accumulators stays in registers / L1.

        Two ways to share the work among threads. With enough rows, each thread sums its
        own range of rows over every column (split mode): it reads whole rows, one
        contiguous stream, and the threads' partial sums are added in thread order
        afterwards. Otherwise the threads take blocks of columns, and each reads its
        block's part of every row: a strided walk that streams about half as fast (a
        [1576, 256] layer-norm weight gradient: 300 us in column blocks, 127 us split,
        2 threads)."""
        k = self.k
        ident = IndexMap.identity(self.D)
        blocks: list = []
        for role, mbrs in phases:
            if role == Role.REDUCE:
                decl, lines, after = [], [], []
                cache: dict = {}
                for r in mbrs:
                    ct, at, init = self._reduce_parts(r)
                    acc = f"acc_{r.name}"
                    a = f"{acc}[o0 - ob]"
                    decl.append(f"{at} {acc}[@CB@]; for (int i = 0; i < @CB@; i++) {acc}[i] = ({at}){init};")
                    lines.append(_fold(r, a, self.expr(r.args[0], ident, lines, cache), at))
                    self.acc[r] = _narrow(r.dtype, ct, a)
                    if r in k.stores:
                        after.append(self.store(r, a, self._row_map(r)))
                blocks.append((Role.REDUCE, decl, lines, after, mbrs))
            else:
                lines = []
                cache = {}
                for mbr in mbrs:
                    rm = outer_map(k.shape, k.red, mbr.shape)
                    v = self.expr(mbr, rm, lines, cache, top=True)
                    lines.append(self.store(mbr, v, rm))
                blocks.append((Role.OUTER, [], lines, [], ()))
        # the loops merge by the accesses the expressions above recorded
        og = self._merge(outer_dims)
        if len(og) != 1:
            return None
        ig = self._merge(inner_dims)
        ON = math.prod(k.shape[d] for d in og[0])
        var_of = {d: ("o0", og[0][-1]) for d in og[0]}
        loops_i = []
        for gi, grp in enumerate(ig):
            loops_i.append((f"r{gi}", math.prod(k.shape[d] for d in grp)))
            for d in grp:
                var_of[d] = (f"r{gi}", grp[-1])
        subst = self._substituter(var_of)
        work = math.prod(k.shape)
        reduce_phases = [mbrs for role, mbrs in phases if role == Role.REDUCE]
        # split mode: one reduction phase, first (what follows reads its finished sums),
        # and at least 4 rows per core; either outcome is correct for a symbolic size
        split = (phases[0][0] == Role.REDUCE and len(reduce_phases) == 1 and self.cores > 1 and loops_i
                 and hint(loops_i[0][1]) >= 4 * self.cores and parallel_if(work)[0])
        if split:
            # the accumulators of one thread span as many columns as fit 16 KiB of L1
            n_acc = len(reduce_phases[0])
            cap = max(64, (2048 // n_acc) // 16 * 16)
            CB = hint(ON) if not isinstance(ON, Dim) and ON <= cap else cap
        else:
            CB = 64
        blocks = [(role, [ln.replace("@CB@", str(CB)) for ln in decl], lines, after, reds)
                  for role, decl, lines, after, reds in blocks]
        if split:
            code = self._column_split(blocks, ON, CB, loops_i, work)
        else:
            code = self._column_blocks(blocks, ON, CB, loops_i, work)
        return self._wrap([subst(c) for c in code])

    def _column_blocks(self, blocks, ON, CB, loops_i, work) -> list[str]:
        code = []
        par, cond = parallel_if(work, f" && {ON} > {CB}")
        if par and (cond or ON > CB):
            code.append(f"  #pragma omp parallel for{cond}")
        code.append(f"  for (int64_t ob = 0; ob < {ON}; ob += {CB}) {{")
        code.append(f"    const int64_t oe = std::min<int64_t>(ob + {CB}, {ON});")
        for role, decl, lines, after, _ in blocks:
            for ln in decl:
                code.append("    " + ln)
            reduce = role == Role.REDUCE
            _column_loops(code, 2, loops_i if reduce else [], lines, simd=reduce)
            if reduce and after:
                code.append("    for (int64_t o0 = ob; o0 < oe; o0++) {")
                for ln in after:
                    code.append("      " + ln)
                code.append("    }")
        code.append("  }")
        return code

    def _column_split(self, blocks, ON, CB, loops_i, work) -> list[str]:
        """Split mode (see _render_column): a parallel region where thread t sums rows
        [RN*t/nt, RN*(t+1)/nt) of the first reduction loop into its slice of `part`, then
        per column block the slices added in thread order (the same order every run at a
        given thread count), the reductions' stores and the column-wise epilogue."""
        (_, decl, lines, after, reds), rest = blocks[0], blocks[1:]
        n_acc = len(reds)
        accs = [f"acc_{r.name}" for r in reds]
        _, ats, inits = zip(*(self._reduce_parts(r) for r in reds))
        RN = loops_i[0][1]
        _, cond = parallel_if(work)
        code = [f"  const int nt_max = omp_get_max_threads();",
                f"  int nt_used = 1;",
                # one slice of doubles per thread and reduction (any accumulator type fits in 8 bytes)
                f"  char* part = (char*)std::malloc((size_t)8 * {n_acc} * (size_t)({ON}) * nt_max);",
                f"  #pragma omp parallel{cond}",
                "  {",
                "    const int t = omp_get_thread_num(), nt = omp_get_num_threads();",
                "    if (t == 0) nt_used = nt;",
                f"    const int64_t rb = (int64_t)({RN}) * t / nt, re = (int64_t)({RN}) * (t + 1) / nt;",
                f"    for (int64_t ob = 0; ob < {ON}; ob += {CB}) {{",
                f"      const int64_t oe = std::min<int64_t>(ob + {CB}, {ON});"]
        for ln in decl:
            code.append("      " + ln)
        _column_loops(code, 3, loops_i, lines, first=("rb", "re"))
        code.append("      for (int64_t o0 = ob; o0 < oe; o0++) {")
        for j, (acc, at) in enumerate(zip(accs, ats)):
            code.append(f"        (({at}*)part)[((int64_t)t * {n_acc} + {j}) * ({ON}) + o0] = {acc}[o0 - ob];")
        code.append("      }")
        code.append("    }")
        code.append("  }")
        # the combine: partial sums in thread order, then what reads the finished reductions
        code.append(f"  for (int64_t ob = 0; ob < {ON}; ob += {CB}) {{")
        code.append(f"    const int64_t oe = std::min<int64_t>(ob + {CB}, {ON});")
        for acc, at, init in zip(accs, ats, inits):
            code.append(f"    {at} {acc}[{CB}]; for (int i = 0; i < {CB}; i++) {acc}[i] = ({at}){init};")
        code.append("    for (int t = 0; t < nt_used; t++) {")
        code.append("      for (int64_t o0 = ob; o0 < oe; o0++) {")
        for j, (acc, at, r) in enumerate(zip(accs, ats, reds)):
            part = f"(({at}*)part)[((int64_t)t * {n_acc} + {j}) * ({ON}) + o0]"
            code.append("        " + _fold(r, f"{acc}[o0 - ob]", part, at))
        code.append("      }")
        code.append("    }")
        if after:
            code.append("    for (int64_t o0 = ob; o0 < oe; o0++) {")
            for ln in after:
                code.append("      " + ln)
            code.append("    }")
        for _, _, olines, _, _ in rest:
            code.append("    for (int64_t o0 = ob; o0 < oe; o0++) {")
            for ln in olines:
                code.append("      " + ln)
            code.append("    }")
        code.append("  }")
        code.append("  std::free(part);")
        return code

    def _wrap(self, code: list[str]) -> KernelSource:
        k = self.k
        params = []
        for n, p in self.params.items():
            const = "" if (n in k.stores) else "const "
            # no two parameters of a kernel share memory (the memory plan hands a buffer
            # to a new one only after its last reader ran), so all are __restrict__, but
            # for an output written in place over an input (k.aliased)
            restrict = "" if n in k.aliased else " __restrict__"
            params.append(f"{const}{storage_type(n.dtype)}*{restrict} {p}")
        # symbolic sizes: the symbols the body uses, passed by value after the buffers
        syms = tuple(symbols_in("\n".join(code)))
        params += [f"const int64_t {s}" for s in syms]
        head = f'extern "C" void {k.name}({", ".join(params)}) {{'
        src = "\n".join([head] + code + ["}"]) + "\n"
        return KernelSource(k.name, src, list(self.params), list(k.stores), None, self.kind(), self.bytes_moved(),
                            syms)

    def _transposes(self, og, loops_o, stores) -> bool:
        """Whether a pointwise kernel's last two loops read transposed and write contiguously
        (TRANSPOSE_TILE)."""
        if len(loops_o) < 2 or self.k.aliased or not stores:
            return False
        (_, size_j), (_, size_l) = loops_o[-2], loops_o[-1]
        if not (isinstance(size_j, int) and isinstance(size_l, int)) or \
                size_j < TRANSPOSE_TILE[0] or size_l < TRANSPOSE_TILE[1] // 2:
            return False
        dj, dl = og[-2][-1], og[-1][-1]
        store_lins = {lin for *_, lin in stores}
        transposed = False
        for i, lin in enumerate(self.lins):
            cj, cl = lin.coef[dj], lin.coef[dl]
            if not (isinstance(cj, int) and isinstance(cl, int)):
                return False
            if i in store_lins:
                if cl != 1:
                    return False
            elif cj == 1 and abs(cl) >= TRANSPOSE_MIN_STRIDE:
                transposed = True
        return transposed

    def _tiled(self, loops_o, par: bool, cond: str, flat_lines, stores) -> list[str]:
        """The loops of a transposing pointwise kernel, in tiles (TRANSPOSE_TILE): each tile's
        values computed along the second-to-last loop into a buffer per output, then stored
        along the last loop."""
        tj, tl = TRANSPOSE_TILE
        (vj, sj), (vl, sl) = loops_o[-2], loops_o[-1]
        outer = loops_o[:-2]
        ind = "  "
        code: list[str] = []
        depth = 1
        if par:
            code.append(ind + parallel_pragma(outer + [(f"{vj}b", -(-sj // tj))], False, self.cores, cond,
                                              vector=False))
        for v, size in outer:
            code.append(f"{ind * depth}for (int64_t {v} = 0; {v} < {size}; {v}++) {{")
            depth += 1
        code.append(f"{ind * depth}for (int64_t {vj}b = 0; {vj}b < {sj}; {vj}b += {tj}) {{")
        code.append(f"{ind * (depth + 1)}for (int64_t {vl}b = 0; {vl}b < {sl}; {vl}b += {tl}) {{")
        d = depth + 2
        code.append(f"{ind * d}const int64_t {vj}e = std::min<int64_t>({vj}b + {tj}, {sj}), "
                    f"{vl}e = std::min<int64_t>({vl}b + {tl}, {sl});")
        at = f"[{vl} - {vl}b][{vj} - {vj}b]"
        body = list(flat_lines)
        back = []
        for t, (mbr, value, i, lin) in enumerate(stores):
            code.append(f"{ind * d}{storage_type(mbr.dtype)} tile{t}[{tl}][{tj}];")
            body[i] = f"tile{t}{at} = {self.stored(mbr, value)};"
            back.append(f"{self.param(mbr)}[@A{lin}@] = tile{t}{at};")
        for (v1, lo1, hi1), (v2, lo2, hi2), lines in (((vl, f"{vl}b", f"{vl}e"), (vj, f"{vj}b", f"{vj}e"), body),
                                                      ((vj, f"{vj}b", f"{vj}e"), (vl, f"{vl}b", f"{vl}e"), back)):
            code.append(f"{ind * d}for (int64_t {v1} = {lo1}; {v1} < {hi1}; {v1}++) {{")
            code.append(f"{ind * (d + 1)}#pragma omp simd")
            code.append(f"{ind * (d + 1)}for (int64_t {v2} = {lo2}; {v2} < {hi2}; {v2}++) {{")
            code.extend(ind * (d + 2) + ln for ln in lines)
            code.append(f"{ind * (d + 1)}}}")
            code.append(f"{ind * d}}}")
        for _ in range(depth + 1):
            d -= 1
            code.append(ind * d + "}")
        return code

    def _finish(self, outer_dims, inner_dims, flat_lines, row_code, reduction: bool,
                stores: Optional[list] = None) -> KernelSource:
        k = self.k
        og = self._merge(outer_dims)
        ig = self._merge(inner_dims)
        var_of: dict[int, tuple[str, int]] = {}   # domain dim -> (loop var, multiplier of var for dim)
        loops_o, loops_i = [], []
        for gi, grp in enumerate(og):
            size = math.prod(k.shape[d] for d in grp)
            loops_o.append((f"o{gi}", size))
            for d in grp:
                var_of[d] = (f"o{gi}", grp[-1])
        for gi, grp in enumerate(ig):
            size = math.prod(k.shape[d] for d in grp)
            loops_i.append((f"r{gi}", size))
            for d in grp:
                var_of[d] = (f"r{gi}", grp[-1])

        subst = self._substituter(var_of)

        work = math.prod(k.shape) if k.shape else 1
        par, cond = parallel_if(work)
        code: list[str] = []
        ind = "  "

        def open_loops(loops, parallel: bool, depth: int, extra: Optional[str] = "") -> int:
            """Open `loops`; the first is the parallel one when `parallel`, the last
            gets `#pragma omp simd <extra>` unless extra is None."""
            inner_simd = extra is not None and len(loops) > 1
            for li, (v, size) in enumerate(loops):
                pad = ind * depth
                if li == 0 and parallel:
                    code.append(f"{pad}{parallel_pragma(loops, inner_simd, self.cores, cond, vector=extra is not None)}")
                elif li == len(loops) - 1 and extra is not None:
                    code.append(f"{pad}#pragma omp simd {extra}".rstrip())
                code.append(f"{pad}for (int64_t {v} = 0; {v} < {size}; {v}++) {{")
                depth += 1
            return depth

        def close_loops(n, depth):
            for _ in range(n):
                depth -= 1
                code.append(ind * depth + "}")
            return depth

        if not reduction and self._transposes(og, loops_o, stores):
            code = self._tiled(loops_o, par, cond, flat_lines, stores)
        elif not reduction:
            depth = open_loops(loops_o, par, 1, "")
            for ln in flat_lines:
                code.append(ind * depth + ln)
            close_loops(len(loops_o), depth)
        else:
            depth = open_loops(loops_o, par and len(loops_o) > 0, 1, None)
            for item in row_code:
                if item[0] == "decl":
                    for ln in item[1]:
                        code.append(ind * depth + ln)
                else:
                    _, reds, lines = item
                    d2 = open_loops(loops_i, False, depth, reds)
                    for ln in lines:
                        code.append(ind * d2 + ln)
                    close_loops(len(loops_i), d2)
            close_loops(len(loops_o), depth)

        return self._wrap([subst(c) for c in code])


def _fold(r: Node, acc: str, v: str, at: str) -> str:
    """The statement folding value `v` into accumulator `acc` (C type `at`) of reduction r:
    max and min of floats keep a NaN, as eager's do."""
    return _reduce_code(r, "fold", acc=acc, v=v, at=at)


def _reduce_code(r: Node, part: str, **fields) -> str:
    """Reduction r's C++ `part` (ops.REDUCTIONS), filled in."""
    return reduce_spelling(r.op, "cpp", part, r.dtype).format(ct=compute_type(r.dtype), name=r.name, **fields)


def _column_loops(code: list[str], depth: int, loops_i, lines: list[str], first=None, simd: bool = True) -> None:
    """A column kernel's loop nest: the row loops `loops_i` (the first over [first) when
    given: a thread's range of rows), inside them the loop over the column block (a
    vector loop when `simd`)."""
    for li, (v, size) in enumerate(loops_i):
        lo, hi = first if (li == 0 and first) else ("0", size)
        code.append("  " * depth + f"for (int64_t {v} = {lo}; {v} < {hi}; {v}++) {{")
        depth += 1
    if simd:
        code.append("  " * depth + "#pragma omp simd")
    code.append("  " * depth + "for (int64_t o0 = ob; o0 < oe; o0++) {")
    for ln in lines:
        code.append("  " * (depth + 1) + ln)
    code.append("  " * depth + "}")
    for _ in loops_i:
        depth -= 1
        code.append("  " * depth + "}")


def _narrow(dt: torch.dtype, ct: str, acc: str) -> str:
    """A reduction's accumulator as other members read it: in the reduction's dtype."""
    if dt == torch.bfloat16:
        return f"bf16_round((float){acc})"
    if dt == torch.float16:
        return f"fp16_round((float){acc})"
    return f"(({ct}){acc})"


def _innermost_kept(k: Kernel) -> bool:
    dims = [d for d, n in enumerate(k.shape) if n != 1]
    return bool(dims) and dims[-1] not in k.red


def render(sched: Schedule, cores: Optional[int] = None) -> tuple[str, list[KernelSource]]:
    """The C++ translation unit for all kernels of a schedule, for a machine with
    `cores` cores (default: this one's)."""
    cores = cores or os.cpu_count() or 1
    kernels = [KernelWriter(s, sched, cores).render() for s in sched.kernels]
    src = preamble() + "\n" + "\n".join(k.code for k in kernels)
    return src, kernels
