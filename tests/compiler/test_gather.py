"""torch.gather computed inside the generated kernels: a gather node (its source memory, its
index computed in the kernel) lowered where the index is provably in range (ir/ranges.py),
a gathered load in the loop IR (an address with an indirect term) printed by both backends.
Values and gradients against eager; the schedules hold no ATen gather where the index is
proved, and one where it is not (ATen checks every index; eager's error stays eager's)."""
from __future__ import annotations

import math
import os
import textwrap
from dataclasses import replace

import pytest
import torch

import bessemer
from bessemer.compiler.capture.backend import make_backend
from bessemer.compiler.codegen import cpp, triton
from bessemer.compiler.ir import loops as L
from bessemer.compiler.ir.graph import Graph, Kind, Node
from bessemer.compiler.ir.ranges import value_range, within
from bessemer.compiler.ir.verify import VerifyError, verify_graph, verify_loops
from bessemer.compiler.ir.views import broadcast, permute
from bessemer.compiler.passes.fuse import fuse
from bessemer.compiler.passes.lower_kernels import lower_kernels
from bessemer.compiler.passes.simplify import fold_views

F32, I64 = torch.float32, torch.int64
BACKENDS = ["cpp", "triton"]   # CPU tensors on the Triton backend run under its interpreter (conftest.py)


def _compile(f, backend: str = "cpp", dynamic: bool = False, **options):
    torch._dynamo.reset()
    be = make_backend(bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False, backend=backend,
                                                      **options))
    return torch.compile(f, backend=be, dynamic=dynamic), be.bessemer


def _externs(compiler, name: str) -> int:
    return sum(1 for cg in compiler.compiled for line in cg.schedule_text.splitlines()
               if line.startswith("extern") and name in line)


def _check_values_and_grads(f, compiled, inputs, atol=1e-5):
    outs_c, outs_e = compiled(*inputs), f(*inputs)
    outs_c = outs_c if isinstance(outs_c, tuple) else (outs_c,)
    outs_e = outs_e if isinstance(outs_e, tuple) else (outs_e,)
    for c, e in zip(outs_c, outs_e):
        torch.testing.assert_close(c, e, rtol=1e-4, atol=atol)
    ws = [torch.randn(e.shape, generator=torch.Generator().manual_seed(7)) for e in outs_e]
    leaves = [x for x in inputs if isinstance(x, torch.Tensor) and x.requires_grad]
    loss = lambda outs: sum((o.float() * w).sum() for o, w in zip(outs, ws))  # noqa: E731
    for gc, ge in zip(torch.autograd.grad(loss(outs_c), leaves), torch.autograd.grad(loss(outs_e), leaves)):
        torch.testing.assert_close(gc, ge, rtol=1e-4, atol=atol)


# -- DeBERTa's disentangled attention ------------------------------------------------------------
class RelativeAttention(torch.nn.Module):
    """Content-to-position and position-to-content scores gathered at clamped relative
    positions, as DeBERTa computes them (the clamp is what proves the index in range)."""

    def __init__(self, d: int = 16, span: int = 4):
        super().__init__()
        self.span = span
        self.q = torch.nn.Linear(d, d)
        self.k = torch.nn.Linear(d, d)
        self.pos = torch.nn.Parameter(torch.randn(2 * span, d) * 0.5)

    def forward(self, x):
        B, S, _ = x.shape
        q, k = self.q(x), self.k(x)
        rel = torch.arange(S, device=x.device)[:, None] - torch.arange(S, device=x.device)[None, :]
        c2p_pos = torch.clamp(rel + self.span, 0, 2 * self.span - 1)
        p2c_pos = torch.clamp(-rel + self.span, 0, 2 * self.span - 1)
        c2p = torch.gather(q @ self.pos.t(), -1, c2p_pos.unsqueeze(0).expand(B, S, S))
        p2c = torch.gather(k @ self.pos.t(), -1, p2c_pos.unsqueeze(0).expand(B, S, S)).transpose(-1, -2)
        scores = (q @ k.transpose(-1, -2) + c2p + p2c) / math.sqrt(3 * q.shape[-1])
        return torch.softmax(scores, -1) @ x


@pytest.mark.parametrize("backend", BACKENDS)
def test_relative_attention_gathers_inside_the_kernels(backend):
    torch.manual_seed(0)
    model = RelativeAttention()
    compiled, compiler = _compile(model, backend)
    x = torch.randn(3, 7, 16, requires_grad=True)   # relative positions -6..6, clamped to 0..7
    _check_values_and_grads(lambda x: model(x), compiled, (x,))
    for p in model.parameters():
        assert p.grad is None    # (torch.autograd.grad above: nothing accumulated)
    assert compiler.compiled, "nothing was compiled"
    assert _externs(compiler, "aten.bmm") + _externs(compiler, "aten.mm") >= 2   # the count sees externs
    assert _externs(compiler, "aten.gather") == 0


def test_the_zoo_deberta_trains_a_step_as_eager_without_aten_gathers():
    """The zoo's DeBERTa-v3 at its tiny size: loss and every parameter's gradient as eager's,
    and every relative-position gather of its attention and their gradients' scatters computed
    in kernels (the classifier's loss gathers user labels: ATen)."""
    import copy

    from bessemer import zoo
    w = zoo.build("deberta-v3-base", "tiny", seed=0)
    ref, batch = w.model, w.make_batch(0)
    model = copy.deepcopy(ref)
    torch._dynamo.reset()
    bessemer.compile(model, config=bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))
    loss_c, loss_e = w.loss_fn(model, batch), w.loss_fn(ref, batch)
    loss_c.backward()
    loss_e.backward()
    torch.testing.assert_close(loss_c, loss_e, rtol=1e-4, atol=1e-5)
    for (name, a), b in zip(ref.named_parameters(), model.parameters()):
        assert (a.grad is None) == (b.grad is None), name
        if a.grad is not None:
            torch.testing.assert_close(b.grad, a.grad, rtol=1e-3, atol=1e-5, msg=name)
    texts = [cg.schedule_text for cg in model.forward._bessemer_backend.compiled]
    attention = [t for t in texts if "aten.bmm" in t]
    assert attention, texts
    assert not any("aten.gather" in line for t in attention for line in t.splitlines()
                   if line.startswith("extern")), attention
    # their gradients are scatters into zeros computed in kernels of their own: no ATen call,
    # no zeros buffer written first
    assert sum(line.startswith("kernel") and "scatter over" in line
               for t in attention for line in t.splitlines()) >= 2, attention
    assert not any("scatter_add" in line for t in attention for line in t.splitlines()
                   if line.startswith("extern")), attention


@pytest.mark.parametrize("backend", BACKENDS)
def test_gathers_along_any_dim_of_views_and_computed_values(backend):
    """dim 0 and 1, a transposed source (its strides), a computed source (realized by the
    kernel before), an index smaller than the source in the other dims, an index computed
    from an iota, and a gather reduced in the kernel that gathers."""
    def f(x, y, i):
        a = torch.gather(x.t(), 0, torch.clamp(i, 0, 4)[:, :3])                     # [4, 3] of [5, 6]
        b = torch.gather(torch.sigmoid(y) * 2, 1, torch.clamp(torch.arange(4)[:, None] - torch.arange(2), 0, 3))
        c = torch.gather(x, 1, torch.clamp(i * 2 - 3, min=0, max=4)).sum(-1)
        return a, b, c
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(6, 5, generator=gen, requires_grad=True)
    y = torch.randn(4, 4, generator=gen, requires_grad=True)
    i = torch.randint(-3, 9, (4, 5), generator=gen)    # out of range before the clamps
    compiled, compiler = _compile(f, backend)
    _check_values_and_grads(f, compiled, (x, y, i))
    assert compiler.compiled and _externs(compiler, "aten.gather") == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_column_sums_of_gathered_values(backend):
    """A gathered value summed over its rows: C++ splits the rows among threads by blocks of
    columns, Triton into chunks; the gathered loads take those structures' indices."""
    def f(x, i):
        j = torch.clamp(i, 0, 7)
        return torch.gather(x, 1, j).sum(0), (torch.gather(x * 2, 1, j[:, :3]) + 1).sum(0)
    gen = torch.Generator().manual_seed(6)
    x = torch.randn(4096, 8, generator=gen, requires_grad=True)
    i = torch.randint(-2, 10, (4096, 5), generator=gen)
    compiled, compiler = _compile(f, backend)
    _check_values_and_grads(f, compiled, (x, i), atol=1e-4)
    assert compiler.compiled and _externs(compiler, "aten.gather") == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_padded_gather_and_a_gather_of_a_broadcast(backend):
    """A gather under a pad's condition (its loads masked, the index's and the source's), and a
    source broadcast along the gathered dim (stride 0: one element whatever the index)."""
    def f(x, y, i):
        j = torch.clamp(i, 0, 5)
        a = torch.nn.functional.pad(torch.gather(x, 1, j) * 2, (1, 2, 0, 1), value=-1.0)
        b = torch.gather(y[:, None].expand(4, 6), 1, j)
        return a, b
    gen = torch.Generator().manual_seed(5)
    x = torch.randn(4, 6, generator=gen, requires_grad=True)
    y = torch.randn(4, generator=gen, requires_grad=True)
    i = torch.randint(-4, 10, (4, 3), generator=gen)
    compiled, compiler = _compile(f, backend)
    _check_values_and_grads(f, compiled, (x, y, i))
    assert compiler.compiled and _externs(compiler, "aten.gather") == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_gathers_of_bf16_and_integer_values_bit_for_bit(backend):
    def f(x, n, i):
        j = torch.clamp(i, 0, 3)
        return torch.gather(x, 1, j), torch.gather(n, 1, j) * 3, torch.gather(x * 2, 1, j)
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(5, 4, generator=gen).bfloat16()
    n = torch.randint(-100, 100, (5, 4), generator=gen)
    i = torch.randint(-2, 6, (5, 7), generator=gen)
    compiled, compiler = _compile(f, backend)
    for c, e in zip(compiled(x, n, i), f(x, n, i)):
        assert c.dtype == e.dtype
        torch.testing.assert_close(c, e, rtol=0, atol=0)
    assert compiler.compiled and _externs(compiler, "aten.gather") == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_index_not_known_in_range_runs_in_aten(backend):
    """A user's index (a loss's targets) may hold anything: ATen gathers it, and checks it."""
    f = lambda x, i: torch.gather(torch.relu(x), 1, i) * 2  # noqa: E731
    gen = torch.Generator().manual_seed(2)
    x = torch.randn(4, 6, generator=gen, requires_grad=True)
    i = torch.randint(0, 6, (4, 3), generator=gen)
    compiled, compiler = _compile(f, backend)
    _check_values_and_grads(f, compiled, (x, i))
    assert _externs(compiler, "aten.gather") == 1
    bad = i.clone()
    bad[2, 1] = 6
    with pytest.raises(RuntimeError, match="index 6 is out of bounds for dimension 1 with size 6"):
        f(x, bad)
    with pytest.raises(RuntimeError, match="index 6 is out of bounds for dimension 1 with size 6"):
        compiled(x, bad)
    bad[2, 1] = -1    # no wrapping: eager rejects a negative index too
    with pytest.raises(RuntimeError, match="index -1 is out of bounds"):
        compiled(x, bad)


def test_a_clamp_short_of_the_source_size_is_not_a_proof():
    """clamp(i, 0, 6) into a dim of 6 may read element 6: ATen, and its error."""
    f = lambda x, i: torch.gather(x, 1, torch.clamp(i, 0, 6))  # noqa: E731
    x, i = torch.randn(2, 6), torch.tensor([[0, 9], [3, 5]])
    compiled, compiler = _compile(f)
    with pytest.raises(RuntimeError, match="index 6 is out of bounds"):
        compiled(x, i)
    assert _externs(compiler, "aten.gather") == 1


class PositionScores(torch.nn.Module):
    """The gathered dim is a parameter's (static); the sequence length is symbolic."""

    def __init__(self, span: int = 3):
        super().__init__()
        self.span = span
        self.pos = torch.nn.Parameter(torch.randn(2 * span, 8))

    def forward(self, x):
        S = x.shape[1]
        rel = torch.arange(S, device=x.device)[:, None] - torch.arange(S, device=x.device)[None, :]
        idx = torch.clamp(rel + self.span, 0, 2 * self.span - 1)
        scores = torch.softmax(torch.gather(x @ self.pos.t(), -1, idx.expand(x.shape[0], S, S)), -1)
        # along dim 0 of a [2 * span, S] source: the gathered dim's stride is the symbolic S
        return scores, torch.gather(self.pos @ x[0].t(), 0, idx) * 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_symbolic_sizes_gather_inside_the_kernels(backend):
    torch.manual_seed(3)
    model = PositionScores()
    compiled, compiler = _compile(model, backend, dynamic=True)
    for shape in [(2, 5, 8), (3, 9, 8)]:
        x = torch.randn(*shape, requires_grad=True)
        _check_values_and_grads(lambda x: model(x), compiled, (x,))
    assert compiler.compiled and _externs(compiler, "aten.gather") == 0


@pytest.mark.skipif(os.environ.get("TRITON_INTERPRET") != "1", reason="needs Triton's interpreter")
def test_gathered_kernels_compile_for_sm90(tmp_path):
    """The gathered loads compile with Triton's own compiler for a real GPU (the interpreter
    accepts some code it rejects), in every launch configuration."""
    from bessemer.compiler.codegen.triton_aot import check_graphs
    torch.manual_seed(4)
    model = RelativeAttention()
    compiled, compiler = _compile(model, "triton", cache_dir=str(tmp_path))
    x = torch.randn(2, 6, 16, requires_grad=True)
    compiled(x).sum().backward()
    graphs = compiler.compiled
    assert sum(len(cg.kernels) for cg in graphs if cg.backend == "triton") >= 3, graphs
    ok, report = check_graphs(graphs, 90, all_configs=True)
    assert ok, report


# -- the value ranges that prove an index ----------------------------------------------------------
def test_value_ranges_prove_only_what_is_certain():
    g = Graph()
    i = g.input((4, 4), I64, (4, 1), name="i")
    c = lambda v: g.const(v, (4, 4), I64)  # noqa: E731
    clamped = g.pointwise("minimum", [g.pointwise("maximum", [g.pointwise("add", [i, c(4)], I64), c(0)], I64), c(7)],
                          I64)
    assert value_range(i) == (None, None)
    assert value_range(clamped) == (0, 7) and within(clamped, 8) and not within(clamped, 7)
    assert value_range(g.pointwise("maximum", [i, c(0)], I64)) == (0, None)
    iota = g.iota((4, 4), I64, 1, 2, -1)           # 2, 1, 0, -1
    assert value_range(iota) == (-1, 2)
    assert value_range(g.pointwise("neg", [iota], I64)) == (-2, 1)
    assert value_range(g.pointwise("sub", [clamped, iota], I64)) == (-2, 8)
    assert value_range(g.pointwise("mul", [clamped, c(-3)], I64)) == (-21, 0)
    sel = g.pointwise("where", [g.input((4, 4), torch.bool, (4, 1), name="m"), clamped, iota], I64)
    assert value_range(sel) == (-1, 7)
    assert value_range(broadcast(g, g.const(5, (), I64), (4, 4))) == (5, 5)
    # casts: one that may wrap, and one from a float, prove nothing
    big = g.pointwise("mul", [clamped, c(1000)], I64)
    assert value_range(g.cast(big, torch.int8)) == (None, None)
    assert value_range(g.cast(g.cast(clamped, torch.int8), I64)) == (0, 7)
    assert value_range(g.cast(g.pointwise("floor", [g.cast(clamped, F32)], F32), I64)) == (None, None)
    # a symbolic size proves nothing
    assert not within(clamped, object())


# -- the loop program ------------------------------------------------------------------------------
def rel_gather() -> Graph:
    """A computed source gathered at clamped relative positions and summed over each row, and
    an input gathered at the negated positions and read transposed."""
    g = Graph()
    x = g.input((2, 4, 8), F32, (32, 8, 1), name="x")
    rel = g.input((4, 4), I64, (4, 1), name="rel")
    c = lambda v: g.const(v, (4, 4), I64)  # noqa: E731

    def clamped(i):
        return g.pointwise("minimum", [g.pointwise("maximum", [g.pointwise("add", [i, c(4)], I64), c(0)], I64), c(7)],
                           I64)
    c2p = g.gather(g.pointwise("mul", [x, g.const(2.0, (2, 4, 8), F32)], F32), 2, broadcast(g, clamped(rel), (2, 4, 4)))
    p2c = g.gather(x, 2, broadcast(g, clamped(g.pointwise("neg", [rel], I64)), (2, 4, 4)))
    g.output([g.reduce("sum", c2p, (2,), False, F32), g.pointwise("exp", [permute(g, p2c, (0, 2, 1))], F32)])
    return g


def gathered_softmax() -> Graph:
    """Scores that gather, read by a softmax's max and exp passes."""
    g = Graph()
    x = g.input((4, 8), F32, (8, 1), name="x")
    i = g.input((4, 4), I64, (4, 1), name="i")
    j = g.pointwise("minimum", [g.pointwise("maximum", [i, g.const(0, (4, 4), I64)], I64), g.const(7, (4, 4), I64)], I64)
    s = g.pointwise("mul", [g.gather(x, 1, j), g.const(0.5, (4, 4), F32)], F32)
    m = g.reduce("max", s, (1,), True, F32)
    g.output([g.pointwise("exp", [g.pointwise("sub", [s, broadcast(g, m, (4, 4))], F32)], F32)])
    return g


def test_a_gathered_value_read_by_several_members_is_stored_once():
    """(fuse.GATHER_COST: a loop with a gathered load stays scalar on this CPU's tuning, so the
    scores are computed once, contiguously, not in each pass of the softmax.)"""
    sched = fuse(fold_views(gathered_softmax()))
    scores = [n for n in sched.graph.nodes if n.kind == Kind.POINTWISE and n.op == "mul"][0]
    assert scores in sched.realized, sched.format()


def _text(s: str) -> str:
    return textwrap.dedent(s).lstrip("\n")


GOLDEN = {
    "cpp": _text("""
        kernel k0(b0=x:f32, b1=p1:f32 w)
          pointwise, 512 bytes, cpp flat [o0<64] parallel=False
          for o0 in 0..64 [simd]:
            let t1: f32 = mul(b0[o0]:f32, 2.0:f32):f32
            store b1[o0]:f32 = t1

        kernel k1(b0=rel:i64, b1=p1:f32, b2=r19:f32 w, b3=x:f32, b4=p21:f32 w)
          row reduction, 800 bytes, cpp rows [o0<2, o1<4, r0<4] parallel=False
          for o0 in 0..2:
            for o1 in 0..4:
              acc acc_r19: sum f32
              stage stage0: f32[4]
              for r0 in 0..4:
                let t1: i64 = add(b0[4*o1 + r0]:i64, 4:i64):i64
                let t2: i64 = maximum(t1, 0:i64):i64
                let t3: i64 = minimum(t2, 7:i64):i64
                stage0[r0 - 0] = b1[32*o0 + 8*o1 + 1*@t3]:f32
              for r0 in 0..4 [simd sum:acc_r19]:
                fold acc_r19 <- sum(stage0[r0 - 0]:f32) omp
              store b2[4*o0 + o1]:f32 = acc_r19
              stage stage1: f32[4]
              for r0 in 0..4:
                let t4: i64 = neg(b0[o1 + 4*r0]:i64):i64
                let t5: i64 = add(t4, 4:i64):i64
                let t6: i64 = maximum(t5, 0:i64):i64
                let t7: i64 = minimum(t6, 7:i64):i64
                stage1[r0 - 0] = b3[32*o0 + 8*r0 + 1*@t7]:f32
              for r0 in 0..4 [simd]:
                let t8: f32 = exp(stage1[r0 - 0]:f32):f32
                store b4[16*o0 + 4*o1 + r0]:f32 = t8
        """),
    "triton": _text("""
        kernel k0(b0=x:f32, b1=p1:f32 w)
          pointwise, 512 bytes, triton pointwise numel=64 rows=64 rlen=1 tl.int32
          xs = block of XBLOCK < 64 (tl.int32)
          x0 = xs
          let t1: f32 = b0[xs mask x]:f32
          let t2: f32 = mul(t1, 2.0:f32):f32
          store b1[xs mask x]:f32 = t2

        kernel k1(b0=rel:i64, b1=p1:f32, b2=r19:f32 w, b3=x:f32, b4=p21:f32 w)
          row reduction, 800 bytes, triton persistent numel=32 rows=8 rlen=4 tl.int32
          xs = block of XBLOCK rows < 8 (tl.int32)
          rbase = lanes of RBLOCK (tl.int32)
          x0 = xs // 4
          x1 = xs % 4
          rs = rbase < 4
          r0 = rs
          let t1: i64 = b0[4*x1 + rs mask xr]:i64
          let t2: i64 = add(t1, 4:i64):i64
          let t3: i64 = maximum(t2, 0:i64):i64
          let t4: i64 = minimum(t3, 7:i64):i64
          let t5: f32 = b1[8*xs + 1*@t4 mask xr fill r]:f32
          fold acc0 <- sum(t5) tile
          combine acc0: sum f32
          read acc0: sum f32
          store b2[xs mask x]:f32 = acc0
          let t6: i64 = b0[x1 + 4*rs mask xr]:i64
          let t7: i64 = neg(t6):i64
          let t8: i64 = add(t7, 4:i64):i64
          let t9: i64 = maximum(t8, 0:i64):i64
          let t10: i64 = minimum(t9, 7:i64):i64
          let t11: f32 = b3[32*x0 + 8*rs + 1*@t10 mask xr]:f32
          let t12: f32 = exp(t11):f32
          store b4[4*xs + rs mask xr]:f32 = t12
        """),
}


def _lower(target: str) -> L.LoopProgram:
    sched = fuse(fold_views(rel_gather()))
    program = lower_kernels(sched, target, cores=2) if target == "cpp" else lower_kernels(sched, target)
    verify_loops(program)
    return program


@pytest.mark.parametrize("target", ["cpp", "triton"])
def test_gathered_loads_match_golden(target):
    """The source is stored by a kernel of its own (a value read at an arbitrary address is
    not computed inline); the index is computed where the gather is read."""
    assert _lower(target).format() == GOLDEN[target]


def test_printers_spell_the_gathered_load():
    src, _ = cpp.render(fuse(fold_views(rel_gather())), cores=2)
    # staged by a scalar loop (cpp_loops.STAGE_MAX), summed by the vector loop after it
    assert "stage0[r0 - 0] = b1[(32*o0 + 8*o1) + (int64_t)(t3) * 1];" in src
    assert "acc_r19 += (double)stage0[r0 - 0];" in src
    tsrc, _ = triton.render(fuse(fold_views(rel_gather())))
    # the pointer takes the mask's shape: a zero tile for the reduced dim its address lacks
    assert "t5 = tl.load(b1 + (8*xs) + rzero + (t4) * 1, xrmask, other=0)" in tsrc


def test_verify_loops_rejects_a_gathered_load_by_a_float():
    program = _lower("cpp")
    k = program.kernels[1]

    def by_float(x):
        if isinstance(x, L.Load) and x.indirect is not None:
            return replace(x, indirect=replace(x.indirect, value=L.Const(1.0, F32)))
        return x
    broken = replace(program, kernels=(program.kernels[0], replace(k, body=L.map_tree(k.body, by_float))))
    with pytest.raises(VerifyError, match="index value is not an int64 expression"):
        verify_loops(broken)


def test_verify_graph_rejects_a_gather_that_does_not_fit():
    g = Graph()
    x = g.input((3, 4), F32, (4, 1), name="x")
    i = g.input((5, 2), I64, (2, 1), name="i")
    g.output([g.gather(x, 1, i)])
    with pytest.raises(VerifyError, match="exceeds the source"):
        verify_graph(g)
    g2 = Graph()
    x = g2.input((3, 4), F32, (4, 1), name="x")
    i = g2.input((3, 2), torch.int32, (2, 1), name="i")
    g2.output([g2.add(Node(Kind.GATHER, [x, i], (3, 2), F32, {"dim": 1}))])
    with pytest.raises(VerifyError, match="by torch.int32"):
        verify_graph(g2)


# -- the gradient: scatter_add into zeros ---------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_gathers_gradient_adds_into_zeros_made_for_it_bit_for_bit(backend):
    """The backward's scatter_add(zeros, ...) is a scatter kernel on the C++ kernels
    (test_scatter.py) and ATen's scatter_add_ on fresh zeros (no copy of a zeros buffer) on the
    Triton ones: the same order of adds either way, so the sums are eager's bit for bit,
    repeated indices (a clamp's edges) included. A scatter_add into anything else stays the
    traced call."""
    def f(x, i, y, j):
        k = torch.clamp(i, 0, 5)
        return torch.gather(x, 1, k) * 3, torch.scatter_add(y, 1, j, x[:, :2])
    gen = torch.Generator().manual_seed(8)
    x = torch.randn(4, 6, generator=gen, requires_grad=True)
    i = torch.randint(-5, 12, (4, 9), generator=gen)     # many indices clamped onto 0 and 5
    y = torch.randn(4, 3, generator=gen)
    j = torch.randint(0, 3, (4, 2), generator=gen)
    compiled, compiler = _compile(f, backend)
    outs_c, outs_e = compiled(x, i, y, j), f(x, i, y, j)
    for c, e in zip(outs_c, outs_e):
        torch.testing.assert_close(c, e, rtol=0, atol=0)
    w = torch.randn(4, 9, generator=gen)
    gc, = torch.autograd.grad((outs_c[0] * w).sum(), x)
    ge, = torch.autograd.grad((outs_e[0] * w).sum(), x)
    torch.testing.assert_close(gc, ge, rtol=0, atol=0)
    texts = [cg.schedule_text for cg in compiler.compiled]
    into_zeros = sum(t.count("scatter over") if backend == "cpp" else t.count("scatter_add_into_zeros")
                     for t in texts)
    assert into_zeros == 1, texts
    assert sum(1 for t in texts for line in t.splitlines()
               if line.startswith("extern") and "aten.scatter_add" in line) == 1, texts   # y is not zeros
    # the clamped gather is in a kernel; the scatter_add's own gradient gathers by j, user data
    assert _externs(compiler, "aten.gather") == 1
