"""What both kernel printers (cpp.py, triton.py) share: the kernel source they hand on."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
