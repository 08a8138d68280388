"""The loop-level program: kernels, the schedule of kernels and externs, the memory plan.

These are the types the fusion pass produces and the memory planner, the
renderers and the runtime consume. They depend on the IR only, never on a pass.

  Kernel      one fused loop nest over an iteration domain (pointwise, or reduced
              over some trailing dims), with its members and the members it stores
  Schedule    the ordered steps of a graph: kernels and ATen externs
  MemoryPlan  when each buffer dies, which storage a new one takes (a dead buffer's, or
              in place, a dying input's), and the peak bytes that plan reaches

The index helpers say how a kernel's members relate to its domain: a member is
computed over the full domain, per row (the domain with the reduced dims kept or
dropped), or is itself a reduction.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Optional, Union

from bessemer.compiler.ir.graph import Graph, IndexMap, Kind, Node, format_node


@dataclass
class Kernel:
    name: str
    shape: tuple                  # iteration domain
    red: tuple                    # reduced dims of the domain (trailing dims), () if pointwise
    members: list[Node] = field(default_factory=list)
    stores: list[Node] = field(default_factory=list)   # members written to buffers
    # buffers this kernel reads and writes through the same memory (an output written in
    # place over a dying input, memory planning's choice): renderers must not assume that
    # these parameters do not alias
    aliased: set = field(default_factory=set)

    def describe(self) -> str:
        kind = f"reduce over {list(self.red)}" if self.red else "pointwise"
        if self.members and self.members[0].kind == Kind.SCATTER:
            kind = f"scatter over {list(self.red)}"
        ms = ", ".join(("*" if m in self.stores else "") + m.name for m in self.members)
        return f"kernel {self.name} {list(self.shape)} {kind}: {ms}"


Step = Union[Kernel, Node]


@dataclass
class Schedule:
    graph: Graph
    steps: list[Step]
    realized: set                      # nodes that own a buffer produced by a kernel
    step_of: dict                      # node -> index of the step computing it

    @property
    def kernels(self) -> list[Kernel]:
        return [s for s in self.steps if isinstance(s, Kernel)]

    def format(self) -> str:
        out = []
        for s in self.steps:
            if isinstance(s, Kernel):
                out.append(s.describe())
            else:
                out.append("extern  " + format_node(s))
        return "\n".join(out) + "\n"


@dataclass
class MemoryPlan:
    free_after: dict            # step index -> buffers whose last use is that step
    reuse: dict                 # buffer -> earlier, dead buffer whose storage it takes
    output_bases: set           # buffers that escape as graph outputs (or views of them)
    inplace: dict = field(default_factory=dict)   # buffer -> input of its kernel it overwrites
    peak_bytes: int = 0         # the most bytes of storages the graph allocates, live at once
    peak_step: int = -1         # the step where that peak is reached

    def format(self) -> str:
        lines = [f"planned peak {self.peak_bytes} bytes at step {self.peak_step}"]
        lines += [f"in place {a.name} <- {b.name}" for a, b in self.inplace.items()]
        lines += [f"reuse {a.name} <- {b.name}" for a, b in self.reuse.items()]
        for i, ns in sorted(self.free_after.items()):
            lines.append(f"after step {i}: free {', '.join(n.name for n in ns)}")
        return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------
# index helpers
# ------------------------------------------------------------------------------
class Role(enum.StrEnum):
    """What a member of a kernel computes over its domain."""
    REDUCE = "reduce"   # a reduction over the kernel's reduced dims
    FULL = "full"       # a value per element of the whole domain
    OUTER = "outer"     # a value per row (the kept dims), after the row's reductions
    SCATTER = "scatter"  # a scatter into zeros over the domain's rows (a kernel of its own)


def member_role(k: Kernel, n: Node) -> Role:
    if n.kind == Kind.REDUCE:
        return Role.REDUCE
    if n.kind == Kind.SCATTER:
        return Role.SCATTER
    if n.shape == k.shape:
        return Role.FULL
    return Role.OUTER


def kept_shape(shape, red, keepdim) -> tuple:
    """`shape` reduced over `red`, with the reduced dims kept as 1 or dropped."""
    return tuple((1 if i in red else s) for i, s in enumerate(shape)) if keepdim else \
        tuple(s for i, s in enumerate(shape) if i not in red)


def outer_map(shape: tuple, red: tuple, out_shape: tuple) -> Optional[IndexMap]:
    """The map from a domain index to a per-row value of shape out_shape, if any."""
    R = len(shape)
    kept = [d for d in range(R) if d not in red]
    if out_shape == kept_shape(shape, red, True):
        rows = [tuple(int(k == d and d not in red) for k in range(R)) for d in range(R)]
        return IndexMap(tuple(rows), (0,) * R, R)
    if out_shape == kept_shape(shape, red, False):
        rows = [tuple(int(k == d) for k in range(R)) for d in kept]
        return IndexMap(tuple(rows), (0,) * len(kept), R)
    return None


def normalize_map(m: IndexMap, shape) -> IndexMap:
    """Zero coefficients on size-1 dims of the target: they do not change the index."""
    coef = tuple(tuple(0 if shape[j] == 1 else c for c in row) for j, row in enumerate(m.coef))
    off = tuple(0 if shape[j] == 1 else o for j, o in enumerate(m.offset))
    return IndexMap(coef, off, m.out_rank)
