"""Partition: the joint forward-backward graph split into a forward and a backward.

    joint.py        rewrites of the joint graph before it is split
    partitioner.py  which forward values are saved and which recomputed (a min cut)
    cost.py         what saving or recomputing each value costs
    step_remat.py   the same choice inside the whole-step program (compile_step), one graph
    step_chunks.py  the whole step's vocabulary-sized region, a block of rows at a time

In: the joint ATen graph AOTAutograd traces. Out: a forward and a backward ATen graph.
"""
