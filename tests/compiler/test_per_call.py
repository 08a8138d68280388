"""What a compiled call costs besides its kernels: no torch._dynamo.disable wrapper of
bessemer's own, nor Dynamo's profiler labels around the pre-graph bytecode, is entered on a
step's direct path (each costs four set_eval_frame calls and two Python frames), and with
Dynamo watching the same graphs still run with it off."""
import copy
import sys

import torch
import torch.nn.functional as F
from torch import nn

import bessemer


def _wrapped_in_disable_calls(fn) -> list[str]:
    """The functions (not callable objects) torch._dynamo.disable wrappers ran during fn()."""
    seen = []

    def prof(frame, event, arg):
        if event == "c_call" and getattr(arg, "__name__", "") == "set_eval_frame" \
                and frame.f_code.co_name == "_fn" and "fn" in frame.f_locals:
            inner = frame.f_locals["fn"]
            if not callable(getattr(inner, "__code__", None) and inner):
                return   # Dynamo's own wrapper around the backend's compiled graph (an object)
            seen.append(f"{getattr(inner, '__module__', '?')}.{getattr(inner, '__qualname__', '?')}")

    sys.setprofile(prof)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return seen


def _model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 3))


def test_direct_path_enters_no_disable_wrapper_of_bessemers():
    m = _model()
    bessemer.compile(m, fallback="error", graph_cache=False)
    x = torch.randn(4, 8)

    def step():
        m(x).square().sum().backward()

    for _ in range(3):
        step()
    assert m.forward._bessemer_backend.compiled
    entered = _wrapped_in_disable_calls(step)
    assert [f for f in entered if f.startswith("bessemer")] == []
    # nor Dynamo's profiler labels around the frame's pre-graph bytecode
    assert not any("record_pregraph_bytecode" in f for f in entered), entered


def test_backward_inside_a_compiled_function_still_runs_with_dynamo_off():
    m, ref = _model(), _model()
    bessemer.compile(m, fallback="error", graph_cache=False)
    x = torch.randn(4, 8)
    for _ in range(3):
        m(x).square().sum().backward()
    m.zero_grad()

    @torch.compile(backend="eager")
    def outer(x):
        loss = m(x).square().sum()
        loss.backward()
        return loss

    outer(x)
    ref(x).square().sum().backward()
    for p, q in zip(m.parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad)


class _Heads(nn.Module):
    """A projection split into heads by a permuted view, a pointwise op on it, attention over
    the result (which its backward takes saved): eager's pointwise result keeps the permuted
    layout, the compiled forward writes it contiguous."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(16, 16)

    def forward(self, x):
        b, t, _ = x.shape
        q = self.proj(x).view(b, t, 2, 8).permute(0, 2, 1, 3)
        a, b_ = q.chunk(2, dim=-1)
        r = q * 0.5 + torch.cat([-b_, a], dim=-1) * 2.0      # a rotary embedding's shape of ops
        # attention over r alone: r, not the projection it comes from, is what the backward takes
        return F.scaled_dot_product_attention(r, r, r, is_causal=True).square().mean()


def _count_layout_copies(graphs) -> dict:
    """Patch each compiled program's _layout to count the inputs and extern results it copies."""
    copies = {}
    for cg in graphs:
        env = cg.fn.__globals__
        inner = env["_layout"]

        def counted(t, *a, _inner=inner, _name=cg.name):
            out = _inner(t, *a)
            copies[_name] = copies.get(_name, 0) + (out is not t)
            return out
        env["_layout"] = counted
    return copies


def test_backward_takes_saved_values_as_the_forward_lays_them_out(monkeypatch):
    """The forward program reports its outputs' strides to AOTAutograd, which compiles the
    backward for the saved values as they come: no copy into eager's layout at each call. With
    the report switched off the backward copies (the check can fail)."""
    from bessemer.compiler.capture import backend as backend_mod

    def run(report: bool):
        if not report:
            monkeypatch.setattr(backend_mod, "_report_output_strides", lambda strides: None)
        torch.manual_seed(0)
        m, ref = _Heads(), _Heads()
        ref.load_state_dict(m.state_dict())
        opt, opt_ref = torch.optim.SGD(m.parameters(), lr=0.1), torch.optim.SGD(ref.parameters(), lr=0.1)
        bessemer.compile(m, fallback="error", graph_cache=False)
        x = torch.randn(3, 5, 16)
        for _ in range(2):
            for model, o in ((m, opt), (ref, opt_ref)):
                o.zero_grad()
                loss = model(x)
                loss.backward()
                o.step()
        graphs = m.forward._bessemer_backend.compiled
        assert {cg.name.rstrip("0123456789") for cg in graphs} == {"forward", "backward"}
        copies = _count_layout_copies(graphs)
        loss, loss_ref = m(x), ref(x)
        torch.testing.assert_close(loss, loss_ref)
        loss.backward()
        loss_ref.backward()
        for p, q in zip(m.parameters(), ref.parameters()):
            torch.testing.assert_close(p.grad, q.grad)
            torch.testing.assert_close(p, q)
        torch._dynamo.reset()
        return sum(v for k, v in copies.items() if k.startswith("backward"))

    assert run(report=True) == 0
    assert run(report=False) > 0


def _externs(graphs) -> list:
    """The ATen ops the compiled programs call (their extern constants)."""
    return [v for cg in graphs for k, v in cg.consts.items() if k.startswith("_op")]


def test_group_norm_statistics_reshape_is_a_view_not_an_aten_call(monkeypatch):
    """GroupNorm's decomposition reshapes its per-group statistics with as_strided (forward and
    backward); over a contiguous tensor's own elements that is a view, which the programs take
    for free instead of calling ATen. Without the rewrite the programs call as_strided."""
    from bessemer.compiler.capture import backend as backend_mod

    def run(rewrite: bool):
        if not rewrite:
            monkeypatch.setattr(backend_mod, "_as_strided_to_view", lambda gm: None)
        # nn.Sequential's forward compiled earlier at other shapes would come back dynamic
        torch._dynamo.reset()
        torch.manual_seed(0)
        m = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.GroupNorm(2, 8), nn.SiLU(), nn.Conv2d(8, 3, 1))
        ref = copy.deepcopy(m)
        opt, opt_ref = (torch.optim.SGD(x.parameters(), lr=0.1, momentum=0.9) for x in (m, ref))
        bessemer.compile(m, fallback="error", graph_cache=False)
        for i in range(3):
            x = torch.randn(2, 3, 8, 8, generator=torch.Generator().manual_seed(i))
            for model, o in ((m, opt), (ref, opt_ref)):
                o.zero_grad()
                loss = model(x).square().mean()
                loss.backward()
                o.step()
                if model is m:
                    got = loss.detach()
            torch.testing.assert_close(got, loss.detach())
            for p, q in zip(m.parameters(), ref.parameters()):
                torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-6)
                torch.testing.assert_close(p, q, rtol=1e-4, atol=1e-6)
        graphs = m.forward._bessemer_backend.compiled
        assert {cg.name.rstrip("0123456789") for cg in graphs} == {"forward", "backward"}
        torch._dynamo.reset()
        return [op for op in _externs(graphs) if op is torch.ops.aten.as_strided.default]

    assert run(rewrite=True) == []
    assert run(rewrite=False)
