"""Lowering: ATen FX graph -> bessemer IR.

One table, LOWERINGS (lowering/rules.py), says how each ATen op becomes IR primitives. An op that is
not in it runs as an `extern` node: a call into ATen from the generated program.
Ops in EXTERN_BY_DESIGN are left to ATen on purpose (they are heavy, or random,
or data-dependent); any other op without a lowering also runs through ATen and is
reported once by name, so a missing lowering is visible but never fatal.
"""
from __future__ import annotations

import logging
import operator
import warnings
from typing import Any, Optional, Sequence

import torch
import torch.fx

from bessemer.config import TrainingCompilerConfig
from bessemer.compiler.ir import symbolic as symbolic_mod
from bessemer.compiler.ir.graph import Graph, Kind, Node
from bessemer.compiler.lowering.rules import (BACKWARD, IN_MEMORY_ORDER, LOWERINGS, channels_last, in_order,
                                            laid_out_densely, op_name)
from bessemer.compiler.lowering.sizes import SYM_TYPES, TENSOR_META, SizeBinding, fx_meta, input_strides
from bessemer.compiler.ir.views import Unsupported

aten = torch.ops.aten
log = logging.getLogger("bessemer")


# Upsampling, forward and backward, and the backward of padding by reflection or
# replication run as ATen's kernels (capture/backend.py keeps them out of the trace's
# decompositions: theirs end in an index_put with accumulate, serial on a CPU).
UPSAMPLE_OPS = ("upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d",
                "_upsample_nearest_exact1d", "_upsample_nearest_exact2d", "_upsample_nearest_exact3d",
                "upsample_linear1d", "upsample_bilinear2d", "upsample_bicubic2d", "upsample_trilinear3d")
PADDING_BACKWARDS = tuple(f"{kind}_pad{d}d_backward" for kind in ("reflection", "replication") for d in (1, 2, 3))

# Ops that run in ATen on purpose. (constant_pad_nd is lowered, rules.py, but for symbolic
# pad widths and empty results, which stay ATen calls without a warning; gather is lowered
# where its index is provably in range, and stays an ATen call, which checks it, elsewhere.)
EXTERN_BY_DESIGN = {
    "mm", "bmm", "addmm", "baddbmm", "convolution", "convolution_backward", "embedding",
    "embedding_dense_backward", "_scaled_dot_product_flash_attention_for_cpu",
    "_scaled_dot_product_flash_attention_for_cpu_backward", "_scaled_dot_product_efficient_attention",
    "_scaled_dot_product_efficient_attention_backward", "_scaled_dot_product_flash_attention",
    "_scaled_dot_product_flash_attention_backward", "_scaled_dot_product_cudnn_attention",
    "_scaled_dot_product_cudnn_attention_backward", "_efficient_attention_forward",
    "_efficient_attention_backward", "_flash_attention_forward", "_flash_attention_backward",
    "native_dropout", "bernoulli", "rand",
    "randn", "rand_like", "randn_like", "randint", "cat", "gather", "scatter", "scatter_add",
    "index", "index_put", "index_select", "sort", "topk", "cumsum", "max_pool2d_with_indices",
    "max_pool2d_with_indices_backward", "avg_pool2d", "avg_pool2d_backward", "constant_pad_nd",
    "_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward", "copy_", "max", "min", "argmax",
    "argmin", "masked_fill", "nonzero", "repeat", "_unsafe_index", "_unsafe_index_put",
    "scatter_reduce", "index_add", "_local_scalar_dense", "select_scatter", "slice_scatter",
    "as_strided_scatter", "as_strided", "diagonal", "_to_copy",
    *UPSAMPLE_OPS, *(f"{name}_backward" for name in UPSAMPLE_OPS), *PADDING_BACKWARDS,
    "cumprod", "full", "empty_strided", "empty", "new_zeros", "new_empty", "new_empty_strided", "clone",
    "with_effects",
}
_reported: set[str] = set()



class Lowerer:
    """Walks an ATen FX graph and builds the IR graph."""

    def __init__(self, gm: torch.fx.GraphModule, example_inputs: Sequence[Any], fallback: str = "warn",
                 device: torch.device = torch.device("cpu"), sizes: Optional["SizeBinding"] = None,
                 target: str = "cpp", cache_dir: Optional[str] = None):
        self.gm = gm
        self.example_inputs = list(example_inputs)
        self.g = Graph()
        self.env: dict[torch.fx.Node, Any] = {}
        self.fallback = fallback
        self.device = device   # every tensor of the graph lives here: the kernels read it directly
        self.target = target   # the kernels' language ("cpp" | "triton"): what a kernel can do
        # where the program's native helpers (runtime/rng.py) are built; None: the default's
        self.cache_dir = cache_dir if cache_dir is not None else TrainingCompilerConfig().resolved_cache_dir()
        self.externs: list[str] = []
        # A graph with symbolic sizes lowered at one concrete shape: every size symbol's
        # value (specialize.py). The FX metadata then holds SymInts; meta() and the
        # values of size expressions are read through it.
        self.sizes = sizes

    # helpers for lowerings
    def meta(self, node: torch.fx.Node):
        if self.sizes is not None:
            return self.sizes.node_meta(node)
        return fx_meta(node)

    def dtype(self, node: torch.fx.Node) -> torch.dtype:
        v = self.meta(node)
        if isinstance(v, (list, tuple)):
            v = v[0]
        return v.dtype

    def shape(self, node: torch.fx.Node) -> tuple:
        v = self.meta(node)
        return tuple(s if isinstance(s, symbolic_mod.Dim) else int(s) for s in v.shape)

    def copy(self, x: Node) -> Node:
        """A fresh value equal to x (the fusion pass decides whether it is materialized)."""
        return self.g.add(Node(Kind.POINTWISE, [x], x.shape, x.dtype, {"op": "cast", "keep": True})) \
            if x.kind != Kind.POINTWISE \
            else x

    # main loop
    def run(self) -> Graph:
        placeholders = [n for n in self.gm.graph.nodes if n.op == "placeholder"]
        self.viewed_outputs = _viewed_outputs(self.gm.graph)
        # a graph with convolutions, whose channels-last activations its kernels compute in
        # [N, H, W, C] order (_in_layout), and the values the graph's outputs are (views of)
        self.convolutional = any(n.op == "call_function" and "convolution" in str(n.target)
                                 for n in self.gm.graph.nodes)
        outs = next(n for n in reversed(self.gm.graph.nodes) if n.op == "output").args[0]
        self.output_roots = {_root(o) for o in outs if isinstance(o, torch.fx.Node)}
        for i, n in enumerate(placeholders):
            ex = self.example_inputs[i] if i < len(self.example_inputs) else None
            if _is_effect_token(n):
                # AOTAutograd threads a token through ops with side effects (with_effects,
                # e.g. linalg's error checks) and passes None for it at run time
                self.env[n] = None
            elif isinstance(ex, torch.Tensor):
                if ex.device != self.device:
                    raise Unsupported(f"input {i} is on {ex.device}, the graph runs on {self.device}")
                if self.sizes is not None and self.sizes.symbolic:
                    m = self.meta(n)
                    shape, stride = tuple(m.shape), input_strides(m.shape, m.stride(), ex)
                else:
                    shape, stride = tuple(ex.shape), tuple(ex.stride())
                self.env[n] = self.g.input(shape, ex.dtype, stride, name=f"arg{i}")
            elif self.sizes is not None and self.sizes.symbolic and isinstance(n.meta.get("val"), SYM_TYPES):
                self.env[n] = self.sizes.value(n.meta["val"])   # a size symbol as an argument
            else:
                self.env[n] = ex  # a Python scalar input
        for n in self.gm.graph.nodes:
            if n.op == "call_function":
                first = len(self.g.nodes)
                self.env[n] = self.lower_call(n)
                if n.meta.get(BACKWARD):
                    for x in self.g.nodes[first:]:
                        x.backward = True
            elif n.op == "output":
                outs = n.args[0]
                # Each output's root: the value it is a view of (or itself), None for
                # an input. Eager computes a root afresh; once simplification has made
                # it an input again (x * 1, a mean over no dims), its outputs must
                # still not share memory with an input or with another root's outputs
                # (the caller may update them in place): the wrapper copies it then.
                out = self.g.output([self.env[o] if isinstance(o, torch.fx.Node) else o for o in outs])
                out.attrs["roots"] = [_root(o) for o in outs]
                out.attrs["eager_views"] = [_eager_view(o) for o in outs]
            elif n.op == "get_attr":
                t = getattr(self.gm, n.target)
                if not isinstance(t, torch.Tensor) or t.device != self.device:
                    raise Unsupported(f"get_attr {n.target} of type {type(t).__name__}"
                                      + (f" on {t.device}" if isinstance(t, torch.Tensor) else ""))
                node = self.g.input(tuple(t.shape), t.dtype, tuple(t.stride()), name=f"const_{len(self.g.nodes)}")
                node.attrs["constant"] = t
                self.env[n] = node
        return self.g

    def _arg(self, a):
        if isinstance(a, torch.fx.Node):
            return self.env[a]
        if self.sizes is not None and isinstance(a, SYM_TYPES):
            return self.sizes.value(a)
        if isinstance(a, (list, tuple)):
            return type(a)(self._arg(x) for x in a)
        if isinstance(a, dict):
            return {k: self._arg(v) for k, v in a.items()}
        return a

    def lower_call(self, n: torch.fx.Node):
        if n.target is operator.getitem:
            base = self.env[n.args[0]]
            if isinstance(base, (tuple, list)):
                return base[n.args[1]]
            raise Unsupported("getitem of a non-tuple")
        if self.sizes is not None and isinstance(n.meta.get("val"), SYM_TYPES):
            # a size expression (sym_size, arithmetic on sizes, a size check): its value
            # at this shape, a Python number
            return self.sizes.value(n.meta["val"])
        args = self._arg(n.args)
        kwargs = self._arg(n.kwargs)
        if _has_complex(n):
            # complex values (and the dtypes the kernels do not handle) stay in ATen by design:
            # the op reads or returns one, so it runs as an ATen call and its results go
            # through the graph as buffers of their own dtype
            return self.extern(n, args, kwargs, by_design=True)
        fn = LOWERINGS.get(n.target)
        if fn is not None:
            try:
                return self._in_layout(n, fn(self, n, *args, **kwargs))
            except Unsupported as e:
                log.debug("bessemer: %s runs in ATen: %s", n.target, e)
        return self.extern(n, args, kwargs)

    def _in_layout(self, n: torch.fx.Node, v):
        """v, computed in the order of n's memory where eager lays n out channels-last: an
        [N, H, W, C] value seen as [N, C, H, W] (as a channels-last clone is). Between two
        channels-last convolutions (partition/channels_last.py) every kernel then reads and
        writes [N, H, W, C] memory in its order; left in the domain's order, a kernel that
        reads a channels-last input and writes its own buffer NCHW transposes. An output other
        outputs are views of is computed in eager's order as well (below)."""
        if not (isinstance(v, Node) and v.kind in (Kind.POINTWISE, Kind.PAD)):
            return v
        m = n.meta.get("val")
        if not isinstance(m, torch.Tensor) or m.is_contiguous():
            return v
        # (where convolutions make it, or the graph returns it: a transformer's [1, heads, q, k]
        # position bias, a permute of a [q, k, heads] lookup, has channels-last strides, and its
        # readers, every softmax of the stack, want [heads, q, k] order)
        if m.dim() == 4 and len(v.shape) == 4 and m.is_contiguous(memory_format=torch.channels_last) and \
                (self.convolutional or n.name in self.output_roots):
            return channels_last(self.g, v)
        # another dense order, of a value the rewrite carried the layout into (a GroupNorm's
        # [N, G, C/G, H*W] view of channels-last memory, computed by N, H*W, G, C/G)
        # An output that other outputs are views of, too: AOTAutograd rebuilds those views from
        # it at run time by replaying the view ops it traced, which assume eager's layout (a
        # reshape that is a view of eager's tensor may be none of another layout's)
        if ((n.meta.get(IN_MEMORY_ORDER) or n.name in self.viewed_outputs)
                and tuple(m.shape) == tuple(v.shape) and laid_out_densely(m)):
            order = sorted(range(m.dim()), key=lambda d: (-m.stride()[d], d))
            return in_order(self.g, v, order)
        return v

    def extern(self, n: torch.fx.Node, args, kwargs, by_design: bool = False):
        name = op_name(n.target)
        self.externs.append(str(n.target))
        if not by_design and name not in EXTERN_BY_DESIGN and str(n.target) not in _reported:
            _reported.add(str(n.target))
            warnings.warn(f"bessemer: {n.target} has no lowering; it runs as an ATen call", stacklevel=2)
        val = self.meta(n)
        g = self.g
        raw = n.meta.get("val", val)   # the device as traced (meta() answers "meta" at concrete sizes)
        for m in (raw if isinstance(raw, (list, tuple)) else [raw]):
            if isinstance(m, torch.Tensor) and m.device != self.device:
                raise Unsupported(f"{n.target} returns a tensor on {m.device} in a graph on {self.device}")
        if isinstance(val, TENSOR_META):
            return g.extern(n.target, list(args), dict(kwargs), tuple(val.shape), val.dtype, tuple(val.stride()))
        if val is None and isinstance(n.target, torch._ops.OpOverload) and not n.target._schema.returns:
            # an op run for its effect only, such as the range check of one_hot
            # (_assert_async): an ATen call whose one result, None, nothing reads
            g.extern(n.target, list(args), dict(kwargs), (), torch.float32, None, n_outputs=1, out_meta=[None])
            return None
        if isinstance(val, (list, tuple)):
            metas = list(val)
            e = g.extern(n.target, list(args), dict(kwargs), (), torch.float32, None, n_outputs=len(metas),
                         out_meta=[(tuple(m.shape), m.dtype, tuple(m.stride())) if isinstance(m, TENSOR_META)
                                   else None for m in metas])
            return tuple(g.getitem(e, i, tuple(m.shape), m.dtype, tuple(m.stride()))
                         if isinstance(m, TENSOR_META) else None for i, m in enumerate(metas))
        raise Unsupported(f"{n.target} returns {type(val).__name__}")


def _is_effect_token(n: torch.fx.Node) -> bool:
    """A placeholder that only ever enters with_effects as its token."""
    return bool(n.users) and all(u.target is torch.ops.higher_order.with_effects and u.args[0] is n
                                 and n not in u.args[1:] for u in n.users)


def _viewed_outputs(g: torch.fx.Graph) -> set[str]:
    """The names of the graph's outputs that are the root of another output (see _root)."""
    outs = next(n for n in reversed(g.nodes) if n.op == "output").args[0]
    roots = [_root(o) for o in outs]
    return {o.name for o in outs if isinstance(o, torch.fx.Node) and _root(o) == o.name and roots.count(o.name) > 1}


def _root(n: Any) -> Optional[str]:
    """The FX value n is a view of (through view ops), by name; None if that is an input."""
    while isinstance(n, torch.fx.Node) and n.op == "call_function":
        op = n.args[0] if n.target is operator.getitem else n
        if not isinstance(op, torch.fx.Node):
            return n.name
        t = op.target
        src = op.args[0] if op.args else None
        if not (isinstance(t, torch._ops.OpOverload) and t.is_view and isinstance(src, torch.fx.Node)):
            return n.name
        n = src
    return None


def _eager_view(n: Any) -> Optional[tuple]:
    """(shape, strides, storage offset) of the output n in eager, static sizes only: where
    outputs of one root came out as separate buffers (simplification folded each view of a
    constant into a constant of its own), the wrapper lays them out in one buffer this way."""
    val = n.meta.get("val") if isinstance(n, torch.fx.Node) else None
    if not isinstance(val, torch.Tensor):
        return None
    try:
        view = (tuple(val.shape), tuple(val.stride()), val.storage_offset())
    except RuntimeError:
        return None
    if not all(type(v) is int for v in (*view[0], *view[1], view[2])):
        return None
    return view


def _has_complex(n: torch.fx.Node) -> bool:
    """Whether the op returns or reads a complex tensor (or one of a dtype the kernels do
    not handle): abs of a complex value is real, but its kernel would read complex data."""
    vals: list = []
    for v in (n.meta.get("val"), *(a.meta.get("val") for a in n.all_input_nodes)):
        vals.extend(v if isinstance(v, (list, tuple)) else [v])
    return any(isinstance(t, torch.Tensor) and (t.is_complex() or t.dtype in _UNSUPPORTED_DTYPES) for t in vals)


_UNSUPPORTED_DTYPES = {getattr(torch, n) for n in ("float8_e4m3fn", "float8_e5m2", "uint16", "uint32", "uint64",
                                                   "complex32") if hasattr(torch, n)}


def lower(gm: torch.fx.GraphModule, example_inputs: Sequence[Any], fallback: str = "warn",
          device: torch.device = torch.device("cpu"), sizes: Optional[SizeBinding] = None,
          target: str = "cpp", cache_dir: Optional[str] = None) -> Graph:
    return Lowerer(gm, example_inputs, fallback, device, sizes, target, cache_dir).run()
