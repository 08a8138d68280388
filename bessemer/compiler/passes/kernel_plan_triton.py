"""A fused kernel as a Triton program: every decision the Triton printer used to make.

In: one schedule Kernel. Out: a `LoopKernel` (ir/loops.py) with a `TritonPlan`:
  pointwise    the domain flattened to one index; a program handles XBLOCK elements,
               decomposed into the (merged) domain dims
  persistent   a reduction whose whole row fits one [XBLOCK, RBLOCK] tile (rows up to
               PERSISTENT_MAX): every phase works on the same tile, so a softmax or
               layer norm reads its input once
  looped       longer rows (and column reductions): each phase loops over the row in
               RBLOCK chunks, reductions accumulating lane-wise, combined at the end
  split        a column reduction with too few column blocks to fill a GPU: chunks of
               rows into a workspace (`body`), then a second function combines them (`fin`)
Addresses that walk all the variables of a flat index in row-major order are written
over the flat index itself (xs, rs): Triton then sees contiguous addresses.
"""
from __future__ import annotations

import math
from dataclasses import replace

import torch

from bessemer.compiler.ir.graph import IndexMap, Kind
from bessemer.compiler.ir.loops import (AccDecl, AccRef, ChunkIndex, CodegenError, Combine, Const, Fold, Index,
                                        Indirect, IndexVars, Iota, Load, Loop, LoopKernel, Range, RBase, RowTile, Store, TritonPlan,
                                        WorkspaceLoad, WorkspaceStore, XTile)
from bessemer.compiler.ir.ops import REDUCTIONS
from bessemer.compiler.ir.schedule import Kernel, Role, Schedule, outer_map
from bessemer.compiler.ir.symbolic import Dim, hint
from bessemer.compiler.passes.kernel_walk import Walker, symbols_of

# Rows up to this long are reduced in one tile (persistent); longer rows loop.
# A tile lives in registers: past 4096 fp32 values per row the spills cost more
# than the second read of the row a looped kernel pays.
PERSISTENT_MAX = 4096
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


class _Lowering:
    """One kernel's walk (name_loads: every load is a named value the tile reuses)."""

    def __init__(self, k: Kernel, sched: Schedule):
        self.w = Walker(k, sched, name_loads=True)
        self.k = k
        self.outer: set[int] = set()
        self.inner: set[int] = set()
        self.flat: dict[str, list] = {}   # flat index -> [(group variable, row-major stride)]

    # -- from domain indices to the tile's ------------------------------------------------------
    def _dims(self, lin) -> set:
        return {d for d, c in enumerate(lin.coef) if c and self.k.shape[d] != 1}

    def _tile_dims(self, lin) -> str:
        used = self._dims(lin)
        return ("x" if used & self.outer else "") + ("r" if used & self.inner else "")

    def _index(self, lin, var_of) -> Index:
        """As the walker relabels it, except that where the form walks all the group
        variables of a flat index in row-major order (coefficients c * the size of the
        groups after each), it is written as c * that flat index."""
        terms = self.w.lin_terms(lin, var_of)
        for flat, groups in self.flat.items():
            if not groups or any(v not in terms for v, _ in groups):
                continue
            c = terms[groups[-1][0]]
            if all(terms[v] == c * stride for v, stride in groups):
                for v, _ in groups:
                    del terms[v]
                terms[flat] = c
        return Index(tuple(terms.items()), lin.const)

    def relabel(self, body, var_of):
        cond_dims: dict = {}   # a relabelled Range or Indirect (by id) -> the tile dims its index depends on

        def fix(x, lin, _conv):
            if isinstance(x, Iota) and not self._dims(lin):
                return Const(x.start + x.step * lin.const, x.dtype)
            idx = self._index(lin, var_of)
            if isinstance(x, (Range, Indirect)):
                r = replace(x, index=idx)
                cond_dims[id(r)] = self._tile_dims(lin)
                return r
            if isinstance(x, Load):
                # a load's mask: the tile dims its address depends on (none for one fixed element);
                # a masked load's also those of its condition, a gathered load's those of the
                # gathered element's position, with a zero tile added to the address for each of
                # them the address lacks (the pointer takes the mask's shape)
                used = self._tile_dims(lin)
                dims = set(used).union(*(cond_dims[id(r)] for r in x.cond))
                if x.indirect is not None:
                    dims |= set(cond_dims[id(x.indirect)])
                mask = "".join(c for c in "xr" if c in dims)
                return replace(x, index=idx, mask=mask, fill="".join(c for c in mask if c not in used))
            if isinstance(x, Store):
                # a store's pointer must have its value's shape: a zero tile is added for
                # each dim of that shape the address does not depend on
                used = self._tile_dims(lin)
                fill = "".join(c for c in x.mask if c not in used)
                return replace(x, index=idx, fill=fill)
            return replace(x, index=idx)
        return list(self.w.relabel(body, var_of, fix))

    def index_vars(self, groups, flat: str, prefix: str, var_of: dict) -> IndexVars:
        """A flat index decomposed into one variable per merged group of dims."""
        sizes = [math.prod(self.k.shape[d] for d in g) for g in groups]
        self.flat[flat] = [(f"{prefix}{gi}", math.prod(sizes[gi + 1:])) for gi in range(len(groups))]
        out = []
        for gi, g in enumerate(groups):
            out.append((f"{prefix}{gi}", math.prod(sizes[gi + 1:]), sizes[gi] if gi > 0 else None))
            for d in g:
                var_of[d] = (f"{prefix}{gi}", g[-1])
        return IndexVars(flat, tuple(out))

    def index_type(self) -> str:
        """int32 indexing unless an address can pass 2**31."""
        big = math.prod(self.k.shape) if self.k.shape else 1
        for lin in self.w.lins:
            reach = abs(lin.const) + sum(abs(c) * (self.k.shape[d] - 1) for d, c in enumerate(lin.coef))
            big = max(big, reach)
        return "tl.int64" if big >= 2 ** 31 - 1 else "tl.int32"

    # -- members ----------------------------------------------------------------------------------
    def outer_members(self, mbrs, row_cache: dict) -> list:
        """Per-row members (mean, rstd): computed at the row index, stored, and kept
        for the members after them."""
        lines: list = []
        for mbr in mbrs:
            rm = outer_map(self.k.shape, self.k.red, mbr.shape)
            v = self.w.expr(mbr, rm, lines, row_cache, top=True)
            lines.append(self.w.store(mbr, v, rm, "x"))
            self.w.row_vals[mbr] = v
        return lines

    def reduction(self, r, ident, lines, cache, init, after, persistent: bool, combine=None) -> str:
        """Reduction r: its accumulation into `lines` (and `init`), the combining of lanes
        into `combine` (default: `after`), and into `after` the value in r's dtype and r's
        store. Returns the accumulator."""
        combine = after if combine is None else combine
        acc = f"acc{len(self.w.acc)}"   # numbered in the kernel: the same code for each layer's copy
        v = self.w.expr(r.args[0], ident, lines, cache)
        if not persistent:
            init.append(AccDecl(acc, r.name, r.op, r.dtype))
        lines.append(Fold(AccRef(acc, r.dtype), r.name, r.op, r.dtype, v, tile=persistent,
                          value_dtype=r.args[0].dtype))
        combine.append(Combine(acc, r.op, r.dtype))
        # the value other members read: in the reduction's own dtype
        after.append(Combine(acc, r.op, r.dtype, read=True))
        self.w.acc[r] = AccRef(acc, r.dtype)
        if r in self.k.stores:
            after.append(self.w.store(r, AccRef(acc, r.dtype), outer_map(self.k.shape, self.k.red, r.shape), "x"))
        return acc

    # -- kernels ----------------------------------------------------------------------------------
    def kernel(self, plan: TritonPlan, body: list, fin: list = ()) -> LoopKernel:
        w = self.w
        body, fin = tuple(body), tuple(fin)
        return LoopKernel(self.k.name, w.param_list(), symbols_of(body, fin), w.kind(), w.bytes_moved(), plan,
                          body, fin, nodes=tuple(w.params), writes=tuple(self.k.stores))

    def pointwise(self) -> LoopKernel:
        k, w = self.k, self.w
        dims = [d for d in range(w.D) if k.shape[d] != 1]
        self.outer = set(dims)
        ident = IndexMap.identity(w.D)
        lines: list = []
        cache: dict = {}
        for mbr in k.members:
            v = w.expr(mbr, ident, lines, cache, top=True)
            lines.append(w.store(mbr, v, ident, "x"))
            w.remember(cache, mbr, ident, v)
        groups = w.merge(dims)
        numel = math.prod(k.shape) if k.shape else 1
        it = self.index_type()
        var_of: dict = {}
        xv = self.index_vars(groups, "xs", "x", var_of)
        body = [XTile(it, numel), xv] + self.relabel(lines, var_of)
        return self.kernel(TritonPlan("pointwise", numel, numel, 1, False, it, x_vars=xv.vars), body)

    def reduce(self) -> LoopKernel:
        k, w = self.k, self.w
        red = set(k.red)
        outer_dims = [d for d in range(w.D) if d not in red and k.shape[d] != 1]
        inner_dims = [d for d in range(w.D) if d in red and k.shape[d] != 1]
        self.outer, self.inner = set(outer_dims), set(inner_dims)
        rows = math.prod(k.shape[d] for d in outer_dims)
        rlen = math.prod(k.shape[d] for d in inner_dims)
        # a column reduction (innermost dim kept) loops: its tile must be XBLOCK
        # columns wide for coalesced reads, too wide to hold whole columns
        column = bool(inner_dims) and w.kind() == "column reduction"
        persistent = not column and rlen <= PERSISTENT_MAX   # a guard (symbolic sizes): the code differs
        split, chunk = self.split_plan(column, rows, rlen)
        if split:
            return self.split(outer_dims, inner_dims, rows, rlen, split, chunk)
        ident = IndexMap.identity(w.D)
        row_cache: dict = {}
        tile_cache: dict = {}   # persistent: one tile, values shared by all phases
        parts: list = []        # statements, and ("rows", lines): a looped phase's chunk loop
        for role, mbrs in w.phases():
            if role == Role.OUTER:
                parts += self.outer_members(mbrs, row_cache)
                continue
            pre: list = []
            lines, after, init = [], [], []
            cache = tile_cache if persistent else {}
            w.hoist = (pre, row_cache)
            for mbr in mbrs:
                if role == Role.REDUCE:
                    self.reduction(mbr, ident, lines, cache, init, after, persistent)
                else:
                    v = w.expr(mbr, ident, lines, cache, top=True)
                    lines.append(w.store(mbr, v, ident, "xr"))
            w.hoist = None
            parts += pre + init
            parts += lines if persistent else [("rows", lines)]
            parts += after
        it = self.index_type()
        og, ig = w.merge(outer_dims), w.merge(inner_dims)
        var_of: dict = {}
        xv = self.index_vars(og, "xs", "x", var_of)
        rv = self.index_vars(ig, "rs", "r", var_of)
        body = [XTile(it, rows, rows=True), RBase(it), xv]
        if persistent:
            body += [RowTile(rlen), rv]
        for p in parts:
            if isinstance(p, tuple):
                body.append(Loop("roff", 0, rlen, tuple([RowTile(rlen, "roff"), rv] + self.relabel(p[1], var_of)),
                                 step="RBLOCK"))
            else:
                body += self.relabel([p], var_of)
        plan = TritonPlan("persistent" if persistent else "looped", rows * rlen, rows, rlen, column, it,
                          x_vars=xv.vars, r_vars=rv.vars)
        return self.kernel(plan, body)

    def split_plan(self, column: bool, rows, rlen) -> tuple[int, int]:
        """(chunks, rows per chunk) for a column reduction worth splitting, else (0, 0).
        A heuristic weighed at the compiled shape (symbolic sizes: their hints, no guard):
        the split code is correct at any size, the number of chunks being derived from the
        row length at run time."""
        rows, rlen = hint(rows), hint(rlen)
        if not column or rlen < SPLIT_MIN_RLEN or -(-rows // 64) >= SPLIT_MAX_BLOCKS:
            return 0, 0
        phases = self.w.phases()
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

    def split(self, outer_dims, inner_dims, rows, rlen, split, chunk) -> LoopKernel:
        """Two functions: the kernel's reduces chunk program_id(1) of every column block
        into the workspace; its `fin` combines the chunks and runs the rest."""
        w = self.w
        ident = IndexMap.identity(w.D)
        (_, reds), *outer_phases = w.phases()
        pre, init, lines, combine, after = [], [], [], [], []
        w.hoist = (pre, {})
        cache: dict = {}
        accs = [self.reduction(r, ident, lines, cache, init, after, False, combine) for r in reds]
        w.hoist = None
        it = self.index_type()
        og, ig = w.merge(outer_dims), w.merge(inner_dims)
        var_of: dict = {}
        xv = self.index_vars(og, "xs", "x", var_of)
        rv = self.index_vars(ig, "rs", "r", var_of)
        # symbolic sizes: the number of chunks is an argument (NSPLIT, and SBLOCK its power of 2)
        dyn = isinstance(rows, Dim) or isinstance(rlen, Dim)
        head = [XTile(it, rows, rows=True), xv]
        part = head + [RBase(it, chunk)] + self.relabel(pre + init, var_of)
        part.append(Loop("roff", 0, chunk, tuple([RowTile(rlen, "rstart + roff", chunk), rv] +
                                                 self.relabel(lines, var_of)), step="RBLOCK"))
        part += self.relabel(combine, var_of)
        sb = "SBLOCK" if dyn else 1 << max(0, (split - 1).bit_length())
        fin = head + [ChunkIndex(sb, "NSPLIT" if dyn else split)]
        for i, (acc, r) in enumerate(zip(accs, reds)):
            part.append(WorkspaceStore(acc, i, len(accs), rows, r.op, r.dtype))
            fin += [WorkspaceLoad(acc, i, r.op, r.dtype, rows), Combine(acc, r.op, r.dtype)]
        fin += self.relabel(after, var_of)
        row_cache: dict = {}   # fresh: the values hoisted in the first function do not exist here
        for _, mbrs in outer_phases:
            fin += self.relabel(self.outer_members(mbrs, row_cache), var_of)
        plan = TritonPlan("split", rows * rlen, rows, rlen, True, it, split, chunk, len(accs), dyn, xv.vars, rv.vars)
        return self.kernel(plan, part, fin)


def lower_kernel(k: Kernel, sched: Schedule) -> LoopKernel:
    if any(m.kind == Kind.SCATTER for m in k.members):
        # lowering makes scatter nodes for a CPU graph only (on a GPU the call stays ATen's)
        raise CodegenError(f"kernel {k.name}: a scatter kernel has no Triton form")
    low = _Lowering(k, sched)
    return low.reduce() if k.red else low.pointwise()
