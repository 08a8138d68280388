"""Graph breaks bessemer removes: a transformers causal LM (whose loss calls the
logger's `warning_once` inside forward) is one Dynamo graph, not two."""
from __future__ import annotations

import copy

import torch
from torch._dynamo.utils import counters

from bessemer.compiler.capture.backend import make_backend
from bessemer.config import TrainingCompilerConfig
from bessemer.zoo import build


def test_hf_causal_lm_is_one_graph_and_trains_as_eager(tmp_path):
    torch._dynamo.reset()
    counters.clear()
    w = build("gpt2", "tiny", seed=0)
    model, ref = w.model, copy.deepcopy(w.model)
    assert getattr(model.config, "loss_type", None) is None   # the case that calls warning_once
    backend = make_backend(TrainingCompilerConfig(cache_dir=str(tmp_path / "cache"), fallback="error",
                                                  graph_cache=False))
    compiled = torch.compile(model, backend=backend)
    batch = w.make_batch(0)
    out = compiled(**batch)
    out.loss.backward()
    want = ref(**batch)
    want.loss.backward()
    assert counters["stats"]["unique_graphs"] == 1, dict(counters["graph_break"])
    assert not counters["graph_break"], dict(counters["graph_break"])
    torch.testing.assert_close(out.loss, want.loss, rtol=1e-5, atol=1e-6)
    for p, q in zip(model.parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-6)
    torch._dynamo.reset()
