"""Lowering: ATen graphs become IR graphs.

    lower.py          the lowering pass: each FX node through the table, the rest as externs
    table.py          the table LOWERINGS and its `lowers` decorator
    rules.py          one rule per ATen overload (computing ops); importing it fills the table
    movement.py       its rules for the ops that move data: views, pads, joins, repeats,
                      gathers and scatters
    sizes.py          FX metadata at one concrete shape (SizeBinding)
    pooling.py        max pooling decomposed into pointwise work
    nan_semantics.py  decompositions that keep eager's NaN behaviour
    attention.py      attention's bf16 / fp16 CPU backward from the saved log-sum-exp

In: an ATen FX graph (and the decompositions capture traces it with). Out: an ir.Graph.
"""
