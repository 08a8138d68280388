"""A fused kernel as C++ / OpenMP loops: every decision the C++ printer used to make.

In: one schedule Kernel. Out: a `LoopKernel` (ir/loops.py) with a `CppPlan`:
  flat           a pointwise kernel: its merged loops, the outermost parallel (and the
                 vector loop when it is the only one), the innermost a `simd` loop, costly
                 values the same along it computed before it (ROW_HOIST comment below)
  tiled          a pointwise kernel that reads transposed: tiles (TRANSPOSE_TILE)
  rows           a reduction kernel's rows in parallel, its phases (reductions, full-row
                 epilogues, per-row values) over each row
  columns        the innermost dim kept (a bias gradient): blocks of CB columns in parallel
  columns-split  the same, each thread summing its own range of rows (partials added in
                 thread order)
  scatter        a scatter into zeros: rows in parallel, each row of the result zeroed
                 (a vector loop), then its row's values added at their indices in order
  staged         a flat plan's innermost loop too short: the values the same along a
                 middle dim staged per block of it (kernel_plan_staged.py)
Column mode is tried first where it applies and gives way to rows when the outer dims do
not merge into one loop: two walks of the kernel, each with its own Walker.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Optional

import torch

from bessemer.compiler.ir.graph import IndexMap, Kind
from bessemer.compiler.ir.loops import (AccDecl, AccRef, BlockEnd, Const, CppPlan, Fold, FreeParts, Index, Indirect,
                                        Load, Loop, LoopKernel, NanRestore, Parallel, PartRef, Reduction, ScatterAdd,
                                        Scope, Store, ThreadRegion, TileDecl, TileRef, TileStore, WorkspaceStore,
                                        map_tree, walk)
from bessemer.compiler.ir.ops import REDUCTIONS
from bessemer.compiler.ir.schedule import Kernel, Role, Schedule, outer_map
from bessemer.compiler.ir.symbolic import Dim, hint
from bessemer.compiler.ir.views import contiguous_strides
from bessemer.compiler.passes import kernel_plan_staged
from bessemer.compiler.passes.cpp_loops import loop_kernel, nest, parallel_for, parallel_if
from bessemer.compiler.passes.kernel_walk import DomainIndex, Walker


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

# ROW_HOIST: a pointwise kernel computes a costly value that stays the same along its innermost loop
# (Walker.worth_hoisting: a cross-entropy backward's log of each row's sum) once per iteration
# of the outer loops, before the innermost. Per element, gcc evaluates it with the vector call
# (libmvec logf) on every vector of the row: exp(x - m - log(s)) * g over [1024, 8192] f32 took
# 5.6 ms on 1 thread, 2.8 ms with the row's values first (3.1 / 1.6 ms on 2 threads). Short
# rows gain too (1 thread: [131072, 8] 0.79 -> 0.68 ms, [524288, 2] 5.8 -> 4.6 ms): the
# value's own loads, the same along the inner dim and not along an outer one, keep those two
# from merging into one loop whether it is hoisted or not, so any inner length takes it.


def _innermost_kept(k: Kernel) -> bool:
    dims = [d for d, n in enumerate(k.shape) if n != 1]
    return bool(dims) and dims[-1] not in k.red


def lower_kernel(k: Kernel, sched: Schedule, cores: int) -> LoopKernel:
    if k.members[0].kind == Kind.SCATTER:
        return _scatter(Walker(k, sched), cores)
    if not k.red:
        # per-row values first; walked again without them where the loops turn out not to
        # suit them (a tiled kernel)
        lk = _pointwise(Walker(k, sched), cores, rows=True)
        if lk is None:
            lk = _pointwise(Walker(k, sched), cores, rows=False)
        if kernel_plan_staged.inner_too_short(lk):
            # an innermost loop of a few elements: staged per block of rows where it can be
            return kernel_plan_staged.staged(Walker(k, sched), cores) or lk
        return lk
    probe = Walker(k, sched)
    phases = probe.phases()
    outer_dims = [d for d in range(len(k.shape)) if d not in k.red and k.shape[d] != 1]
    # Column mode when the innermost dim is kept (a bias gradient over [rows, C]):
    # a block of columns is read contiguously from each row. When the innermost
    # dim is reduced (batch norm over N, H, W), row mode already reads rows
    # contiguously, one channel per thread.
    # A reduction over N, H, W of a channels-last buffer (BatchNorm after a convolution that
    # ran channels-last, partition/channels_last.py) is a column reduction over [N*H*W, C] in
    # memory although its innermost domain dim is reduced: row mode would walk each channel
    # C elements apart, once per channel. Column mode then runs when its reads are contiguous
    # along the kept dims.
    if all(role != Role.FULL for role, _ in phases) and len(outer_dims) >= 1:
        col = _columns(Walker(k, sched), phases, cores, physical=not _innermost_kept(k))
        if col is not None:
            return col
        # the outer dims do not merge into one loop (or the reads are not laid out along
        # them): row mode
    return _rows(Walker(k, sched), phases, cores)


def _dims(k: Kernel):
    red = set(k.red)
    D = len(k.shape)
    return ([d for d in range(D) if d not in red and k.shape[d] != 1],
            [d for d in range(D) if d in red and k.shape[d] != 1])


# -- pointwise -----------------------------------------------------------------------------------
def _pointwise(w: Walker, cores: int, rows: bool = False) -> Optional[LoopKernel]:
    """A pointwise kernel's loops. `rows`: costly values the same along the innermost loop
    are computed before it; None when some were and the loops do not suit them (tiles; an
    innermost loop that merged dims some value varies along), and the caller walks the
    kernel again without."""
    k = w.k
    ident = IndexMap.identity(w.D)
    lines: list = []
    cache: dict = {}
    # what no element's index changes (an optimizer step's bias corrections, pow(beta, step) in
    # float64 from a 0-d step count; a scalar loss gradient) is computed once, before the loops:
    # left inside, gcc evaluates it per element (an AdamW update over 1M elements spent 80% of
    # its time in two scalar pow calls)
    pre: list = []
    w.hoist, w.hoist_dims = (pre, {}), list(range(w.D))
    outer_dims, _ = _dims(k)
    row_pre: list = []
    if rows and len(outer_dims) >= 2:
        # the innermost loop holds at least the last dim of more than one element; which dims
        # merge with it is known after the walk (a value's own loads, the same along the last
        # dim and not along another, keep that other from merging with it), checked below
        w.row_hoist, w.row_dims = (row_pre, {}), [outer_dims[-1]]
    for mbr in k.members:
        v = w.expr(mbr, ident, lines, cache, top=True)
        lines.append(w.store(mbr, v, ident))
        w.remember(cache, mbr, ident, v)
    w.hoist, w.hoist_dims, w.row_hoist, w.row_dims = None, None, None, None
    og = w.merge(outer_dims)
    var_of: dict = {}
    loops_o = w.loop_vars(og, "o", var_of)
    work = math.prod(k.shape) if k.shape else 1
    par, cond = parallel_if(work)
    og, loops_o = _store_order(w, og, loops_o)
    og2, loops2 = _transpose_order(w, og, loops_o)
    tiled = _transposes(w, og2, loops2)
    if tiled:
        og, loops_o = og2, loops2
    else:
        tiled = _transposes(w, og, loops_o)
    if row_pre and (tiled or len(og) < 2 or not _same_along(row_pre, og[-1], k)):
        return None
    body = w.relabel(lines, var_of)
    pre = list(w.relabel(pre, var_of))
    if tiled:
        return _tiled(w, loops_o, par, cond, body, cores, pre)
    pf = parallel_for(loops_o, len(loops_o) > 1, cores, cond) if par and loops_o else None
    plan = CppPlan("flat", tuple(loops_o), bool(pf), cond, pf.collapse if pf else 0)
    if row_pre:
        # the per-row values inside the outer loops, before the innermost: the collapse
        # (parallel_for) covers only the outer loops, which stay perfectly nested
        inner = nest(loops_o[-1:], body, None, ())
        return loop_kernel(w, plan, pre + nest(loops_o[:-1], list(w.relabel(row_pre, var_of)) + inner, pf, None))
    return loop_kernel(w, plan, pre + nest(loops_o, body, pf, ()))


def _same_along(stmts: list, group: list[int], k: Kernel) -> bool:
    """Does no address or index in `stmts` vary along the dims of the merged loop `group`?"""
    dims = [d for d in group if k.shape[d] != 1]
    return all(x.coef[d] == 0 for x in walk(tuple(stmts)) if isinstance(x, DomainIndex) for d in dims)


def _store_order(w: Walker, og, loops_o):
    """(og, loops_o) in the order of the stores' memory, outermost first, where every store
    lays the loops out alike and not in the domain's order: a kernel between two channels-last
    convolutions writes [N, H, W, C] memory of an [N, C, H, W] value, and walks C innermost."""
    if len(loops_o) < 2 or w.k.aliased or not w.store_lins:
        return og, loops_o
    strides = None
    for lin in w.lins:
        if lin.id not in w.store_lins:
            continue
        st = [lin.coef[grp[-1]] for grp in og]
        if not all(isinstance(c, int) and c > 0 for c in st) or (strides is not None and st != strides):
            return og, loops_o
        strides = st
    order = sorted(range(len(og)), key=lambda i: -strides[i])
    if order == list(range(len(og))) or strides[order[-1]] != 1:
        return og, loops_o
    return [og[i] for i in order], [loops_o[i] for i in order]


def _transpose_order(w: Walker, og, loops_o):
    """(og, loops_o), with a loop along which a buffer is read contiguously (and strided along
    the last) moved next to the last, when it is further out: a max pool over a channels-last
    activation written in eager's layout reads along C, writes along W, with H between. The
    loops of a pointwise kernel nest in any order; the first stays first (the parallel one)."""
    if len(loops_o) < 4 or w.k.aliased or not w.store_lins:
        return og, loops_o
    dl = og[-1][-1]
    if any(lin.id in w.store_lins and lin.coef[dl] != 1 for lin in w.lins):
        return og, loops_o
    for gi in range(1, len(og) - 2):
        dj = og[gi][-1]
        if any(lin.id not in w.store_lins and lin.coef[dj] == 1 and isinstance(lin.coef[dl], int)
               and abs(lin.coef[dl]) >= TRANSPOSE_MIN_STRIDE for lin in w.lins):
            order = [i for i in range(len(og)) if i != gi]
            order.insert(len(order) - 1, gi)
            return [og[i] for i in order], [loops_o[i] for i in order]
    return og, loops_o


def _transposes(w: Walker, og, loops_o) -> bool:
    """Whether a pointwise kernel's last two loops read transposed and write contiguously
    (TRANSPOSE_TILE)."""
    if len(loops_o) < 2 or w.k.aliased or not w.store_lins:
        return False
    (_, size_j), (_, size_l) = loops_o[-2], loops_o[-1]
    if not (isinstance(size_j, int) and isinstance(size_l, int)) or \
            size_j < TRANSPOSE_TILE[0] or size_l < TRANSPOSE_TILE[1] // 2:
        return False
    dj, dl = og[-2][-1], og[-1][-1]
    transposed = False
    for lin in w.lins:
        cj, cl = lin.coef[dj], lin.coef[dl]
        if not (isinstance(cj, int) and isinstance(cl, int)):
            return False
        if lin.id in w.store_lins:
            if cl != 1:
                return False
        elif cj == 1 and abs(cl) >= TRANSPOSE_MIN_STRIDE:
            transposed = True
    return transposed


def _tiled(w: Walker, loops_o, par: bool, cond: tuple, body, cores: int, pre: list) -> LoopKernel:
    """The loops of a transposing pointwise kernel, in tiles (TRANSPOSE_TILE): each tile's
    values computed along the second-to-last loop into a buffer per output, then stored
    along the last loop."""
    tj, tl = TRANSPOSE_TILE
    (vj, sj), (vl, sl) = loops_o[-2], loops_o[-1]
    outer = list(loops_o[:-2])
    ref_body, back, decls = [], [], []
    t = 0
    for s in body:
        if isinstance(s, Store):
            ref = TileRef(t, vl, vj)
            decls.append(TileDecl(t, s.dtype, (tl, tj)))
            ref_body.append(TileStore(ref, s.value, s.dtype, s.exact))
            back.append(Store(s.param, s.index, ref, s.dtype))
            t += 1
        else:
            ref_body.append(s)
    ref_body, fills = _input_tiles(ref_body, vj, vl, t, decls, (tl, tj))
    inner = [BlockEnd(((f"{vj}e", f"{vj}b", tj, sj), (f"{vl}e", f"{vl}b", tl, sl)))] + decls
    if fills:
        inner.append(Loop(vj, f"{vj}b", f"{vj}e", (Loop(vl, f"{vl}b", f"{vl}e", tuple(fills), simd=()),)))
    inner.append(Loop(vl, f"{vl}b", f"{vl}e", (Loop(vj, f"{vj}b", f"{vj}e", tuple(ref_body), simd=()),)))
    inner.append(Loop(vj, f"{vj}b", f"{vj}e", (Loop(vl, f"{vl}b", f"{vl}e", tuple(back), simd=()),)))
    blocks = [(f"{vj}b", -(-sj // tj))]
    pf = parallel_for(outer + blocks, False, cores, cond, vector=False) if par else None
    tile_loop = Loop(f"{vj}b", 0, sj, (Loop(f"{vl}b", 0, sl, tuple(inner), step=tl),), step=tj,
                     parallel=pf if not outer else None)
    stmts = pre + nest(outer, [tile_loop], pf)
    plan = CppPlan("tiled", tuple(loops_o), bool(pf), cond, pf.collapse if pf else 0, tile=TRANSPOSE_TILE)
    return loop_kernel(w, plan, stmts)


def _input_tiles(body: list, vj: str, vl: str, first: int, decls: list, shape: tuple) -> tuple[list, list]:
    """A transposing kernel's reads laid out the other way, contiguous along the last loop
    (a gradient channels-last beside an activation in eager's layout, at the boundary of a
    channels-last region): each copied into a tile first, along its rows, and read from the
    tile in the computing loop, which then reads nothing strided and vectorizes (gcc leaves a
    loop with a strided read scalar, and its expf with it: a SiLU backward over [4, 64, 8, 8]
    took 100 us on one thread). (body, the tile-filling stores)."""
    tiles: dict = {}
    fills: list = []

    def contiguous_along_l(x) -> bool:
        if not (isinstance(x, Load) and isinstance(x.index, Index) and not x.cond and x.indirect is None
                and x.dtype in (torch.float32, torch.float64)):
            return False
        coef = dict(x.index.terms)
        cl, cj = coef.get(vl, 0), coef.get(vj, 0)
        return cl == 1 and isinstance(cj, int) and abs(cj) >= TRANSPOSE_MIN_STRIDE

    def visit(x):
        if not contiguous_along_l(x):
            return x
        key = (x.param, x.index, x.dtype)
        if key not in tiles:
            ref = TileRef(first + len(tiles), vl, vj)
            tiles[key] = ref
            decls.append(TileDecl(ref.tile, x.dtype, shape))
            fills.append(TileStore(ref, x, x.dtype, True))
        return tiles[key]
    return list(map_tree(tuple(body), visit)), fills


# -- reductions: rows ------------------------------------------------------------------------------
def _rows(w: Walker, phases, cores: int) -> LoopKernel:
    k = w.k
    ident = IndexMap.identity(w.D)
    row_cache: dict = {}
    row_code: list = []   # ("decl", stmts) | ("loop", reduction clauses, stmts)
    for role, mbrs in phases:
        if role == Role.REDUCE:
            decl, lines, after, reds = [], [], [], []
            cache: dict = {}
            pre: list = []
            w.hoist = (pre, row_cache)
            for r in mbrs:
                acc = f"acc_{r.name}"
                # OpenMP's max / min drop a NaN: a flag beside the reduction keeps it
                keep = REDUCTIONS[r.op].keeps_nan and r.dtype.is_floating_point
                decl.append(AccDecl(acc, r.name, r.op, r.dtype, None, keep))
                v = w.expr(r.args[0], ident, lines, cache)
                lines.append(Fold(AccRef(acc, r.dtype), r.name, r.op, r.dtype, v, omp=True, keep_nan=keep))
                reds.append(Reduction(r.op, r.dtype, acc, f"nan_{r.name}" if keep else None))
                if keep:
                    after.append(NanRestore(acc, r.name))
                # the value other members read: in the reduction's own dtype
                w.acc[r] = AccRef(acc, r.dtype, narrow=True)
                if r in k.stores:
                    after.append(w.store(r, AccRef(acc, r.dtype), w.row_map(r)))
            w.hoist = None
            row_code += [("decl", decl + pre), ("loop", tuple(reds), lines), ("decl", after)]
        elif role == Role.FULL:
            lines, cache, pre = [], {}, []
            w.hoist = (pre, row_cache)
            for mbr in mbrs:
                v = w.expr(mbr, ident, lines, cache, top=True)
                lines.append(w.store(mbr, v, ident))
            w.hoist = None
            row_code += [("decl", pre), ("loop", (), lines)]
        else:  # per-row values
            lines = []
            for mbr in mbrs:
                rm = outer_map(k.shape, k.red, mbr.shape)
                v = w.expr(mbr, rm, lines, row_cache, top=True)
                lines.append(w.store(mbr, v, rm))
                w.row_vals[mbr] = v
            row_code.append(("decl", lines))
    outer_dims, inner_dims = _dims(k)
    og, ig = w.merge(outer_dims), w.merge(inner_dims)
    var_of: dict = {}
    loops_o = w.loop_vars(og, "o", var_of)
    loops_i = w.loop_vars(ig, "r", var_of)
    work = math.prod(k.shape) if k.shape else 1
    par, cond = parallel_if(work)
    body: list = []
    for item in row_code:
        if item[0] == "decl":
            body += w.relabel(item[1], var_of)
        else:
            body += nest(loops_i, w.relabel(item[2], var_of), None, item[1])
    pf = parallel_for(loops_o, False, cores, cond, vector=False) if par and loops_o else None
    plan = CppPlan("rows", tuple(loops_o + loops_i), bool(pf), cond, pf.collapse if pf else 0)
    return loop_kernel(w, plan, nest(loops_o, body, pf, None))


# -- scatter into zeros -------------------------------------------------------------------------------
def _scatter(w: Walker, cores: int) -> LoopKernel:
    """A scatter node (Kind.SCATTER) over its source's domain [rows..., J], J its scattered
    (last) dim, into a result [rows..., K]. No two rows write one place, so rows run in
    parallel: each zeroes its K elements (a vector loop), then adds its J values at their
    indices one after another, in ATen's order (the same sums, bit for bit); that loop is no
    vector loop (two of its values may add into one place). The source and the index are
    computed in the loop, what stays the same along a row once before it."""
    k = w.k
    n = k.members[0]
    index, src = n.args
    ident = IndexMap.identity(w.D)
    d = n.scatter_dim
    lines: list = []
    pre: list = []
    cache: dict = {}
    w.hoist = (pre, {})
    value = w.expr(src, ident, lines, cache)
    at = w.expr(index, ident, lines, cache)
    w.hoist = None
    out_strides = contiguous_strides(n.shape)
    row = w.lin(tuple(0 if e == d else out_strides[e] for e in range(w.D)), 0)
    w.store_lins.add(row.id)
    pos = w.lin(tuple(contiguous_strides(k.shape)), 0)
    param = w.param(n)
    # the result is contiguous and `d` its last dim: the index value's stride is 1
    lines.append(ScatterAdd(param, row, Indirect(at, 1, pos), value, n.dtype))
    outer_dims, inner_dims = _dims(k)
    og, ig = w.merge(outer_dims), w.merge(inner_dims)
    var_of: dict = {}
    loops_o = w.loop_vars(og, "o", var_of)
    loops_i = w.loop_vars(ig, "r", var_of)
    zero = w.relabel([Store(param, row, Const(0, n.dtype), n.dtype)], var_of)[0]
    zero = replace(zero, index=Index(zero.index.terms + (("z0", 1),), zero.index.const))
    body = list(w.relabel(pre, var_of)) + [Loop("z0", 0, n.shape[d], (zero,), simd=())]
    body += nest(loops_i, w.relabel(lines, var_of), None, None)
    work = math.prod(k.shape) + math.prod(n.shape)
    par, cond = parallel_if(work)
    pf = parallel_for(loops_o, False, cores, cond, vector=False) if par and loops_o else None
    plan = CppPlan("scatter", tuple(loops_o + loops_i), bool(pf), cond, pf.collapse if pf else 0)
    return loop_kernel(w, plan, nest(loops_o, body, pf, None))


# -- reductions: columns ---------------------------------------------------------------------------
def _columns(w: Walker, phases, cores: int, physical: bool = False) -> Optional[LoopKernel]:
    """Reductions over leading dims (a bias gradient): rows stream through memory
    while a block of column accumulators stays in registers / L1.

    Two ways to share the work among threads. With enough rows, each thread sums its
    own range of rows over every column (split mode): it reads whole rows, one
    contiguous stream, and the threads' partial sums are added in thread order
    afterwards. Otherwise the threads take blocks of columns, and each reads its
    block's part of every row: a strided walk that streams about half as fast (a
    [1576, 256] layer-norm weight gradient: 300 us in column blocks, 127 us split,
    2 threads)."""
    k = w.k
    ident = IndexMap.identity(w.D)
    blocks: list = []   # (role, reductions, lines, after)
    for role, mbrs in phases:
        if role == Role.REDUCE:
            lines, after = [], []
            cache: dict = {}
            for r in mbrs:
                acc = f"acc_{r.name}"
                v = w.expr(r.args[0], ident, lines, cache)
                lines.append(Fold(AccRef(acc, r.dtype, block=True), r.name, r.op, r.dtype, v))
                w.acc[r] = AccRef(acc, r.dtype, narrow=True, block=True)
                if r in k.stores:
                    after.append(w.store(r, AccRef(acc, r.dtype, block=True), w.row_map(r)))
            blocks.append((Role.REDUCE, mbrs, lines, after))
        else:
            lines = []
            cache = {}
            for mbr in mbrs:
                rm = outer_map(k.shape, k.red, mbr.shape)
                v = w.expr(mbr, rm, lines, cache, top=True)
                lines.append(w.store(mbr, v, rm))
            blocks.append((Role.OUTER, (), lines, []))
    # the loops merge by the accesses the expressions above recorded
    outer_dims, inner_dims = _dims(k)
    og = w.merge(outer_dims)
    batch: list = []
    if physical and len(og) == 2 and _reads_columns(w, og[1][-1], inner_dims):
        # a kept dim outside the reduced ones in memory ([N, H, W, C] reduced over H, W: a
        # channels-last global pool): the columns' reduction once per batch element
        batch, og = og[:1], og[1:]
    elif not physical and len(og) > 1 and not _reads_columns(w, og[-1][-1], inner_dims):
        # a transposing reduction: the reads run along a kept dim that is not the result's
        # innermost (DeBERTa's gradient of a position projection repeated over the batch, summed
        # over the batch into [4, 256, 64] from [8, 4, 64, 256]). Row mode would sum each result
        # element over a short loop of rows 256 KiB apart; as columns along the dim the reads
        # run on, the other kept dims a batch of them, each row is read contiguously and the
        # stores are strided (a row's worth, not the input's): 0.56-0.58 ms -> 0.14-0.15 ms each in
        # situ, four a step (AMD EPYC, 2 threads).
        along = [g for g in og[:-1] if _reads_columns(w, g[-1], inner_dims)]
        if len(along) == 1:
            batch, og = [g for g in og if g is not along[0]], along
    if len(og) != 1 or (physical and not _reads_columns(w, og[0][-1], inner_dims)):
        return None
    if not physical and _reads_rows(w, og[0][-1], inner_dims):
        # the innermost domain dim is kept, but memory runs along the reduced dims (a
        # channels-last LayerNorm's weight gradient over an activation stored NCHW, as
        # ConvNeXt permutes): column blocks would read each column 1024 elements apart, so
        # row mode reads each channel's rows contiguously instead. ConvNeXt-tiny small, its
        # first stage's [8, 32, 32, 32] weight and bias gradients, one thread: 18.6 ms as
        # columns
        return None
    ig = w.merge(inner_dims)
    ON = math.prod(k.shape[d] for d in og[0])
    var_of = {d: ("o0", og[0][-1]) for d in og[0]}
    loops_b = w.loop_vars(batch, "g", var_of)
    loops_i = w.loop_vars(ig, "r", var_of)
    blocks = [(role, reds, w.relabel(lines, var_of), w.relabel(after, var_of))
              for role, reds, lines, after in blocks]
    work = math.prod(k.shape)
    reduce_phases = [mbrs for role, mbrs in phases if role == Role.REDUCE]
    # split mode: a reduction phase first and at least 4 rows per core (either outcome is
    # correct for a symbolic size); one phase over any columns, or several (each reading the
    # sums before it) over one block of columns
    split = (not loops_b and phases[0][0] == Role.REDUCE and cores > 1 and loops_i
             and hint(loops_i[0][1]) >= 4 * cores and parallel_if(work)[0])
    if split and len(reduce_phases) > 1 and not isinstance(ON, Dim) and ON <= 64:
        # phases that read earlier ones' sums (a batch norm's mean, then its variance) over
        # few columns: without the split one thread walks all the rows, once per phase
        CB = 64
        stmts, par, cond = _column_split_phases(blocks, ON, CB, loops_i, work)
    elif split and len(reduce_phases) == 1:
        # the accumulators of one thread span as many columns as fit 16 KiB of L1
        n_acc = len(reduce_phases[0])
        cap = max(64, (2048 // n_acc) // 16 * 16)
        CB = hint(ON) if not isinstance(ON, Dim) and ON <= cap else cap
        stmts, par, cond = _column_split(blocks, ON, CB, loops_i, work)
    else:
        split = False
        CB = 64
        stmts, par, cond = _column_blocks(blocks, ON, CB, loops_i, work, loops_b, cores)
    plan = CppPlan("columns-split" if split else "columns", (*loops_b, ("o0", ON), *loops_i), par, cond, cb=CB)
    return loop_kernel(w, plan, stmts)


def _reads_columns(w: Walker, col: int, inner_dims: list[int]) -> bool:
    """Does every load that varies along the reduced dims read consecutive elements along
    the kept dim `col` (and none of them along a reduced dim)? Then the reduction's data lies
    in memory as [rows, columns], whatever the order of the kernel's domain."""
    found = False
    for lin in w.lins:
        if lin.id in w.store_lins or not any(lin.coef[d] != 0 for d in inner_dims):
            continue
        if lin.coef[col] != 1 or any(lin.coef[d] == 1 for d in inner_dims):
            return False
        found = True
    return found


def _reads_rows(w: Walker, col: int, inner_dims: list[int]) -> bool:
    """Does every load that varies along the reduced dims read consecutive elements along a
    reduced dim, and none along the kept dim `col`? Then the data lies in memory as [columns,
    rows]: a row reduction, whatever the order of the kernel's domain."""
    found = False
    for lin in w.lins:
        if lin.id in w.store_lins or not any(lin.coef[d] != 0 for d in inner_dims):
            continue
        if lin.coef[col] == 1 or not any(lin.coef[d] == 1 for d in inner_dims):
            return False
        found = True
    return found


def _decls(reds, CB) -> list:
    return [AccDecl(f"acc_{r.name}", r.name, r.op, r.dtype, CB) for r in reds]


def _column_loops(loops_i, lines, first=None, simd: bool = True) -> list:
    """A column kernel's loop nest: the row loops `loops_i` (the first over [first) when
    given: a thread's range of rows), inside them the loop over the column block (a
    vector loop when `simd`)."""
    return nest(loops_i, [Loop("o0", "ob", "oe", tuple(lines), simd=() if simd else None)], first=first)


def _column_blocks(blocks, ON, CB, loops_i, work, batch=(), cores: int = 1):
    """Each block of columns reduced over every row, the blocks shared among threads; with
    `batch` loops, those outside the blocks, and they are what the threads share."""
    if batch:
        par, cond = parallel_if(work)
        pf = parallel_for(list(batch), False, cores, cond, vector=False) if par else None
    else:
        par, cond = parallel_if(work, ((ON, ">", CB),))
        pf = Parallel(cond=cond) if par and (cond or ON > CB) else None
    body: list = [BlockEnd((("oe", "ob", CB, ON),))]
    for role, reds, lines, after in blocks:
        body += _decls(reds, CB)
        reduce = role == Role.REDUCE
        body += _column_loops(loops_i if reduce else [], lines, simd=reduce)
        if reduce and after:
            body.append(Loop("o0", "ob", "oe", tuple(after)))
    if batch:
        return nest(list(batch), [Loop("ob", 0, ON, tuple(body), step=CB)], pf, None), bool(pf), cond
    return [Loop("ob", 0, ON, tuple(body), step=CB, parallel=pf)], bool(pf), cond


def _split_phase(reds, lines, after, RN, ON, CB, loops_i, cond, declare: bool = False, rest=()) -> list:
    """One reduction phase in split mode: thread t sums rows [rb, re) of the first loop into
    its slice of `part`; then per column block the slices are folded in thread order into the
    accumulators (declared per block when `declare`, else by the caller), the phase's stores
    run, and the per-column lines `rest` after them."""
    n_acc = len(reds)
    part = [BlockEnd((("oe", "ob", CB, ON),))] + _decls(reds, CB)
    part += _column_loops(loops_i, lines, first=("rb", "re"))
    part.append(Loop("o0", "ob", "oe", tuple(WorkspaceStore(f"acc_{r.name}", j, n_acc, ON, r.op, r.dtype)
                                             for j, r in enumerate(reds))))
    region = ThreadRegion(cond, RN, ON, n_acc, (Loop("ob", 0, ON, tuple(part), step=CB),))
    folds = tuple(Fold(AccRef(f"acc_{r.name}", r.dtype, block=True), r.name, r.op, r.dtype,
                       PartRef(r.op, r.dtype, j, n_acc, ON)) for j, r in enumerate(reds))
    comb = [BlockEnd((("oe", "ob", CB, ON),))] + (_decls(reds, CB) if declare else [])
    comb.append(Loop("t", 0, "nt_used", (Loop("o0", "ob", "oe", folds),), ctype="int"))
    if after:
        comb.append(Loop("o0", "ob", "oe", tuple(after)))
    for olines in rest:
        comb.append(Loop("o0", "ob", "oe", tuple(olines)))
    return [region, Loop("ob", 0, ON, tuple(comb), step=CB), FreeParts()]


def _column_split_phases(blocks, ON, CB, loops_i, work):
    """Split mode (see _columns) over several phases, columns in one block (ON <= CB): every
    reduction's accumulators live for the whole kernel, each phase is a parallel region of
    its own whose rows read the finished sums of the phases before it, and a per-column
    phase between them runs on one thread (it is ON elements)."""
    _, cond = parallel_if(work)
    RN = loops_i[0][1]
    stmts = []
    for role, reds, _, _ in blocks:
        if role == Role.REDUCE:
            stmts += _decls(reds, CB)
    for role, reds, lines, after in blocks:
        if role == Role.REDUCE:
            stmts.append(Scope(tuple(_split_phase(reds, lines, after, RN, ON, CB, loops_i, cond))))
        else:
            stmts.append(Loop("ob", 0, ON, (BlockEnd((("oe", "ob", CB, ON),)), Loop("o0", "ob", "oe", tuple(lines))),
                              step=CB))
    return stmts, True, cond


def _column_split(blocks, ON, CB, loops_i, work):
    """Split mode (see _columns), one reduction phase first: a parallel region where thread t
    sums rows [RN*t/nt, RN*(t+1)/nt) of the first reduction loop into its slice of `part`,
    then per column block the slices added in thread order (the same order every run at a
    given thread count), the reductions' stores and the column-wise epilogue."""
    (_, reds, lines, after), rest = blocks[0], blocks[1:]
    _, cond = parallel_if(work)
    return _split_phase(reds, lines, after, loops_i[0][1], ON, CB, loops_i, cond, declare=True,
                        rest=[olines for _, _, olines, _ in rest]), True, cond
