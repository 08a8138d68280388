"""The lowering table: LOWERINGS maps an ATen overload to its rule, which `lowers` registers.
The rules are rules.py's (computing ops) and movement.py's (ops that move data); importing
rules.py imports both."""
from __future__ import annotations

from typing import Any, Callable

import torch

from bessemer.compiler.ir.graph import Node

aten = torch.ops.aten
LOWERINGS: dict[Any, Callable] = {}


def lowers(*ops):
    def deco(fn):
        for op in ops:
            LOWERINGS[op] = fn
        return fn
    return deco


def is_node(x) -> bool:
    return isinstance(x, Node)
