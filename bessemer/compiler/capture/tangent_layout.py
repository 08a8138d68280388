"""The layout a compiled backward takes an output's gradient in, where the output overlaps itself.

AOTAutograd traces the backward before any gradient exists, so it guesses each tangent's
strides: those of its output (`MemoryFormatMeta`), and at run time it copies the gradient
that arrives into a tensor of those strides. That is right for every output whose elements
have distinct addresses. For an output that overlaps itself (`x.unfold(0, 2, 1)`, whose
windows share elements; `expand` of a size-1 dim) a tensor of the same strides cannot hold
an arbitrary gradient: the copy writes several gradient elements into one address and the
backward reads the last one written for all of them, a wrong gradient. AOTAutograd
recognises only the overlaps torch's cheap test proves (a zero stride), not the unfold case,
whose test answers "too hard".

`dense_tangents_for_overlapping_outputs` (around the compile of a Dynamo graph) gives every
output that may overlap itself a dense tangent (the output's suggested memory format),
which AOTAutograd then traces the backward with and converts the incoming gradient to. The
test (`may_overlap`) is conservative: a layout it cannot prove free of overlap counts as
overlapping, which costs at most a copy of that gradient, never a value.
"""
from __future__ import annotations

import contextlib
from typing import Iterator

import torch

from bessemer.compiler.ir import views


def may_overlap(t: torch.Tensor) -> bool:
    """Whether two indices of t may name one address (ir/views.may_overlap)."""
    return views.may_overlap(t.shape, t.stride())


@contextlib.contextmanager
def dense_tangents_for_overlapping_outputs() -> Iterator[None]:
    from torch._functorch._aot_autograd.schemas import MemoryFormatMeta
    before = vars(MemoryFormatMeta)["from_tensor"]
    original = before.__func__

    def from_tensor(t: torch.Tensor, *args, **kwargs):   # torch 2.13 added force_use_memory_format
        meta = original(t, *args, **kwargs)
        if (meta is not None and meta.stride is not None and t.layout == torch.strided
                and not t._has_symbolic_sizes_strides and may_overlap(t)):
            return MemoryFormatMeta(memory_format=torch._prims_common.suggest_memory_format(t))
        return meta

    MemoryFormatMeta.from_tensor = staticmethod(from_tensor)
    try:
        yield
    finally:
        MemoryFormatMeta.from_tensor = before
