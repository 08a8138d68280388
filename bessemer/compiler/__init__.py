"""The compiler: a PyTorch module or training step in, a callable running native kernels out.

The stages, in pipeline order, each a folder whose docstring says what comes in and what goes out:

    capture/    the user's model or step -> ATen graphs (Dynamo, AOTAutograd), and the caches
                that let a warm process skip that work
    partition/  the joint forward-backward graph -> a forward and a backward graph
    lowering/   an ATen graph -> an IR graph
    ir/         the IR's types, shared by every stage after capture
    passes/     IR graph -> simplified graph -> schedule of kernels -> memory plan
    codegen/    a planned schedule -> kernel source, built, and the Python program that runs it
    runtime/    what the generated program calls at run time, and loading it

    pipeline.py     the ordered list of passes from an ATen graph to a callable
    optim.py        the compiled optimizer step
    cache_trust.py  nothing is loaded from a cache file another user could have written

Of the rest of bessemer it imports only bessemer.config and bessemer.fsutil
(tests/compiler/test_layout.py holds it to that).
"""
