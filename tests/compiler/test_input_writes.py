"""passes/input_writes.py: a graph's new values of its inputs stored into them.

Each function mutates its inputs in place, as a training step's update does; AOTAutograd
keeps the mutations in the graph as copy_ (keep_inference_input_mutations) and the pipeline
stores the values into the inputs where it can. Compared with the same function run
eagerly: the returned values and the inputs afterwards.
"""
import pytest
import torch
from torch._functorch.aot_autograd import aot_function

from bessemer.compiler.capture.backend import BessemerBackend, _LazyDecompositions
from bessemer.config import TrainingCompilerConfig


def _compiled(fn):
    be = BessemerBackend(TrainingCompilerConfig(fallback="error", graph_cache=False))
    return be, aot_function(fn, fw_compiler=be.compiler("inference"), keep_inference_input_mutations=True,
                            decompositions=_LazyDecompositions())


def _check(fn, *make):
    """fn on fresh inputs eagerly and compiled (twice): outputs and mutated inputs equal."""
    be, compiled = _compiled(fn)
    for _ in range(2):
        eager_in = [m() for m in make]
        comp_in = [t.clone(memory_format=torch.preserve_format) for t in eager_in]
        ptrs = [t.data_ptr() for t in comp_in]
        want = fn(*eager_in)
        with torch.no_grad():
            got = compiled(*comp_in)
        for a, b in zip(want, got):
            torch.testing.assert_close(b, a)
        for a, b in zip(eager_in, comp_in):
            torch.testing.assert_close(b, a)
        assert [t.data_ptr() for t in comp_in] == ptrs
    (cg,) = be.compiled
    return {d.name for d in cg.memory.inplace.values() if d.kind == "input"}


def _gen(*shape, seed=0):
    return lambda: torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def test_update_after_the_matmul_that_reads_the_old_value():
    """p's new value depends on a product that reads the old p: the store into p waits for it."""
    def fn(p, x):
        y = x @ p
        g = x.t() @ torch.tanh(y)
        p.sub_(0.1 * g + 0.01 * p)
        return (y.sum(),)

    assert _check(fn, _gen(16, 16), _gen(8, 16, seed=1)) == {"arg0"}


def test_values_of_the_old_and_the_new_input_returned():
    """One kernel returns a value of the old p and one of the new p, and stores the new p
    into p: the old value is read before the store, the new one is the stored value."""
    def fn(p, g):
        p_old_times_3 = p * 3
        p.sub_(g)
        return p_old_times_3, p + 1

    assert _check(fn, _gen(8, 32), _gen(8, 32, seed=2)) == {"arg0"}


@pytest.mark.parametrize("later_layout", ["same", "column-major"])
def test_two_states_and_a_parameter(later_layout):
    """An Adam-like update: one kernel stores the new values of two state tensors and the
    parameter into them. Column-major: the second call's inputs are laid out otherwise than
    the compiled ones; the program writes into copies in its layout and copies them back."""
    def fn(p, m, v, g):
        m.lerp_(g, 0.1)
        v.mul_(0.99).addcmul_(g, g, value=0.01)
        p.sub_(0.01 * m / (v.sqrt() + 1e-8))
        return (p.sum(),)

    calls = []

    def state(seed, least=None):
        def make():
            calls.append(seed)
            x = torch.randn(8, 16, generator=torch.Generator().manual_seed(seed))
            if least is not None:
                x = x.abs() + least
            if later_layout == "column-major" and calls.count(seed) > 1:
                x = x.t().contiguous().t()
            return x
        return make

    # the second moment away from 0, where its root would magnify rounding differences
    written = _check(fn, state(0), state(1), state(2, least=0.5), state(3))
    assert written == {"arg0", "arg1", "arg2"}
