"""Codegen: a planned schedule becomes source, the source built kernels, and a Python program
that runs them.

    backends.py       renderer and build step per backend, chosen by the graph's device
    kernel.py         what the kernel printers share: the kernel source they hand on
    cpp.py            a LoopProgram printed as C++/OpenMP kernels (CPU)
    triton.py         a LoopProgram printed as Triton kernels (GPU; CPU under Triton's interpreter)
    wrapper.py        the Python program that runs a schedule: buffers, launches, externs
    build.py          gcc and the content-addressed kernel cache
    triton_launch.py  block sizes per Triton kernel, autotuned once, cached
    triton_interp.py  libdevice for Triton's interpreter
    triton_aot.py     generated Triton kernels compiled for a GPU architecture without a GPU
    optim_cpp.py      the fused optimizer updates as C++

In: an ir.schedule.Schedule, its MemoryPlan and its kernels' LoopProgram (passes/). Out: the
program's source and its built kernels, which runtime/ loads and calls. Imports nothing of
capture/, partition/, runtime/.
"""
