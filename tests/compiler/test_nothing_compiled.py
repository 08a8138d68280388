"""A module whose whole forward Dynamo runs eagerly is a failure of the compile, not a
silent eager model: fallback="error" raises, "warn" warns once and gives eager's values."""
from __future__ import annotations

import pytest
import torch

import bessemer
from bessemer.api import NothingCompiled


class Skipped(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)

    @torch._dynamo.disable
    def forward(self, x):
        return torch.tanh(self.lin(x))


def test_a_forward_dynamo_skips_whole_raises_under_fallback_error(tmp_path):
    model = bessemer.compile(Skipped(), fallback="error", cache_dir=str(tmp_path))
    with pytest.raises(NothingCompiled, match="compiled no graph of Skipped's forward"):
        model(torch.randn(2, 4))


def test_under_fallback_warn_it_warns_and_equals_eager(tmp_path, caplog):
    torch.manual_seed(0)
    eager = Skipped()
    model = Skipped()
    model.load_state_dict(eager.state_dict())
    bessemer.compile(model, fallback="warn", cache_dir=str(tmp_path))
    x = torch.randn(2, 4)
    with caplog.at_level("WARNING", logger="bessemer"):
        got = model(x)
    assert "compiled no graph of Skipped's forward" in caplog.text
    torch.testing.assert_close(got, eager(x), rtol=0, atol=0)


def test_a_compiled_forward_passes_and_the_check_leaves_the_call_path(tmp_path):
    model = bessemer.compile(torch.nn.Linear(4, 3), fallback="error", cache_dir=str(tmp_path))
    checked = model.forward
    model(torch.randn(2, 4)).sum().backward()
    assert model.forward is not checked and getattr(model.forward, "_bessemer_compiled", False)
    assert model.forward._bessemer_backend.compiled          # graphs were compiled
    model(torch.randn(2, 4))
