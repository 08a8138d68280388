"""Golden tests per stage: small hand-built graphs through one pass at a time,
checked against the exact text of Graph.format(), Schedule.format() and
MemoryPlan.format(). A changed decision of a pass shows up here as a readable diff
of its output; update the expected text only for a change that is meant."""
from __future__ import annotations

import textwrap

import torch

from bessemer.compiler.ir.graph import Graph
from bessemer.compiler.passes.fuse import fuse
from bessemer.compiler.passes.memory import plan_memory
from bessemer.compiler.passes.simplify import fold_views, simplify
from bessemer.compiler.ir.verify import verify_graph, verify_schedule
from bessemer.compiler.ir.views import broadcast, permute

F32 = torch.float32


def _text(s: str) -> str:
    return textwrap.dedent(s).lstrip("\n")


def _softmax_graph() -> Graph:
    g = Graph()
    x = g.input((4, 8), F32, (8, 1), name="x")
    m = g.reduce("max", x, (1,), True, F32)
    ex = g.pointwise("exp", [g.pointwise("sub", [x, broadcast(g, m, (4, 8))], F32)], F32)
    s = g.reduce("sum", ex, (1,), True, F32)
    g.output([g.pointwise("div", [ex, broadcast(g, s, (4, 8))], F32)])
    return g


def test_simplify_folds_constants_and_identities():
    g = Graph()
    x = g.input((4, 8), F32, (8, 1), name="x")
    one, zero = g.const(1.0, (4, 8), F32), g.const(0.0, (4, 8), F32)
    b = g.pointwise("add", [g.pointwise("mul", [x, one], F32), zero], F32)
    c = g.pointwise("neg", [g.pointwise("neg", [b], F32)], F32)
    two, three = g.const(2.0, (4, 8), F32), g.const(3.0, (4, 8), F32)
    five = g.pointwise("add", [two, three], F32)
    g.output([g.pointwise("mul", [c, five], F32)])
    assert g.format() == _text("""
        %x: float32[4, 8] = input stride=[8, 1]
        %c0: float32[4, 8] = const(1.0)
        %c1: float32[4, 8] = const(0.0)
        %p2: float32[4, 8] = mul(%x, %c0)
        %p3: float32[4, 8] = add(%p2, %c1)
        %p4: float32[4, 8] = neg(%p3)
        %p5: float32[4, 8] = neg(%p4)
        %c6: float32[4, 8] = const(2.0)
        %c7: float32[4, 8] = const(3.0)
        %p8: float32[4, 8] = add(%c6, %c7)
        %p9: float32[4, 8] = mul(%p5, %p8)
        return (%p9)
        """)
    g = simplify(g)
    verify_graph(g, "simplify")
    # x * 1 + 0 and -(-x) are x; 2 + 3 is one constant
    assert g.format() == _text("""
        %x: float32[4, 8] = input stride=[8, 1]
        %c11: float32[4, 8] = const(5.0)
        %p9: float32[4, 8] = mul(%x, %c11)
        return (%p9)
        """)


def test_fold_views_composes_index_maps():
    g = Graph()
    x = g.input((4, 8), F32, (8, 1), name="x")
    back = permute(g, permute(g, x, (1, 0)), (1, 0))
    bias = broadcast(g, g.input((8,), F32, (1,), name="b"), (4, 8))
    g.output([g.pointwise("add", [back, bias], F32)])
    g = fold_views(g)
    verify_graph(g, "fold_views")
    # one pass composes the two permutes into one identity map (the next pass drops it)
    assert g.format() == _text("""
        %x: float32[4, 8] = input stride=[8, 1]
        %v1: float32[4, 8] = view.permute+permute(%x) {i0; i1}
        %b: float32[8] = input stride=[1]
        %v2: float32[4, 8] = view.expand(%b) {i1}
        %p3: float32[4, 8] = add(%v1, %v2)
        return (%p3)
        """)
    g = fold_views(g)
    assert "%p3: float32[4, 8] = add(%x, %v2)" in g.format()


def test_fuse_softmax_schedule():
    sched = fuse(fold_views(_softmax_graph()))
    verify_schedule(sched, "fuse")
    # both row reductions in one kernel (their results stored), the normalization in a
    # pointwise kernel that reads them
    assert sched.format() == _text("""
        kernel k0 [4, 8] reduce over [1]: *r0, *r4
        kernel k1 [4, 8] pointwise: *p6
        """)


def test_plan_memory_softmax():
    plan = plan_memory(fuse(fold_views(_softmax_graph())), frozenset())
    assert plan.format() == _text("""
        planned peak 160 bytes at step 1
        after step 1: free x, r0, r4
        """)
