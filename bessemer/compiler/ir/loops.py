"""The loop-level kernel IR: what `passes/lower_kernels.py` produces and the renderers print.

A `LoopProgram` holds the kernels of one schedule for one target ("cpp" or "triton").
Each `LoopKernel` names its parameters (buffers in parameter order, which it writes,
which are aliased), the size symbols it takes, its class and bytes moved, the
decisions made for it (a `CppPlan` or `TritonPlan`) and its body: statements over
value expressions. Every address is an `Index`: {loop variable: coefficient} +
constant over the kernel's loop variables (after adjacent domain dims were merged).

Everything here is plain frozen data with a `format()` giving a readable text form
(golden tests, BESSEMER_DEBUG dumps); nothing here decides or spells source code.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Any, Optional, Union

import torch


class CodegenError(Exception):
    """The renderer cannot express this graph (the graph then runs eagerly)."""


_SHORT = {torch.float32: "f32", torch.float64: "f64", torch.bfloat16: "bf16", torch.float16: "f16",
          torch.int64: "i64", torch.int32: "i32", torch.int16: "i16", torch.int8: "i8", torch.uint8: "u8",
          torch.bool: "bool"}


def _dt(dt: torch.dtype) -> str:
    return _SHORT.get(dt, str(dt).replace("torch.", ""))


def _ix(index) -> str:
    return index.format()[1:-1]


def format_terms(terms, const) -> str:
    """{variable: coefficient} + const as source text: (4*o0 + r0 + 2)."""
    parts = [f"{c}*{v}" if c != 1 else v for v, c in terms]
    if const or not parts:
        parts.append(str(const))
    return "(" + " + ".join(parts) + ")"


Size = Any   # int | symbolic Dim
Bound = Any  # int | Dim | str: a loop bound (a size, or an index variable bound before)


@dataclass(frozen=True)
class Index:
    """sum(coef * var) + const over loop variables: ((var, coef), ...) in order."""
    terms: tuple
    const: Size = 0

    def vars(self) -> tuple:
        return tuple(v for v, _ in self.terms)

    def format(self) -> str:
        return format_terms(self.terms, self.const)


@dataclass(frozen=True)
class Range:
    """An affine condition: lo <= index < hi (a padded dim's inside); a bound that always
    holds is None."""
    index: Any
    lo: Optional[Size]
    hi: Optional[Size]

    def format(self) -> str:
        return (f"{self.lo} <= " if self.lo is not None else "") + _ix(self.index) + \
            (f" < {self.hi}" if self.hi is not None else "")


def format_cond(cond: tuple) -> str:
    return " && ".join(r.format() for r in cond)


@dataclass(frozen=True)
class Indirect:
    """The data-dependent term of a gathered load's address: `value` (an int64 expression
    computed in the kernel, known to lie in [0, size) of the gathered dim) times `stride`,
    the gathered dim's stride. `index` is the affine form of the gathered element's own
    position (the dims `value` may vary along: Triton's mask and pointer shape)."""
    value: Any
    stride: Size
    index: Any

    def format(self) -> str:
        return f"{self.stride}*@{self.value.format()}"


# -- value expressions -------------------------------------------------------------------------
@dataclass(frozen=True)
class Load:
    """Element `index` of buffer parameter `param`, read as `dtype`. Triton: `mask` names
    the tile dims ("x", "r", "xr", "") whose bounds guard the read. `cond`: Ranges that
    must all hold for the element to be read (a padded read); where one does not, the
    value is `other` and nothing is read. `indirect`: a gathered read, its address
    `index` + the Indirect's value times its stride."""
    param: int
    index: Any
    dtype: torch.dtype
    mask: str = ""
    cond: tuple = ()
    other: Any = None
    fill: str = ""     # Triton: as Store's, the tile dims of the mask the address lacks
    indirect: Optional[Indirect] = None

    def format(self) -> str:
        m = f" mask {self.mask}" if self.mask else ""
        m += f" fill {self.fill}" if self.fill else ""
        c = f" if {format_cond(self.cond)} else {self.other!r}" if self.cond else ""
        g = f" + {self.indirect.format()}" if self.indirect is not None else ""
        return f"b{self.param}[{_ix(self.index)}{g}{m}{c}]:{_dt(self.dtype)}"


@dataclass(frozen=True)
class Const:
    value: Any
    dtype: torch.dtype

    def format(self) -> str:
        return f"{self.value!r}:{_dt(self.dtype)}"


@dataclass(frozen=True)
class Iota:
    """start + step * index."""
    start: Any
    step: Any
    index: Any
    dtype: torch.dtype

    def format(self) -> str:
        return f"iota({self.start!r} + {self.step!r} * [{_ix(self.index)}]):{_dt(self.dtype)}"


@dataclass(frozen=True)
class Op:
    """Pointwise op `op` (ops.OPS) of `args`, computing in `dtype`."""
    op: str
    args: tuple
    dtype: torch.dtype
    arg_dtypes: tuple

    def format(self) -> str:
        return f"{self.op}({', '.join(a.format() for a in self.args)}):{_dt(self.dtype)}"


@dataclass(frozen=True)
class Select:
    """`value` where every Range of `cond` holds, else `other` (a Const): a padded value.
    Every load `value` reads carries the same condition (a masked load), so no element
    outside the padded argument is read."""
    cond: tuple
    value: Any
    other: Any
    dtype: torch.dtype

    def format(self) -> str:
        return f"select({format_cond(self.cond)}, {self.value.format()}, {self.other.format()}):{_dt(self.dtype)}"


@dataclass(frozen=True)
class Round:
    """A value computed in fp32 rounded to bf16 / fp16 (still held as fp32)."""
    value: Any
    dtype: torch.dtype

    def format(self) -> str:
        return f"round_{_dt(self.dtype)}({self.value.format()})"


@dataclass(frozen=True)
class Temp:
    name: str

    def format(self) -> str:
        return self.name


@dataclass(frozen=True)
class AccRef:
    """Accumulator `name` of a reduction of `dtype`; `block`: the element of the current
    column (a column kernel's block of accumulators); `narrow`: as other members read it,
    in the reduction's dtype."""
    name: str
    dtype: torch.dtype
    narrow: bool = False
    block: bool = False

    def format(self) -> str:
        s = self.name + ("[o0 - ob]" if self.block else "")
        return f"narrow({s})" if self.narrow else s


@dataclass(frozen=True)
class TileRef:
    """Element [vl - vl_start][vj - vj_start] of a transposing kernel's tile buffer."""
    tile: int
    vl: str
    vj: str

    def format(self) -> str:
        return f"tile{self.tile}[{self.vl} - {self.vl}b][{self.vj} - {self.vj}b]"


@dataclass(frozen=True)
class StageRef:
    """Element `var - start` of stage array `stage`: a gathered load's value, loaded by the
    scalar loop before the vector loop that reads it (C++)."""
    stage: int
    var: str
    start: Any
    dtype: torch.dtype

    def format(self) -> str:
        return f"stage{self.stage}[{self.var} - {self.start}]:{_dt(self.dtype)}"


@dataclass(frozen=True)
class PartRef:
    """A split column reduction's partial result: thread t's slot j of n_acc, column o0."""
    op: str
    dtype: torch.dtype
    slot: int
    n_acc: int
    columns: Size

    def format(self) -> str:
        return f"part[t, {self.slot}/{self.n_acc}, o0 of {self.columns}]"


Expr = Union[Load, Const, Iota, Op, Select, Round, Temp, AccRef, TileRef, PartRef, StageRef]


# -- statements --------------------------------------------------------------------------------
def _body(body, indent: str) -> list[str]:
    out = []
    for s in body:
        out += s.format_lines(indent + "  ")
    return out


@dataclass(frozen=True)
class Let:
    name: str
    dtype: torch.dtype
    value: Any

    def format_lines(self, ind: str) -> list[str]:
        return [f"{ind}let {self.name}: {_dt(self.dtype)} = {self.value.format()}"]


@dataclass(frozen=True)
class Store:
    """Buffer parameter `param`[index] = value, converted to the buffer's `dtype`. Triton:
    `mask` the tile the store covers ("x" / "xr"), `fill` the tile dims the address lacks.
    `exact`: the value is already one of the bf16 / fp16 `dtype`'s values (rounded to it, or
    loaded from it), so the conversion needs no rounding."""
    param: int
    index: Any
    value: Any
    dtype: torch.dtype
    mask: str = ""
    fill: str = ""
    exact: bool = False

    def format_lines(self, ind: str) -> list[str]:
        m = f" mask {self.mask}" if self.mask else ""
        f = f" fill {self.fill}" if self.fill else ""
        e = " exact" if self.exact else ""
        return [f"{ind}store b{self.param}[{_ix(self.index)}{m}{f}]:{_dt(self.dtype)}{e} = {self.value.format()}"]


@dataclass(frozen=True)
class ScatterAdd:
    """Buffer parameter `param`[index + the Indirect's value times its stride] += value (a
    scatter's add, in the buffer's float `dtype`). C++ only: the loop around it is no vector
    loop, since two elements may add into one place."""
    param: int
    index: Any
    indirect: Indirect
    value: Any
    dtype: torch.dtype

    def format_lines(self, ind: str) -> list[str]:
        return [f"{ind}add b{self.param}[{_ix(self.index)} + {self.indirect.format()}]:{_dt(self.dtype)} "
                f"+= {self.value.format()}"]


@dataclass(frozen=True)
class StageDecl:
    """A stack array of `size` values of `dtype` (C++: its compute type): the gathered loads
    of one vector loop, staged (kernel_plan_cpp.stage_gathers)."""
    stage: int
    dtype: torch.dtype
    size: Any

    def format_lines(self, ind: str) -> list[str]:
        return [f"{ind}stage stage{self.stage}: {_dt(self.dtype)}[{self.size}]"]


@dataclass(frozen=True)
class StageStore:
    """stage`stage`[var - start] = value (a gathered load); with `index`, stage`stage`[index]
    (a value per element of a staged kernel's inner loops, kernel_plan_staged)."""
    stage: int
    var: str
    start: Any
    value: Any
    index: Optional[Index] = None

    def position(self) -> str:
        return self.index.format() if self.index is not None else f"{self.var} - {self.start}"

    def format_lines(self, ind: str) -> list[str]:
        return [f"{ind}stage{self.stage}[{self.position()}] = {self.value.format()}"]


@dataclass(frozen=True)
class TileDecl:
    tile: int
    dtype: torch.dtype
    shape: tuple

    def format_lines(self, ind: str) -> list[str]:
        return [f"{ind}tile tile{self.tile}: {_dt(self.dtype)}{list(self.shape)}"]


@dataclass(frozen=True)
class TileStore:
    ref: TileRef
    value: Any
    dtype: torch.dtype
    exact: bool = False     # as Store's

    def format_lines(self, ind: str) -> list[str]:
        return [f"{ind}{self.ref.format()}{' exact' if self.exact else ''} = {self.value.format()}"]


@dataclass(frozen=True)
class AccDecl:
    """Accumulator `name` of reduction `red` (its node's name) of op `op` over `dtype`,
    initialized to the op's identity; `block`: an array of that many columns; `nan_flag`:
    a flag beside it keeping a NaN an OpenMP max / min would drop."""
    name: str
    red: str
    op: str
    dtype: torch.dtype
    block: Optional[Size] = None
    nan_flag: bool = False

    def format_lines(self, ind: str) -> list[str]:
        b = f"[{self.block}]" if self.block is not None else ""
        n = " +nan flag" if self.nan_flag else ""
        return [f"{ind}acc {self.name}{b}: {self.op} {_dt(self.dtype)}{n}"]


@dataclass(frozen=True)
class Fold:
    """acc <- op(acc, value). C++: `omp` in a loop with an OpenMP reduction clause,
    `keep_nan` also sets the accumulator's NaN flag. Triton: `tile` the whole row in
    one tile (masked lanes get the identity) rather than one chunk of a looped row."""
    acc: AccRef
    red: str
    op: str
    dtype: torch.dtype
    value: Any
    omp: bool = False
    keep_nan: bool = False
    tile: bool = False
    value_dtype: Any = None    # Triton: the dtype a constant value is broadcast in

    def format_lines(self, ind: str) -> list[str]:
        flags = "".join(f" {k}" for k, on in (("omp", self.omp), ("keep_nan", self.keep_nan),
                                               ("tile", self.tile)) if on)
        return [f"{ind}fold {self.acc.format()} <- {self.op}({self.value.format()}){flags}"]


@dataclass(frozen=True)
class NanRestore:
    """acc = NaN where the reduction's NaN flag is set."""
    acc: str
    red: str

    def format_lines(self, ind: str) -> list[str]:
        return [f"{ind}nan_restore {self.acc}"]


@dataclass(frozen=True)
class Combine:
    """Triton: the lanes of an accumulator combined to one value per row; `read` then
    narrows it to the reduction's dtype, as other members read it."""
    acc: str
    op: str
    dtype: torch.dtype
    read: bool = False

    def format_lines(self, ind: str) -> list[str]:
        return [f"{ind}{'read' if self.read else 'combine'} {self.acc}: {self.op} {_dt(self.dtype)}"]


@dataclass(frozen=True)
class WorkspaceStore:
    """Split reduction: accumulator `acc` (slot `slot`) into chunk program_id(1)'s slice
    of the workspace (C++: thread t's slice of `part` for column o0)."""
    acc: str
    slot: int
    n_acc: int
    columns: Size
    op: str = ""
    dtype: Any = None

    def format_lines(self, ind: str) -> list[str]:
        return [f"{ind}workspace[{self.slot}] <- {self.acc}"]


@dataclass(frozen=True)
class WorkspaceLoad:
    """Triton split reduction: the chunks of slot `slot` loaded into `acc`."""
    acc: str
    slot: int
    op: str
    dtype: torch.dtype
    columns: Size

    def format_lines(self, ind: str) -> list[str]:
        return [f"{ind}{self.acc} <- workspace[{self.slot}]"]


@dataclass(frozen=True)
class Parallel:
    """A loop shared among threads: OpenMP `parallel for` (`simd`: also the vector loop),
    `collapse` loops into one iteration space, and a run-time condition (a conjunction of
    (lhs, op, rhs) over sizes) when a symbolic amount of work decides."""
    simd: bool = False
    collapse: int = 0
    cond: tuple = ()

    def format(self) -> str:
        s = " simd" if self.simd else ""
        c = f" collapse({self.collapse})" if self.collapse else ""
        w = (" if " + " && ".join(f"{a} {o} {b}" for a, o, b in self.cond)) if self.cond else ""
        return f"parallel{s}{c}{w}"


@dataclass(frozen=True)
class Reduction:
    """An OpenMP reduction clause: accumulator `acc` of op `op` (plus its NaN flag)."""
    op: str
    dtype: torch.dtype
    acc: str
    nan_flag: Optional[str] = None


@dataclass(frozen=True)
class Loop:
    """for var in [start, stop) by step: body. `parallel` / `simd` are the decisions on it
    (`simd`: a vector loop, with its reduction clauses)."""
    var: str
    start: Bound
    stop: Bound
    body: tuple
    step: Size = 1
    parallel: Optional[Parallel] = None
    simd: Optional[tuple] = None
    ctype: str = "int64_t"

    def format_lines(self, ind: str) -> list[str]:
        step = f" by {self.step}" if self.step != 1 else ""
        notes = []
        if self.parallel is not None:
            notes.append(self.parallel.format())
        if self.simd is not None:
            notes.append("simd" + "".join(f" {r.op}:{r.acc}" for r in self.simd))
        note = f" [{', '.join(notes)}]" if notes else ""
        return [f"{ind}for {self.var} in {self.start}..{self.stop}{step}{note}:"] + _body(self.body, ind)


@dataclass(frozen=True)
class BlockEnd:
    """The ends of blocks: each (end, start, step, size) binds end = min(start + step, size)."""
    ends: tuple

    def format_lines(self, ind: str) -> list[str]:
        return [f"{ind}{e} = min({s} + {st}, {n})" for e, s, st, n in self.ends]


@dataclass(frozen=True)
class ThreadRegion:
    """C++ split column reduction: a parallel region (its run-time condition `cond`) where
    thread t of nt takes rows [rb, re) of `rows`; `part` holds n_acc slices of `columns`
    per thread, freed after `after` ran."""
    cond: tuple
    rows: Size
    columns: Size
    n_acc: int
    body: tuple

    def format_lines(self, ind: str) -> list[str]:
        c = (" if " + " && ".join(f"{a} {o} {b}" for a, o, b in self.cond)) if self.cond else ""
        return [f"{ind}threads t, rows rb..re of {self.rows}, part[{self.n_acc}][{self.columns}]{c}:"] + \
            _body(self.body, ind)


@dataclass(frozen=True)
class Scope:
    """Statements in a scope of their own (C++: braces): one phase of a split reduction,
    whose workspace and thread count are its own."""
    body: tuple

    def format_lines(self, ind: str) -> list[str]:
        return [f"{ind}scope:"] + _body(self.body, ind)


@dataclass(frozen=True)
class FreeParts:
    def format_lines(self, ind: str) -> list[str]:
        return [f"{ind}free part"]


@dataclass(frozen=True)
class IndexVars:
    """Triton: flat index `flat` decomposed into one variable per merged group of dims:
    each (var, divisor, modulus or None)."""
    flat: str
    vars: tuple

    def format_lines(self, ind: str) -> list[str]:
        return [f"{ind}{v} = {self.flat}" + (f" // {d}" if d != 1 else "") + (f" % {m}" if m is not None else "")
                for v, d, m in self.vars]


@dataclass(frozen=True)
class RowTile:
    """Triton: the reduced lanes of the tile (rs, rmask, xrmask, rzero, xrzero) at
    `start` (persistent: rbase; a chunk: roff + rbase; split: rstart + roff + rbase),
    bounded by `rlen` (and by `chunk` within a split chunk)."""
    rlen: Size
    start: str = ""
    chunk: Size = 0

    def format_lines(self, ind: str) -> list[str]:
        c = f" within chunk {self.chunk}" if self.chunk else ""
        start = f"{self.start} + " if self.start else ""
        return [f"{ind}rs = {start}rbase < {self.rlen}{c}"]


@dataclass(frozen=True)
class XTile:
    """Triton: the program's block of XBLOCK elements (pointwise) or rows (`rows`: a 2-d
    tile), its mask against `bound`, and a zero of its shape."""
    index_type: str
    bound: Size
    rows: bool = False

    def format_lines(self, ind: str) -> list[str]:
        return [f"{ind}xs = block of XBLOCK{' rows' if self.rows else ''} < {self.bound} ({self.index_type})"]


@dataclass(frozen=True)
class RBase:
    """Triton: the RBLOCK lanes of a row tile; `chunk`: a split reduction's chunk start."""
    index_type: str
    chunk: Size = 0

    def format_lines(self, ind: str) -> list[str]:
        c = f", chunks of {self.chunk}" if self.chunk else ""
        return [f"{ind}rbase = lanes of RBLOCK ({self.index_type}){c}"]


@dataclass(frozen=True)
class ChunkIndex:
    """Triton split reduction, combining function: the chunks (`block` a power of 2 at
    least `chunks`; names when they are arguments)."""
    block: Any
    chunks: Any

    def format_lines(self, ind: str) -> list[str]:
        return [f"{ind}sidx = chunks {self.chunks} in block {self.block}"]


# -- kernels -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Param:
    name: str
    buffer: str        # the buffer node's name
    dtype: torch.dtype
    written: bool
    aliased: bool      # written in place over an input: may share memory with another parameter


@dataclass(frozen=True)
class CppPlan:
    """What was decided for a C++ kernel.

    mode      "flat" (pointwise loops), "tiled" (a transposing pointwise kernel in tiles),
              "rows" (a reduction's rows in parallel), "columns" (column blocks in
              parallel), "columns-split" (each thread a range of rows, partial sums added),
              "scatter" (a scatter into zeros: its rows in parallel), "staged" (a pointwise
              kernel's per-block staged values, then its rows)
    loops     the merged loops: ((var, size), ...) outer first, then inner
    parallel  run on threads; `cond` its run-time condition when the work is symbolic;
              `collapse` the loops collapsed into one parallel iteration space
    tile      (second-to-last, last) tile sizes (mode "tiled")
    cb        columns per block (modes "columns" / "columns-split")
    """
    mode: str
    loops: tuple
    parallel: bool
    cond: tuple = ()
    collapse: int = 0
    tile: Optional[tuple] = None
    cb: Optional[int] = None

    def format(self) -> str:
        loops = ", ".join(f"{v}<{n}" for v, n in self.loops)
        extra = "".join(f" {k}={getattr(self, k)}" for k in ("cond", "collapse", "tile", "cb")
                        if getattr(self, k) not in ((), 0, None))
        return f"cpp {self.mode} [{loops}] parallel={self.parallel}{extra}"


@dataclass(frozen=True)
class TritonPlan:
    """What was decided for a Triton kernel.

    mode        "pointwise" | "persistent" (a whole row in one tile) | "looped" (rows in
                RBLOCK chunks) | "split" (row chunks into a workspace, then combined)
    numel, rows, rlen   the domain's elements, rows and row length
    column      the innermost dim is kept (rows are strided)
    index_type  "tl.int32" unless an address can pass 2**31
    split, chunk        split mode: chunks and rows per chunk
    n_acc       split mode: fp32 partial results per column per chunk
    dynamic     symbolic sizes: the split's chunk count is an argument (NSPLIT, SBLOCK)
    """
    mode: str
    numel: Size
    rows: Size
    rlen: Size
    column: bool
    index_type: str
    split: int = 0
    chunk: int = 0
    n_acc: int = 0
    dynamic: bool = False
    x_vars: tuple = ()
    r_vars: tuple = ()

    def format(self) -> str:
        s = f" split={self.split} chunk={self.chunk}" if self.split else ""
        return (f"triton {self.mode} numel={self.numel} rows={self.rows} rlen={self.rlen}"
                f"{' column' if self.column else ''} {self.index_type}{s}")


@dataclass(frozen=True)
class LoopKernel:
    name: str
    params: tuple                  # Param, in parameter order
    syms: tuple                    # size symbols taken after the buffers
    kind: str                      # "pointwise" | "row reduction" | "column reduction"
    bytes: int
    plan: Any                      # CppPlan | TritonPlan
    body: tuple                    # statements (Triton split mode: the first function's)
    fin: tuple = ()                # Triton split mode: the combining function's statements
    nodes: tuple = field(default=(), compare=False, repr=False)   # the buffers' nodes
    writes: tuple = field(default=(), compare=False, repr=False)  # the nodes it stores, in member order

    def format(self) -> str:
        ps = ", ".join(f"{p.name}={p.buffer}:{_dt(p.dtype)}{' w' if p.written else ''}"
                       f"{' aliased' if p.aliased else ''}" for p in self.params)
        lines = [f"kernel {self.name}({ps}){' syms ' + ','.join(self.syms) if self.syms else ''}",
                 f"  {self.kind}, {self.bytes} bytes, {self.plan.format()}"]
        lines += _body(self.body, "")
        if self.fin:
            lines.append("  fin:")
            lines += _body(self.fin, "  ")
        return "\n".join(lines)


@dataclass(frozen=True)
class LoopProgram:
    target: str                    # "cpp" | "triton"
    kernels: tuple

    def format(self) -> str:
        return "\n\n".join(k.format() for k in self.kernels) + "\n"


# -- walking -----------------------------------------------------------------------------------
def map_tree(x, fn):
    """x with fn applied bottom-up to every dataclass node below and including it
    (tuples of nodes are rebuilt; other values kept)."""
    if isinstance(x, tuple):
        return tuple(map_tree(y, fn) for y in x)
    if is_dataclass(x) and not isinstance(x, type):
        changes = {}
        for f in fields(x):
            v = getattr(x, f.name)
            if isinstance(v, tuple) or (is_dataclass(v) and not isinstance(v, type)):
                nv = map_tree(v, fn)
                if nv is not v:
                    changes[f.name] = nv
        if changes:
            x = replace(x, **changes)
        return fn(x)
    return x


def walk(x):
    """Every dataclass node below and including x, parents before children."""
    if isinstance(x, tuple):
        for y in x:
            yield from walk(y)
    elif is_dataclass(x) and not isinstance(x, type):
        yield x
        for f in fields(x):
            v = getattr(x, f.name)
            if isinstance(v, tuple) or is_dataclass(v):
                yield from walk(v)
