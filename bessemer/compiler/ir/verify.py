"""Invariants every pass relies on, checked on a Graph and on a Schedule.

`verify_graph` runs after every graph pass and `verify_schedule` after fusion
whenever the pipeline verifies: always in the tests (BESSEMER_VERIFY=1, set by
tests/conftest.py) and under `debug`. A violation raises VerifyError naming the
pass that produced it and the node, so a bug shows where it is made, not where a
renderer trips over it later.
"""
from __future__ import annotations

import torch

from bessemer.compiler.ir.symbolic import Dim
from bessemer.compiler.ir.graph import Graph, Group, IndexMap, Kind, Node
from bessemer.compiler.ir.ops import OPS, REDUCE_OPS
from bessemer.compiler.ir.schedule import Kernel, Schedule, Role, kept_shape, member_role, outer_map
from bessemer.compiler.ir.views import layout_of

_SIZE = (int, Dim)
_SCALAR = (bool, int, float, Dim)
# The attributes each kind carries (read through Node's typed accessors), with their types;
# Optional ones: `constant` (an input's tensor, held by the graph), `keep` (a cast simplify
# leaves), `dense` (a value the fusion pass stores: passes/dense_reads.py), `roots` (the
# output's values as the tensors their views are of), `eager_views` (each output's shape,
# strides and storage offset in eager).
ATTRS: dict[Kind, dict[str, tuple]] = {
    Kind.INPUT: {},
    Kind.CONST: {"value": _SCALAR},
    Kind.IOTA: {"dim": (int,), "start": _SCALAR, "step": _SCALAR},
    Kind.POINTWISE: {"op": (str,)},
    Kind.PAD: {"lo": (tuple,), "fill": _SCALAR},
    Kind.GATHER: {"dim": (int,)},
    Kind.SCATTER: {"dim": (int,)},
    Kind.VIEW: {"map": (IndexMap,), "what": (str,)},
    Kind.REINTERPRET: {"strides": (tuple,), "offset": _SIZE, "what": (str,)},
    Kind.REDUCE: {"op": (str,), "dims": (tuple,), "keepdim": (bool,)},
    Kind.EXTERN: {"target": (object,), "args": (list, tuple), "kwargs": (dict,), "n_outputs": (int,),
                  "out_meta": (object,)},
    Kind.GETITEM: {"index": (int,)},
    Kind.OUTPUT: {"outs": (list,)},
}
OPTIONAL_ATTRS: dict[Kind, dict[str, tuple]] = {Kind.INPUT: {"constant": (object,)},
                                                Kind.POINTWISE: {"keep": (bool,), "dense": (bool,)},
                                                Kind.OUTPUT: {"roots": (list,), "eager_views": (list,)}}


class VerifyError(AssertionError):
    """An IR or schedule invariant does not hold."""


def _fail(where: str, n, msg: str):
    raise VerifyError(f"after {where}: {n!r}: {msg}")


def verify_graph(g: Graph, where: str = "graph") -> None:
    seen: set[Node] = set()
    names: set[str] = set()
    if not g.nodes or g.nodes[-1].kind != Kind.OUTPUT:
        raise VerifyError(f"after {where}: the last node is not the output")
    for i, n in enumerate(g.nodes):
        if not isinstance(n.kind, Kind):
            _fail(where, n, f"kind {n.kind!r} is not a Kind")
        _check_attrs(n, where)
        if n.name in names:
            _fail(where, n, "duplicate name")
        names.add(n.name)
        if n.kind == Kind.OUTPUT and i != len(g.nodes) - 1:
            _fail(where, n, "output node before the end")
        for a in n.args:
            if not isinstance(a, Node) or a not in seen:
                _fail(where, n, f"argument {a!r} is not an earlier node of the graph")
        if not all(isinstance(s, (int, Dim)) and s >= 0 for s in n.shape):
            _fail(where, n, f"shape {n.shape} is not a tuple of sizes")
        _check_node(n, where)
        seen.add(n)


def _check_attrs(n: Node, where: str) -> None:
    want, optional = ATTRS[n.kind], OPTIONAL_ATTRS.get(n.kind, {})
    for key, value in n.attrs.items():
        types = want.get(key) or optional.get(key)
        if types is None:
            _fail(where, n, f"a {n.kind} has no attribute {key!r}")
        if not isinstance(value, types) and not (value is None and object in types):
            _fail(where, n, f"attribute {key}={value!r} is not a {' or '.join(t.__name__ for t in types)}")
    missing = [key for key in want if key not in n.attrs]
    if missing:
        _fail(where, n, f"a {n.kind} needs the attributes {missing}")


def _check_node(n: Node, where: str) -> None:
    k = n.kind
    if k in Group.BUFFERS and not (k == Kind.EXTERN and n.n_outputs):
        if n.stride is None or len(n.stride) != len(n.shape):
            _fail(where, n, f"stride {n.stride} does not match rank {len(n.shape)}")
    if k == Kind.POINTWISE:
        if n.op not in OPS:
            _fail(where, n, f"unknown op {n.op!r}")
        d = OPS[n.op]
        if len(n.args) != d.arity:
            _fail(where, n, f"{n.op} takes {d.arity} arguments, has {len(n.args)}")
        if any(a.shape != n.shape for a in n.args):
            _fail(where, n, f"argument shapes {[a.shape for a in n.args]} differ from {n.shape}")
        if d.result == "bool" and n.dtype != torch.bool:
            _fail(where, n, f"{n.op} must return bool, returns {n.dtype}")
    elif k == Kind.PAD:
        x, lo = n.args[0], n.pad_lo
        if len(n.args) != 1 or len(lo) != len(n.shape) or len(x.shape) != len(n.shape):
            _fail(where, n, f"pads rank {len(x.shape)} by {lo} to rank {len(n.shape)}")
        if x.dtype != n.dtype:
            _fail(where, n, "a pad changes the dtype")
        for d, (a, s, t) in enumerate(zip(lo, x.shape, n.shape)):
            if not isinstance(a, int) or a < 0 or t - s - a < 0:
                _fail(where, n, f"dim {d}: {s} padded by {a} before cannot be {t} long")
    elif k == Kind.GATHER:
        if len(n.args) != 2:
            _fail(where, n, f"a gather takes a source and an index, has {len(n.args)} arguments")
        x, idx = n.args
        R = len(n.shape)
        if not 0 <= n.gather_dim < R or len(x.shape) != R or idx.shape != n.shape:
            _fail(where, n, f"gathers {x.shape} along {n.gather_dim} by {idx.shape} into {n.shape}")
        if idx.dtype != torch.int64 or x.dtype != n.dtype:
            _fail(where, n, f"gathers {x.dtype} by {idx.dtype} into {n.dtype}")
        if any(not _fits(s, t) for e, (s, t) in enumerate(zip(n.shape, x.shape)) if e != n.gather_dim):
            _fail(where, n, f"index shape {n.shape} exceeds the source's {x.shape} outside dim {n.gather_dim}")
    elif k == Kind.SCATTER:
        if len(n.args) != 2:
            _fail(where, n, f"a scatter takes an index and a source, has {len(n.args)} arguments")
        idx, src = n.args
        R, d = len(n.shape), n.scatter_dim
        if R == 0 or d != R - 1 or idx.shape != src.shape or len(src.shape) != R or \
                any(s != t for e, (s, t) in enumerate(zip(src.shape, n.shape)) if e != d):
            _fail(where, n, f"scatters {src.shape} along {d} by {idx.shape} into {n.shape}")
        if idx.dtype != torch.int64 or src.dtype != n.dtype:
            _fail(where, n, f"scatters {src.dtype} by {idx.dtype} into {n.dtype}")
    elif k == Kind.IOTA:
        if not 0 <= n.iota_dim < max(len(n.shape), 1):
            _fail(where, n, f"iota dim {n.iota_dim} out of range")
    elif k == Kind.VIEW:
        x, m = n.args[0], n.index_map
        if m.in_rank != len(x.shape) or m.out_rank != len(n.shape):
            _fail(where, n, f"index map {m} maps rank {m.out_rank}->{m.in_rank}, "
                            f"nodes are {len(n.shape)}->{len(x.shape)}")
        if x.dtype != n.dtype:
            _fail(where, n, "a view changes the dtype")
        if 0 not in n.shape:
            for j in range(m.in_rank):
                lo = m.offset[j] + sum(min(0, c * (n.shape[q] - 1)) for q, c in enumerate(m.coef[j]))
                hi = m.offset[j] + sum(max(0, c * (n.shape[q] - 1)) for q, c in enumerate(m.coef[j]))
                if lo < 0 or hi >= max(x.shape[j], 1):
                    _fail(where, n, f"reads dim {j} of {x!r} at {lo}..{hi}, size {x.shape[j]}")
    elif k == Kind.REINTERPRET:
        if len(n.view_strides) != len(n.shape) or n.view_offset < 0:
            _fail(where, n, f"strides {n.view_strides} / offset {n.view_offset} do not fit {n.shape}")
        if n.args[0].dtype != n.dtype:
            _fail(where, n, "a reinterpret changes the dtype")
    elif k == Kind.REDUCE:
        x = n.args[0]
        dims = n.dims
        if n.op not in REDUCE_OPS:
            _fail(where, n, f"unknown reduction {n.op!r}")
        if list(dims) != sorted(set(dims)) or any(not 0 <= d < len(x.shape) for d in dims):
            _fail(where, n, f"dims {dims} are not sorted dims of rank {len(x.shape)}")
        if n.shape != kept_shape(x.shape, dims, n.keepdim):
            _fail(where, n, f"shape {n.shape} is not {x.shape} reduced over {dims}")
    elif k == Kind.GETITEM:
        src = n.args[0]
        if src.kind != Kind.EXTERN or not 0 <= n.index < max(src.n_outputs, 1):
            _fail(where, n, f"getitem {n.index} of {src!r}")
    elif k == Kind.OUTPUT:
        outs = [o for o in n.outs if isinstance(o, Node)]
        if outs != n.args:
            _fail(where, n, "outputs and arguments differ")


def verify_schedule(s: Schedule, where: str = "fuse") -> None:
    verify_graph(s.graph, where)
    computed: set[Node] = {n for n in s.graph.nodes if n.kind == Kind.INPUT}
    for i, step in enumerate(s.steps):
        if isinstance(step, Kernel):
            _check_kernel(s, step, i, computed, where)
            computed.update(step.members)
        else:
            if step.kind != Kind.EXTERN:
                _fail(where, step, f"a step is a {step.kind}, not a kernel or an extern")
            for a in step.args:
                _check_available(s, a, computed, where, step)
            computed.add(step)
            computed.update(n for n in s.graph.nodes if n.kind == Kind.GETITEM and n.args[0] is step)
    for n in s.realized:
        if n not in computed:
            _fail(where, n, "realized but no kernel computes it")
    for o in s.graph.output_node.args:
        _check_available(s, o, computed, where, s.graph.output_node)


def _check_kernel(s: Schedule, k: Kernel, i: int, computed: set, where: str) -> None:
    if not k.members:
        _fail(where, k.name, "a kernel without members")
    for m in k.stores:
        if m not in k.members:
            _fail(where, m, f"stored by {k.name} but not its member")
    for m in k.members:
        if s.step_of.get(m) != i:
            _fail(where, m, f"member of {k.name} (step {i}) but step_of says {s.step_of.get(m)}")
        if m in s.realized and m not in k.stores:
            _fail(where, m, f"realized but {k.name} does not store it")
        role = member_role(k, m)
        if role == Role.REDUCE:
            if m.args[0].shape != k.shape or tuple(m.attrs["dims"]) != tuple(k.red):
                _fail(where, m, f"reduces {m.args[0].shape} over {m.attrs['dims']}, kernel domain "
                                f"{k.shape} over {k.red}")
        elif role == Role.SCATTER:
            if len(k.members) != 1 or m.args[1].shape != k.shape or tuple(k.red) != (m.scatter_dim,):
                _fail(where, m, f"scatters over {m.args[1].shape} along {m.scatter_dim}, kernel domain "
                                f"{k.shape} over {k.red} with {len(k.members)} members")
        elif role == Role.OUTER and (not k.red or outer_map(k.shape, k.red, m.shape) is None):
            _fail(where, m, f"shape {m.shape} is neither the domain {k.shape} nor a row of it")
        for a in m.args:
            _check_reads(s, a, k, computed, where, m)


def _fits(s, t) -> bool:
    """Is size s at most size t (symbolic sizes: only when they are the same)?"""
    return s == t or (isinstance(s, int) and isinstance(t, int) and s <= t)


def _check_reads(s: Schedule, n: Node, k: Kernel, computed: set, where: str, user: Node) -> None:
    """What a member reads through inlined values is computed before, or in, its kernel; a
    gather's source (read at addresses the kernel computes) is memory computed before it."""
    stack, seen = [n], set()
    while stack:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        if x.kind == Kind.GATHER:
            src = x.args[0]
            lay = layout_of(src, s.realized)
            if lay is None or lay[0] in k.members or (lay[0] not in computed and lay[0].kind != Kind.INPUT):
                _fail(where, user, f"gathers from {src!r}, which is not memory computed before {k.name}")
            stack.append(x.args[1])
            continue
        if x.kind in Group.BUFFERS or x in s.realized or x.kind == Kind.REDUCE:
            if x not in computed and x not in k.members:
                _fail(where, user, f"reads {x!r} before any step computes it")
            continue
        stack.extend(x.args)


def _check_available(s: Schedule, n: Node, computed: set, where: str, user) -> None:
    """A tensor handed to ATen or returned has memory that exists by then."""
    while n.kind in Group.VIEWS and n not in s.realized:
        n = n.args[0]
    if n.kind in Group.COMPUTED and n not in s.realized:
        _fail(where, user, f"needs {n!r} as a tensor but it has no buffer")
    if n.kind != Kind.INPUT and n not in computed and n.kind not in Group.GENERATED:
        _fail(where, user, f"reads {n!r} before any step computes it")



# -- the loop program (passes/lower_kernels.py) ---------------------------------------------------
def verify_loops(program, where: str = "lower_kernels") -> None:
    """Every loop or index variable used is bound by an enclosing loop (or index
    statement) before it; every temporary, accumulator and tile is defined before it is
    used; every load reads a parameter and every store writes one the kernel writes; an
    index names each variable once, as an index variable (not a value); a masked load or
    a select has a condition of bounded Ranges over bound variables and a value for where
    it fails; a gathered load's index value is an int64 expression."""
    for lk in program.kernels:
        _LoopCheck(lk, where).run()


class _LoopCheck:
    def __init__(self, lk, where: str):
        self.lk, self.where = lk, where

    def fail(self, msg: str):
        raise VerifyError(f"after {self.where}: kernel {self.lk.name}: {msg}")

    def run(self) -> None:
        self.block(self.lk.body, set(), set())
        if self.lk.fin:
            self.block(self.lk.fin, set(), set())

    # vars: index variables bound here; vals: temporaries / accumulators / tiles defined here
    def block(self, stmts, vars_: set, vals: set) -> None:
        from bessemer.compiler.ir import loops as L
        vars_, vals = set(vars_), set(vals)
        for s in stmts:
            if isinstance(s, L.Loop):
                for b in (s.start, s.stop):
                    self.bound(b, vars_)
                self.block(s.body, vars_ | {s.var}, vals)
            elif isinstance(s, L.ThreadRegion):
                self.block(s.body, vars_ | {"t", "nt", "rb", "re"}, vals)
                vars_.add("nt_used")
            elif isinstance(s, L.Scope):
                self.block(s.body, vars_, vals)
            elif isinstance(s, L.BlockEnd):
                for e, b, _, _ in s.ends:
                    self.bound(b, vars_)
                vars_ |= {e for e, *_ in s.ends}
            elif isinstance(s, L.XTile):
                vars_.add("xs")
            elif isinstance(s, L.RowTile):
                vars_.add("rs")
            elif isinstance(s, L.IndexVars):
                self.bound(s.flat, vars_)
                vars_ |= {v for v, _, _ in s.vars}
            else:
                self.statement(s, vars_, vals)

    def bound(self, b, vars_: set) -> None:
        if isinstance(b, str) and b not in vars_ and b != "RBLOCK":
            self.fail(f"loop bound {b} is not bound")

    def statement(self, s, vars_: set, vals: set) -> None:
        from bessemer.compiler.ir import loops as L
        params = self.lk.params
        for e in _exprs(s):
            self.expr(e, vars_, vals)
        if isinstance(s, L.Let):
            vals.add(s.name)
        elif isinstance(s, L.Store):
            if not 0 <= s.param < len(params) or not params[s.param].written:
                self.fail(f"store to b{s.param}, which the kernel does not write")
            self.index(s.index, vars_, vals)
        elif isinstance(s, L.ScatterAdd):
            if not 0 <= s.param < len(params) or not params[s.param].written:
                self.fail(f"scatter into b{s.param}, which the kernel does not write")
            self.index(s.index, vars_, vals)
            i = s.indirect
            if not isinstance(i, L.Indirect) or not (isinstance(i.value, L.Temp) or
                                                    getattr(i.value, "dtype", None) == torch.int64):
                self.fail(f"scatter into b{s.param}: its index value is not an int64 expression")
            self.expr(i.value, vars_, vals)
            self.index(i.index, vars_, vals)
        elif isinstance(s, L.StageDecl):
            vals.add(f"stage{s.stage}")
        elif isinstance(s, L.StageStore):
            if f"stage{s.stage}" not in vals:
                self.fail(f"stage{s.stage} written before it is declared")
            if s.index is not None:
                self.index(s.index, vars_, vals)
            else:
                self.bound(s.var, vars_)
        elif isinstance(s, L.AccDecl):
            vals.add(s.name)
        elif isinstance(s, L.TileDecl):
            vals.add(f"tile{s.tile}")
        elif isinstance(s, L.TileStore):
            self.expr(s.ref, vars_, vals)
        elif isinstance(s, L.Fold):
            if not s.tile:   # a whole-row tile's fold defines its accumulator
                self.expr(s.acc, vars_, vals)
            vals.add(s.acc.name)
        elif isinstance(s, (L.NanRestore, L.Combine, L.WorkspaceStore)):
            if s.acc not in vals:
                self.fail(f"accumulator {s.acc} used before it is defined")
        elif isinstance(s, L.WorkspaceLoad):
            vals.add(s.acc)

    def expr(self, e, vars_: set, vals: set) -> None:
        from bessemer.compiler.ir import loops as L
        for x in L.walk(e):
            if isinstance(x, L.Temp) and x.name not in vals:
                self.fail(f"temporary {x.name} used before it is defined")
            elif isinstance(x, L.AccRef):
                if x.name not in vals:
                    self.fail(f"accumulator {x.name} used before it is defined")
                if x.block and not {"o0", "ob"} <= vars_:
                    self.fail(f"column accumulator {x.name} used outside a column block")
            elif isinstance(x, L.StageRef):
                if f"stage{x.stage}" not in vals:
                    self.fail(f"stage{x.stage} read before it is declared")
                self.bound(x.var, vars_)
            elif isinstance(x, L.TileRef):
                if f"tile{x.tile}" not in vals:
                    self.fail(f"tile{x.tile} used before it is declared")
                for v in (x.vl, x.vj, x.vl + "b", x.vj + "b"):
                    self.bound(v, vars_)
            elif isinstance(x, L.Load):
                if not 0 <= x.param < len(self.lk.params):
                    self.fail(f"load of b{x.param}, not a parameter")
                self.index(x.index, vars_, vals)
                if x.cond and x.other is None:
                    self.fail(f"masked load {x.format()} has no value for where it reads nothing")
                self.ranges(x.cond, vars_, vals)
                if x.indirect is not None:
                    i = x.indirect
                    if not isinstance(i, L.Indirect) or not (isinstance(i.value, L.Temp) or
                                                            getattr(i.value, "dtype", None) == torch.int64):
                        self.fail(f"gathered load {x.format()}: its index value is not an int64 expression")
                    if isinstance(i.stride, int) and i.stride == 0:
                        self.fail(f"gathered load {x.format()}: a gathered dim of stride 0")
                    self.index(i.index, vars_, vals)
            elif isinstance(x, L.Select):
                if not x.cond or not isinstance(x.other, L.Const):
                    self.fail(f"{x.format()}: a select needs a condition and a constant")
                self.ranges(x.cond, vars_, vals)
            elif isinstance(x, L.Iota):
                self.index(x.index, vars_, vals)

    def ranges(self, cond, vars_: set, vals: set) -> None:
        """A condition: Ranges, each bounded on at least one side, over bound variables."""
        from bessemer.compiler.ir import loops as L
        for r in cond:
            if not isinstance(r, L.Range) or (r.lo is None and r.hi is None):
                self.fail(f"condition {r!r} is not a bounded Range")
            self.index(r.index, vars_, vals)

    def index(self, idx, vars_: set, vals: set) -> None:
        names = [v for v, _ in idx.terms]
        if len(set(names)) != len(names):
            self.fail(f"index {idx.format()} names a variable twice")
        for v in names:
            if v in vals:
                self.fail(f"index {idx.format()} uses the value {v}")
            if v not in vars_:
                self.fail(f"index {idx.format()}: loop variable {v} is not bound by an enclosing loop")


def _exprs(s):
    """The value expressions a statement reads."""
    from bessemer.compiler.ir import loops as L
    if isinstance(s, (L.Let, L.Store, L.TileStore, L.Fold, L.ScatterAdd, L.StageStore)):
        return [s.value]
    return []
