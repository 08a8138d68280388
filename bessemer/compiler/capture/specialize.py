"""Graphs with symbolic sizes: compiled once for every shape their decisions hold for.

When Dynamo sees a second shape of a function (torch.compile's default
`dynamic=None`, or `dynamic=True`), it traces a graph whose sizes are symbols,
and AOTAutograd hands the forward and backward graphs to bessemer with SymInt
sizes. At the first call, the arguments give every size symbol its value
(`size_binding`) and the pipeline compiles the graph with its sizes kept as
expressions over the symbols (symbolic.py): kernels and wrapper take the sizes
at run time, and every decision the compile took on sizes is a guard. A later
shape whose symbols satisfy a compile's guards runs that compile (a few
polynomial evaluations, once per new shape); one that satisfies none is compiled
again, with its own guards. Dynamo compiles the Python function at most twice
(the first static shape, then the symbolic graph), and nothing runs eagerly.

Where a compile with symbolic sizes fails, the shape is specialized instead:
the graph compiled with every size bound to its value, or, where the arguments
do not pin every symbol down (a size read from data), traced again at those
sizes (`make_fx`). MAX_SHAPES bounds the compiles kept per graph; past it a
shape runs eagerly with one warning.
"""
from __future__ import annotations

import logging
import threading
import warnings
from typing import Any, Callable, Optional

import sympy
import torch
from torch.fx.experimental.proxy_tensor import make_fx

from bessemer.compiler.ir import symbolic

log = logging.getLogger("bessemer")

# Specializations kept per symbolic graph. Each holds its kernels and wrapper
# (kilobytes to a few MB); 64 sizes cover a padded-per-batch text dataset's
# lengths, rounded or not, without unbounded growth.
MAX_SHAPES = 64


def is_symbolic(example_inputs) -> bool:
    """Does a graph take symbolic sizes (a SymInt argument, or a tensor of symbolic shape)?"""
    for e in example_inputs:
        if isinstance(e, torch.SymInt):
            return True
        if isinstance(e, torch.Tensor) and any(isinstance(s, torch.SymInt) for s in e.shape):
            return True
    return False


def shape_key(args) -> tuple:
    """What a static specialization depends on: tensor sizes and dtypes, int values."""
    key = []
    for a in args:
        if isinstance(a, torch.Tensor):
            key.append((tuple(a.shape), a.dtype, a.device))
        elif isinstance(a, (int, float, bool)):
            key.append(a)
        else:
            key.append(type(a).__name__)
    return tuple(key)


def size_binding(gm: torch.fx.GraphModule, args: list, check_nodes: bool = True, strides: bool = True):
    """The value of every size symbol of `gm` at the sizes of `args` (a sizes.SizeBinding),
    read from the placeholders whose sizes are plain symbols and checked against every size
    and stride of every argument; None when the arguments do not pin them all down.

    `strides=False` leaves the arguments' strides out: an argument laid out otherwise than
    traced (a saved activation a compiled forward wrote in its own order) still binds; a
    compile with symbolic sizes reads its actual layout (sizes.input_strides)."""
    from bessemer.compiler.lowering.sizes import SizeBinding
    values: dict = {}
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(args):
        return None
    pairs = []
    where = []   # (placeholder index, "size" | "stride" | "offset" | "int", dim) of each pair
    for i, (n, a) in enumerate(zip(placeholders, args)):
        v = n.meta.get("val")
        if isinstance(v, torch.Tensor) and isinstance(a, torch.Tensor):
            if v.dim() != a.dim():
                return None
            pairs += list(zip(v.shape, a.shape))
            where += [(i, "size", d) for d in range(a.dim())]
            if strides:
                pairs += list(zip(v.stride(), a.stride()))
                where += [(i, "stride", d) for d in range(a.dim())]
            pairs.append((v.storage_offset(), a.storage_offset()))
            where.append((i, "offset", 0))
        elif isinstance(v, torch.SymInt) and isinstance(a, int):
            pairs.append((v, a))
            where.append((i, "int", 0))
    sources = {}
    for (sym, real), src in zip(pairs, where):
        if isinstance(sym, torch.SymInt) and isinstance(sym.node.expr, sympy.Symbol):
            if values.setdefault(sym.node.expr, real) != real:
                return None
            sources.setdefault(sym.node.expr, src)
    binding = SizeBinding(values, sources=sources)
    try:
        if any(binding.value(sym) != real for sym, real in pairs if isinstance(sym, torch.SymInt)):
            return None
        if any(int(sym) != real for sym, real in pairs if not isinstance(sym, torch.SymInt)):
            return None
        # every size in the graph must follow from them (not so for a size read from data,
        # such as item()'s): evaluating the metadata at the bound sizes is what lowering does
        if check_nodes:
            for n in gm.graph.nodes:
                binding.node_meta(n)   # kept: the lowering reads the same
    except Exception:  # noqa: BLE001 - an expression the arguments do not decide
        return None
    return binding


def concrete_graph(gm: torch.fx.GraphModule, args: list) -> torch.fx.GraphModule:
    """`gm` traced again at the sizes of `args`: sizes are numbers, ops the same ATen ops."""
    return make_fx(gm, tracing_mode="fake", _allow_non_fake_inputs=True)(*args)


class ShapeSpecialized:
    """A symbolic graph's callable (boxed): compiled once for every region of shapes
    that makes the same decisions (symbolic sizes), or once per concrete shape where
    the graph cannot be compiled with symbolic sizes."""

    def __init__(self, gm: torch.fx.GraphModule, compile_static: Callable[..., Any],
                 name: str, fallback: str, strict: bool = False, per_shape: Optional[Callable] = None):
        self.gm, self.compile_static, self.name, self.fallback = gm, compile_static, name, fallback
        # what wraps a symbolic compile for each shape it serves (a CUDA graph is per shape)
        self.per_shape = per_shape or (lambda fn, name, args: fn)
        self.compiled: dict[tuple, Callable] = {}
        self.strict = strict       # a failed symbolic compile is an error (the tests), not a static compile
        self.variants: list[tuple[symbolic.Guards, Callable]] = []   # symbolic compiles and their guards
        self.n_compiles = 0
        self.lock = threading.Lock()
        self._boxed_call = True
        self._warned = False

    def __call__(self, args: list):
        key = shape_key(args)
        fn = self.compiled.get(key)
        if fn is None:
            fn = self._specialize(key, args)
        return fn(args)

    def _specialize(self, key: tuple, args: list) -> Callable:
        with self.lock:
            if key in self.compiled:
                return self.compiled[key]
            sizes = size_binding(self.gm, args, check_nodes=not self.variants)
            if sizes is None:   # a compile with symbolic sizes takes the arguments' own layouts
                sizes = size_binding(self.gm, args, check_nodes=not self.variants, strides=False)
                strict_layout = False
            else:
                strict_layout = True
            if sizes is not None and self.variants:
                names = sizes.named_values()
                for guards, fn in self.variants:
                    if symbolic.serves(names, guards):
                        fn = self.compiled[key] = self.per_shape(fn, f"{self.name}@{len(self.compiled)}", args)
                        return fn
            if self.n_compiles >= MAX_SHAPES:
                if self.fallback == "error":
                    raise RuntimeError(f"bessemer: graph {self.name} has been specialized for {MAX_SHAPES} "
                                       f"shapes; a new one would run eagerly")
                if not self._warned:
                    warnings.warn(f"bessemer: graph {self.name} was compiled for {MAX_SHAPES} shapes; further "
                                  f"new shapes run eagerly (pad inputs to fewer lengths)", stacklevel=3)
                    self._warned = True
                from functorch.compile import make_boxed_func
                return make_boxed_func(self.gm.forward)
            shapes = ", ".join(str(tuple(a.shape)) for a in args if isinstance(a, torch.Tensor))[:200]
            name = f"{self.name}.{self.n_compiles}"
            self.n_compiles += 1
            fn = None
            if sizes is not None and all(v >= symbolic.MIN_SIZE for v in sizes.values.values()):
                fn = self._compile_symbolic(sizes, args, name, shapes)
                if fn is not None:
                    fn = self.per_shape(fn, f"{self.name}@{len(self.compiled)}", args)
            if fn is None:
                log.info("bessemer: specializing graph %s for shape %d: %s", self.name, self.n_compiles, shapes)
                if sizes is not None and strict_layout:
                    # lowered straight from the symbolic graph, its size expressions evaluated
                    fn = self.compile_static(self.gm, list(args), name, sizes)
                else:
                    # sizes the arguments do not pin down: the graph traced again at these sizes
                    fn = self.compile_static(concrete_graph(self.gm, args), list(args), name)
            self.compiled[key] = fn
            return fn

    def _compile_symbolic(self, sizes, args: list, name: str, shapes: str) -> Optional[Callable]:
        """One compile for every shape on which its decisions hold (None: it failed)."""
        guards = symbolic.Guards()
        try:
            with symbolic.recording(guards):
                fn = self.compile_static(self.gm, list(args), name, sizes.symbolic_copy(), strict=True)
        except Exception as e:  # noqa: BLE001 - the static path compiles this shape instead
            if self.strict:
                raise
            log.info("bessemer: graph %s not compiled with symbolic sizes (%s: %s); specializing",
                     self.name, type(e).__name__, str(e).splitlines()[0] if str(e) else "")
            return None
        log.info("bessemer: graph %s compiled with symbolic sizes at %s: %d guards, pinned: %s", self.name,
                 shapes, len(guards), ", ".join(guards.specialized()) or "none")
        if guards.trace:
            for w in guards.where:
                log.info("bessemer: guard %s", w)
        self.variants.append((guards, fn))
        return fn
