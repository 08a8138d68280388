"""Passes: IR graphs rewritten, grouped into kernels, and given a memory plan.

    simplify.py  graph -> graph: dead code, common subexpressions, constants, algebra, views
    fuse.py      graph -> Schedule: what gets a buffer, the rest grouped into kernels and externs
    memory.py    Schedule -> MemoryPlan: step order, buffer lifetimes and reuse, the planned peak

In: an ir.Graph from lowering/. Out: an ir.schedule.Schedule with its MemoryPlan, for codegen/.
"""
