"""What a compiled call costs besides its kernels: no torch._dynamo.disable wrapper of
bessemer's own, nor Dynamo's profiler labels around the pre-graph bytecode, is entered on a
step's direct path (each costs four set_eval_frame calls and two Python frames), and with
Dynamo watching the same graphs still run with it off."""
import sys

import torch
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
