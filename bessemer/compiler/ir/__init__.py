"""The IR and its data: what every stage after capture passes along.

    graph.py     Graph and Node: a tensor program of a few primitive kinds (Kind, Group)
    ops.py       the pointwise and reduction ops, with their spelling in each language
    symbolic.py  sizes as polynomials over a graph's size symbols (Dim)
    views.py     views as affine index maps; contiguity and layouts
    schedule.py  kernels, the schedule of kernels and externs, the memory plan
    loops.py     the loop program lower_kernels makes and the printers print (docs/kernel-ir.md)
    verify.py    the invariants of a Graph and a Schedule, checked after every pass

In: nothing (the other stages import this one). Out: the types the stages exchange.
"""
