"""Capture: from the user's Python to ATen graphs, and the caches that skip it.

    backend.py        the Dynamo backend; AOTAutograd wiring; the compiled region's call
    specialize.py     graphs with symbolic sizes compiled once per shape class
    direct.py         the compiled training graph called without AOTAutograd's wrappers
    tangents.py       a backward that does not receive zeros for undifferentiated outputs
    graph_cache.py    compiled forward/backward graphs kept across processes
    precompile.py     stored frames: a warm start without Dynamo's trace
    frame_guards.py   the guards of a stored frame torch cannot serialize
    step.py           a whole training step traced as one program (compile_step)

In: a module, a step function, a config. Out: ATen FX graphs for partition/ and the
pipeline, and the callables that run what they compile into.
"""
