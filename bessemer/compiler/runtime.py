"""The runtime: what a compiled graph's generated program calls, and its loading.

`codegen/wrapper.py` writes the program; `load` executes its source once with the
support functions below, the kernels' launchers and its constants bound, and
returns its `call(args)`.
"""
from __future__ import annotations

from typing import Any, Callable

import torch

from .codegen.backends import Built
from .codegen.wrapper import RUNTIME_NAMES


def _layout(t: torch.Tensor, size: tuple, stride: tuple, significant: tuple) -> torch.Tensor:
    """t with exactly the strides the kernels were compiled for (copy if needed)."""
    st = t.stride()
    if st == stride:
        return t
    if all(st[d] == stride[d] for d in significant) and tuple(t.shape) == size:
        return t
    out = torch.empty_strided(size, stride, dtype=t.dtype, device=t.device)
    out.copy_(t)
    return out


def _as_strided(t: torch.Tensor, size: tuple, stride: tuple, offset: int) -> torch.Tensor:
    """A view of t; `offset` counts from t's first element, which need not be the
    start of its storage (an input may itself be a view)."""
    return t.as_strided(size, stride, t.storage_offset() + offset)


def _reuse(t: torch.Tensor, size: tuple, dtype: torch.dtype) -> torch.Tensor:
    """A contiguous tensor of `size` and `dtype` at the start of t's storage (at least as large)."""
    return torch.empty(0, dtype=dtype, device=t.device).set_(t.untyped_storage(), 0, size)


def _allocator(device: torch.device) -> Callable:
    if device.type == "cpu":
        def _empty(shape, dtype):
            return torch.empty(shape, dtype=dtype)
    else:
        def _empty(shape, dtype):
            return torch.empty(shape, dtype=dtype, device=device)
    return _empty


class GraphCall:
    """The generated program's `call` (boxed: it takes the argument list and clears it).
    An object rather than the bare function, so that a profiler can time whole graph
    calls (profile.overhead_profile) by swapping `fn`; its names (kernels, ATen ops,
    support functions) are in `__globals__`, the program's namespace."""

    def __init__(self, fn: Callable):
        self.fn = fn
        self._boxed_call = True

    def __call__(self, args: list):
        return self.fn(args)

    @property
    def __globals__(self) -> dict:
        return self.fn.__globals__


def load(src: str, consts: dict[str, Any], built: Built, device: torch.device) -> "GraphCall":
    """The generated program's `call`, with its names bound."""
    env: dict[str, Any] = {
        "torch": torch, "_layout": _layout, "_as_strided": _as_strided, "_empty": _allocator(device),
        "_reuse": _reuse,
    }
    assert set(env) == set(RUNTIME_NAMES)
    env.update(consts)
    env.update(built.launchers)
    exec(compile(src, "<bessemer wrapper>", "exec"), env)
    return GraphCall(env["call"])
