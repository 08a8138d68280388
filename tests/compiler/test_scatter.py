"""A scatter_add into zeros (a gather's gradient) computed in a C++ kernel of its own: a scatter
node where its index is provably in range (ir/ranges.py), scattered along the last dim with one
index row per row of the result, float32 / float64. Each row of the result is zeroed and its
row's values added at their indices in ATen's order, so results equal eager's bit for bit;
the source's producers are computed in the same kernel. The other cases (an index not proved,
another dim, bf16, the Triton kernels) keep ATen's call and its checks."""
from __future__ import annotations

import textwrap

import pytest
import torch

import bessemer
from bessemer.compiler.capture.backend import make_backend
from bessemer.compiler.ir import loops as L
from bessemer.compiler.ir.graph import Graph
from bessemer.compiler.ir.verify import VerifyError, verify_loops, verify_schedule
from bessemer.compiler.passes.fuse import fuse
from bessemer.compiler.passes.lower_kernels import lower_kernels

F32, I64 = torch.float32, torch.int64


def _compile(f, backend: str = "cpp", **options):
    torch._dynamo.reset()
    be = make_backend(bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False, backend=backend,
                                                      **options))
    return torch.compile(f, backend=be), be.bessemer


def _lines(compiler, start: str) -> list[str]:
    return [line for cg in compiler.compiled for line in cg.schedule_text.splitlines() if line.startswith(start)]


def _scatter_kernels(compiler) -> int:
    return sum("scatter over" in line for line in _lines(compiler, "kernel"))


def _aten_scatters(compiler) -> int:
    return sum("scatter_add" in line for line in _lines(compiler, "extern"))


def _grads(f, inputs, weights_seed=7):
    outs = f(*inputs)
    outs = outs if isinstance(outs, tuple) else (outs,)
    ws = [torch.randn(o.shape, dtype=o.dtype, generator=torch.Generator().manual_seed(weights_seed)) for o in outs]
    leaves = [x for x in inputs if isinstance(x, torch.Tensor) and x.requires_grad]
    return outs, torch.autograd.grad(sum((o * w).sum() for o, w in zip(outs, ws)), leaves)


def _same_bits(compiled, f, inputs):
    (oc, gc), (oe, ge) = _grads(compiled, inputs), _grads(f, inputs)
    for c, e in zip(oc + gc, oe + ge):
        assert c.dtype == e.dtype and c.shape == e.shape
        assert torch.equal(c, e), (c - e).abs().max()


def _relative(B, S, span):
    rel = torch.arange(S)[:, None] - torch.arange(S)[None, :]
    return torch.clamp(rel + span, 0, 2 * span - 1).unsqueeze(0).expand(B, S, S)


# -- a gather's gradient -----------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(3, 7, 5), (48, 64, 32)], ids=["one-thread", "parallel-rows"])
def test_a_gathers_gradient_is_a_scatter_kernel_bit_for_bit(shape):
    """DeBERTa's relative positions (clamped: many indices repeat at the edges) gathered from
    a [B, S, 2 * span] source: the source's gradient adds each row's values in ATen's order.
    The larger case runs its rows on threads."""
    B, S, span = shape

    def f(x, v):
        return torch.gather(x * 2, -1, _relative(B, S, span)) * v

    gen = torch.Generator().manual_seed(0)
    x = torch.randn(B, S, 2 * span, generator=gen, requires_grad=True)
    v = torch.randn(B, S, S, generator=gen, requires_grad=True)
    compiled, compiler = _compile(f)
    _same_bits(compiled, f, (x, v))
    assert compiler.compiled and _scatter_kernels(compiler) == 1 and _aten_scatters(compiler) == 0


def test_scatter_add_into_zeros_in_the_forward_with_its_source_computed_in_the_kernel():
    """torch.zeros(...).scatter_add(-1, clamped index, computed source): the source's pointwise
    producer runs in the scatter's kernel (no buffer of it); a source larger than the index is
    read only where the index is (eager cannot differentiate that one: a constant source); the
    gradient (a gather of the incoming one) as eager's."""
    def f(a, b, i, c):
        j = torch.clamp(i, 0, 5)
        src = torch.tanh(a) * b + 1
        return torch.zeros(4, 3, 6).scatter_add(-1, j, src), torch.zeros(4, 3, 6).scatter_add(2, j[:, :, :2], c * 3)

    gen = torch.Generator().manual_seed(1)
    a = torch.randn(4, 3, 9, generator=gen, requires_grad=True)
    b = torch.randn(4, 3, 9, generator=gen, requires_grad=True)
    i = torch.randint(-3, 9, (4, 3, 9), generator=gen)
    c = torch.randn(4, 3, 9, generator=gen)
    compiled, compiler = _compile(f)
    (oc, gc), (oe, ge) = _grads(compiled, (a, b, i, c)), _grads(f, (a, b, i, c))
    for c, e in zip(oc + gc, oe + ge):
        torch.testing.assert_close(c, e, rtol=1e-6, atol=1e-6)
    assert _scatter_kernels(compiler) == 2 and _aten_scatters(compiler) == 0
    # the forward is the two scatter kernels alone: no kernel stores the source (or the clamp)
    fw = [line for line in compiler.compiled[0].schedule_text.splitlines() if line.startswith("kernel")]
    assert len(fw) == 2 and all("scatter over" in line for line in fw), fw


def test_float64_and_a_trained_relative_attention_match_eager():
    """float64 bit for bit; a relative-attention layer trained three SGD steps keeps eager's
    parameters (its scores' gradient gathered back by two scatter kernels per step)."""
    from tests.compiler.test_gather import RelativeAttention

    def f(x, v):
        return torch.gather(x, -1, _relative(2, 6, 3)) * v
    gen = torch.Generator().manual_seed(2)
    x = torch.randn(2, 6, 6, dtype=torch.float64, generator=gen, requires_grad=True)
    v = torch.randn(2, 6, 6, dtype=torch.float64, generator=gen, requires_grad=True)
    compiled, compiler = _compile(f)
    _same_bits(compiled, f, (x, v))
    assert _scatter_kernels(compiler) == 1

    torch.manual_seed(3)
    ref = RelativeAttention()
    model = RelativeAttention()
    model.load_state_dict(ref.state_dict())
    torch._dynamo.reset()
    bessemer.compile(model, config=bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))
    opts = [torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9) for m in (ref, model)]
    for step in range(3):
        xs = torch.randn(3, 7, 16, generator=torch.Generator().manual_seed(step))
        for m, opt in zip((ref, model), opts):
            opt.zero_grad()
            m(xs).pow(2).mean().backward()
            opt.step()
    for (name, p), q in zip(ref.named_parameters(), model.parameters()):
        torch.testing.assert_close(q, p, rtol=1e-5, atol=1e-6, msg=name)
    assert sum("scatter over" in line for cg in model.forward._bessemer_backend.compiled
               for line in cg.schedule_text.splitlines() if line.startswith("kernel")) == 2


# -- what stays ATen's --------------------------------------------------------------------------
@pytest.mark.parametrize("case", ["unproved-index", "dim-0", "bf16", "triton"])
def test_the_other_scatters_run_in_aten(case):
    """A user's index (ATen checks it and raises eager's error), a scatter along another dim
    than the last, a bf16 source (ATen rounds each add), and the Triton kernels: the ATen
    call, with eager's values."""
    gen = torch.Generator().manual_seed(4)
    i = torch.randint(0, 6, (4, 5), generator=gen)
    x = torch.randn(4, 6, generator=gen, requires_grad=True)
    backend = "triton" if case == "triton" else "cpp"
    if case == "unproved-index":
        f = lambda x, i: torch.gather(x * 2, 1, i)  # noqa: E731
    elif case == "dim-0":
        i = torch.clamp(torch.randint(-2, 8, (6, 6), generator=gen), 0, 3)
        f = lambda x, i: torch.gather(x * 2, 0, torch.clamp(i, 0, 3))  # noqa: E731
    elif case == "bf16":
        x = torch.randn(4, 6, generator=gen).bfloat16().requires_grad_()
        f = lambda x, i: torch.gather(x * 2, 1, torch.clamp(i, 0, 5))  # noqa: E731
    else:
        f = lambda x, i: torch.gather(x * 2, 1, torch.clamp(i, 0, 5))  # noqa: E731
    compiled, compiler = _compile(f, backend)
    (oc, gc), (oe, ge) = _grads(compiled, (x, i)), _grads(f, (x, i))
    for c, e in zip(oc + gc, oe + ge):
        torch.testing.assert_close(c, e, rtol=0, atol=0)
    assert compiler.compiled and _scatter_kernels(compiler) == 0 and _aten_scatters(compiler) == 1
    if case == "unproved-index":
        bad = i.clone()
        bad[1, 2] = 6
        with pytest.raises(RuntimeError, match="index 6 is out of bounds"):
            compiled(x, bad)


# -- the loop IR ----------------------------------------------------------------------------------
def _scatter_graph():
    g = Graph()
    src = g.input((4, 8), F32, (8, 1), "src")
    pos = g.input((4, 8), I64, (8, 1), "pos")
    idx = g.pointwise("minimum", [g.pointwise("maximum", [pos, g.const(0, (4, 8), I64)], I64),
                                  g.const(5, (4, 8), I64)], I64)
    sc = g.scatter_add((4, 6), 1, idx, g.pointwise("mul", [src, g.const(2.0, (4, 8), F32)], F32))
    g.output([sc])
    return g


def test_the_scatter_kernel_in_the_loop_ir():
    """One kernel: each row zeroed by a vector loop, then its values (computed in the loop, the
    clamp of the index too) added at their indices by a loop that is no vector loop."""
    sched = fuse(_scatter_graph())
    verify_schedule(sched, "test")
    (k,) = sched.kernels
    assert "scatter over [1]" in k.describe()
    prog = lower_kernels(sched, "cpp", cores=2)
    verify_loops(prog, "test")
    assert prog.kernels[0].format() == textwrap.dedent("""\
        kernel k0(b0=src:f32, b1=pos:i64, b2=sc6:f32 w)
          scatter, 480 bytes, cpp scatter [o0<4, r0<8] parallel=False
          for o0 in 0..4:
            for z0 in 0..6 [simd]:
              store b2[6*o0 + z0]:f32 = 0:f32
            for r0 in 0..8:
              let t1: f32 = mul(b0[8*o0 + r0]:f32, 2.0:f32):f32
              let t2: i64 = maximum(b1[8*o0 + r0]:i64, 0:i64):i64
              let t3: i64 = minimum(t2, 5:i64):i64
              add b2[6*o0 + 1*@t3]:f32 += t1""")
    with pytest.raises(Exception, match="Triton"):
        lower_kernels(sched, "triton")


def test_verify_rejects_a_scatter_add_whose_index_is_not_an_integer():
    prog = lower_kernels(fuse(_scatter_graph()), "cpp", cores=2)
    lk = prog.kernels[0]

    def spoil(x):
        if isinstance(x, L.ScatterAdd):
            from dataclasses import replace
            return replace(x, indirect=replace(x.indirect, value=L.Const(1.5, F32)))
        return x
    bad = L.LoopProgram("cpp", (L.map_tree(lk, spoil),))
    with pytest.raises(VerifyError, match="index value is not an int64"):
        verify_loops(bad, "test")
