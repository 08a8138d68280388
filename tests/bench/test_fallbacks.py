"""The bench reads what ran eagerly from bessemer's own warnings: a graph the
pipeline could not compile, an optimizer left to torch, an op with no lowering."""
import warnings

import pytest
import torch

import bessemer
from bessemer.bench import fallbacks
from bessemer.compiler.capture import backend as capture


def test_a_graph_that_runs_eagerly_is_a_fallback(monkeypatch, tmp_path):
    def fail(self, gm, example_inputs, fallback="warn", sizes=None):
        raise RuntimeError("no kernel for this")

    monkeypatch.setattr(capture.Pipeline, "run", fail)
    torch._dynamo.reset()
    f = bessemer.compile(lambda x: (x.sin() * 2).sum(), cache_dir=str(tmp_path), fallback="warn")
    with fallbacks.Recorder() as rec:
        out = f(torch.randn(8))
    torch._dynamo.reset()
    assert torch.isfinite(out)
    r = rec.report()
    assert len(r.fallbacks) == 1 and "runs eagerly" in r.fallbacks[0] and "no kernel for this" in r.fallbacks[0]
    assert r.unlowered_ops == []


def test_an_optimizer_left_to_torch_is_a_fallback(tmp_path):
    p = torch.nn.Parameter(torch.randn(4))
    opt = torch.optim.Adagrad([p])   # no fused update for Adagrad
    with fallbacks.Recorder() as rec:
        bessemer.compile(torch.nn.Linear(2, 2), optimizer=opt, cache_dir=str(tmp_path), fallback="warn")
    assert len(rec.report().fallbacks) == 1


def test_classify_sorts_the_messages():
    r = fallbacks.classify([
        "bessemer: forward graph forward0 runs eagerly (CalledProcessError: build failed\ng++: error)",
        "bessemer: AdamW.step runs torch's eager update for a parameter group: foreach=False",
        "bessemer: aten.frob.default has no lowering; it runs as an ATen call",
        "bessemer: aten.frob.default has no lowering; it runs as an ATen call",
        "bessemer: recompiling a graph for new input shapes ((2,) -> (3,)); pad ...",
        "bessemer: CUDA graphs off for graph forward0: dynamic; it runs kernel by kernel",
        "some other library's warning",
    ])
    assert r.fallbacks == ["bessemer: forward graph forward0 runs eagerly (CalledProcessError: build failed",
                           "bessemer: AdamW.step runs torch's eager update for a parameter group: foreach=False"]
    assert r.unlowered_ops == ["aten.frob.default"] and r.recompiles == 1


def test_recorder_counts_repeated_warnings_and_keeps_them_in_the_log(capsys):
    with fallbacks.Recorder() as rec:
        for _ in range(2):
            warnings.warn("bessemer: forward graph g runs eagerly (x)")
    assert len(rec.report().fallbacks) == 2
    assert capsys.readouterr().err.count("UserWarning: bessemer: forward graph g") == 2


def test_a_symbolic_graph_past_its_shapes_is_a_fallback():
    r = fallbacks.classify(["bessemer: graph forward3 was compiled for 64 shapes; further new shapes run "
                            "eagerly (pad inputs to fewer lengths)"])
    assert r.fallbacks == ["bessemer: graph forward3 was compiled for 64 shapes; further new shapes run "
                           "eagerly (pad inputs to fewer lengths)"]


@pytest.mark.recompile_limit
def test_dynamo_recompile_limit_is_a_fallback(tmp_path):
    """Past the limit Dynamo runs the frame eagerly for new shapes and only logs it."""
    torch._dynamo.reset()
    f = bessemer.compile(lambda x: x.sin() + 1, cache_dir=str(tmp_path), fallback="error", dynamic=False)
    with torch._dynamo.config.patch(recompile_limit=1), fallbacks.Recorder() as rec:
        for n in (2, 3, 4):
            f(torch.randn(n))
    torch._dynamo.reset()
    r = rec.report()
    assert r.fallbacks == [fallbacks.RECOMPILE_LIMIT]
    with fallbacks.Recorder() as quiet:     # a run that stays within the limit reports none
        bessemer.compile(lambda x: x.cos(), cache_dir=str(tmp_path), dynamic=False)(torch.randn(3))
    torch._dynamo.reset()
    assert quiet.report().fallbacks == []


def test_a_whole_step_left_eager_is_a_fallback():
    m = torch.nn.Linear(2, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bessemer.compile_step(m, torch.optim.RMSprop(m.parameters()), lambda mod, x: mod(x).sum())
    r = fallbacks.classify([str(w.message) for w in caught])
    assert len(r.fallbacks) == 1 and "RMSprop" in r.fallbacks[0]
