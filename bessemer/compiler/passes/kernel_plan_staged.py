"""A C++ pointwise kernel whose innermost loop would be too short, staged per block of rows.

A group norm's apply and backward over a channels-last activation read per-group values
(mean, rstd, the backward's coefficients) along a domain [N, H*W, G, C/G]: those reads keep
G and C/G from merging into one loop, and the innermost loop runs over the C/G channels of a
group, two for a small UNet's 16 channels in 8 groups, recomputing the group's values (a
square root, a division) for every two elements it stores. Staged, the kernel's loops are:

    for the prefix dims (N) and blocks of STAGED_BLOCK rows (H*W), in parallel:
        for the inner dims (G, C/G), unmerged:   every value the same along the rows,
                                                 into stack arrays by merged inner position
        for each row of the block:
            vector loop over the merged inner dims (C): the rest, reading the arrays

The trade: the staged values are computed once per block instead of once per element, and
written and read back through L1 (STAGED_MAX_VALUES arrays of at most STAGED_INNER_MAX
elements), for a vector loop over the whole inner extent. The small UNet's group-norm
backward apply over [4, 1024, 8, 2] (a square root, a division and five multiply-adds per
element; AMD EPYC, 2 threads): 57 us with the two-element loop, 23 us staged; the same
kernel merged into one loop of 16 with the group's values gathered by channel / 2 (no
staging) took 80 us, as gcc leaves the gathers scalar.

Tried only where the flat plan's innermost loop is shorter than STAGED_INNER_MIN
(kernel_plan_cpp.lower_kernel), on static shapes; a kernel nothing is staged in, or whose
loops do not take this form, keeps its flat plan.
"""
from __future__ import annotations

import math
from typing import Optional

from bessemer.compiler.ir.graph import IndexMap
from bessemer.compiler.ir.loops import (BlockEnd, CppPlan, Index, Let, Load, Loop, LoopKernel, StageDecl,
                                        StageRef, StageStore, Temp, map_tree, walk)
from bessemer.compiler.ir.views import contiguous_strides
from bessemer.compiler.passes.cpp_loops import loop_kernel, nest, parallel_for, parallel_if
from bessemer.compiler.passes.kernel_walk import DomainIndex, Walker

# the flat plan's innermost loop below this many elements: try staging
STAGED_INNER_MIN = 8
# the inner dims (the staged arrays' length) at most this many elements, the rows (the middle
# dim) at least STAGED_MIN_ROWS, and at most STAGED_MAX_VALUES staged values (stack arrays)
STAGED_INNER_MAX = 1024
STAGED_MIN_ROWS = 8
STAGED_MAX_VALUES = 16
# rows per staging: the parallel work is (prefix, row blocks); the staging loop costs about
# one row's work per block
STAGED_BLOCK = 64


def inner_too_short(lk: LoopKernel) -> bool:
    """Is lk a flat plan of at least two loops whose innermost runs fewer than STAGED_INNER_MIN
    iterations?"""
    plan = lk.plan
    if not isinstance(plan, CppPlan) or plan.mode != "flat" or len(plan.loops) < 2:
        return False
    size = plan.loops[-1][1]
    return isinstance(size, int) and size < STAGED_INNER_MIN


def staged(w: Walker, cores: int) -> Optional[LoopKernel]:
    """The staged loops of pointwise kernel w.k, or None where they do not apply."""
    k = w.k
    if w.k.aliased or not all(isinstance(n, int) for n in k.shape):
        return None
    dims = [d for d in range(len(k.shape)) if k.shape[d] != 1]
    # the inner dims: the trailing ones, at most STAGED_INNER_MAX elements; the row dim before them
    j, inner_n = len(dims), 1
    while j >= 2 and inner_n * k.shape[dims[j - 1]] <= STAGED_INNER_MAX:
        inner_n *= k.shape[dims[j - 1]]
        j -= 1
    if j == len(dims):
        return None
    inner, mid, prefix = dims[j:], dims[j - 1], dims[:j - 1]
    if k.shape[mid] < STAGED_MIN_ROWS:
        return None

    ident = IndexMap.identity(w.D)
    lines, cache, pre, row_pre = [], {}, [], []
    w.hoist, w.hoist_dims = (pre, {}), list(range(w.D))
    w.row_hoist, w.row_dims, w.row_all = (row_pre, {}), [mid], True
    for mbr in k.members:
        v = w.expr(mbr, ident, lines, cache, top=True)
        lines.append(w.store(mbr, v, ident))
        w.remember(cache, mbr, ident, v)
    w.hoist, w.hoist_dims, w.row_hoist, w.row_dims, w.row_all = None, None, None, None, False

    stage_ids = frozenset(x.id for x in walk(tuple(row_pre)) if isinstance(x, DomainIndex))
    if any(lin.coef[mid] != 0 for lin in w.lins if lin.id in stage_ids):
        return None
    # a load the per-row statements made first and the body reads again (the walk's cache
    # hands it back as it is) is named there and read from its stage like any other value
    named: dict = {}

    def name_load(x):
        if isinstance(x, Load) and isinstance(x.index, DomainIndex) and x.index.id in stage_ids:
            if x not in named:
                named[x] = w.new_tmp()
                row_pre.append(Let(named[x], x.dtype, x))
            return Temp(named[x])
        return x
    lines = [map_tree(s, name_load) for s in lines]
    if any(isinstance(x, DomainIndex) and x.id in stage_ids for x in walk(tuple(lines))):
        return None   # an address of the per-row statements in the body (an iota, a pad's range)
    read = {x.name for x in walk(tuple(lines)) if isinstance(x, Temp)}
    lets = {s.name: s for s in row_pre if isinstance(s, Let)}
    used = [t for t in lets if t in read]     # the per-row values the body reads, in their order
    if not used or len(used) > STAGED_MAX_VALUES:
        return None
    # the loops: the prefix dims merged as every access allows, the rows, and the inner dims,
    # which the body's accesses (the staged ones are made in loops of their own) must merge
    # into one loop, stored contiguously
    ig = w.merge(inner, skip=stage_ids)
    if len(ig) != 1 or any(lin.coef[inner[-1]] != 1 for lin in w.lins if lin.id in w.store_lins):
        return None
    pg = w.merge(prefix) if prefix else []
    var_of: dict = {}
    loops = w.loop_vars(pg + [[mid]] + ig, "o", var_of)
    loops_p, (vm, rows), (vi, _) = loops[:-2], loops[-2], loops[-1]
    body = w.relabel(lines, var_of)
    # the staging loops: the prefix's variables, and one variable per inner dim
    stage_var = dict(var_of)
    stage_loops = []
    for n, d in enumerate(inner):
        stage_var[d] = (f"s{n}", d)
        stage_loops.append((f"s{n}", k.shape[d]))
    row_stmts = list(w.relabel(row_pre, stage_var))
    inner_strides = contiguous_strides(tuple(k.shape[d] for d in inner))
    position = Index(tuple((v, st) for (v, _), st in zip(stage_loops, inner_strides)), 0)
    decls, stores, ref = [], [], {}
    for i, t in enumerate(used):
        decls.append(StageDecl(i, lets[t].dtype, inner_n))
        stores.append(StageStore(i, "", 0, Temp(t), index=position))
        ref[t] = StageRef(i, vi, 0, lets[t].dtype)

    def unstage(x):
        return ref[x.name] if isinstance(x, Temp) and x.name in ref else x
    body = tuple(map_tree(s, unstage) for s in body)

    work = math.prod(k.shape)
    par, cond = parallel_if(work)
    blocks = (f"{vm}b", -(-rows // STAGED_BLOCK))
    pf = parallel_for(loops_p + [blocks], False, cores, cond, vector=False) if par else None
    block_body = [BlockEnd(((f"{vm}e", f"{vm}b", STAGED_BLOCK, rows),))] + decls + \
        nest(stage_loops, row_stmts + stores) + \
        [Loop(vm, f"{vm}b", f"{vm}e", (Loop(vi, 0, inner_n, body, simd=()),))]
    block_loop = Loop(f"{vm}b", 0, rows, tuple(block_body), step=STAGED_BLOCK,
                      parallel=pf if not loops_p else None)
    stmts = list(w.relabel(pre, var_of)) + nest(loops_p, [block_loop], pf)
    plan = CppPlan("staged", tuple(loops_p) + ((vm, rows), (vi, inner_n)), bool(pf), cond,
                   pf.collapse if pf else 0)
    return loop_kernel(w, plan, stmts)

