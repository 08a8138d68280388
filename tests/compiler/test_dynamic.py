"""Graphs with symbolic sizes: Dynamo compiles at most twice, bessemer specializes
each concrete shape, nothing runs eagerly, and training equals eager."""
from __future__ import annotations

import copy

import pytest
import torch
import torch.nn as nn

from torch._dynamo.utils import counters

import bessemer
from bessemer.compiler.capture import specialize
from bessemer.compiler.codegen import backends
from bessemer.compiler.capture.backend import make_backend
from bessemer.config import TrainingCompilerConfig


class HeadsModel(nn.Module):
    """Attention-shaped work over [batch, heads, time, dim]: permutes, a causal mask
    sized by the sequence, softmax, layer norm, and a mean over time."""

    def __init__(self, d=16, heads=2):
        super().__init__()
        self.h = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.ln = nn.LayerNorm(d)
        self.out = nn.Linear(d, 3)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (z.reshape(b, t, self.h, d // self.h).permute(0, 2, 1, 3) for z in (q, k, v))
        att = (q @ k.transpose(-1, -2)) / (d // self.h) ** 0.5
        mask = torch.ones(t, t, dtype=torch.bool).tril()
        att = att.masked_fill(~mask, float("-inf")).softmax(-1)
        y = (att @ v).permute(0, 2, 1, 3).reshape(b, t, d)
        return self.out(torch.nn.functional.gelu(self.ln(y + x))).mean(1)


@pytest.fixture(autouse=True)
def fresh_dynamo():
    """Dynamo keeps per-code state (cache entries, dims seen changing) across tests."""
    torch._dynamo.reset()
    counters.clear()
    yield
    torch._dynamo.reset()


@pytest.mark.parametrize("path", ["symbolic", "binding", "retrace"])
@pytest.mark.parametrize("dynamic", [None, True])
def test_varying_batch_and_length_compile_twice_and_train_as_eager(tmp_path, dynamic, path, monkeypatch):
    """Every way a symbolic graph is served: compiled once with symbolic sizes (kernels
    take the sizes as arguments; the usual one), or where that fails, specialized per
    shape -- lowered with its size symbols bound to the arguments' sizes, or traced
    again at the concrete sizes (when the arguments do not pin every symbol down)."""
    if path in ("symbolic", "binding"):
        def no_retrace(*a):
            raise AssertionError("the symbolic graph was traced again")
        monkeypatch.setattr(specialize, "concrete_graph", no_retrace)
    if path == "binding":
        monkeypatch.setattr(specialize.ShapeSpecialized, "_compile_symbolic", lambda self, *a: None)
    elif path == "retrace":
        monkeypatch.setattr(specialize, "size_binding", lambda gm, args, **kw: None)
    torch.manual_seed(0)
    model = HeadsModel()
    ref = copy.deepcopy(model)
    cfg = TrainingCompilerConfig(cache_dir=str(tmp_path / "cache"), fallback="error")
    backend = make_backend(cfg)
    compiled = torch.compile(model, backend=backend, dynamic=dynamic)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    opt_ref = torch.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    shapes = [(4, 8), (5, 8), (4, 11), (7, 5), (4, 8), (3, 13)]
    for i, (b, t) in enumerate(shapes):
        g = torch.Generator().manual_seed(i)
        x, target = torch.randn(b, t, 16, generator=g), torch.randn(b, 3, generator=g)
        for m, o in ((compiled, opt), (ref, opt_ref)):
            o.zero_grad()
            loss = ((m(x) - target) ** 2).mean()
            loss.backward()
            if m is compiled:
                got = loss.detach()
            else:
                torch.testing.assert_close(got, loss.detach(), rtol=1e-5, atol=1e-6)
            o.step()
    for p, q in zip(model.parameters(), ref.parameters()):
        torch.testing.assert_close(p, q, rtol=1e-4, atol=1e-6)
    # dynamic=True: one symbolic graph. dynamic=None (torch.compile's default): Dynamo
    # makes a dim symbolic the first time it changes -- the batch at the second shape,
    # the length at the third -- so the static first graph, then at most one per dim.
    frames = counters["stats"]["unique_graphs"]
    assert frames <= (1 if dynamic else 3), f"Dynamo compiled {frames} graphs"
    names = [cg.name for cg in backend.bessemer.compiled]
    static = [n for n in names if "." not in n]
    assert len(static) == (0 if dynamic else 2), names        # forward and backward of the first shape
    assert len(names) - len(static) <= 2 * len(shapes), names   # one specialization per shape at most
    if path == "symbolic":
        # one compile per symbolic graph (forward and backward) serves every later shape:
        # dynamic=True has one such pair, dynamic=None one when the batch starts to vary
        # and one when the length does
        assert len(names) - len(static) == (2 if dynamic else 4), names
        for cg in backend.bessemer.compiled:
            if "." in cg.name:
                assert "_s" in cg.source and "_s" in cg.wrapper, cg.name   # sizes are kernel arguments


def test_bessemer_compile_defaults_to_torch_compile_dynamic(tmp_path):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
    ref = copy.deepcopy(model)
    bessemer.compile(model, cache_dir=str(tmp_path / "cache"), fallback="error")
    for b in (2, 3, 4, 5, 6):
        x = torch.randn(b, 8)
        torch.testing.assert_close(model(x), ref(x))
    names = [cg.name for cg in model.forward._bessemer_backend.compiled]
    assert any("." in n for n in names), names   # a symbolic graph, specialized per shape


def test_dynamic_false_compiles_one_static_graph_per_shape(tmp_path):
    model = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
    bessemer.compile(model, cache_dir=str(tmp_path / "cache"), fallback="error", dynamic=False)
    for b in (2, 3, 4):
        model(torch.randn(b, 8))
    names = [cg.name for cg in model.forward._bessemer_backend.compiled]
    assert len(names) == 3 and not any("." in n for n in names), names


def test_specializations_are_bounded(tmp_path, monkeypatch):
    """Compiles per shape (where symbolic sizes cannot serve) stop at MAX_SHAPES."""
    monkeypatch.setattr(specialize, "MAX_SHAPES", 2)
    monkeypatch.setattr(specialize.ShapeSpecialized, "_compile_symbolic", lambda self, *a: None)
    f = torch.compile(lambda x: torch.tanh(x) * 2, dynamic=True,
                      backend=make_backend(TrainingCompilerConfig(cache_dir=str(tmp_path / "c"), fallback="error")))
    f(torch.randn(3))
    f(torch.randn(4))
    with pytest.raises(Exception, match="specialized for 2 shapes"):
        f(torch.randn(5))


def test_dynamic_field_is_checked():
    with pytest.raises(ValueError, match="dynamic"):
        TrainingCompilerConfig(dynamic="yes")


def test_size_binding_reads_the_symbols_and_refuses_what_it_cannot_pin():
    from torch.fx.experimental.proxy_tensor import make_fx

    def f(x, y):
        return (x.reshape(-1) * 2).sum() + y.sum()

    gm = make_fx(f, tracing_mode="symbolic")(torch.randn(3, 4), torch.randn(5))
    b = specialize.size_binding(gm, [torch.randn(6, 4), torch.randn(7)])
    assert b is not None and sorted(b.values.values()) == [4, 6, 7]
    # the same symbol bound to two different sizes cannot be right
    gm2 = make_fx(lambda x, y: x + y, tracing_mode="symbolic")(torch.randn(3), torch.randn(3))
    assert specialize.size_binding(gm2, [torch.randn(3), torch.randn(4)]) is None
    # a wrong number of arguments is no binding either
    assert specialize.size_binding(gm, [torch.randn(6, 4)]) is None


@pytest.mark.skipif(not backends.triton_interpreting(), reason="runs CPU tensors through Triton's interpreter")
def test_triton_kernels_of_a_symbolic_graph_train_as_eager(tmp_path, monkeypatch):
    """The Triton backend (under the interpreter) serves a symbolic graph's shapes too,
    each lowered from the symbolic graph with its sizes bound."""
    def no_retrace(*a):
        raise AssertionError("the symbolic graph was traced again")
    monkeypatch.setattr(specialize, "concrete_graph", no_retrace)
    torch.manual_seed(0)
    model = HeadsModel()
    ref = copy.deepcopy(model)
    backend = make_backend(TrainingCompilerConfig(cache_dir=str(tmp_path / "cache"), fallback="error",
                                                  backend="triton"))
    compiled = torch.compile(model, backend=backend, dynamic=True)
    for i, (b, t) in enumerate([(2, 5), (3, 7), (2, 6)]):
        g = torch.Generator().manual_seed(i)
        x = torch.randn(b, t, 16, generator=g)
        for m in (compiled, ref):
            m.zero_grad()
            (m(x) ** 2).mean().backward()
        torch.testing.assert_close(compiled(x), ref(x), rtol=1e-5, atol=1e-6)
        for p, q in zip(model.parameters(), ref.parameters()):
            torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-6)
    names = [cg.name for cg in backend.bessemer.compiled]
    assert names and all("." in n for n in names) and all(cg.backend == "triton"
                                                           for cg in backend.bessemer.compiled), names
    # one symbolic compile of the forward and one of the backward served all three shapes,
    # the Triton kernels taking the sizes as arguments
    assert len(names) == 2, names
    assert all("_s" in cg.source for cg in backend.bessemer.compiled)


@pytest.mark.skipif(not backends.triton_interpreting(), reason="runs CPU tensors through Triton's interpreter")
def test_a_split_column_reduction_serves_every_row_count(tmp_path):
    """A bias gradient over many rows is split into chunks of rows; with symbolic sizes the
    number of chunks follows the row count at run time, so one compile serves them all."""
    backend = make_backend(TrainingCompilerConfig(cache_dir=str(tmp_path / "cache"), fallback="error",
                                                  backend="triton"))
    f = torch.compile(lambda x: (x * 2).sum(0), backend=backend, dynamic=True)
    for rows in (2100, 2600, 4500):
        x = torch.randn(rows, 16, generator=torch.Generator().manual_seed(rows))
        torch.testing.assert_close(f(x), (x * 2).sum(0), rtol=1e-5, atol=1e-4)
    names = [cg.name for cg in backend.bessemer.compiled]
    assert len(names) == 1, names
    (cg,) = backend.bessemer.compiled
    (k,) = cg.kernels
    assert k.kind == "column reduction" and k.meta.chunk > 0 and "NSPLIT" in cg.source


def test_python_floats_of_a_symbolic_graph_are_computed_in_its_kernels(tmp_path):
    """With symbolic sizes Dynamo passes Python floats (math.pi in GPT-2's GELU) as 0-dim
    float64 tensors through true_divide and convert_element_type: these are lowered, so no
    ATen call is left for them in every layer."""
    import math

    def gelu(x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))

    backend = make_backend(TrainingCompilerConfig(cache_dir=str(tmp_path / "c"), fallback="error"))
    f = torch.compile(gelu, backend=backend, dynamic=True)
    for n in (5, 7):
        x = torch.randn(n, 3, requires_grad=True)
        xr = x.detach().clone().requires_grad_()
        f(x).sum().backward()
        gelu(xr).sum().backward()
        torch.testing.assert_close(x.grad, xr.grad)
    assert [(cg.n_kernels, cg.n_externs) for cg in backend.bessemer.compiled] == [(1, 0), (1, 0)]


def test_a_slice_scatter_over_all_of_its_input_is_lowered(tmp_path):
    """A backward traced with symbolic sizes keeps slice_scatter(x, src, dim, 0, sys.maxsize),
    which a static trace folds away: it is src, computed without an ATen call."""
    import sys

    def f(x, y):
        return torch.slice_scatter(x, y * 2, 1, 0, sys.maxsize) + 1

    backend = make_backend(TrainingCompilerConfig(cache_dir=str(tmp_path / "c"), fallback="error"))
    g = torch.compile(f, backend=backend, dynamic=True)
    for n in (5, 7):
        x, y = torch.randn(3, n), torch.randn(3, n)
        torch.testing.assert_close(g(x, y), f(x, y))
    assert [cg.n_externs for cg in backend.bessemer.compiled] == [0]
