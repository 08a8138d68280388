"""What both kernel printers (cpp.py, triton.py) share: the kernel source they hand on, and
the spelling of a loop program's range conditions through a printer's op table."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import torch

from bessemer.compiler.ir.graph import Node
from bessemer.compiler.ir.loops import CodegenError, format_terms  # noqa: F401 - the printers' shared names


@dataclass
class KernelSource:
    name: str
    code: str
    args: list[Node]          # buffers, in parameter order
    writes: list[Node]
    meta: Any = None          # what the backend's launcher needs (Triton: the tiling)
    kind: str = ""            # "pointwise" | "row reduction" | "column reduction"
    bytes: int = 0            # bytes of the buffers it reads and writes (for achieved bandwidth)
    syms: tuple = ()          # the size symbols it takes after the buffers (symbolic sizes)


class Typed:
    """What a printer's render_op reads of a node: its dtype."""
    def __init__(self, dtype: torch.dtype):
        self.dtype = dtype


INDEX, BOOL = Typed(torch.int64), Typed(torch.bool)


def and_of(render_op: Callable, a: str, b: str) -> str:
    return render_op("logical_and", [a, b], BOOL, [torch.bool, torch.bool])


def range_condition(ranges: tuple, render_op: Callable) -> str:
    """A conjunction of Ranges (lo <= index < hi), spelled by a printer's op table."""
    parts = []
    for r in ranges:
        i = r.index.format()
        if r.lo is not None:
            parts.append(render_op("le", [str(r.lo), i], INDEX, [torch.int64, torch.int64]))
        if r.hi is not None:
            parts.append(render_op("lt", [i, str(r.hi)], INDEX, [torch.int64, torch.int64]))
    out = parts[0]
    for part in parts[1:]:
        out = and_of(render_op, out, part)
    return out
