"""Passes: IR graphs rewritten, grouped into kernels, given a memory plan, and each kernel's
loops decided for the target.

    simplify.py            graph -> graph: dead code, common subexpressions, constants, algebra, views
    fuse.py                graph -> Schedule: what gets a buffer, the rest grouped into kernels and externs
    input_writes.py        a graph's new values of its inputs stored straight into them
    memory.py              Schedule -> MemoryPlan: step order, buffer lifetimes and reuse, the planned peak
    lower_kernels.py       Schedule + target -> LoopProgram (ir/loops.py): every decision about loops
    kernel_walk.py         the expression walk both targets share
    kernel_plan_cpp.py     the C++ / OpenMP decisions
    kernel_plan_triton.py  the Triton decisions

In: an ir.Graph from lowering/. Out: an ir.schedule.Schedule with its MemoryPlan, and its
kernels as a LoopProgram, for codegen/.
"""
