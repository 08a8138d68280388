"""The bessemer IR: a graph of a few tensor primitives.

Every node produces one tensor with a shape and a dtype. Its kind is a `Kind`
(the one list of kinds); `Group` names the sets of kinds passes ask about:

  input      a graph input (a torch tensor with known strides)
  const      a tensor filled with one scalar
  iota       value = start + step * index[dim]   (arange and friends)
  pointwise  op(args...) elementwise; all args have the node's shape
  view       args[0] read through an affine index map (permute, expand, slice,
             select, unsqueeze, squeeze); no data moves
  reinterpret  args[0]'s buffer read with other strides and an offset (a reshape
             torch's view() could do); args[0] must own memory
  pad        args[0] read at index - lo where lo <= index < lo + size in every dim,
             `fill` elsewhere (constant padding); elementwise, its argument
             smaller than itself
  gather     args[0] read at index i with dim `dim` replaced by args[1][i] (torch.gather;
             args[1] an int64 tensor of the node's shape whose values are known to lie
             in [0, args[0].shape[dim])); args[0] must be memory, args[1] is computed
             in the kernel that reads the gather
  scatter    zeros of the node's shape with args[1][i] added at index i with dim `dim`
             replaced by args[0][i] (torch.scatter_add into zeros: a gather's gradient).
             args[0] (int64, values known to lie in [0, shape[dim])) and args[1] have one
             shape, the node's own outside `dim`, which is their last dim; each row of
             the result takes the adds of its own row, in order. Computed by a kernel of
             its own whose domain is args[1]'s shape, `dim` its reduced dim
  reduce     op over `dims` of args[0] (sum, max, min, prod, any)
  extern     an ATen call that is not lowered (matmul, convolution, RNG, ...)
  getitem    output `index` of a multi-output extern
  output     the graph's outputs (the last node)

A dimension is an int, or a symbolic size (symbolic.Dim) in a graph compiled for
many shapes. Each kind's attributes are read through the typed accessors of Node
(`value`, `dims`, `index_map`, ...); verify.ATTRS says which each kind has. A
Graph is the unit each pass maps to a new Graph (passes may also rewrite a graph
in place and return it).
"""
from __future__ import annotations

import enum
import functools
import itertools
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional, Sequence

import torch

from bessemer.compiler.ir.symbolic import Dim

Shape = tuple[int, ...]

# The pointwise and reduction ops and what every pass needs to know of them.
from bessemer.compiler.ir.ops import CAST, OPS, REDUCE_OPS  # noqa: E402,F401


class Kind(enum.StrEnum):
    """What a node is. A StrEnum: it prints as its name in formats and dumps."""
    INPUT = "input"
    CONST = "const"
    IOTA = "iota"
    POINTWISE = "pointwise"
    PAD = "pad"
    GATHER = "gather"
    SCATTER = "scatter"
    VIEW = "view"
    REINTERPRET = "reinterpret"
    REDUCE = "reduce"
    EXTERN = "extern"
    GETITEM = "getitem"
    OUTPUT = "output"


class Group:
    """Named sets of kinds."""
    # own a buffer with strides known at run time (given, or made by ATen)
    BUFFERS = frozenset({Kind.INPUT, Kind.EXTERN, Kind.GETITEM})
    # read another node's values or memory through an index map: no data moves
    VIEWS = frozenset({Kind.VIEW, Kind.REINTERPRET})
    # a value computed from the index alone
    GENERATED = frozenset({Kind.CONST, Kind.IOTA})
    # computed element by element inside a kernel
    ELEMENTWISE = frozenset({Kind.CONST, Kind.IOTA, Kind.POINTWISE, Kind.PAD, Kind.GATHER})
    REDUCTIONS = frozenset({Kind.REDUCE})
    # what a kernel computes (the rest is memory, views of it, or the output)
    COMPUTED = ELEMENTWISE | REDUCTIONS | {Kind.SCATTER}


@dataclass(eq=False)
class Node:
    kind: Kind
    args: list["Node"]
    shape: Shape
    dtype: torch.dtype
    attrs: dict = field(default_factory=dict)
    name: str = ""
    # For inputs and externs: the strides the tensor has at run time.
    stride: Optional[tuple[int, ...]] = None
    # A value of the whole step's backward (partition/step_remat.py): CSE and fusion keep it
    # apart from the forward's values, as between the two graphs of a partitioned step.
    backward: bool = False

    def __post_init__(self):
        self.kind = Kind(self.kind)   # a string spelling of a kind is accepted, an unknown one is not

    # -- typed access to the attributes of each kind (verify.ATTRS checks them) --------------
    @property
    def op(self) -> Any:
        """pointwise: an ops.OPS name; reduce: one of ops.REDUCE_OPS."""
        return self.attrs.get("op")

    @property
    def value(self) -> Any:
        assert self.kind == Kind.CONST, self
        return self.attrs["value"]

    @property
    def iota_dim(self) -> int:
        assert self.kind == Kind.IOTA, self
        return self.attrs["dim"]

    @property
    def iota_start(self) -> Any:
        assert self.kind == Kind.IOTA, self
        return self.attrs["start"]

    @property
    def iota_step(self) -> Any:
        assert self.kind == Kind.IOTA, self
        return self.attrs["step"]

    @property
    def index_map(self) -> "IndexMap":
        assert self.kind == Kind.VIEW, self
        return self.attrs["map"]

    @property
    def pad_lo(self) -> tuple:
        """pad: the elements of padding before args[0] in each dim (>= 0)."""
        assert self.kind == Kind.PAD, self
        return self.attrs["lo"]

    @property
    def pad_fill(self) -> Any:
        assert self.kind == Kind.PAD, self
        return self.attrs["fill"]

    def pad_map(self) -> "IndexMap":
        """pad: the map from its index to its argument's (index - lo), valid inside only."""
        assert self.kind == Kind.PAD, self
        R = len(self.shape)
        return IndexMap(IndexMap.identity(R).coef, tuple(-lo for lo in self.pad_lo), R)

    @property
    def gather_dim(self) -> int:
        """gather: the dim of args[0] its index replaces."""
        assert self.kind == Kind.GATHER, self
        return self.attrs["dim"]

    def gather_map(self) -> "IndexMap":
        """gather: the map from its index to args[0]'s, the gathered dim left 0 (its place
        is the index's value, known only in the kernel)."""
        assert self.kind == Kind.GATHER, self
        R, d = len(self.shape), self.gather_dim
        return IndexMap(tuple(tuple(int(i == k and i != d) for k in range(R)) for i in range(R)), (0,) * R, R)

    @property
    def scatter_dim(self) -> int:
        """scatter: the dim of the result its index replaces (the last of its arguments')."""
        assert self.kind == Kind.SCATTER, self
        return self.attrs["dim"]

    @property
    def view_strides(self) -> tuple:
        assert self.kind == Kind.REINTERPRET, self
        return self.attrs["strides"]

    @property
    def view_offset(self) -> int:
        assert self.kind == Kind.REINTERPRET, self
        return self.attrs["offset"]

    @property
    def dims(self) -> tuple[int, ...]:
        """reduce: the reduced dims of args[0], sorted."""
        assert self.kind == Kind.REDUCE, self
        return self.attrs["dims"]

    @property
    def keepdim(self) -> bool:
        assert self.kind == Kind.REDUCE, self
        return self.attrs["keepdim"]

    @property
    def target(self) -> Any:
        assert self.kind == Kind.EXTERN, self
        return self.attrs["target"]

    @property
    def n_outputs(self) -> int:
        """extern: how many outputs (0: one tensor, read directly rather than by getitem)."""
        assert self.kind == Kind.EXTERN, self
        return self.attrs["n_outputs"]

    @property
    def index(self) -> int:
        assert self.kind == Kind.GETITEM, self
        return self.attrs["index"]

    @property
    def outs(self) -> list:
        assert self.kind == Kind.OUTPUT, self
        return self.attrs["outs"]

    def numel(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def __repr__(self) -> str:  # short, for error messages
        return f"%{self.name}"


class Graph:
    """Nodes in topological order. The last node is the output node."""

    def __init__(self, nodes: Optional[list[Node]] = None):
        self.nodes: list[Node] = nodes or []
        self._names = itertools.count()

    # -- building -------------------------------------------------------------
    def add(self, node: Node) -> Node:
        if not node.name:
            node.name = f"{_PREFIX[node.kind]}{next(self._names)}"
        self.nodes.append(node)
        return node

    def input(self, shape: Shape, dtype: torch.dtype, stride: tuple[int, ...], name: str = "") -> Node:
        return self.add(Node(Kind.INPUT, [], tuple(shape), dtype, {}, name, tuple(stride)))

    def const(self, value: Any, shape: Shape, dtype: torch.dtype) -> Node:
        return self.add(Node(Kind.CONST, [], tuple(shape), dtype, {"value": _py(value, dtype)}))

    def iota(self, shape: Shape, dtype: torch.dtype, dim: int, start: Any = 0, step: Any = 1) -> Node:
        return self.add(Node(Kind.IOTA, [], tuple(shape), dtype, {"dim": dim, "start": start, "step": step}))

    def pointwise(self, op: str, args: Sequence[Node], dtype: torch.dtype) -> Node:
        if op not in OPS or OPS[op].arity != len(args):
            raise ValueError(f"pointwise {op}: unknown op or wrong number of arguments ({len(args)})")
        shape = args[0].shape
        for a in args:
            if a.shape != shape:
                raise ValueError(f"pointwise {op}: shapes differ {[x.shape for x in args]}")
        return self.add(Node(Kind.POINTWISE, list(args), shape, dtype, {"op": op}))

    def cast(self, x: Node, dtype: torch.dtype) -> Node:
        if x.dtype == dtype:
            return x
        return self.add(Node(Kind.POINTWISE, [x], x.shape, dtype, {"op": CAST}))

    def pad(self, x: Node, lo: Sequence[int], hi: Sequence[int], fill: Any) -> Node:
        """x padded by lo[d] elements before and hi[d] after it in each dim d (all >= 0), `fill` there."""
        shape = tuple(s + a + b for s, a, b in zip(x.shape, lo, hi))
        return self.add(Node(Kind.PAD, [x], shape, x.dtype, {"lo": tuple(int(a) for a in lo),
                                                             "fill": _py(fill, x.dtype)}))

    def gather(self, x: Node, dim: int, index: Node) -> Node:
        """x gathered along dim by index (int64, values in [0, x.shape[dim]), as the caller proved)."""
        return self.add(Node(Kind.GATHER, [x, index], tuple(index.shape), x.dtype, {"dim": int(dim)}))

    def scatter_add(self, shape: Shape, dim: int, index: Node, src: Node) -> Node:
        """zeros(shape) with src added along dim at index (int64, values in [0, shape[dim]), as
        the caller proved; index and src of one shape, `shape` outside dim, dim their last)."""
        return self.add(Node(Kind.SCATTER, [index, src], tuple(shape), src.dtype, {"dim": int(dim)}))

    def view(self, x: Node, shape: Shape, imap: "IndexMap", what: str) -> Node:
        return self.add(Node(Kind.VIEW, [x], tuple(shape), x.dtype, {"map": imap, "what": what}))

    def reinterpret(self, base: Node, shape: Shape, strides, offset: int, what: str) -> Node:
        return self.add(Node(Kind.REINTERPRET, [base], tuple(shape), base.dtype,
                             {"strides": tuple(strides), "offset": offset if isinstance(offset, Dim) else int(offset),
                              "what": what}))

    def reduce(self, op: str, x: Node, dims: Sequence[int], keepdim: bool, dtype: torch.dtype) -> Node:
        dims = tuple(sorted(d % max(len(x.shape), 1) for d in dims)) if x.shape else ()
        shape = tuple((1 if i in dims else s) for i, s in enumerate(x.shape)) if keepdim else \
            tuple(s for i, s in enumerate(x.shape) if i not in dims)
        return self.add(Node(Kind.REDUCE, [x], shape, dtype, {"op": op, "dims": dims, "keepdim": keepdim}))

    def extern(self, target: Callable, args: list, kwargs: dict, shape: Shape, dtype: torch.dtype,
               stride: Optional[tuple[int, ...]], n_outputs: int = 0, out_meta: Any = None) -> Node:
        """An ATen call. `args`/`kwargs` may contain Nodes (at any nesting in lists)."""
        deps = [a for a in _flatten((args, kwargs)) if isinstance(a, Node)]
        return self.add(Node(Kind.EXTERN, deps, tuple(shape), dtype,
                             {"target": target, "args": args, "kwargs": kwargs, "n_outputs": n_outputs,
                              "out_meta": out_meta}, stride=stride))

    def getitem(self, x: Node, index: int, shape: Shape, dtype: torch.dtype, stride) -> Node:
        return self.add(Node(Kind.GETITEM, [x], tuple(shape), dtype, {"index": index}, stride=tuple(stride)))

    def output(self, outs: list) -> Node:
        deps = [o for o in outs if isinstance(o, Node)]
        return self.add(Node(Kind.OUTPUT, deps, (), torch.float32, {"outs": outs}))

    # -- queries --------------------------------------------------------------
    @property
    def output_node(self) -> Node:
        return self.nodes[-1]

    def users(self) -> dict[Node, list[Node]]:
        u: dict[Node, list[Node]] = {n: [] for n in self.nodes}
        for n in self.nodes:
            for a in n.args:
                u[a].append(n)
        return u

    def replace_uses(self, mapping: dict[Node, Node]) -> None:
        """Rewrite every use of a key node to its value (chains are followed)."""
        if not mapping:
            return

        def res(x):
            seen = 0
            while x in mapping and seen < 1000:
                x = mapping[x]
                seen += 1
            return x

        for n in self.nodes:
            n.args = [res(a) if isinstance(a, Node) else a for a in n.args]
            if n.kind == Kind.EXTERN:
                n.attrs["args"] = _map_nodes(n.attrs["args"], res)
                n.attrs["kwargs"] = _map_nodes(n.attrs["kwargs"], res)
            if n.kind == Kind.OUTPUT:
                n.attrs["outs"] = [res(o) if isinstance(o, Node) else o for o in n.attrs["outs"]]

    def format(self) -> str:
        lines = []
        for n in self.nodes:
            lines.append(format_node(n))
        return "\n".join(lines) + "\n"


_PREFIX = {Kind.INPUT: "in", Kind.CONST: "c", Kind.IOTA: "iota", Kind.POINTWISE: "p", Kind.PAD: "pad",
           Kind.GATHER: "gt", Kind.SCATTER: "sc", Kind.VIEW: "v",
           Kind.REINTERPRET: "rv", Kind.REDUCE: "r", Kind.EXTERN: "ext", Kind.GETITEM: "g", Kind.OUTPUT: "out"}


def format_node(n: Node) -> str:
    if n.kind == Kind.OUTPUT:
        return f"return ({_fmt_args(n.outs)})"
    dt = str(n.dtype).replace("torch.", "")
    args = ", ".join(f"%{a.name}" for a in n.args)
    return f"%{n.name}: {dt}{list(n.shape)} = {_FORMAT[n.kind](n, args)}"


# each kind's body in Graph.format() (and so in every dump and golden test)
_FORMAT: dict[Kind, Callable[[Node, str], str]] = {
    Kind.INPUT: lambda n, args: f"input stride={list(n.stride)}" + (" (constant)" if "constant" in n.attrs else ""),
    Kind.CONST: lambda n, args: f"const({n.value!r})",
    Kind.IOTA: lambda n, args: f"iota(dim={n.iota_dim}, start={n.iota_start}, step={n.iota_step})",
    Kind.POINTWISE: lambda n, args: f"{n.op}({args})",
    Kind.PAD: lambda n, args: f"pad({args}, lo={list(n.pad_lo)}, fill={n.pad_fill!r})",
    Kind.GATHER: lambda n, args: f"gather({args}, dim={n.gather_dim})",
    Kind.SCATTER: lambda n, args: f"scatter_add_into_zeros({args}, dim={n.scatter_dim})",
    Kind.VIEW: lambda n, args: f"view.{n.attrs['what']}({args}) {n.index_map}",
    Kind.REINTERPRET: lambda n, args: f"reinterpret.{n.attrs['what']}({args}) strides={list(n.view_strides)} "
                                      f"offset={n.view_offset}",
    Kind.REDUCE: lambda n, args: f"{n.op}({args}, dims={list(n.dims)}, keepdim={n.keepdim})",
    Kind.EXTERN: lambda n, args: f"extern {target_name(n.target)}({_fmt_args(n.attrs['args'])}"
                                 + (f", {n.attrs['kwargs']}" if n.attrs["kwargs"] else "") + ")",
    Kind.GETITEM: lambda n, args: f"{args}[{n.index}]",
}


def _fmt_args(args) -> str:
    def f(a):
        if isinstance(a, Node):
            return f"%{a.name}"
        if isinstance(a, (list, tuple)):
            return "[" + ", ".join(f(x) for x in a) + "]"
        return repr(a)
    return ", ".join(f(a) for a in args)


def target_name(t) -> str:
    return str(getattr(t, "__name__", None) or t) if not isinstance(t, torch._ops.OpOverload) else str(t)


def _flatten(x):
    if isinstance(x, (list, tuple)):
        for y in x:
            yield from _flatten(y)
    elif isinstance(x, dict):
        for y in x.values():
            yield from _flatten(y)
    else:
        yield x


def _map_nodes(x, fn):
    if isinstance(x, Node):
        return fn(x)
    if isinstance(x, list):
        return [_map_nodes(y, fn) for y in x]
    if isinstance(x, tuple):
        return tuple(_map_nodes(y, fn) for y in x)
    if isinstance(x, dict):
        return {k: _map_nodes(v, fn) for k, v in x.items()}
    return x


def upstream(n: "Node", through) -> Iterator["Node"]:
    """n and the nodes its value is computed from, each once, following the arguments of the
    nodes whose kind is in `through` (the others are yielded, not looked into)."""
    seen: set = set()
    todo = [n]
    while todo:
        x = todo.pop()
        if x in seen:
            continue
        seen.add(x)
        yield x
        if x.kind in through:
            todo.extend(x.args)


# the reduced-precision float dtypes, whose ATen CPU kernels compute in float32 and round
LOW_FLOATS = (torch.bfloat16, torch.float16)


@functools.lru_cache(maxsize=4096)
def narrowed(value: float, dtype: torch.dtype) -> float:
    """The number `value` as a bf16 / fp16 tensor holds it (eager's conversion: to float, then
    rounded to nearest even; out of fp16's range, an infinity). Computed on a real tensor
    whatever tracing modes are active."""
    from torch._subclasses.fake_tensor import unset_fake_temporarily
    from torch.utils._python_dispatch import _disable_current_modes
    with unset_fake_temporarily(), _disable_current_modes():
        return float(torch.tensor(value, dtype=torch.float64).to(dtype))


def _py(value: Any, dtype: torch.dtype) -> Any:
    if isinstance(value, Dim) and dtype != torch.bool:
        return value   # a size as a value: the renderers convert it to the dtype at run time
    if isinstance(value, torch.Tensor):
        value = value.item()
    if dtype == torch.bool:
        return bool(value)
    if dtype in LOW_FLOATS:
        # the value the narrow type holds: eager narrows a number to the tensor's type
        # (`bf16 + 0.3` adds 0.30078125), and a constant of that type is that value
        return narrowed(float(value), dtype)
    if dtype.is_floating_point:
        return float(value)
    return int(value)


# --------------------------------------------------------------------------------------
# Affine index maps: how a view reads its argument.
# in_index[j] = sum_k coef[j][k] * out_index[k] + offset[j]
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class IndexMap:
    coef: tuple[tuple[int, ...], ...]   # [in_rank][out_rank]
    offset: tuple[int, ...]             # [in_rank]
    out_rank: int

    @staticmethod
    def identity(rank: int) -> "IndexMap":
        return IndexMap(tuple(tuple(int(i == k) for k in range(rank)) for i in range(rank)), (0,) * rank, rank)

    @property
    def in_rank(self) -> int:
        return len(self.offset)

    def compose(self, inner: "IndexMap") -> "IndexMap":
        """self maps out->mid; inner maps mid->in. Result maps out->in."""
        out_rank = self.out_rank
        coef = []
        off = []
        for j in range(inner.in_rank):
            row = [0] * out_rank
            o = inner.offset[j]
            for m in range(self.in_rank):
                c = inner.coef[j][m]
                if c:
                    for k in range(out_rank):
                        row[k] += c * self.coef[m][k]
                    o += c * self.offset[m]
            coef.append(tuple(row))
            off.append(o)
        return IndexMap(tuple(coef), tuple(off), out_rank)

    def map_strides(self, strides, offset: int = 0) -> tuple[tuple[int, ...], int]:
        """Strides and offset of the view through this map of a buffer read with
        `strides` and `offset`: out stride k = sum_j strides[j] * coef[j][k]."""
        new = tuple(sum(strides[j] * self.coef[j][k] for j in range(self.in_rank)) for k in range(self.out_rank))
        return new, offset + sum(strides[j] * self.offset[j] for j in range(self.in_rank))

    def is_identity(self) -> bool:
        return self.out_rank == self.in_rank and self == IndexMap.identity(self.in_rank)

    def __str__(self) -> str:
        return "{" + "; ".join(
            " + ".join([f"{c}*i{k}" if c != 1 else f"i{k}" for k, c in enumerate(row) if c] +
                       ([str(o)] if o else [])) or "0"
            for row, o in zip(self.coef, self.offset)) + "}"

