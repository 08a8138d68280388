"""What every C++ loop plan builds with: parallel loops, loop nests, and the finished kernel.

`parallel_for` / `parallel_if` decide how a nest runs on threads; `nest` builds it;
`loop_kernel` turns a plan's statements into the LoopKernel, splitting each vector loop
that holds gathered loads into a staging loop and the vector loop (STAGE_MAX), and reading
the loads of a select's branches before the select (hoist_branch_loads), and computing the
exps of masked values without libm's slow lanes (guard_low_exps).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from bessemer.compiler.ir.loops import (Const, CppPlan, Fold, Let, Load, Loop, LoopKernel, Op, Parallel, Scope,
                                        StageDecl, StageRef, StageStore, Store, Temp, ThreadRegion, map_tree,
                                        walk)
from bessemer.compiler.ir.graph import Kind, Node, upstream
from bessemer.compiler.ir.symbolic import Dim, hint
from bessemer.compiler.passes.kernel_walk import Walker, symbols_of

# Loops with fewer elements of work than this run on one thread: forking an OpenMP
# team costs a few microseconds, about what 32K simple element updates take.
PARALLEL_MIN_WORK = 32768


def parallel_for(loops: list[tuple[str, object]], inner_simd: bool, cores: int, cond: tuple = (),
                 vector: bool = True) -> Parallel:
    """The OpenMP parallel loop over the outermost of `loops` (perfectly nested; the last
    one carries its own `simd` when `inner_simd`). `vector=False`: the body holds its own
    vector loops (a reduction kernel's rows), and the loop over rows is not one (gcc's
    attempt to vectorize it as well costs 7% on a layer norm's rows).

    A small outer loop (fewer than 4 iterations per core) leaves threads idle, so
    the loops are collapsed into one parallel iteration space -- but only the loops
    above a `simd` one: OpenMP requires collapsed loops to be perfectly nested, and
    a pragma between them breaks that (gcc: "not enough for loops to collapse").
    Keeping the vector loop out of the collapse trades some parallelism in a
    two-loop nest with a tiny outer loop for the inner loop's vectorization."""
    size = hint(loops[0][1])   # symbolic sizes: collapsing or not is correct either way
    collapsible = len(loops) - 1 if inner_simd else len(loops)
    collapse = collapsible if collapsible >= 2 and size < 4 * max(cores, 1) else 0
    # a lone parallel loop is also the vector loop: without `simd` gcc does not
    # vectorize the body OpenMP outlines
    return Parallel(simd=len(loops) == 1 and vector, collapse=collapse, cond=cond)


def parallel_if(work, extra: tuple = ()) -> tuple[bool, tuple]:
    """(parallel or not, the run-time condition). Static sizes decide here; a symbolic
    amount of work decides at run time (OpenMP's `if(parallel: ...)`), so one kernel
    serves small and large shapes."""
    if isinstance(work, Dim):
        return True, ((work, ">=", PARALLEL_MIN_WORK),) + extra
    return work >= PARALLEL_MIN_WORK, ()


def nest(loops, body, parallel: Optional[Parallel] = None, simd: Optional[tuple] = None,
         first: Optional[tuple] = None) -> list:
    """`loops` ((var, size), ...) nested around `body`: the first `parallel` (when given), the
    last a `simd` loop with those reduction clauses (unless it is the parallel one or simd is
    None); the first over [first) when given."""
    stmts = tuple(body)
    for li in reversed(range(len(loops))):
        v, size = loops[li]
        par = parallel if li == 0 else None
        sim = simd if li == len(loops) - 1 and par is None else None
        lo, hi = first if (li == 0 and first) else (0, size)
        stmts = (Loop(v, lo, hi, stmts, parallel=par, simd=sim),)
    return list(stmts)


def loop_kernel(w: Walker, plan: CppPlan, body: list) -> LoopKernel:
    """The LoopKernel of a walked kernel's statements under `plan`, gathered loads staged."""
    low = frozenset(i for n, i in w.params.items() if holds_low(n))
    body = guard_low_exps(hoist_branch_loads(stage_gathers(tuple(body))), low)
    return LoopKernel(w.k.name, w.param_list(), symbols_of(body), w.kind(), w.bytes_moved(), plan, body,
                      nodes=tuple(w.params), writes=tuple(w.k.stores))


# STAGE_MAX: a vector loop whose body holds gathered loads (an address with an indirect term)
# stays scalar, all of it: gcc emits no vector gathers for this CPU's tuning (znver3 / AVX-512
# here, -mtune-ctrl's gather flags included). So such a loop of at most STAGE_MAX iterations
# (a static count) is split in two: a scalar loop computing the index values and loading the
# gathered elements into stack arrays of the loop's length, then the vector loop over the
# same range reading the arrays instead. The trade: a few KiB of stack per loop and each
# gathered value written and read once through L1, for vectorizing what the loop computes on
# them. DeBERTa small's relative-position scores (two gathers, two divisions and three adds per
# element over [32, 128, 128]; AMD EPYC, 2 threads, 100 calls, three alternating runs): 0.47-0.51
# ms median (best 0.46) scalar, 0.44-0.45 ms (best 0.43) staged; the staging loop itself, the
# gathered loads and their index arithmetic, is the rest.
STAGE_MAX = 1024


def stage_gathers(stmts: tuple) -> tuple:
    """`stmts` with each vector loop holding gathered loads split into a scalar loop staging
    them and the vector loop reading them (STAGE_MAX)."""
    # after the stage arrays a plan declared itself (kernel_plan_staged)
    counter = [1 + max((s.stage for s in walk(stmts) if isinstance(s, StageDecl)), default=-1)]

    def visit(body):
        out = []
        for s in body:
            if isinstance(s, Loop):
                s = replace(s, body=tuple(visit(s.body)))
                staged = _staged(s, counter)
                if staged is not None:
                    out.extend(staged)
                    continue
            elif isinstance(s, (ThreadRegion, Scope)):
                s = replace(s, body=tuple(visit(s.body)))
            out.append(s)
        return out
    return tuple(visit(stmts))


def _temps(x) -> set:
    return {t.name for t in walk(x) if isinstance(t, Temp)}


def _staged(loop: Loop, counter: list) -> Optional[list]:
    if loop.simd is None or loop.parallel is not None or not isinstance(loop.start, int) or \
            not isinstance(loop.stop, int) or not 0 < loop.stop - loop.start <= STAGE_MAX:
        return None
    if not all(isinstance(s, (Let, Store, Fold)) for s in loop.body):
        return None
    gathered: list = []
    for x in walk(loop.body):
        if isinstance(x, Load) and x.indirect is not None and x not in gathered:
            gathered.append(x)
    if not gathered:
        return None
    # the statements the index values need, in body order
    need = set().union(*(_temps(g.indirect.value) | _temps(g.cond) for g in gathered))
    lets = {s.name: s for s in loop.body if isinstance(s, Let)}
    stack = list(need)
    while stack:
        t = stack.pop()
        if t in lets:
            for u in _temps(lets[t].value) - need:
                need.add(u)
                stack.append(u)
    ids = {}
    for g in gathered:
        ids[g] = counter[0]
        counter[0] += 1
    var, start, n = loop.var, loop.start, loop.stop - loop.start
    decls = [StageDecl(ids[g], g.dtype, n) for g in gathered]
    pre = [s for s in loop.body if isinstance(s, Let) and s.name in need] + \
        [StageStore(ids[g], var, start, g) for g in gathered]

    def unstage(x):
        return StageRef(ids[x], var, start, x.dtype) if isinstance(x, Load) and x in ids else x
    main = [map_tree(s, unstage) for s in loop.body]
    # the index values' statements stay only where something else still reads them
    kept: list = []
    used: set = set()
    for s in reversed(main):
        if isinstance(s, Let) and s.name in need and s.name not in used:
            continue
        kept.append(s)
        used |= _temps(s)
    return decls + [Loop(var, start, loop.stop, tuple(pre), ctype=loop.ctype),
                    replace(loop, body=tuple(reversed(kept)))]


# The ops whose C++ spelling evaluates an argument only on some condition (ops.OPS: `c ? a : b`,
# `a && b`, `a || b`): the positions of those arguments.
_CONDITIONAL_ARGS = {"where": (1, 2), "logical_and": (1,), "logical_or": (1,)}


def hoist_branch_loads(stmts: tuple) -> tuple:
    """`stmts` with every plain load (no condition, no gathered term) that a select's branch
    holds, in a vector loop, read by a statement of its own before the one that selects.

    A load inside `c ? b1[i] : x` is one C++ reads only where c holds, so gcc must prove the
    address valid everywhere before it may read it unconditionally; for a strided address it
    cannot, and the loop stays scalar (T5's causal softmax over scores plus a position bias
    read with stride 4: its two passes with exp were scalar, 3.5 ms a call against 1.5 ms for
    the encoder's unmasked one). A plain load's address is in range over the kernel's whole
    domain (the walk masks every load a pad's condition guards: Load.cond), so reading it
    always is safe; a masked or gathered load keeps its place. A scalar loop keeps its
    branches: there the read would cost a load on every element the select does not take."""
    counter = [0]

    def fresh() -> str:
        counter[0] += 1
        return f"ld{counter[0]}"

    def lift(x, pre: list, seen: dict):
        """x with the plain loads below it named in `pre`."""
        def name(e):
            if isinstance(e, Load) and not e.cond and e.indirect is None:
                if e not in seen:
                    seen[e] = fresh()
                    pre.append(Let(seen[e], e.dtype, e))
                return Temp(seen[e])
            return e
        return map_tree(x, name)

    def split(x, pre: list, seen: dict):
        """x with the loads of its conditional arguments lifted."""
        if isinstance(x, Op):
            args = list(x.args)
            changed = False
            for i, a in enumerate(args):
                b = lift(a, pre, seen) if i in _CONDITIONAL_ARGS.get(x.op, ()) else split(a, pre, seen)
                if b is not a:
                    args[i], changed = b, True
            return replace(x, args=tuple(args)) if changed else x
        if isinstance(x, tuple):
            out = tuple(split(y, pre, seen) for y in x)
            return out if any(a is not b for a, b in zip(out, x)) else x
        return x

    def visit(body, vector: bool) -> tuple:
        out: list = []
        for s in body:
            if isinstance(s, Loop):
                s = replace(s, body=visit(s.body, s.simd is not None))
            elif isinstance(s, (ThreadRegion, Scope)):
                s = replace(s, body=visit(s.body, False))
            elif vector and isinstance(s, (Let, Store, Fold)):
                pre: list = []
                v = split(s.value, pre, {})
                if pre:
                    out.extend(pre)
                    s = replace(s, value=v)
            out.append(s)
        return tuple(out)
    return visit(stmts, False)


# An exp whose argument is built from a constant at most this low (a mask's -inf or -FLT_MAX,
# or torch.finfo.min) runs as exp_lo (codegen/cpp.py's expf_lo): libmvec's vector expf takes a
# scalar path for every lane below about -87.3, and such masked lanes are half of a causal
# softmax's. The trade: exp_lo costs a few more vector ops a lane than expf (T5 small's
# unmasked encoder softmax [8, 4, 128, 128]: 0.87 -> 1.10 ms with it, on AMD EPYC with AVX2),
# so an exp that no such constant reaches keeps expf; its masked decoder softmax of the same
# shape: 3.9 -> 1.3 ms. A buffer another kernel computed from such a constant (a masked
# bias stored once: passes/dense_reads.py) counts as one; a mask that arrives as a tensor is
# not seen.
LOW_EXP_CONST = -87.0


def _low(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v <= LOW_EXP_CONST


def holds_low(n: Node) -> bool:
    """Whether a computed value is built from a constant at most LOW_EXP_CONST (through
    elementwise ops and views; memory an ATen call or the caller wrote is not looked into)."""
    return any((x.kind == Kind.CONST and _low(x.attrs["value"])) or (x.kind == Kind.PAD and _low(x.attrs["fill"]))
               for x in upstream(n, (Kind.POINTWISE, Kind.PAD, Kind.VIEW, Kind.REINTERPRET)))


def guard_low_exps(stmts: tuple, low_params: frozenset = frozenset()) -> tuple:
    """`stmts` with each float exp whose argument a constant at most LOW_EXP_CONST reaches
    (through the kernel's named values), or a load of a buffer in `low_params` (one computed
    from such a constant: holds_low), turned into exp_lo."""
    lets = {s.name: s.value for s in walk(stmts) if isinstance(s, Let)}
    memo: dict = {}

    def reaches(e) -> bool:
        for x in walk(e):
            if isinstance(x, Const) and _low(x.value):
                return True
            if isinstance(x, Load) and ((x.cond and _low(x.other)) or x.param in low_params):
                return True
            if isinstance(x, Temp) and x.name in lets:
                if x.name not in memo:
                    memo[x.name] = False   # a cycle cannot occur; this only stops re-entry
                    memo[x.name] = reaches(lets[x.name])
                if memo[x.name]:
                    return True
        return False

    def visit(x):
        if isinstance(x, Op) and x.op == "exp" and x.dtype.is_floating_point and reaches(x.args[0]):
            return replace(x, op="exp_lo")
        return x
    return map_tree(stmts, visit)
