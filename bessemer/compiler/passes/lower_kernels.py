"""lower_kernels: a Schedule's fused kernels as a loop program for one target.

In: a Schedule (ir/schedule.py) and a target, "cpp" or "triton". Out: a LoopProgram
(ir/loops.py): per kernel its parameters, size symbols, class, bytes moved, the
decisions made for it (a CppPlan or TritonPlan) and its loops and statements, every
address an affine Index over the loop variables. The printers (codegen/cpp.py,
codegen/triton.py) spell it and decide nothing.

The expression walk both targets share is kernel_walk.py; the decisions of each
target and their heuristic constants are kernel_plan_cpp.py and kernel_plan_triton.py.
"""
from __future__ import annotations

import os
from typing import Optional

from bessemer.compiler.ir.loops import LoopProgram
from bessemer.compiler.ir.schedule import Schedule


def lower_kernels(sched: Schedule, target: str, cores: Optional[int] = None) -> LoopProgram:
    """The loop program of `sched` for `target`. C++: for a machine with `cores` cores
    (default: this one's), the only machine fact the loops depend on (whether small outer
    loops are collapsed)."""
    if target == "cpp":
        from bessemer.compiler.passes import kernel_plan_cpp
        cores = cores or os.cpu_count() or 1
        return LoopProgram("cpp", tuple(kernel_plan_cpp.lower_kernel(k, sched, cores) for k in sched.kernels))
    if target == "triton":
        from bessemer.compiler.passes import kernel_plan_triton
        return LoopProgram("triton", tuple(kernel_plan_triton.lower_kernel(k, sched) for k in sched.kernels))
    raise ValueError(f"unknown kernel target {target!r}")
