"""The torch internals bessemer reads where torch 2.11 (the oldest pyproject.toml allows, the one
GPU images ship) differs from 2.13: each shim exercised with the 2.11 shape of the internal.
`make test-torch211` runs the compile paths' tests under torch 2.11 itself."""
import types

import torch
from torch._functorch._aot_autograd.schemas import MemoryFormatMeta

import bessemer
from bessemer.compiler.capture import direct, tangent_layout


def test_the_tangent_layout_hook_calls_a_one_argument_from_tensor(monkeypatch):
    """torch 2.11's MemoryFormatMeta.from_tensor takes the tensor alone."""
    seen = []

    def from_tensor_211(t):
        seen.append(t)
        return None

    monkeypatch.setattr(MemoryFormatMeta, "from_tensor", staticmethod(from_tensor_211))
    t = torch.ones(3, 4)
    with tangent_layout.dense_tangents_for_overlapping_outputs():
        assert MemoryFormatMeta.from_tensor(t) is None
    assert seen == [t]
    assert vars(MemoryFormatMeta)["from_tensor"].__func__ is from_tensor_211   # put back


def test_an_output_without_requires_grad_for_backward_reads_requires_grad():
    assert direct._has_tangent(types.SimpleNamespace(requires_grad=True))
    assert not direct._has_tangent(types.SimpleNamespace(requires_grad=False))
    assert not direct._has_tangent(types.SimpleNamespace(requires_grad=True, requires_grad_for_backward=False))


def test_the_optimizer_program_traces_with_torch_211s_process_inputs(monkeypatch, tmp_path):
    """torch 2.11's process_inputs returns the fake arguments alone, not with the activations'
    indices: the update still compiles and trains as eager."""
    calls = []
    from torch._functorch import aot_autograd as aot
    original = aot.process_inputs

    def process_inputs_211(*args, **kwargs):
        out = original(*args, **kwargs)
        calls.append(1)
        return out[0] if isinstance(out, tuple) else out

    def run(compiled):
        torch.manual_seed(0)
        model = torch.nn.Linear(8, 4).to(torch.bfloat16)     # bf16: the update goes through the IR
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
        if compiled:
            bessemer.compile(model, optimizer=opt, cache_dir=str(tmp_path), fallback="error")
        g = torch.Generator().manual_seed(1)
        for _ in range(3):
            x = torch.randn(16, 8, generator=g).to(torch.bfloat16)
            opt.zero_grad()
            model(x).float().square().mean().backward()
            if compiled:    # the update's trace only: Dynamo's own trace of the model is 2.13's
                monkeypatch.setattr(aot, "process_inputs", process_inputs_211)
            opt.step()
            monkeypatch.undo()
        return model, opt
    (me, _), (mc, oc) = run(False), run(True)
    from bessemer.compiler.optim import fused_step_of
    assert fused_step_of(oc).ir_groups > 0 and calls
    for pe, pc in zip(me.parameters(), mc.parameters()):
        torch.testing.assert_close(pc, pe, rtol=2e-2, atol=1e-3)
