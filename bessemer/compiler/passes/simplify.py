"""Graph-level passes: dead code, common subexpressions, constants, algebra, views, casts
moved past reshapes and gathers.

Each pass takes a Graph and returns a Graph. The algebraic rules are one table:
a rule looks at a pointwise node and returns the node to use instead, or None.
"""
from __future__ import annotations

import math
from typing import Callable, Optional

import torch

from bessemer.compiler.ir.symbolic import Dim
from bessemer.compiler.ir.graph import Graph, Group, Kind, Node, _map_nodes
from bessemer.compiler.ir.ops import CAST, OPS
from bessemer.compiler.ir.views import is_contiguous, layout_of, reads_backwards

# ------------------------------------------------------------------------------
# dce: drop nodes nothing (transitively) reaches from the output. Externs that
# draw random numbers are kept: removing one would shift every later draw; so are
# ATen calls that mutate or return nothing (checks such as _assert_async).
# ------------------------------------------------------------------------------
_EFFECTFUL_NAMES = ("bernoulli", "rand", "randn", "randint", "native_dropout", "normal", "uniform",
                    "exponential", "multinomial", "copy_")


def has_effect(n: Node) -> bool:
    if n.kind != Kind.EXTERN:
        return False
    t = n.attrs["target"]
    name = getattr(t, "__name__", "") or str(t)
    if isinstance(t, torch._ops.OpOverload):
        name = t.overloadpacket.__name__
        if t._schema.is_mutable or not t._schema.returns:   # returns nothing: run for its effect
            return True
    return any(name.startswith(e) or name == e for e in _EFFECTFUL_NAMES)


def dce(g: Graph) -> Graph:
    live: set[Node] = set()
    stack = [n for n in g.nodes if n.kind == Kind.OUTPUT or has_effect(n)]
    while stack:
        n = stack.pop()
        if n in live:
            continue
        live.add(n)
        stack.extend(n.args)
    g.nodes = [n for n in g.nodes if n in live]
    return g


# ------------------------------------------------------------------------------
# cse: two nodes with the same kind, args and attributes are one node.
# ------------------------------------------------------------------------------
def _key(n: Node):
    if n.kind in (Kind.INPUT, Kind.OUTPUT, Kind.EXTERN, Kind.GETITEM):
        if n.kind == Kind.GETITEM:
            return ("getitem", n.args[0], n.attrs["index"])
        return None
    attrs = tuple(sorted((k, _hashable(v)) for k, v in n.attrs.items()))
    return (n.kind, tuple(n.args), n.shape, n.dtype, attrs, n.backward)


def _hashable(v):
    if isinstance(v, float) and math.isnan(v):
        return ("nan",)
    if isinstance(v, float) and v == 0.0:
        return ("zero", math.copysign(1.0, v))   # 0.0 == -0.0, but x / 0.0 is not x / -0.0
    if isinstance(v, list):
        return tuple(_hashable(x) for x in v)
    return v


def cse(g: Graph) -> Graph:
    seen: dict = {}
    mapping: dict[Node, Node] = {}
    out = []
    for n in g.nodes:
        n.args = [mapping.get(a, a) for a in n.args]
        if mapping and n.kind in (Kind.EXTERN, Kind.OUTPUT):
            g.replace_uses(mapping)
        k = _key(n)
        if k is not None and k in seen:
            mapping[n] = seen[k]
            continue
        if k is not None:
            seen[k] = n
        out.append(n)
    g.nodes = out
    g.replace_uses(mapping)
    return g


# ------------------------------------------------------------------------------
# constant folding and algebraic simplification: one rule table
# ------------------------------------------------------------------------------
def _const_value(n: Node):
    return n.attrs["value"] if n.kind == Kind.CONST else None


def _base_const(n: Node):
    """The value of a constant seen through views (a broadcast condition: lerp's `|weight| < 0.5`
    with a constant weight), else None."""
    while n.kind == Kind.VIEW:
        n = n.args[0]
    return _const_value(n)


def _is_const(n: Node, v) -> bool:
    c = _const_value(n)
    return c is not None and not isinstance(c, bool) and c == v and not (
        isinstance(c, float) and math.isnan(c))




def _fold(g: Graph, n: Node) -> Optional[Node]:
    """op(const, const, ...) -> const, computed with torch in the node's dtype."""
    if n.kind != Kind.POINTWISE or not n.args or not all(a.kind == Kind.CONST for a in n.args):
        return None
    if any(isinstance(a.attrs["value"], Dim) for a in n.args):
        return None   # a size known at run time only
    op = n.op
    vals = [torch.tensor(a.attrs["value"], dtype=a.dtype) for a in n.args]
    try:
        if op == "cast":
            r = vals[0].to(n.dtype)
        elif op == "where":
            r = torch.where(vals[0], vals[1], vals[2])
        elif OPS[op].fold is not None:
            r = OPS[op].fold(*vals)
        else:
            return None
    except Exception:
        return None
    return g.add(Node(Kind.CONST, [], n.shape, n.dtype, {"value": _scalar(r.to(n.dtype))}, ""))


def _scalar(t: torch.Tensor):
    v = t.item()
    return v




def _same(n: Node, x: Node) -> Optional[Node]:
    """x may replace n only when it has n's shape and dtype."""
    return x if x.shape == n.shape and x.dtype == n.dtype else None


# Each rule: (name, one-line meaning, function(g, n) -> replacement or None).
RULES: list[tuple[str, str, Callable[[Graph, Node], Optional[Node]]]] = [
    ("fold", "op(c1, c2) -> c", _fold),
    ("cast-same", "cast(x: T) -> T  ==  x", lambda g, n: n.args[0] if n.op == "cast" and
     n.args[0].dtype == n.dtype and not n.attrs.get("keep") else None),
    ("cast-const", "cast(c) -> c'", lambda g, n: _fold(g, n) if n.op == "cast" else None),
    ("add-0", "x + 0 -> x", lambda g, n: _same(n, n.args[0]) if n.op == "add" and _is_const(n.args[1], 0) else
     (_same(n, n.args[1]) if n.op == "add" and _is_const(n.args[0], 0) else None)),
    ("sub-0", "x - 0 -> x", lambda g, n: _same(n, n.args[0]) if n.op == "sub" and _is_const(n.args[1], 0) else None),
    ("mul-1", "x * 1 -> x", lambda g, n: _same(n, n.args[0]) if n.op == "mul" and _is_const(n.args[1], 1) else
     (_same(n, n.args[1]) if n.op == "mul" and _is_const(n.args[0], 1) else None)),
    ("div-1", "x / 1 -> x", lambda g, n: _same(n, n.args[0]) if n.op == "div" and _is_const(n.args[1], 1) else None),
    ("pow-1", "x ** 1 -> x", lambda g, n: _same(n, n.args[0]) if n.op == "pow" and _is_const(n.args[1], 1) else None),
    ("pow-2", "x ** 2 -> x * x", lambda g, n: g.add(Node(Kind.POINTWISE, [n.args[0], n.args[0]], n.shape, n.dtype,
                                                         {"op": "mul"})) if n.op == "pow" and
     _is_const(n.args[1], 2) and n.dtype.is_floating_point else None),
    ("pow-3", "x ** 3 -> (x * x) * x", lambda g, n: _pow3(g, n) if n.op == "pow" and _is_const(n.args[1], 3)
     and n.dtype.is_floating_point else None),
    ("pow-neg1", "x ** -1 -> 1 / x", lambda g, n: g.add(Node(Kind.POINTWISE, [n.args[0]], n.shape, n.dtype,
                                                         {"op": "reciprocal"})) if n.op == "pow" and
     _is_const(n.args[1], -1) and n.dtype.is_floating_point else None),
    ("pow-0.5", "x ** 0.5 -> sqrt(x)", lambda g, n: g.add(Node(Kind.POINTWISE, [n.args[0]], n.shape, n.dtype,
                                                               {"op": "sqrt"})) if n.op == "pow" and
     _is_const(n.args[1], 0.5) and n.dtype.is_floating_point else None),
    ("neg-neg", "-(-x) -> x", lambda g, n: n.args[0].args[0] if n.op == "neg" and n.args[0].kind == Kind.POINTWISE
     and n.args[0].op == "neg" else None),
    ("where-const", "where(True, a, b) -> a", lambda g, n: (_same(n, n.args[1]) if _base_const(n.args[0]) else
                                                          _same(n, n.args[2]))
     if n.op == "where" and _base_const(n.args[0]) is not None else None),
    ("where-same", "where(c, a, a) -> a", lambda g, n: _same(n, n.args[1]) if n.op == "where" and
     n.args[1] is n.args[2] else None),
]


# a reduction over no elements is its identity (eager's max / min / argmax of none are errors)
_EMPTY_REDUCE = {"sum": 0, "prod": 1, "any": False}


def _empty_reduce(g: Graph, n: Node) -> Optional[Node]:
    """sum / prod / any over a dim of size 0 -> its identity: a constant, no kernel (a kernel
    would loop zero times around values the walk takes as the same at every iteration and
    names before the loop, at its variable)."""
    x = n.args[0]
    if n.op not in _EMPTY_REDUCE or not any(isinstance(s, int) and s == 0 for s in x.shape):
        return None
    v = _EMPTY_REDUCE[n.op]
    v = bool(v) if n.dtype == torch.bool else (float(v) if n.dtype.is_floating_point else int(v))
    return g.add(Node(Kind.CONST, [], n.shape, n.dtype, {"value": v}, ""))


def _laid_out_as_new(x: Node) -> bool:
    """May x replace a computed node a reinterpret reads? That reads the node's memory as
    a new (contiguous) tensor's, which x's must then be: a computed node, or memory x reads
    in order from its start (x * 1 of a permuted input is not its input's memory: reshape(-1)
    of it was; a reshape of a contiguous buffer is)."""
    lay = layout_of(x)
    return lay is None or (is_contiguous(x.shape, lay[1]) and isinstance(lay[2], int) and lay[2] == 0)


def _pow3(g: Graph, n: Node) -> Node:
    x = n.args[0]
    sq = g.add(Node(Kind.POINTWISE, [x, x], n.shape, n.dtype, {"op": "mul"}))
    return g.add(Node(Kind.POINTWISE, [sq, x], n.shape, n.dtype, {"op": "mul"}))


def simplify(g: Graph) -> Graph:
    """Move casts past reshapes and gathers (sink_casts), drop the copies only matmuls read
    (matmul_reads_memory), then apply RULES to every pointwise node until nothing changes."""
    sink_casts(g)
    matmul_reads_memory(g)
    for _ in range(4):
        reinterpreted = {a for m in g.nodes if m.kind == Kind.REINTERPRET for a in m.args}
        mapping: dict[Node, Node] = {}
        new_nodes: list[Node] = []
        changed = False
        for n in list(g.nodes):
            n.args = [_resolve(mapping, a) for a in n.args]
            g_nodes_before = len(g.nodes)
            repl = None
            if n.kind == Kind.POINTWISE:
                for _name, _doc, rule in RULES:
                    repl = rule(g, n)
                    if repl is not None and repl is not n:
                        break
                    repl = None
            elif n.kind == Kind.REDUCE:
                repl = _empty_reduce(g, n)
            if repl is not None and n in reinterpreted and not _laid_out_as_new(repl):
                repl = None
            # nodes a rule created were appended to g.nodes; place them before n
            created = g.nodes[g_nodes_before:]
            del g.nodes[g_nodes_before:]
            new_nodes.extend(created)
            if repl is not None:
                mapping[n] = repl
                changed = True
            else:
                new_nodes.append(n)
        g.nodes = new_nodes
        g.replace_uses(mapping)
        if not changed:
            break
    return dce(g)


def _resolve(mapping, x):
    while x in mapping:
        x = mapping[x]
    return x


# ------------------------------------------------------------------------------
# sink_casts: a dtype conversion commutes exactly with every data movement (a reshape,
# a view, a gather). Where a reshape (a reinterpret: a layout only memory can give) or
# an ATen gather (which needs a tensor) sits on a cast, the cast would be realized, a
# full-size buffer of the converted dtype; moved to the other side, it is computed
# inside the kernels that read it, or is realized in the narrower dtype. A bf16
# cross-entropy (`cross_entropy(logits.float(), labels)` on bf16 logits: a reshape of
# the upcast, read by the log-softmax, and the target logit gathered from it; in the
# backward a reshape of the fp32 gradient cast back to bf16) is the case.
# ------------------------------------------------------------------------------
def _is_cast(n: Node) -> bool:
    return n.kind == Kind.POINTWISE and n.op == CAST


def _cast_of(g: Graph, like: Node, x: Node) -> Node:
    """`like`'s conversion (its dtype and attributes) applied to x."""
    return g.add(Node(Kind.POINTWISE, [x], x.shape, like.dtype, dict(like.attrs)))


def _reshape_of_cast(g: Graph, n: Node) -> Optional[Node]:
    """reinterpret(cast(x)) -> cast(reinterpret(x's memory)) where x is memory laid out as a
    new tensor would be (a reshape of a bf16 matmul's output, upcast): the reinterpret reads
    the cast's value as if it were stored contiguous, which x's memory is, element for
    element. A cast of a computed x stays: moved, it would realize x instead."""
    c = n.args[0]
    if not _is_cast(c):
        return None
    lay = layout_of(c.args[0])
    if lay is None or not is_contiguous(c.args[0].shape, lay[1]):
        return None
    base, _, off = lay
    rv = g.add(Node(Kind.REINTERPRET, [base], n.shape, base.dtype,
                    {"strides": n.view_strides, "offset": off + n.view_offset, "what": n.attrs["what"]}))
    return _cast_of(g, c, rv)


def _cast_of_reshape(g: Graph, n: Node, users: dict) -> Optional[Node]:
    """cast(reshape(y)) -> reshape(cast(y)) for a dense reshape (contiguous strides, offset 0)
    of a computed y read by nothing else, when the cast narrows (fp32 -> bf16): the reshape
    needs memory, and the narrower value is what is stored (y is then computed inside the
    kernel that stores the cast; before, y was stored at its wider width and cast on each
    read). A widening cast stays: moved, it would store the wider value. So does one where
    y or its reshape has another reader: that one keeps y stored, and moved, the cast would
    store a second copy."""
    rv = n.args[0]
    if rv.kind != Kind.REINTERPRET or rv.view_offset != 0 or not is_contiguous(rv.shape, rv.view_strides):
        return None
    y = rv.args[0]
    if y.kind not in Group.COMPUTED or n.dtype.itemsize > y.dtype.itemsize:
        return None
    if users.get(y) != [rv] or users.get(rv) != [n]:
        return None
    c = _cast_of(g, n, y)
    return g.add(Node(Kind.REINTERPRET, [c], n.shape, n.dtype, dict(rv.attrs)))


def _gather_of_cast(g: Graph, n: Node) -> Optional[Node]:
    """aten.gather(views of cast(x), dim, index) -> cast(aten.gather(views of x, dim, index)):
    the ATen gather (an index not proved in range stays ATen's, which checks it) reads x's
    memory, or x realized in its own dtype, and only the gathered elements are converted. A
    narrowing cast of a computed x stays: moved, x would be stored at its wider width."""
    if n.attrs["target"] is not torch.ops.aten.gather.default or n.attrs.get("n_outputs"):
        return None
    args = n.attrs["args"]
    if not args or not isinstance(args[0], Node):
        return None
    views = []
    src = args[0]
    while src.kind == Kind.VIEW:
        views.append(src)
        src = src.args[0]
    if not _is_cast(src):
        return None
    x = src.args[0]
    if layout_of(x) is None and src.dtype.itemsize < x.dtype.itemsize or reads_backwards(x):
        return None   # (a flip's copy stays: ATen cannot read the flip as a view)
    for v in reversed(views):
        x = g.add(Node(Kind.VIEW, [x], v.shape, x.dtype, dict(v.attrs)))
    e = g.extern(n.target, [x] + list(args[1:]), n.attrs["kwargs"], n.shape, x.dtype, n.stride)
    return _cast_of(g, src, e)


def sink_casts(g: Graph) -> Graph:
    """One pass in graph order applying the three moves above (a reshape of a cast of memory,
    a narrowing cast of a reshape, an ATen gather of a cast)."""
    users = g.users()
    mapping: dict[Node, Node] = {}
    new_nodes: list[Node] = []
    for n in list(g.nodes):
        n.args = [_resolve(mapping, a) for a in n.args]
        if n.kind == Kind.EXTERN:
            n.attrs["args"] = _map_nodes(n.attrs["args"], lambda a: _resolve(mapping, a))
            n.attrs["kwargs"] = _map_nodes(n.attrs["kwargs"], lambda a: _resolve(mapping, a))
        before = len(g.nodes)
        repl = None
        if n.kind == Kind.REINTERPRET:
            repl = _reshape_of_cast(g, n)
        elif _is_cast(n):
            repl = _cast_of_reshape(g, n, users)
        elif n.kind == Kind.EXTERN:
            repl = _gather_of_cast(g, n)
        # nodes a rule created were appended to g.nodes; place them before n
        new_nodes.extend(g.nodes[before:])
        del g.nodes[before:]
        if repl is not None:
            mapping[n] = repl
        else:
            new_nodes.append(n)
    g.nodes = new_nodes
    g.replace_uses(mapping)
    return dce(g)


# ------------------------------------------------------------------------------
# matmul_reads_memory: a copy (a clone: lowering keeps it, `keep`) of memory that only
# matmuls read hands them the memory itself, seen through its views. ATen's matmuls take
# any strides (a transposed operand is a flag of the GEMM), and in a functional graph
# nothing writes the copy's memory later; kept, the copy is a kernel writing a buffer the
# matmul then reads. A dropout of p = 0 clones its input: DeBERTa's attention
# probabilities, saved for the backward and read there transposed by a bmm, were copied
# transposed (a tiled kernel over 4 x [32, 128, 128] per step, 1.2-1.7 ms on 2 cores).
# ------------------------------------------------------------------------------
_MATMULS = frozenset({torch.ops.aten.mm, torch.ops.aten.bmm, torch.ops.aten.addmm, torch.ops.aten.baddbmm})


def _reads_only(u: Node) -> bool:
    t = u.attrs.get("target") if u.kind == Kind.EXTERN else None
    return isinstance(t, torch._ops.OpOverload) and t.overloadpacket in _MATMULS and not t._schema.is_mutable


def matmul_reads_memory(g: Graph) -> Graph:
    users = g.users()
    returned = set(g.output_node.args)

    def only_matmuls(n: Node) -> bool:
        """Is n read only by matmuls, directly or through views (not returned)?"""
        us = users.get(n, [])
        return bool(us) and n not in returned and all(
            _reads_only(u) or (u.kind == Kind.VIEW and only_matmuls(u)) for u in us)
    mapping: dict[Node, Node] = {}
    for n in g.nodes:
        # (a flip's copy stays: ATen cannot read the flip as a view)
        if _is_cast(n) and n.attrs.get("keep") and n.dtype == n.args[0].dtype and \
                layout_of(n.args[0]) is not None and not reads_backwards(n.args[0]) and only_matmuls(n):
            mapping[n] = n.args[0]
    g.replace_uses(mapping)
    return g


# ------------------------------------------------------------------------------
# fold_views: a view of a view is one view; an identity view is its argument;
# a view of a constant is a constant; a view of a reinterpret is a reinterpret of
# the same buffer, and so is a reinterpret of a dense reinterpret (a reshape of a
# reshape: the inner one, realized, would hold its base's elements in their order).
# ------------------------------------------------------------------------------
def fold_views(g: Graph) -> Graph:
    mapping: dict[Node, Node] = {}
    for n in g.nodes:
        n.args = [_resolve(mapping, a) for a in n.args]
        if n.kind not in Group.VIEWS:
            continue
        x = n.args[0]
        if x.kind == Kind.CONST:
            n.kind, n.args, n.attrs = Kind.CONST, [], {"value": x.attrs["value"]}
        elif n.kind == Kind.REINTERPRET:
            if x.kind == Kind.REINTERPRET and is_contiguous(x.shape, x.view_strides):
                n.args = [x.args[0]]
                n.attrs = {"strides": n.view_strides, "offset": x.view_offset + n.view_offset,
                           "what": f"{x.attrs['what']}+{n.attrs['what']}"}
            continue
        elif n.index_map.is_identity() and x.shape == n.shape:
            mapping[n] = x
        elif x.kind == Kind.VIEW:
            n.args = [x.args[0]]
            n.attrs = {"map": n.index_map.compose(x.index_map), "what": f"{x.attrs['what']}+{n.attrs['what']}"}
        elif x.kind == Kind.REINTERPRET:
            st, off = n.index_map.map_strides(x.view_strides, x.view_offset)
            n.kind, n.args = Kind.REINTERPRET, [x.args[0]]
            n.attrs = {"strides": st, "offset": off, "what": f"{x.attrs['what']}+{n.attrs['what']}"}
    g.replace_uses(mapping)
    return dce(g)
