"""Constant padding (aten.constant_pad_nd) computed inside the generated kernels: a pad node
whose loads are masked by the pad's condition, fused with what computes its argument or
with what reads it. Values, gradients and trained parameters against eager, and the
schedules hold no ATen pad call."""
import copy

import pytest
import torch
import torch.nn.functional as F

import bessemer
from bessemer.compiler.ir.graph import Graph, Kind, Node
from bessemer.compiler.ir.verify import VerifyError, verify_graph


class PadConvBlock(torch.nn.Module):
    """pad -> conv -> bn -> relu6 -> pad -> depthwise conv: the "same" padding of a
    TensorFlow-style MobileNet, written out before each convolution."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, stride=2)
        self.bn = torch.nn.BatchNorm2d(8)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, groups=8)

    def forward(self, x):
        x = self.conv1(F.pad(x, (0, 1, 0, 1)))
        x = F.relu6(self.bn(x))
        return self.conv2(F.pad(x, (1, 1, 1, 1)))


def _compiled(model, backend="cpp"):
    torch._dynamo.reset()
    return bessemer.compile(copy.deepcopy(model), config=bessemer.TrainingCompilerConfig(
        fallback="error", graph_cache=False, backend=backend))


def _schedules(model) -> list[str]:
    return [cg.schedule_text for cg in model.forward._bessemer_backend.compiled]


def _externs(texts, name: str) -> int:
    return sum(1 for t in texts for line in t.splitlines() if line.startswith("extern") and name in line)


@pytest.mark.parametrize("backend", ["cpp", "triton"])
def test_a_padded_conv_block_trains_as_eager_without_aten_pads(backend):
    """(CPU tensors on the Triton backend run under Triton's interpreter: tests/conftest.py.)"""
    torch.manual_seed(0)
    ref = PadConvBlock()
    model = _compiled(ref, backend)
    opts = [torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9) for m in (ref, model)]
    gen = torch.Generator().manual_seed(1)
    for _ in range(3):
        x = torch.randn(4, 3, 15, 15, generator=gen)
        w = torch.randn(4, 8, 7, 7, generator=gen)
        for m, opt in zip((ref, model), opts):
            opt.zero_grad(set_to_none=True)
            (m(x) * w).sum().backward()
            opt.step()
    for a, b in zip(ref.parameters(), model.parameters()):
        torch.testing.assert_close(b, a, rtol=1e-4, atol=1e-5)
    for a, b in zip(ref.buffers(), model.buffers()):
        torch.testing.assert_close(b, a, rtol=1e-4, atol=1e-5)
    texts = _schedules(model)
    assert _externs(texts, "convolution.default") >= 2, texts    # the count sees the externs there are
    assert _externs(texts, "constant_pad_nd") == 0, texts
    # the second pad is computed by the kernel that applies BatchNorm and ReLU6: that kernel's
    # stored members include the padded activation (computed in [N, H, W, C] order where the
    # convolutions run channels-last), so no unpadded copy is written for it
    fw = [t for cg, t in zip(model.forward._bessemer_backend.compiled, texts) if cg.name.startswith("forward")][0]
    kernels = [line for line in fw.splitlines() if line.startswith("kernel")]
    assert any("*pad" in line or line.split(" pointwise")[0].endswith("[4, 9, 9, 8]") for line in kernels), fw
    unpadded = [line for line in kernels[:-1]    # (the last: the output copied to eager's layout)
                if " pointwise" in line and line.split(" pointwise")[0].endswith(("[4, 8, 7, 7]", "[4, 7, 7, 8]"))]
    assert not unpadded, fw


def test_negative_and_mixed_widths_values_and_gradients():
    """Negative widths slice, mixed ones slice and pad, a pad of a pad nests its conditions,
    and a padded value is reduced in the kernel that pads it."""
    def f(x):
        a = F.pad(torch.sigmoid(x), (-1, 2, 1, -2), value=-1.5)
        b = F.pad(F.pad(x * 2, (1, 0, 0, 1)), (0, 2, 2, 0), value=3.0)
        return a.sum(dim=-1), b, F.pad(x, (-2, -1))
    torch._dynamo.reset()
    compiled = bessemer.compile(f, fallback="error")
    x = torch.randn(3, 6, 7, requires_grad=True)
    outs_c, outs_e = compiled(x), f(x)
    ws = [torch.randn_like(o) for o in outs_e]
    for c, e in zip(outs_c, outs_e):
        torch.testing.assert_close(c, e)
    loss = lambda outs: sum((o * w).sum() for o, w in zip(outs, ws))  # noqa: E731
    torch.testing.assert_close(torch.autograd.grad(loss(outs_c), x)[0], torch.autograd.grad(loss(outs_e), x)[0])


def test_symbolic_sizes_pad_inside_the_kernels():
    """A graph compiled for many shapes pads inside its kernels too: the condition's bounds
    are sizes the kernel takes."""
    seen: list = []
    from bessemer.compiler.lowering import lower as lower_mod
    orig = lower_mod.Lowerer.extern

    def extern(self, n, *args, **kwargs):
        seen.append(str(n.target))
        return orig(self, n, *args, **kwargs)

    f = lambda x: F.pad(torch.relu(x * 2 + 1), (1, 2, -1, 1), value=0.5) * 3  # noqa: E731
    torch._dynamo.reset()
    compiled = bessemer.compile(f, fallback="error", dynamic=True)
    try:
        lower_mod.Lowerer.extern = extern
        for shape in [(2, 3, 5, 6), (3, 4, 7, 9)]:
            x = torch.randn(*shape, requires_grad=True)
            c, e = compiled(x), f(x)
            torch.testing.assert_close(c, e)
            w = torch.randn_like(e)
            torch.testing.assert_close(torch.autograd.grad((c * w).sum(), x), torch.autograd.grad((e * w).sum(), x))
    finally:
        lower_mod.Lowerer.extern = orig
    assert not [s for s in seen if "constant_pad_nd" in s], seen


def test_verify_graph_rejects_a_pad_that_does_not_fit():
    g = Graph()
    x = g.input((2, 3), torch.float32, (3, 1), name="x")
    g.output([g.pad(x, (1, 0), (0, 2), 0.0)])
    verify_graph(g)
    p = g.nodes[1]
    p.shape = (3, 2)    # dim 1 cannot hold its 3 elements
    with pytest.raises(VerifyError, match="dim 1: 3 padded by 0 before cannot be 2 long"):
        verify_graph(g)
    g2 = Graph()
    y = g2.input((2, 3), torch.float32, (3, 1), name="y")
    g2.output([g2.add(Node(Kind.PAD, [y], (2, 3), torch.float32, {"lo": (-1, 0), "fill": 0.0}))])
    with pytest.raises(VerifyError, match="cannot be"):
        verify_graph(g2)


def _padded_programs(x, y):
    """Pads of computed values and of inputs, nested, reduced, and of a broadcast row (whose
    masked load's address lacks the rows of its condition)."""
    a = F.pad(torch.sigmoid(x), (-1, 2, 1, -2), value=-1.5).sum(dim=-1)
    b = F.pad(F.pad(x * 2, (1, 0, 0, 1)), (0, 2, 2, 0), value=3.0)
    c = F.pad(y.expand(4, y.shape[0]), (1, 1, 1, 0), value=2.0).sum(-1)
    return a, b, c


@pytest.mark.skipif(__import__("os").environ.get("TRITON_INTERPRET") != "1", reason="needs Triton's interpreter")
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["fp32", "bf16"])
def test_padded_kernels_compile_for_sm90(dtype, tmp_path):
    """The masked loads and selects compile with Triton's own compiler for a real GPU (the
    interpreter accepts some code it rejects), in every launch configuration; and the
    values under the interpreter are eager's."""
    from bessemer.compiler.capture.backend import make_backend
    from bessemer.compiler.codegen.triton_aot import check_graphs
    backend = make_backend(bessemer.TrainingCompilerConfig(cache_dir=str(tmp_path), backend="triton",
                                                           fallback="error"))
    torch._dynamo.reset()
    x = torch.randn(3, 6, 7, dtype=dtype, requires_grad=True)
    y = torch.randn(9, dtype=dtype, requires_grad=True)
    outs = torch.compile(_padded_programs, backend=backend, dynamic=False)(x, y)
    for c, e in zip(outs, _padded_programs(x, y)):
        torch.testing.assert_close(c, e)
    sum(o.float().sum() for o in outs).backward()
    graphs = backend.bessemer.compiled
    assert sum(len(cg.kernels) for cg in graphs if cg.backend == "triton") >= 4, graphs
    ok, report = check_graphs(graphs, 90, all_configs=True)
    assert ok, report


@pytest.mark.parametrize("backend", ["cpp", "triton"])
def test_pads_of_bool_int_and_half_values(backend):
    """The fill in the tensor's dtype (0.1 as a half is 0.0999755859375), bit for bit."""

    def f(x, i, m):
        return (F.pad(x > 0, (1, 1), value=True), F.pad(i * 2, (0, 2, 1, 0), value=-7),
                F.pad(m, (2, 0)) | (F.pad(x, (2, 0), value=1.0) < 0), F.pad(x.half(), (1, 1), value=0.1))
    torch._dynamo.reset()
    compiled = bessemer.compile(f, fallback="error", backend=backend)
    gen = torch.Generator().manual_seed(0)
    x, i = torch.randn(3, 5, generator=gen), torch.randint(-5, 5, (3, 5), generator=gen)
    m = torch.rand(3, 5, generator=gen) > 0.5
    for c, e in zip(compiled(x, i, m), f(x, i, m)):
        assert c.dtype == e.dtype
        torch.testing.assert_close(c, e, rtol=0, atol=0)
