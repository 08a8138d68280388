"""Small operands the kernels read broadcast are stored dense once (passes/dense_reads.py):
a strided view of memory is copied dense, a value computed from memory through several ops is
stored; the kernels then load them contiguously. Values and gradients match eager; the
softmax's kernels hold no strided load of the bias and no index arithmetic for its mask, and
an exp of the masked scores still runs as exp_lo (passes/cpp_loops.holds_low)."""
import copy
import re

import pytest
import torch

import bessemer
from bessemer.compiler.ir.graph import Graph, IndexMap, Kind
from bessemer.compiler.passes.dense_reads import dense_broadcast_reads


class BiasedAttentionScores(torch.nn.Module):
    """Softmax over scores plus a relative-position bias as T5 computes it: one [q, k, heads]
    embedding lookup permuted to [1, heads, q, k], causally masked when `causal`, broadcast
    over the batch."""

    def __init__(self, heads: int = 4, buckets: int = 32, causal: bool = False):
        super().__init__()
        self.bias = torch.nn.Embedding(buckets, heads)
        self.causal = causal
        self.buckets = buckets

    def forward(self, scores):
        q, k = scores.shape[-2], scores.shape[-1]
        rel = torch.arange(k)[None, :] - torch.arange(q)[:, None]
        bucket = rel.abs().clamp(max=self.buckets - 1)
        bias = self.bias(bucket).permute(2, 0, 1).unsqueeze(0)
        if self.causal:
            keep = torch.arange(q)[:, None] >= torch.arange(k)[None, :]
            bias = torch.where(keep, bias, torch.finfo(scores.dtype).min)
        return torch.softmax(scores + bias, dim=-1)


def _run(model, scores, w):
    s = scores.detach().clone().requires_grad_(True)
    y = model(s)
    (y * w).sum().backward()
    return [y, s.grad] + [p.grad for p in model.parameters()]


@pytest.mark.parametrize("causal", [False, True])
def test_a_broadcast_position_bias_is_read_dense_and_matches_eager(causal):
    torch._dynamo.reset()
    gen = torch.Generator().manual_seed(0)
    scores = torch.randn(8, 4, 64, 64, generator=gen)
    w = torch.randn(8, 4, 64, 64, generator=gen)
    torch.manual_seed(0)
    ref = BiasedAttentionScores(causal=causal)
    model = bessemer.compile(copy.deepcopy(ref), config=bessemer.TrainingCompilerConfig(
        fallback="error", graph_cache=False, backend="cpp"))
    want = _run(ref, scores, w)
    got = _run(model, scores, w)
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b)
    kernels = [k for cg in model.forward._bessemer_backend.compiled if "forward" in cg.name for k in cg.kernels]
    softmax = [k.code for k in kernels if k.kind == "row reduction"]
    assert softmax, [k.code for k in kernels]
    for src in softmax:
        # every load of the kernel's inputs contiguous along the reduced index r0
        strided = re.findall(r"b\d+\[\([^\]]*\b\d+\*r0\b[^\]]*\)\]", src)
        assert not strided, src
        if causal:
            assert "expf_lo(" in src and ">=" not in src, src


def test_a_strided_broadcast_view_gets_a_dense_copy():
    """The pass on the IR: a [q, k, heads] buffer seen as [8, heads, q, k] (stride heads along
    k, stride 0 along the batch) and read by a kernel is copied into a dense [1, heads, q, k]
    buffer once; the kernel reads that copy broadcast. A view read only by an ATen call, or
    repeated fewer than REUSE times, is left alone."""
    g = Graph()
    table = g.input((32, 32, 4), torch.float32, (128, 4, 1))
    other = g.input((8, 4, 32, 32), torch.float32, (4096, 1024, 32, 1))
    perm = IndexMap(((0, 0, 1, 0), (0, 0, 0, 1), (0, 1, 0, 0)), (0, 0, 0), 4)
    wide = g.view(table, (8, 4, 32, 32), perm, "permute+expand")
    total = g.pointwise("add", [other, wide], torch.float32)
    r = g.reduce("max", total, [3], True, torch.float32)
    alone = g.view(table, (1, 4, 32, 32), perm, "permute")
    used = g.pointwise("neg", [alone], torch.float32)
    g.output([r, used])
    dense_broadcast_reads(g)
    copies = [n for n in g.nodes if n.kind == Kind.POINTWISE and n.attrs.get("dense")]
    assert len(copies) == 1, g.format() if hasattr(g, "format") else g.nodes
    (copy_node,) = copies
    assert copy_node.shape == (1, 4, 32, 32) and copy_node.args[0].args[0] is table
    read = total.args[1]
    assert read.kind == Kind.VIEW and read.args[0] is copy_node and read.shape == (8, 4, 32, 32)
    # the copy before its readers
    order = {n: i for i, n in enumerate(g.nodes)}
    assert order[copy_node] < order[total]
    assert used.args[0] is alone


def test_an_empty_strided_view_is_left_alone():
    """A strided view with no elements (a slice past its end) broadcast into an empty result
    compiles and matches eager."""
    torch._dynamo.reset()

    def f(a, m):
        return torch.where(m, a[1:, 10:0, 0:-1:2], -1.5), a[1:, ::2, ::3] * 2

    compiled = bessemer.compile(f, config=bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))
    a, m = torch.randn(128, 17, 17), torch.zeros(0, 1, dtype=torch.bool)
    for got, want in zip(compiled(a, m), f(a, m)):
        assert got.shape == want.shape
        torch.testing.assert_close(got, want)
    assert compiled._bessemer_backend.compiled


def test_a_chain_deeper_than_the_recursion_limit():
    """The readers' counts are taken without recursion: a strided view read through a chain of
    elementwise ops longer than Python's recursion limit still gets its dense copy."""
    import sys
    g = Graph()
    table = g.input((64, 64, 4), torch.float32, (256, 4, 1))
    perm = IndexMap(((0, 0, 1, 0), (0, 0, 0, 1), (0, 1, 0, 0)), (0, 0, 0), 4)
    v = g.view(table, (8, 4, 64, 64), perm, "permute+expand")
    for _ in range(sys.getrecursionlimit() + 500):
        v = g.pointwise("neg", [v], torch.float32)
    g.output([g.reduce("max", v, [3], True, torch.float32)])
    dense_broadcast_reads(g)
    assert any(n.kind == Kind.POINTWISE and n.attrs.get("dense") for n in g.nodes)
