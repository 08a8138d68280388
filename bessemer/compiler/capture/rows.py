"""Dynamo's graph before tracing: rows that nothing reads are not computed.

A sequence classifier reads one token of its encoder's last layer (BERT's pooler and
DistilBERT's, RoBERTa's head and ViT's classifier read `hidden[:, 0]`), yet the layer
computes every token's query, attention row, output projection and feed-forward, and the
backward differentiates them all, for rows whose gradient is zero. This pass moves such a
selection up the graph: `select(f(x), d, i)` becomes `f(narrow(x, d', i, 1))` wherever `f`
computes each row along that dim from the same row of its inputs alone (elementwise ops,
layer norm, linear, matmul's rows, softmax along another dim, attention's query rows, views
that keep the dim whole), and the rows of the inputs that `f` broadcasts or reads in full
(keys and values, weights) stay whole. It stops at a value that something else reads in
full (the keys and values of the last layer are computed from every token), at anything
it does not know, and at a dropout that draws (its mask is drawn for the whole tensor, as
eager draws it). A graph with in-place ops or symbolic sizes is left as it is.

Each rewritten op computes the rows it keeps as eager computes them; only a product's
summation order may differ with its row count (MKL picks its kernel by shape), as between
oneDNN and ATen (gemm_choice.py). The gradients of the rows dropped were zeros.
Every new node's value is computed on Dynamo's fake tensors before the graph is changed,
and a rewrite whose result is not the old value's shape with the narrowed dim is refused.
"""
from __future__ import annotations

import math
import operator
from typing import Optional

import torch
import torch.nn.functional as F

_NARROW = "bessemer_rows"   # meta key on the narrow nodes this pass makes: (dim, start, length)

_ELEMENTWISE_FUNCTIONS = {
    operator.add, operator.sub, operator.mul, operator.truediv, operator.neg, operator.pow,
    torch.add, torch.sub, torch.mul, torch.div, torch.neg, torch.tanh, torch.sigmoid, torch.exp,
    torch.log, torch.sqrt, torch.rsqrt, torch.pow, torch.abs, torch.where, torch.clamp,
    torch.relu, torch.erf, F.gelu, F.relu, F.silu, F.tanh, F.sigmoid, F.mish, F.leaky_relu, F.elu,
    torch._C._nn.gelu, torch._C._nn.silu, torch._C._nn.leaky_relu, torch._C._nn.elu,
}
_ELEMENTWISE_METHODS = {
    "add", "sub", "mul", "div", "pow", "neg", "float", "half", "bfloat16", "to", "type_as",
    "masked_fill", "contiguous", "clamp", "tanh", "sigmoid", "exp", "rsqrt", "sqrt", "abs",
    "relu", "bool", "long", "int", "where",
}
_LINEAR = {torch._C._nn.linear, F.linear}
_LAYER_NORM = {F.layer_norm, torch.layer_norm}
_SOFTMAX_FUNCTIONS = {F.softmax, torch.softmax, F.log_softmax, torch.log_softmax}
_MATMUL = {torch.matmul, torch.bmm, operator.matmul}
_SDPA = {F.scaled_dot_product_attention, torch._C._nn.scaled_dot_product_attention}
_DROPOUT = {F.dropout, torch.dropout}


def _val(a):
    return a.meta.get("example_value") if isinstance(a, torch.fx.Node) else None


def _tensor(a) -> bool:
    return isinstance(_val(a), torch.Tensor)


# functions that write their input when `inplace=True`: the position of that argument
_INPLACE_ARG = {F.relu: 1, F.silu: 1, F.mish: 1, F.relu6: 1, F.leaky_relu: 2, F.elu: 2,
                F.hardtanh: 3, F.dropout: 3}


def _in_place(n: torch.fx.Node) -> bool:
    if n.kwargs.get("inplace") is True:
        return True
    at = _INPLACE_ARG.get(n.target) if n.op == "call_function" else None
    if at is not None and len(n.args) > at and n.args[at] is True:
        return True
    if n.op == "call_method":
        return n.target.endswith("_") and not n.target.startswith("_")
    if n.op == "call_function":
        name = getattr(n.target, "__name__", "")
        return n.target in (operator.iadd, operator.isub, operator.imul, operator.itruediv,
                            operator.setitem) or "out" in n.kwargs or \
            (name.endswith("_") and not name.startswith("_"))
    return False


def _symbolic(gm: torch.fx.GraphModule) -> bool:
    for n in gm.graph.nodes:
        v = _val(n)
        if isinstance(v, torch.Tensor) and any(not isinstance(s, int) for s in v.shape):
            return True
        if isinstance(v, torch.SymInt):
            return True
    return False


class _Refused(Exception):
    pass


class _Rewrite:
    """How one node is computed on some rows: its new args and kwargs, where an input to narrow
    is given as ("narrow", node, dim)."""

    def __init__(self, args, kwargs):
        self.args, self.kwargs = args, kwargs


def _is_cut(a) -> bool:
    return isinstance(a, tuple) and len(a) == 3 and a[0] == "narrow"


def _broadcast_cut(a, d: int, out_ndim: int, out_size: int):
    """Input `a` of an op broadcasting to an output of out_ndim dims: its narrowing for output
    dim d, or `a` itself where it is broadcast along d."""
    v = _val(a)
    if not isinstance(v, torch.Tensor):
        return a
    k = d - (out_ndim - v.dim())
    if k < 0 or v.shape[k] == 1:
        return a
    if v.shape[k] != out_size:
        raise _Refused
    return ("narrow", a, k)


def _dim(d, ndim: int) -> int:
    if not isinstance(d, int):
        raise _Refused
    return d % ndim if ndim else 0


def _arg(n: torch.fx.Node, i: int, name: str, default=None):
    if len(n.args) > i:
        return n.args[i]
    return n.kwargs.get(name, default)


def _map_all(n, d, out_ndim, out_size):
    args = tuple(_broadcast_cut(a, d, out_ndim, out_size) for a in n.args)
    kwargs = {k: _broadcast_cut(a, d, out_ndim, out_size) for k, a in n.kwargs.items()}
    return _Rewrite(args, kwargs)


def _first_only(n, cut):
    return _Rewrite((cut,) + tuple(n.args[1:]), dict(n.kwargs))


def _reshape_dim(shape_in, shape_out, d: int) -> int:
    """The input dim that output dim d of a reshape is, where the reshape leaves it whole."""
    before = math.prod(shape_out[:d])
    for k in range(len(shape_in)):
        if math.prod(shape_in[:k]) == before and shape_in[k] == shape_out[d]:
            return k
    raise _Refused


def _rule(n: torch.fx.Node, d: int, length: int) -> _Rewrite:
    """How n computes only `length` rows along its output dim d (from the rows start..start+length:
    the start is the caller's, on every input narrowed)."""
    out = _val(n)
    r, size = out.dim(), out.shape[d]
    t = n.target
    if n.op == "call_function" and t in _DROPOUT or (n.op == "call_method" and t == "dropout"):
        p, training = _arg(n, 1, "p", 0.5), _arg(n, 2, "training", True)
        if _arg(n, 3, "inplace", False) or not (p == 0 or training is False):
            raise _Refused   # a dropout that draws: its mask is eager's over the whole tensor
        return _first_only(n, ("narrow", n.args[0], d))
    if n.op == "call_function" and t in _ELEMENTWISE_FUNCTIONS or \
            n.op == "call_method" and t in _ELEMENTWISE_METHODS:
        if n.op == "call_method" and t in ("type_as", "to"):
            return _first_only(n, ("narrow", n.args[0], d))
        return _map_all(n, d, r, size)
    if n.op == "call_function" and t in _LINEAR:
        if d == r - 1:
            raise _Refused
        return _first_only(n, ("narrow", n.args[0], d))
    if n.op == "call_function" and t in _LAYER_NORM:
        shape = _arg(n, 1, "normalized_shape")
        if not isinstance(shape, (tuple, list)) or d >= r - len(shape):
            raise _Refused
        return _first_only(n, ("narrow", n.args[0], d))
    if n.op == "call_function" and t in _SOFTMAX_FUNCTIONS or \
            n.op == "call_method" and t in ("softmax", "log_softmax"):
        if _dim(_arg(n, 1, "dim"), r) == d:
            raise _Refused
        return _first_only(n, ("narrow", n.args[0], d))
    if n.op == "call_function" and t in _MATMUL:
        a, b = n.args[0], n.args[1]
        if len(n.args) != 2 or n.kwargs or not _tensor(a) or not _tensor(b) or \
                _val(a).dim() < 2 or _val(b).dim() < 2 or d != r - 2:
            raise _Refused
        return _Rewrite((("narrow", a, _val(a).dim() - 2), b), {})
    if n.op == "call_function" and t in _SDPA:
        q = n.args[0]
        if d != r - 2 or _arg(n, 5, "is_causal", False) or _arg(n, 4, "dropout_p", 0.0) != 0 or \
                len(n.args) > 4:
            raise _Refused
        kwargs = dict(n.kwargs)
        if "attn_mask" in kwargs:
            kwargs["attn_mask"] = _broadcast_cut(kwargs["attn_mask"], d, r, size)
        elif len(n.args) > 3:
            raise _Refused
        return _Rewrite((("narrow", q, d),) + tuple(n.args[1:]), kwargs)
    if (n.op == "call_method" and t in ("view", "reshape")) or (n.op == "call_function" and t is torch.reshape):
        src = _val(n.args[0])
        k = _reshape_dim(tuple(src.shape), tuple(out.shape), d)
        shape = list(out.shape)
        shape[d] = length
        return _Rewrite((("narrow", n.args[0], k), tuple(shape)), {})
    if (n.op == "call_method" and t == "transpose") or (n.op == "call_function" and t is torch.transpose):
        a, b = _dim(_arg(n, 1, "dim0"), r), _dim(_arg(n, 2, "dim1"), r)
        k = b if d == a else a if d == b else d
        return _first_only(n, ("narrow", n.args[0], k))
    if n.op == "call_method" and t == "permute":
        dims = n.args[1] if len(n.args) == 2 and isinstance(n.args[1], (tuple, list)) else n.args[1:]
        if n.kwargs or len(dims) != r:
            raise _Refused
        return _first_only(n, ("narrow", n.args[0], _dim(dims[d], r)))
    if n.op == "call_method" and t == "expand":
        sizes = list(n.args[1] if len(n.args) == 2 and isinstance(n.args[1], (tuple, list)) else n.args[1:])
        if n.kwargs or len(sizes) != r or not all(isinstance(s, int) for s in sizes):
            raise _Refused
        src = _broadcast_cut(n.args[0], d, r, size)
        if sizes[d] != -1:
            sizes[d] = length
        return _Rewrite((src, tuple(sizes)), {})
    if n.op == "call_function" and t is torch.gather:
        src, g, index = _arg(n, 0, "input"), _arg(n, 1, "dim"), _arg(n, 2, "index")
        if len(n.args) + len(n.kwargs) != 3 or not _tensor(index):
            raise _Refused
        g = _dim(g, r)
        src = src if d == g else ("narrow", src, d)
        return _Rewrite((src, g, ("narrow", index, d)), {})
    raise _Refused


def _fake_mode(gm):
    for n in gm.graph.nodes:
        v = _val(n)
        if isinstance(v, torch.Tensor) and getattr(v, "fake_mode", None) is not None:
            return v.fake_mode
    return None


class _Pass:
    def __init__(self, gm: torch.fx.GraphModule, fake_mode):
        self.gm, self.g, self.fake_mode = gm, gm.graph, fake_mode
        self.rewritten = 0
        self.erased: set = set()

    def narrow(self, before: torch.fx.Node, x: torch.fx.Node, dim: int, start: int, length: int):
        with self.fake_mode:
            v = _val(x).narrow(dim, start, length)
        with self.g.inserting_before(before):
            m = self.g.call_method("narrow", (x, dim, start, length))
        m.meta["example_value"] = v
        m.meta[_NARROW] = (dim, start, length)
        return m

    def seed(self, n: torch.fx.Node) -> Optional[torch.fx.Node]:
        """A selection of rows of a value: rewritten as a narrow (and a select of its one row
        where the selection drops the dim); the narrow, or None."""
        if n.op != "call_function" or n.target is not operator.getitem or len(n.args) != 2:
            return None
        x, idx = n.args
        v = _val(x)
        if not isinstance(v, torch.Tensor) or not isinstance(idx, tuple):
            return None
        lead = 0
        while lead < len(idx) and idx[lead] == slice(None):
            lead += 1
        if lead == len(idx) or any(i != slice(None) for i in idx[lead + 1:]) or lead >= v.dim():
            return None
        i, size = idx[lead], v.shape[lead]
        if isinstance(i, int) and not isinstance(i, bool) and -size <= i < size:
            start, length, drop = i % size, 1, True
        elif isinstance(i, slice) and i.step in (None, 1) and all(
                s is None or isinstance(s, int) for s in (i.start, i.stop)):
            start, stop, _ = i.indices(size)
            length, drop = stop - start, False
            if length <= 0:
                return None
        else:
            return None
        if length >= size:
            return None
        m = self.narrow(n, x, lead, start, length)
        if drop:
            with self.g.inserting_before(n):
                s = self.g.call_function(torch.select, (m, lead, 0))
            s.meta.update(n.meta)
            n.replace_all_uses_with(s)
        else:
            m.meta.update({k: v for k, v in n.meta.items() if k not in ("example_value", _NARROW)})
            n.replace_all_uses_with(m)
        self.g.erase_node(n)
        return m

    def push(self, x: torch.fx.Node) -> list:
        """Compute x on the rows its narrows read, if every reader of x is such a narrow (of the
        same rows); the inputs it narrowed in turn."""
        users = list(x.users)
        if x.op not in ("call_function", "call_method") or not users or \
                any(_NARROW not in u.meta for u in users) or len({u.meta[_NARROW] for u in users}) != 1:
            return []
        dim, start, length = users[0].meta[_NARROW]
        try:
            rw = _rule(x, dim, length)
            made = {}
            todo = [(a[1], a[2]) for a in list(rw.args) + list(rw.kwargs.values()) if _is_cut(a)]
            # the values first, on fake tensors: nothing in the graph changes if one fails
            with self.fake_mode:
                fakes = {(id(src), k): _val(src).narrow(k, start, length) for src, k in todo}

            def fake_arg(a):
                if _is_cut(a):
                    return fakes[(id(a[1]), a[2])]
                return _val(a) if isinstance(a, torch.fx.Node) else a
            fa = tuple(fake_arg(a) for a in rw.args)
            fk = {k: fake_arg(a) for k, a in rw.kwargs.items()}
            with self.fake_mode:
                if x.op == "call_method":
                    v = getattr(fa[0], x.target)(*fa[1:], **fk)
                else:
                    v = x.target(*fa, **fk)
            want = list(_val(x).shape)
            want[dim] = length
            if not isinstance(v, torch.Tensor) or list(v.shape) != want or v.dtype != _val(x).dtype:
                return []
        except _Refused:
            return []
        except Exception:   # a fake op that refuses these inputs: leave x whole
            return []

        def real_arg(a):
            if _is_cut(a):
                key = (id(a[1]), a[2])
                if key not in made:
                    made[key] = self.narrow(x, a[1], a[2], start, length)
                return made[key]
            return a
        args = tuple(real_arg(a) for a in rw.args)
        kwargs = {k: real_arg(a) for k, a in rw.kwargs.items()}
        with self.g.inserting_before(x):
            y = self.g.create_node(x.op, x.target, args, kwargs)
        y.meta.update({k: w for k, w in x.meta.items() if k != "example_value"})
        y.meta["example_value"] = v
        for u in users:
            u.replace_all_uses_with(y)
            self.g.erase_node(u)
        self.g.erase_node(x)
        self.erased.add(x)
        self.rewritten += 1
        return [m.args[0] for m in made.values()]


def prune_rows(gm: torch.fx.GraphModule) -> int:
    """Rewrite gm in place; the number of ops that now compute fewer rows."""
    g = gm.graph
    if any(_in_place(n) for n in g.nodes) or _symbolic(gm):
        return 0
    mode = _fake_mode(gm)
    if mode is None:
        return 0
    p = _Pass(gm, mode)
    work = []
    for n in list(g.nodes):
        m = p.seed(n)
        if m is not None:
            work.append(m.args[0])
    seeded = bool(work)
    while work:
        x = work.pop()
        if isinstance(x, torch.fx.Node) and x not in p.erased:
            work.extend(p.push(x))
    if seeded:
        gm.recompile()
    return p.rewritten
