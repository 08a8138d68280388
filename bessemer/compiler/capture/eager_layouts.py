"""While AOTAutograd traces: ops whose traced form lays its result out otherwise than eager.

The layout of a traced value decides what the rest of the trace does with it: a
`reshape` of a contiguous tensor is a view, of a strided one a copy. Where torch's
Python kernel for an op returns a layout eager's kernel does not, a program that
reshapes the result gets a copy where eager gets memory shared with it (and a program
that returns both gets two buffers where eager returns one).

  op        eager (ATen, CPU)                       torch's traced form
  one_hot   zeros(shape).scatter_(-1, x, 1):        (x.unsqueeze(-1) == arange(C)).to(long):
            contiguous                              x's layout (a permuted x: permuted)

The replacement calls torch's kernel with a contiguous index, so the result is
contiguous as eager's is.
"""
from __future__ import annotations

import contextlib
import functools

import torch

aten = torch.ops.aten
_KEY = torch._C.DispatchKey.CompositeImplicitAutograd


def _one_hot(original):
    """torch's one_hot of a contiguous index: the same values, eager's layout."""
    def one_hot(self: torch.Tensor, num_classes: int = -1) -> torch.Tensor:
        return original(self.contiguous(), num_classes)
    return one_hot


# op -> a function of torch's kernel for it giving the replacement
_REPLACED = {aten.one_hot.default: _one_hot}


@contextlib.contextmanager
def eager_layouts():
    """The ops above traced in eager's layout, for the duration of a trace."""
    saved = []
    for op, replacement in _REPLACED.items():
        old = op.py_kernels.get(_KEY)
        saved.append((op, old))
        op.py_kernels[_KEY] = replacement(old or functools.partial(op._op_dk, _KEY))
        op._dispatch_cache.clear()
    try:
        yield
    finally:
        for op, old in saved:
            if old is None:
                op.py_kernels.pop(_KEY, None)
            else:
                op.py_kernels[_KEY] = old
            op._dispatch_cache.clear()
