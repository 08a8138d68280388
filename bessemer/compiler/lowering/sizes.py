"""A symbolic graph's sizes at one concrete shape: SizeBinding evaluates size symbols and
turns FX metadata into tensors of concrete sizes (or SymMeta, sizes kept as expressions)."""
from __future__ import annotations

import math
from typing import Any, Optional

import torch
import torch.fx

from bessemer.compiler.ir import symbolic as symbolic_mod
from bessemer.compiler.ir.views import Unsupported, is_contiguous

SYM_TYPES = (torch.SymInt, torch.SymFloat, torch.SymBool)


class SizeBinding:
    """The values of a symbolic graph's size symbols at one concrete shape: SymInts (and
    SymFloats, SymBools) evaluated, and FX metadata turned into tensors of concrete sizes.

    With `symbolic`, sizes stay expressions (symbolic.Dim: a polynomial over the
    symbols with its value here as the hint) and metadata becomes SymMeta, so the
    graph is lowered once for every shape its decisions hold for."""

    def __init__(self, values: dict, symbolic: bool = False, sources: Optional[dict] = None):
        self.values = values   # sympy Symbol -> int
        self.symbolic = symbolic
        # our symbol name -> where the wrapper reads it: (placeholder index, "size"|"stride"|"offset"|"int", dim)
        self.sources = sources or {}
        self.names = self.named_values() if symbolic else {}
        self._nodes: dict = {}   # FX node -> its metadata at these sizes

    def named_values(self) -> dict[str, int]:
        """The symbols' values under the names kernels and guards use (symbolic.symbol_name)."""
        return {symbolic_mod.symbol_name(k): v for k, v in self.values.items()}

    def symbolic_copy(self) -> "SizeBinding":
        """The same values, for a compile that keeps the sizes symbolic."""
        return SizeBinding(self.values, symbolic=True,
                           sources={symbolic_mod.symbol_name(k): v for k, v in self.sources.items()})

    def node_meta(self, node: torch.fx.Node) -> Any:
        """An FX node's metadata at these sizes (computed once per node)."""
        if node not in self._nodes:
            self._nodes[node] = self.meta(fx_meta(node))
        return self._nodes[node]

    def value(self, x: Any) -> Any:
        if not isinstance(x, SYM_TYPES):
            return x
        v = x.node.expr.xreplace(self.values)
        if getattr(v, "free_symbols", None):
            raise Unsupported(f"size expression {x.node.expr} has symbols no input gives: {v.free_symbols}")
        if self.symbolic and isinstance(x, torch.SymInt):
            return symbolic_mod.from_sympy(x.node.expr, self.names, self.values)
        if self.symbolic:
            # a float or a truth value computed from sizes: pinned to this shape
            symbolic_mod.pin(x.node.expr.free_symbols, self.names, f"{type(x).__name__} {x.node.expr}")
        if isinstance(x, torch.SymBool):
            return bool(v)
        return int(v) if isinstance(x, torch.SymInt) else float(v)

    def meta(self, v: Any) -> Any:
        """`v` (an FX node's metadata value) at the concrete sizes: tensors become meta
        tensors of the same dtype, sizes, strides and offset (answering .shape, .stride(),
        .numel(), .is_contiguous() as the concrete graph would; their device is "meta", so
        a device is read from the FX metadata itself), sizes become ints."""
        if isinstance(v, (list, tuple)):
            return type(v)(self.meta(x) for x in v)
        if isinstance(v, torch.Tensor):
            shape = [self.value(s) for s in v.shape]
            stride = [self.value(s) for s in v.stride()]
            offset = self.value(v.storage_offset())
            if self.symbolic:
                return SymMeta(tuple(shape), tuple(stride), offset, v.dtype)
            span = 1 + offset + sum((n - 1) * st for n, st in zip(shape, stride) if n > 0)
            if any(n == 0 for n in shape):
                span = 1 + offset
            return torch.empty(span, dtype=v.dtype, device="meta").as_strided(shape, stride, offset)
        return self.value(v)


def input_strides(shape: tuple, traced: tuple, ex: torch.Tensor) -> tuple:
    """An input's strides as expressions over the size symbols, following its actual layout
    `ex` (which may differ from the traced one: a compiled forward writes its outputs in its
    own order). A dense layout in any dim order is written over the symbolic sizes; any
    other keeps the traced strides, and the wrapper copies the argument into them."""
    actual = tuple(ex.stride())
    if tuple(symbolic_mod.hint(s) for s in traced) == actual:
        return tuple(traced)
    order = sorted(range(len(shape)), key=lambda d: (actual[d], symbolic_mod.hint(shape[d])))
    out, acc = [0] * len(shape), 1
    for d in order:            # innermost first
        out[d] = acc
        acc = acc * shape[d]
    if tuple(symbolic_mod.hint(s) if n != 1 else a for s, n, a in zip(out, ex.shape, actual)) == actual:
        return tuple(o if n != 1 else a for o, n, a in zip(out, ex.shape, actual))
    return tuple(traced)


class SymMeta:
    """A tensor's metadata with symbolic sizes (what lowerings read of FX metadata)."""

    device = torch.device("meta")

    def __init__(self, shape: tuple, stride: tuple, offset, dtype: torch.dtype):
        self.shape, self._stride, self._offset, self.dtype = shape, stride, offset, dtype

    def size(self, d=None):
        return self.shape if d is None else self.shape[d]

    def stride(self, d=None):
        return self._stride if d is None else self._stride[d]

    def storage_offset(self):
        return self._offset

    def dim(self) -> int:
        return len(self.shape)

    def numel(self):
        return math.prod(self.shape)

    def is_contiguous(self) -> bool:
        return is_contiguous(self.shape, self._stride)


TENSOR_META = (torch.Tensor, SymMeta)


def fx_meta(node: torch.fx.Node) -> Any:
    v = node.meta.get("val")
    return node.meta.get("tensor_meta") if v is None else v
