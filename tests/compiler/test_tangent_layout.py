"""The gradient of an output that overlaps itself reaches the compiled backward whole
(capture/tangent_layout.py)."""
import pytest
import torch

import bessemer
from bessemer.compiler.capture.tangent_layout import may_overlap


@pytest.mark.parametrize("make, overlaps", [
    (lambda: torch.zeros(6).unfold(0, 2, 1), True),
    (lambda: torch.zeros(6).unfold(0, 2, 2), False),
    (lambda: torch.zeros(3, 1).expand(3, 4), True),
    (lambda: torch.zeros(4, 6)[:, ::2], False),
    (lambda: torch.zeros(4, 6).t(), False),
    (lambda: torch.zeros(2, 3, 4, 5).to(memory_format=torch.channels_last), False),
    (lambda: torch.zeros(20).as_strided((3, 3), (3, 2)), True),
])
def test_may_overlap(make, overlaps):
    assert may_overlap(make()) is overlaps


def test_an_unfold_output_trains_as_eager_call_after_call():
    """Windows of an intermediate returned: each call's gradient (a new one each step) reaches
    the backward whole, on AOTAutograd's path and on the direct call after it."""
    class Windows(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(4, 8)

        def forward(self, x):
            return torch.tanh(self.lin(x)).unfold(1, 3, 1)

    torch.manual_seed(0)
    ref = Windows()
    model = Windows()
    model.load_state_dict(ref.state_dict())
    compiled = bessemer.compile(model, fallback="error")
    for step in range(4):
        x = torch.randn(5, 4)
        g = torch.randn(5, 6, 3)
        ref.zero_grad()
        model.zero_grad()
        out_e, out_c = ref(x), compiled(x)
        torch.testing.assert_close(out_c, out_e)
        out_e.backward(g)
        out_c.backward(g)
        for (name, pe), pc in zip(ref.named_parameters(), model.parameters()):
            torch.testing.assert_close(pc.grad, pe.grad, msg=f"step {step}: {name}.grad")
    kinds = [cg.name.rstrip("0123456789") for cg in compiled.forward._bessemer_backend.compiled]
    assert kinds == ["forward", "backward"], kinds
