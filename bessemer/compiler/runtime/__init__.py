"""The runtime: what a compiled graph's generated program runs on.

    graph_call.py  loading a generated program and calling it (GraphCall)
    cudagraphs.py  a static-shape graph replayed as one CUDA graph
    hostmem.py     host memory kept between training steps
    profile.py     per-kernel timing of compiled graphs
    rng.py         eager's CPU Bernoulli draws (dropout masks), made natively

In: a compiled graph's program source and built kernels (codegen/). Out: a callable.
"""
