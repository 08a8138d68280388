"""The runtime: what a compiled graph's generated program calls, and its loading.

`codegen/wrapper.py` writes the program; `load` executes its source once with the
support functions below, the kernels' launchers and its constants bound, and
returns its `call(args)`.
"""
from __future__ import annotations

import sys
from typing import Any, Callable, Optional

import torch

from bessemer.compiler.codegen.backends import Built
from bessemer.compiler.codegen.wrapper import RUNTIME_NAMES


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


# torch's own constructors for a generated program's buffers and views, without the
# dispatcher's round trip (about 0.7 against 2.1 us for an empty tensor, 0.9 against 1.7 us for
# a view on this project's 2-core CPU machine); a program allocates and views a few dozen
# tensors per call, which a small model's step pays on every graph call. The views carry no
# autograd view record, which nothing inside a compiled graph reads.
_guards = torch._C._dynamo.guards
_REINTERPRET = getattr(_guards, "_reinterpret_tensor", None)
_EMPTY_STRIDED_CPU = getattr(_guards, "_empty_strided_cpu", None)


def _as_strided(t: torch.Tensor, size: tuple, stride: tuple, offset: int) -> torch.Tensor:
    """A view of t; `offset` counts from t's first element, which need not be the
    start of its storage (an input may itself be a view)."""
    if _REINTERPRET is not None:
        return _REINTERPRET(t, size, stride, offset)
    return t.as_strided(size, stride, t.storage_offset() + offset)


def _reuse(t: torch.Tensor, size: tuple, dtype: torch.dtype, stride: tuple = None) -> torch.Tensor:
    """A contiguous tensor of `size` and `dtype` at the start of t's storage (at least as large).
    `stride`: the contiguous strides of a static `size`; with t of that dtype the tensor is made
    by `_as_strided` (about 0.7 us) rather than `set_` on a new empty tensor (about 3 us)."""
    if stride is not None and t.dtype == dtype and _REINTERPRET is not None:
        return _REINTERPRET(t, size, stride, -t.storage_offset())
    return torch.empty(0, dtype=dtype, device=t.device).set_(t.untyped_storage(), 0, size)


def _holders(t: torch.Tensor) -> tuple[int, int, int]:
    """Who holds t, as seen one call below its caller's frame: Python references to the
    tensor object, owners of its TensorImpl, owners of its storage."""
    return sys.getrefcount(t), t._use_count(), torch._C._storage_Use_Count(t.untyped_storage()._cdata)


def _probe(t: torch.Tensor) -> tuple[int, int, int]:
    return _holders(t)


def _alone() -> tuple[int, int, int]:
    t = torch.empty(1)
    return _probe(t)


# what _holders sees of a tensor held by one local variable of the calling frame and nothing
# else, measured on this interpreter rather than assumed
_ALONE = _alone()


def _sole(t: torch.Tensor) -> bool:
    """Whether t and its storage are held only by the caller's one local variable: a saved
    value the caller may overwrite once it is dead (nobody else can see it). A tensor the
    user still holds (a returned output), a view of it, or a second reference fails it."""
    return _holders(t) == _ALONE


def _spare(t: torch.Tensor) -> torch.Tensor:
    """Fresh memory as large as t's storage, for a buffer planned into t's storage when t
    turns out to be held by someone else (see _sole)."""
    return torch.empty(t.untyped_storage().nbytes(), dtype=torch.uint8, device=t.device)


def _allocator(device: torch.device) -> Callable:
    """`_empty(shape, dtype[, stride])`: a new buffer; the program passes the contiguous strides
    of a static shape (one fewer computation at run time), not of a symbolic one."""
    if device.type == "cpu" and _EMPTY_STRIDED_CPU is not None:
        def _empty(shape, dtype, stride=None):
            if stride is None:
                return torch.empty(shape, dtype=dtype)
            return _EMPTY_STRIDED_CPU(shape, stride, dtype)
    elif device.type == "cpu":
        def _empty(shape, dtype, stride=None):
            return torch.empty(shape, dtype=dtype)
    else:
        def _empty(shape, dtype, stride=None):
            return torch.empty(shape, dtype=dtype, device=device)
    return _empty


class GraphCall:
    """The generated program's `call` (boxed: it takes the argument list and clears it).
    An object rather than the bare function, so that a profiler can time whole graph
    calls (profile.overhead_profile) by swapping `fn`; its names (kernels, ATen ops,
    support functions) are in `__globals__`, the program's namespace."""

    def __init__(self, fn: Callable):
        self.fn = fn
        self._program = fn
        self._boxed_call = True
        # what a build that failed in the background becomes (the compiler's fallback), or None
        self.on_build_error: Optional[Callable[[BaseException], Callable]] = None

    def __call__(self, args: list):
        return self.fn(args)

    @property
    def __globals__(self) -> dict:
        return self._program.__globals__

    def await_build(self, built) -> None:
        """The kernels are still being built (backends.Built.pending): the first call waits for
        them and binds them into the program's namespace; a failed build raises, or becomes
        what `on_build_error` makes of it."""
        program = self.fn

        def first_call(args: list):
            try:
                built.finish()
            except Exception as e:  # noqa: BLE001 - the compiler decides (on_build_error)
                if self.on_build_error is None:
                    raise
                self.fn = self.on_build_error(e)
            else:
                program.__globals__.update(built.launchers)
                self.fn = program
            self.on_build_error = None
            return self.fn(args)
        self.fn = first_call


def load(src: str, consts: dict[str, Any], built: Built, device: torch.device) -> "GraphCall":
    """The generated program's `call`, with its names bound."""
    env: dict[str, Any] = {
        "torch": torch, "_layout": _layout, "_as_strided": _as_strided, "_empty": _allocator(device),
        "_reuse": _reuse, "_sole": _sole, "_spare": _spare,
    }
    assert set(env) == set(RUNTIME_NAMES)
    env.update(consts)
    env.update(built.launchers)
    exec(compile(src, "<bessemer wrapper>", "exec"), env)
    call = GraphCall(env["call"])
    if getattr(built, "pending", None) is not None:
        call.await_build(built)
    return call
