"""The C++ renderer's core-count decision, for machines of 1, 2, 16 and 64 cores.

How many cores the machine has decides one thing in generated C++: whether a small
outer loop is collapsed with the loops below it into one parallel iteration space.
A kernel that builds on one machine must build on every other, so the same
representative schedules -- pointwise over 1 to 5 dims (attention heads after a
permute, channels after a concat), row reductions (softmax, layer norm) and column
reductions (bias gradients), forward and backward -- are rendered for each core
count, built with gcc, and run against eager.
"""
import re

import pytest
import torch
import torch.nn.functional as F

from bessemer.compiler.capture.backend import make_backend
from bessemer.compiler import pipeline as pipeline_mod
from bessemer.compiler.codegen import cpp
from bessemer.compiler.passes import kernel_plan_cpp
from bessemer.compiler.passes.lower_kernels import lower_kernels
from bessemer.config import TrainingCompilerConfig

CORES = (1, 2, 16, 64)


def representative(a, b, c, d, e, f, g, x, y, w, s, ln_w, ln_b, t, col, col3, m5):
    return (
        torch.sin(a) * 2,                                     # 1-D
        b * c + 1,                                            # 2-D, small outer loop
        d.transpose(1, 2) * 3,                                # 3-D, transposed read
        e.permute(0, 2, 1, 3) * 0.125 + f,                    # 4-D attention heads [b, h, t, d]
        g.permute(0, 4, 1, 3, 2).sin(),                       # 5-D
        torch.cat([x, y], 1) * w,                             # channels after a concat
        torch.softmax(s, -1),                                 # row reduction, 3-D
        F.layer_norm(t, (t.shape[-1],), ln_w, ln_b),          # rows; its backward: columns
        col.sum(0),                                           # column reduction (bias gradient)
        col3.amax(1),                                         # column reduction under an outer dim
        m5.mean((2, 4), keepdim=True),                        # 5-D, two reduced dims
        m5.sum((1, 3)),
    )


def _inputs():
    gen = torch.Generator().manual_seed(0)

    def r(*shape):
        return torch.randn(shape, generator=gen).requires_grad_(True)

    return [r(40000), r(3, 12000), r(3, 1), r(2, 3, 8192), r(2, 4, 64, 72), r(72), r(2, 3, 4, 40, 36),
            r(2, 3, 64, 64), r(2, 5, 64, 64), r(8, 1, 1), r(3, 16, 1024), r(1024), r(1024), r(4, 8, 1024),
            r(4096, 16), r(3, 2048, 24), r(2, 3, 4, 40, 36)]


def _run(fn, inputs):
    outs = fn(*inputs)
    gen = torch.Generator().manual_seed(1)
    loss = sum((o * torch.randn(o.shape, generator=gen)).sum() for o in outs)
    grads = torch.autograd.grad(loss, inputs)
    return [o.detach() for o in outs], list(grads)


def _collapse_ok(src: str) -> list[str]:
    """Every `collapse(n)` must head n perfectly nested loops (no pragma between)."""
    problems = []
    lines = [ln.strip() for ln in src.splitlines() if ln.strip()]
    for i, ln in enumerate(lines):
        m = re.search(r"collapse\((\d+)\)", ln)
        if m:
            n = int(m.group(1))
            nest = lines[i + 1:i + 1 + n]
            if len(nest) < n or not all(x.startswith("for (") for x in nest):
                problems.append("\n".join(lines[i:i + 1 + n]))
    return problems


@pytest.fixture(scope="module")
def kernel_cache(tmp_path_factory):
    """One cache for all core counts: a kernel the count does not change is built once."""
    return str(tmp_path_factory.mktemp("cores-kernels"))


@pytest.fixture(scope="module")
def eager_result():
    return _run(representative, _inputs())


@pytest.mark.parametrize("cores", CORES)
def test_kernels_build_and_match_eager_for_core_count(cores, eager_result, kernel_cache, monkeypatch):
    rendered = []   # (schedule, source) per compiled graph

    def lower(sched, target):
        # the pipeline's lower_kernels for a machine of `cores` cores
        program = lower_kernels(sched, target, cores=cores)
        src, kernels = cpp.print_program(program)
        rendered.append((sched, src, kernels))
        return program

    monkeypatch.setattr(pipeline_mod, "lower_kernels", lower)
    torch._dynamo.reset()
    cfg = TrainingCompilerConfig(cache_dir=kernel_cache, fallback="error", backend="cpp")
    compiled = torch.compile(representative, backend=make_backend(cfg), dynamic=False, fullgraph=True)
    outs, grads = _run(compiled, _inputs())
    torch._dynamo.reset()

    e_outs, e_grads = eager_result
    for i, (o, e) in enumerate(zip(outs, e_outs)):
        torch.testing.assert_close(o, e, rtol=1e-4, atol=1e-4, msg=lambda m: f"output {i}: {m}")
    for i, (gc, ge) in enumerate(zip(grads, e_grads)):
        torch.testing.assert_close(gc, ge, rtol=1e-4, atol=1e-4, msg=lambda m: f"grad {i}: {m}")

    assert len(rendered) == 2, "one forward and one backward graph"
    kinds = {(k.kind, len(s.shape)) for sched, _, ks in rendered for k, s in zip(ks, sched.kernels)}
    assert {kind for kind, _ in kinds} == {"pointwise", "row reduction", "column reduction"}, kinds
    assert {rank for kind, rank in kinds if kind == "pointwise"} >= {1, 2, 3, 4, 5}, kinds
    for _, src, _ in rendered:
        assert not _collapse_ok(src), _collapse_ok(src)
    # a column reduction over many rows splits the rows among threads (kernel_plan_cpp._column_split);
    # one core has no threads to split them among
    assert ("nt_used" in "".join(src for _, src, _ in rendered)) == (cores > 1)
    n_collapse = sum(src.count("collapse(") for _, src, _ in rendered)
    if cores >= 16:
        # the small outer loops (2, 3, 4 iterations) are collapsed on a large machine
        assert n_collapse >= 3, n_collapse


@pytest.mark.parametrize("loops,inner_simd,cores,want", [
    ([("o0", 2), ("o1", 3), ("o2", 4096)], True, 64, " collapse(2)"),    # the simd loop stays out
    ([("o0", 2), ("o1", 3), ("o2", 4096)], False, 64, " collapse(3)"),
    ([("o0", 2), ("o1", 4096)], True, 64, ""),                           # nothing left to collapse
    ([("o0", 300), ("o1", 3), ("o2", 64)], True, 64, ""),                # enough outer iterations
    ([("o0", 3), ("o1", 3), ("o2", 64)], True, 1, " collapse(2)"),       # fewer than 4 per core
    ([("o0", 4), ("o1", 3), ("o2", 64)], True, 1, ""),
    ([("o0", 40000)], False, 2, ""),
])
def test_parallel_pragma(loops, inner_simd, cores, want):
    got = cpp.pragma(kernel_plan_cpp.parallel_for(loops, inner_simd, cores))
    assert got.endswith("for" + (" simd" if len(loops) == 1 else "") + want), got
