"""A chain of elementwise ops longer than Python's recursion limit compiles: the fusion pass
stores every MAX_INLINE_DEPTH-th value of a single-use chain (passes/fuse.bound_depth), so no
inlined expression, and no walk over one, is deeper than that."""
import sys

import torch

import bessemer
from bessemer.compiler.ir.graph import Graph, Kind
from bessemer.compiler.ir.schedule import Kernel
from bessemer.compiler.passes.fuse import MAX_INLINE_DEPTH, fuse


def test_fusion_stores_a_deep_chain_every_max_inline_depth_ops():
    g = Graph()
    v = g.input((16, 32), torch.float32, (32, 1))
    n = sys.getrecursionlimit() + 500
    for i in range(n):
        v = g.pointwise("neg" if i % 2 else "sin", [v], torch.float32)
    g.output([v])
    sched = fuse(g)
    members = [m for k in sched.steps if isinstance(k, Kernel) for m in k.members]
    stored = [m for m in members if m.kind == Kind.POINTWISE]
    # every value at depth MAX_INLINE_DEPTH is stored, and nothing much more than that
    assert n // MAX_INLINE_DEPTH <= len(stored) <= n // MAX_INLINE_DEPTH + 2


def _chain(x, n):
    for i in range(n):
        x = torch.sin(x) * 1.0001 + 0.001 if i % 2 else torch.cos(x) - 0.5
    return x


def test_a_chain_longer_than_the_recursion_limit_compiles_and_matches_eager():
    torch._dynamo.reset()
    n = sys.getrecursionlimit() // 2 + 50          # about 1.3x the limit in ops
    x = torch.randn(4, 64, generator=torch.Generator().manual_seed(0))
    fn = bessemer.compile(lambda t: _chain(t, n), config=bessemer.TrainingCompilerConfig(
        fallback="error", graph_cache=False, backend="cpp"))
    xe = x.clone().requires_grad_(True)
    xc = x.clone().requires_grad_(True)
    want = _chain(xe, n)
    got = fn(xc)
    want.sum().backward()
    got.sum().backward()
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(xc.grad, xe.grad)
    assert fn._bessemer_backend.compiled
