"""Graphs with symbolic sizes: compiled once per concrete shape they are called with.

When Dynamo sees a second shape of a function (torch.compile's default
`dynamic=None`, or `dynamic=True`), it traces a graph whose sizes are symbols,
and AOTAutograd hands the forward and backward graphs to bessemer with SymInt
sizes. The kernel generator works on static shapes, so such a graph is
specialized: at each call the concrete sizes of its arguments select a static
version, compiled through the usual pipeline from the symbolic graph itself: the
arguments give every size symbol its value (`size_binding`) and the lowering
evaluates the size expressions with them. Where the arguments do not pin every
symbol down, the graph is traced again at those sizes (`make_fx`, about as slow
as the rest of the pipeline together) instead. Dynamo
compiles the Python function at most twice (the first static shape, then the
symbolic graph), and nothing runs eagerly.

The trade: every new shape still costs one run of bessemer's pipeline (lower,
fuse, render, build; a few hundred ms for a transformer block with its kernels
in the disk cache, seconds without), while every step runs kernels specialized
for its exact sizes, as fast as a static compile. MAX_SHAPES bounds the
specializations kept per graph; past it a shape runs eagerly with one warning.
"""
from __future__ import annotations

import logging
import threading
import warnings
from typing import Any, Callable

import sympy
import torch
from torch.fx.experimental.proxy_tensor import make_fx

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


def size_binding(gm: torch.fx.GraphModule, args: list):
    """The value of every size symbol of `gm` at the sizes of `args` (a lowering.SizeBinding),
    read from the placeholders whose sizes are plain symbols and checked against every size
    and stride of every argument; None when the arguments do not pin them all down."""
    from .lowering import SizeBinding
    values: dict = {}
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(args):
        return None
    pairs = []
    for n, a in zip(placeholders, args):
        v = n.meta.get("val")
        if isinstance(v, torch.Tensor) and isinstance(a, torch.Tensor):
            if v.dim() != a.dim():
                return None
            pairs += list(zip(v.shape, a.shape)) + list(zip(v.stride(), a.stride()))
            pairs.append((v.storage_offset(), a.storage_offset()))
        elif isinstance(v, torch.SymInt) and isinstance(a, int):
            pairs.append((v, a))
    for sym, real in pairs:
        if isinstance(sym, torch.SymInt) and isinstance(sym.node.expr, sympy.Symbol):
            if values.setdefault(sym.node.expr, real) != real:
                return None
    binding = SizeBinding(values)
    try:
        if any(binding.value(sym) != real for sym, real in pairs if isinstance(sym, torch.SymInt)):
            return None
        if any(int(sym) != real for sym, real in pairs if not isinstance(sym, torch.SymInt)):
            return None
        # every size in the graph must follow from them (not so for a size read from data,
        # such as item()'s): evaluating the metadata at the bound sizes is what lowering does
        for n in gm.graph.nodes:
            binding.node_meta(n)   # kept: the lowering reads the same
    except Exception:  # noqa: BLE001 - an expression the arguments do not decide
        return None
    return binding


def concrete_graph(gm: torch.fx.GraphModule, args: list) -> torch.fx.GraphModule:
    """`gm` traced again at the sizes of `args`: sizes are numbers, ops the same ATen ops."""
    return make_fx(gm, tracing_mode="fake", _allow_non_fake_inputs=True)(*args)


class ShapeSpecialized:
    """A symbolic graph's callable (boxed): one static compile per concrete shape."""

    def __init__(self, gm: torch.fx.GraphModule, compile_static: Callable[[torch.fx.GraphModule, list, str], Any],
                 name: str, fallback: str):
        self.gm, self.compile_static, self.name, self.fallback = gm, compile_static, name, fallback
        self.compiled: dict[tuple, Callable] = {}
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
            if len(self.compiled) >= MAX_SHAPES:
                if self.fallback == "error":
                    raise RuntimeError(f"bessemer: graph {self.name} has been specialized for {MAX_SHAPES} "
                                       f"shapes; a new one would run eagerly")
                if not self._warned:
                    warnings.warn(f"bessemer: graph {self.name} was compiled for {MAX_SHAPES} shapes; further "
                                  f"new shapes run eagerly (pad inputs to fewer lengths)", stacklevel=3)
                    self._warned = True
                from functorch.compile import make_boxed_func
                return make_boxed_func(self.gm.forward)
            log.info("bessemer: specializing graph %s for shape %d: %s", self.name, len(self.compiled) + 1,
                     ", ".join(str(tuple(a.shape)) for a in args if isinstance(a, torch.Tensor))[:200])
            name = f"{self.name}.{len(self.compiled)}"
            sizes = size_binding(self.gm, args)
            if sizes is not None:
                # lowered straight from the symbolic graph, its size expressions evaluated
                fn = self.compile_static(self.gm, list(args), name, sizes)
            else:
                # sizes the arguments do not pin down: the graph traced again at these sizes
                fn = self.compile_static(concrete_graph(self.gm, args), list(args), name)
            self.compiled[key] = fn
            return fn
