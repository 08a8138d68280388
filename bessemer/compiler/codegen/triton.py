"""The Triton renderer: a Schedule's kernels as Triton functions for the GPU.

The same fused kernels the C++ renderer turns into loops become Triton programs:

  pointwise kernel   the domain flattened to one index; a program handles XBLOCK
                     elements, decomposed into the (merged) domain dims.
  reduction kernel   a program handles XBLOCK rows as an [XBLOCK, RBLOCK] tile.
                     When a whole row fits one tile (RBLOCK >= row length) the
                     kernel is *persistent*: every phase works on the same tile,
                     so a softmax or layer norm reads its input once. Otherwise
                     each phase loops over the row in RBLOCK chunks, reductions
                     accumulating lane-wise and combining across lanes at the end.
                     A column reduction with too few column blocks to fill a GPU
                     is split: chunks of rows into a workspace, then a second
                     function combines them.

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

from bessemer.compiler.ir.graph import IndexMap, Node
from bessemer.compiler.ir.ops import OPS, REDUCTIONS, reduce_spelling, spelling
from bessemer.compiler.ir.views import contiguous_strides
from bessemer.compiler.ir.schedule import Kernel, Role, Schedule, outer_map
from bessemer.compiler.ir.symbolic import Dim, hint, symbols_in
from bessemer.compiler.codegen.kernel import CodegenError, KernelBuilder, KernelSource, format_terms

TL_DTYPE = {
    torch.float32: "tl.float32", torch.float64: "tl.float64", torch.bfloat16: "tl.bfloat16",
    torch.float16: "tl.float16", torch.int64: "tl.int64", torch.int32: "tl.int32", torch.int16: "tl.int16",
    torch.int8: "tl.int8", torch.uint8: "tl.uint8", torch.bool: "tl.int1",
}
# Rows up to this long are reduced in one tile (persistent); longer rows loop.
# A tile lives in registers: past 4096 fp32 values per row the spills cost more
# than the second read of the row a looped kernel pays.
PERSISTENT_MAX = 4096
_LOW = (torch.bfloat16, torch.float16)
# Split column reductions: a bias gradient over [rows, C] has only C / XBLOCK
# programs (a dozen for C = 768), far too few to fill a GPU. When the reduced
# length is at least SPLIT_MIN_RLEN and there are fewer than SPLIT_MAX_BLOCKS
# column blocks, the rows are cut into chunks reduced by separate programs into a
# small fp32 workspace, and a second launch combines the chunks (in a fixed order:
# the result does not depend on scheduling). Trades one extra small launch and
# SPLIT x C floats of memory for enough parallelism.
SPLIT_MIN_RLEN = 2048
SPLIT_MAX_BLOCKS = 128
SPLIT_PROGRAMS = 512   # aim: a few programs per SM of a large GPU
SPLIT_MIN_CHUNK = 128  # rows per chunk at least: each program streams a useful amount


def tl_dtype(dt: torch.dtype) -> str:
    if dt not in TL_DTYPE:
        raise CodegenError(f"dtype {dt} is not supported by the Triton backend")
    return TL_DTYPE[dt]


def compute_dtype(dt: torch.dtype) -> str:
    return "tl.float32" if dt in _LOW else tl_dtype(dt)


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


def render_op(op: str, args: list[str], n: Node, arg_dtypes: list[torch.dtype]) -> str:
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


def _reduce_code(r: Node, part: str, **fields) -> str:
    """Reduction r's Triton `part` (ops.REDUCTIONS), filled in."""
    dt = r.dtype
    info = torch.iinfo(dt) if not dt.is_floating_point and dt != torch.bool else None
    return reduce_spelling(r.op, "triton", part, dt).format(
        ct=compute_dtype(dt), name=r.name, imin=info.min if info else "", imax=info.max if info else "", **fields)


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


class TritonKernelWriter(KernelBuilder):
    """Triton syntax for the KernelBuilder, and the tiling of each kernel kind."""

    def __init__(self, k: Kernel, sched: Schedule):
        super().__init__(k, sched)
        self.outer: set[int] = set()
        self.inner: set[int] = set()
        self._flat: dict[str, list] = {}   # flat index -> [(group variable, row-major stride)]

    # -- syntax hooks ------------------------------------------------------------
    def literal(self, v, dt: torch.dtype) -> str:
        return literal(v, dt)

    def iota(self, n: Node, idx: str) -> str:
        lin = self.lins[-1]
        ct = compute_dtype(n.dtype)
        start, step = n.attrs["start"], n.attrs["step"]
        if not self._dims(lin):
            return literal(start + step * lin.const, n.dtype)
        return f"({literal(start, n.dtype)} + {literal(step, n.dtype)} * ({idx}).to({ct}))"

    def pointwise(self, n: Node, args: list[str]) -> str:
        return render_op(n.op, args, n, [a.dtype for a in n.args])

    def declare(self, name: str, dt: torch.dtype, code: str) -> str:
        return f"{name} = {code}"

    def round_low(self, code: str, dt: torch.dtype) -> str:
        return f"{narrow(code, dt)}.to(tl.float32)"

    def bind_load(self, code: str, lines: list[str]) -> str:
        # named, so a value loaded once serves every later use in the tile
        t = self.new_tmp()
        lines.append(f"{t} = {code}")
        return t

    def load(self, base: Node, strides, offset, m: IndexMap, dt: torch.dtype) -> str:
        addr = self.address(base, strides, offset, m)
        mask = self._mask_for(self.lins[-1])   # none for a load of one fixed element
        v = f"tl.load({self.param(base)} + {addr}{'' if mask == 'None' else f', {mask}, other=0'})"
        return f"{v}.to(tl.float32)" if dt in _LOW else v

    def store(self, n: Node, value: str, m_to_node: IndexMap, fill: str) -> str:
        addr = self.address(n, contiguous_strides(n.shape), 0, m_to_node)
        if not _is_literal(value):
            value = narrow(value, n.dtype)
        mask = "xmask" if fill == "x" else "xrmask"   # a store covers the whole tile of its kind
        return f"tl.store({self.param(n)} + {addr}{self._fill_for(self.lins[-1], fill)}, {value}, {mask})"

    # -- helpers -----------------------------------------------------------------
    def _dims(self, lin) -> set:
        return {d for d, c in enumerate(lin.coef) if c and self.k.shape[d] != 1}

    def _mask_for(self, lin) -> str:
        """A load's mask: the tile dims its address depends on (the tile's dims,
        self.outer and self.inner, are set before any expression is rendered)."""
        used = self._dims(lin)
        has_o, has_i = bool(used & self.outer), bool(used & self.inner)
        if has_o and has_i:
            return "xrmask"
        if has_o:
            return "xmask"
        if has_i:
            return "rmask"
        return "None"

    def _fill_for(self, lin, fill: str) -> str:
        """A store's pointer must have its value's shape: add a zero tile where the
        address does not depend on a dim of that shape."""
        used = self._dims(lin)
        need_x = "x" in fill and not (used & self.outer)
        need_r = "r" in fill and not (used & self.inner)
        if need_x and need_r:
            return " + xrzero"
        if need_x:
            return " + xzero"
        if need_r:
            return " + rzero"
        return ""

    def render_lin(self, lin, var_of) -> str:
        """As the base renders it, except that where the form walks all the group
        variables of a flat index in row-major order (coefficients c * the size of the
        groups after each), it is written as c * that flat index: Triton then sees
        contiguous addresses and vectorizes the loads and stores."""
        terms = self.lin_terms(lin, var_of)
        for flat, groups in self._flat.items():
            if not groups or any(v not in terms for v, _ in groups):
                continue
            c = terms[groups[-1][0]]
            if all(terms[v] == c * stride for v, stride in groups):
                for v, _ in groups:
                    del terms[v]
                terms[flat] = c
        return format_terms(terms, lin.const)

    def _index_lines(self, groups, var: str, prefix: str, pad: str) -> tuple[list[str], dict]:
        """Decompose a flat index into one variable per merged group of dims."""
        lines, var_of = [], {}
        sizes = [math.prod(self.k.shape[d] for d in g) for g in groups]
        self._flat[var] = [(f"{prefix}{gi}", math.prod(sizes[gi + 1:])) for gi in range(len(groups))]
        for gi, g in enumerate(groups):
            div = math.prod(sizes[gi + 1:])
            e = var if div == 1 else f"({var} // {div})"
            if gi > 0:
                e = f"({e} % {sizes[gi]})"
            lines.append(f"{pad}{prefix}{gi} = {e}")
            for d in g:
                var_of[d] = (f"{prefix}{gi}", g[-1])
        return lines, var_of

    def _index_type(self) -> str:
        """int32 indexing unless an address can pass 2**31."""
        big = math.prod(self.k.shape) if self.k.shape else 1
        for lin in self.lins:
            reach = abs(lin.const) + sum(abs(c) * (self.k.shape[d] - 1) for d, c in enumerate(lin.coef))
            big = max(big, reach)
        return "tl.int64" if big >= 2 ** 31 - 1 else "tl.int32"

    # -- the kernel ----------------------------------------------------------------
    def render(self) -> KernelSource:
        if not self.k.red:
            return self._render_pointwise()
        return self._render_reduction()

    def _outer_members(self, mbrs, row_cache: dict) -> list[str]:
        """Per-row members (mean, rstd): computed at the row index, stored, and kept
        for the members after them."""
        lines: list[str] = []
        for mbr in mbrs:
            rm = outer_map(self.k.shape, self.k.red, mbr.shape)
            v = self.expr(mbr, rm, lines, row_cache, top=True)
            lines.append(self.store(mbr, v, rm, "x"))
            self.row_vals[mbr] = v
        return lines

    def _render_pointwise(self) -> KernelSource:
        k = self.k
        D = self.D
        dims = [d for d in range(D) if k.shape[d] != 1]
        self.outer = set(dims)
        ident = IndexMap.identity(D)
        lines: list[str] = []
        cache: dict = {}
        for mbr in k.members:
            v = self.expr(mbr, ident, lines, cache, top=True)
            lines.append(self.store(mbr, v, ident, "x"))
            cache[(mbr, ident)] = v
        groups = self._merge(dims)
        numel = math.prod(k.shape) if k.shape else 1
        it = self._index_type()
        idx_lines, var_of = self._index_lines(groups, "xs", "x", "    ")
        code = [f"    xs = tl.program_id(0).to({it}) * XBLOCK + tl.arange(0, XBLOCK).to({it})",
                f"    xmask = xs < {numel}",
                "    xzero = xs * 0"] + idx_lines + ["    " + ln for ln in lines]
        meta = TritonMeta("pointwise", numel, numel, 1, False, False, self.bytes_moved())
        return self._wrap(code, var_of, meta)

    def _render_reduction(self) -> KernelSource:
        k = self.k
        D = self.D
        red = set(k.red)
        outer_dims = [d for d in range(D) if d not in red and k.shape[d] != 1]
        inner_dims = [d for d in range(D) if d in red and k.shape[d] != 1]
        self.outer, self.inner = set(outer_dims), set(inner_dims)
        rows = math.prod(k.shape[d] for d in outer_dims)
        rlen = math.prod(k.shape[d] for d in inner_dims)
        # a column reduction (innermost dim kept) loops: its tile must be XBLOCK
        # columns wide for coalesced reads, too wide to hold whole columns
        column = bool(inner_dims) and self.kind() == "column reduction"
        persistent = not column and rlen <= PERSISTENT_MAX   # a guard (symbolic sizes): the code differs
        split, chunk = self._split_plan(column, rows, rlen)
        if split:
            return self._render_split(outer_dims, inner_dims, rows, rlen, split, chunk)
        ident = IndexMap.identity(D)
        row_cache: dict = {}
        tile_cache: dict = {}   # persistent: one tile, values shared by all phases
        body: list[str] = []
        for role, mbrs in self.phases():
            if role == Role.OUTER:
                body += self._outer_members(mbrs, row_cache)
                continue
            pre: list[str] = []
            lines, after, init = [], [], []
            cache = tile_cache if persistent else {}
            self.hoist = (pre, row_cache)
            for mbr in mbrs:
                if role == Role.REDUCE:
                    self._reduction(mbr, ident, lines, cache, init, after, persistent)
                else:
                    v = self.expr(mbr, ident, lines, cache, top=True)
                    lines.append(self.store(mbr, v, ident, "xr"))
            self.hoist = None
            body += pre + init
            if persistent:
                body += lines
            else:
                body.append(f"for roff in range(0, {rlen}, RBLOCK):")
                body += ["    rs = roff + rbase", f"    rmask = rs < {rlen}", "    xrmask = xmask & rmask",
                         "    rzero = rs * 0", "    xrzero = xzero + rzero"]
                body += [_ROW_INDEX] + ["    " + ln for ln in lines]
            body += after
        it = self._index_type()
        og, ig = self._merge(outer_dims), self._merge(inner_dims)
        x_lines, var_of = self._index_lines(og, "xs", "x", "    ")
        r_lines, r_var = self._index_lines(ig, "rs", "r", "")
        var_of.update(r_var)
        code = [f"    xs = tl.program_id(0).to({it}) * XBLOCK + tl.arange(0, XBLOCK).to({it})[:, None]",
                f"    xmask = xs < {rows}", "    xzero = xs * 0",
                f"    rbase = tl.arange(0, RBLOCK).to({it})[None, :]"] + x_lines
        if persistent:
            code += ["    rs = rbase", f"    rmask = rs < {rlen}", "    xrmask = xmask & rmask",
                     "    rzero = rs * 0", "    xrzero = xzero + rzero"] + ["    " + ln for ln in r_lines]
        for ln in body:
            if ln is _ROW_INDEX:
                code += ["        " + r for r in r_lines]
            else:
                code.append("    " + ln)
        meta = TritonMeta("reduce", rows * rlen, rows, rlen, persistent, column, self.bytes_moved())
        return self._wrap(code, var_of, meta)

    def _split_plan(self, column: bool, rows: int, rlen: int) -> tuple[int, int]:
        """(chunks, rows per chunk) for a column reduction worth splitting, else (0, 0).
        A heuristic weighed at the compiled shape (symbolic sizes: their hints, no guard):
        the split code is correct at any size, the number of chunks being derived from the
        row length at run time."""
        rows, rlen = hint(rows), hint(rlen)
        if not column or rlen < SPLIT_MIN_RLEN or -(-rows // 64) >= SPLIT_MAX_BLOCKS:
            return 0, 0
        phases = self.phases()
        if phases[0][0] != Role.REDUCE or any(role != Role.OUTER for role, _ in phases[1:]):
            return 0, 0   # a reduction that depends on another needs the whole first result
        for r in phases[0][1]:
            if not REDUCTIONS[r.op].splittable or not r.dtype.is_floating_point or r.dtype == torch.float64:
                return 0, 0   # the workspace holds fp32 partials
        blocks = -(-rows // 64)
        want = max(2, min(SPLIT_PROGRAMS // blocks, rlen // SPLIT_MIN_CHUNK))
        chunk = -(-rlen // want)
        if chunk >= 64:   # chunks start on whole RBLOCK steps
            chunk = -(-chunk // 64) * 64
        split = -(-rlen // chunk)
        return (split, chunk) if split >= 2 else (0, 0)

    def _render_split(self, outer_dims, inner_dims, rows, rlen, split, chunk) -> KernelSource:
        """Two functions: `<name>` reduces chunk program_id(1) of every column block
        into the workspace; `<name>_fin` combines the chunks and runs the rest."""
        k = self.k
        ident = IndexMap.identity(self.D)
        (_, reds), *outer_phases = self.phases()
        pre, init, lines, combine, after = [], [], [], [], []
        self.hoist = (pre, {})
        cache: dict = {}
        infos = [self._reduction(r, ident, lines, cache, init, after, False, combine) for r in reds]
        self.hoist = None
        it = self._index_type()
        og, ig = self._merge(outer_dims), self._merge(inner_dims)
        x_lines, var_of = self._index_lines(og, "xs", "x", "    ")
        r_lines, r_var = self._index_lines(ig, "rs", "r", "        ")
        var_of.update(r_var)
        head = [f"    xs = tl.program_id(0).to({it}) * XBLOCK + tl.arange(0, XBLOCK).to({it})[:, None]",
                f"    xmask = xs < {rows}", "    xzero = xs * 0"] + x_lines
        # symbolic sizes: the number of chunks is an argument (NSPLIT, and SBLOCK its power of 2)
        dyn = isinstance(rows, Dim) or isinstance(rlen, Dim)
        n_split = "NSPLIT" if dyn else str(split)
        part = head + [f"    rbase = tl.arange(0, RBLOCK).to({it})[None, :]",
                       f"    rstart = tl.program_id(1).to({it}) * {chunk}"]
        part += ["    " + ln for ln in pre + init]
        part += [f"    for roff in range(0, {chunk}, RBLOCK):",
                 "        rs = rstart + roff + rbase", f"        rmask = (rs < {rlen}) & (roff + rbase < {chunk})",
                 "        xrmask = xmask & rmask", "        rzero = rs * 0", "        xrzero = xzero + rzero"]
        part += r_lines + ["        " + ln for ln in lines] + ["    " + ln for ln in combine]
        sb = "SBLOCK" if dyn else str(1 << max(0, (split - 1).bit_length()))
        fin = head + [f"    sidx = tl.arange(0, {sb})[None, :]", f"    smask = xmask & (sidx < {n_split})"]
        for i, (acc, r, ident_v) in enumerate(infos):
            base = f"{i} * {n_split} * {rows}" if dyn else str(i * split * rows)
            part.append(f"    tl.store(ws + {base} + tl.program_id(1) * {rows} + xs, {acc}, xmask)")
            fin.append(f"    {acc} = tl.load(ws + {base} + sidx * {rows} + xs, smask, other={ident_v})")
            fin.append("    " + self._combine_line(acc, r))
        fin += ["    " + ln for ln in after]
        row_cache: dict = {}   # fresh: the values hoisted in the first function do not exist here
        for _, mbrs in outer_phases:
            fin += ["    " + ln for ln in self._outer_members(mbrs, row_cache)]
        meta = TritonMeta("reduce", rows * rlen, rows, rlen, False, True, self.bytes_moved(),
                          split=split, n_acc=len(infos), chunk=chunk if dyn else 0)
        subst = self._substituter(var_of)
        bodies = ["\n".join(subst(c) for c in part), "\n".join(subst(c) for c in fin)]
        syms = symbols_in("\n".join(bodies))
        params = ", ".join(list(self.params.values()) + syms + ["ws"] + (["NSPLIT"] if dyn else []) +
                           ["XBLOCK: tl.constexpr", "RBLOCK: tl.constexpr"] +
                           (["SBLOCK: tl.constexpr"] if dyn else []))
        meta.fn_name = _function_name(params, *bodies)
        src = f"@triton.jit\ndef {meta.fn_name}({params}):\n{bodies[0]}\n\n\n" \
              f"@triton.jit\ndef {meta.fn_name}_fin({params}):\n{bodies[1]}\n"
        return KernelSource(k.name, src, list(self.params), list(k.stores), meta, self.kind(), meta.bytes,
                            tuple(syms))

    def _combine_line(self, acc: str, r: Node) -> str:
        """acc [XBLOCK, N] -> [XBLOCK, 1]: the lanes (or chunks) of reduction r combined."""
        return f"{acc} = " + _reduce_code(r, "combine", acc=acc)

    def _reduction(self, r: Node, ident, lines, cache, init, after, persistent: bool,
                   combine: Optional[list] = None) -> tuple[str, Node, str]:
        """Render reduction r: its accumulation into `lines` (and `init`), the combining
        of lanes into `combine` (default: `after`), and into `after` the value in r's
        dtype and r's store. Returns (accumulator, r, identity)."""
        combine = after if combine is None else combine
        at = _reduce_code(r, "acc")
        acc = f"acc{len(self.acc)}"   # numbered in the kernel: the same code for each layer's copy
        v = self.expr(r.args[0], ident, lines, cache)
        if _is_literal(v):   # a reduction of a constant: a block of it (a literal has no .to())
            v = f"tl.full([XBLOCK, RBLOCK], {v}, {compute_dtype(r.args[0].dtype)})"
        ident_v = _reduce_code(r, "ident")
        val = _reduce_code(r, "val", v=v, at=at)
        if persistent:
            lines.append(f"{acc} = tl.where(xrmask, {val}, {ident_v})")
        else:
            init.append(f"{acc} = tl.full([XBLOCK, RBLOCK], {ident_v}, {at})")
            lines.append(f"{acc} = " + _reduce_code(r, "step", acc=acc, v=v, val=val, ident=ident_v))
        combine.append(self._combine_line(acc, r))
        # the value other members read: in the reduction's own dtype
        read = _reduce_code(r, "read", acc=acc)
        if read:
            after.append(f"{acc} = {read}")
        self.acc[r] = acc
        if r in self.k.stores:
            after.append(self.store(r, acc, outer_map(self.k.shape, self.k.red, r.shape), "x"))
        return acc, r, ident_v

    def _wrap(self, code: list[str], var_of: dict, meta: TritonMeta) -> KernelSource:
        k = self.k
        subst = self._substituter(var_of)
        body = "\n".join(subst(c) for c in code)
        # symbolic sizes: the symbols the body uses, as (non-constexpr) int arguments
        syms = symbols_in(body)
        params = ", ".join(list(self.params.values()) + syms + ["XBLOCK: tl.constexpr", "RBLOCK: tl.constexpr"])
        meta.fn_name = _function_name(params, body)
        src = f"@triton.jit\ndef {meta.fn_name}({params}):\n{body}\n"
        return KernelSource(k.name, src, list(self.params), list(k.stores), meta, self.kind(), meta.bytes,
                            tuple(syms))


# In a reduction's looped phase, where the row index lines go (known once the
# kernel's dims are merged, after the body is rendered).
_ROW_INDEX = object()


def _function_name(params: str, *bodies: str) -> str:
    """A function's name from its code: kernels with the same code (each layer's copy
    of a block) get the same name and become one function."""
    h = hashlib.sha256(params.encode())
    for b in bodies:
        h.update(b"\0" + b.encode())
    return "k_" + h.hexdigest()[:12]


def render(sched: Schedule) -> tuple[str, list[KernelSource]]:
    """One Python module holding every Triton kernel of a schedule.

    Kernels with the same code (the same block in each of a transformer's layers)
    become one function, named by a hash of its code: Triton compiles and the
    autotuner times it once, however many layers launch it."""
    kernels = [TritonKernelWriter(s, sched).render() for s in sched.kernels]
    bodies: dict[str, str] = {}
    for k in kernels:
        bodies.setdefault(k.meta.fn_name, k.code)
    src = PREAMBLE + "\n" + "\n\n".join(bodies.values())
    return src, kernels
