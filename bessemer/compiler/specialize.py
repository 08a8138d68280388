"""Graphs with symbolic sizes: compiled once per concrete shape they are called with.

When Dynamo sees a second shape of a function (torch.compile's default
`dynamic=None`, or `dynamic=True`), it traces a graph whose sizes are symbols,
and AOTAutograd hands the forward and backward graphs to bessemer with SymInt
sizes. The kernel generator works on static shapes, so such a graph is
specialized: at each call the concrete sizes of its arguments select a static
version, traced again from the symbolic graph with those sizes (`make_fx`: the
size expressions become numbers) and compiled through the usual pipeline. Dynamo
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
            static = concrete_graph(self.gm, args)
            fn = self.compile_static(static, list(args), f"{self.name}.{len(self.compiled)}")
            self.compiled[key] = fn
            return fn
