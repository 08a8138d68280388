"""Absent tangents (compiler/capture/tangents.py): a graph returning a loss and its logits gets no
zero-filled tangent for the logits when the step differentiates only the loss, so that
tensor is never allocated; every other pattern (the logits differentiated too, or alone)
trains as eager, and so does a second process loading the graphs from the graph cache."""
import copy
import json
import os
import pickle
import subprocess
import sys
import textwrap

import pytest
import torch

import bessemer
from bessemer.bench import measure
from bessemer.compiler.capture import graph_cache
from bessemer.compiler.capture import tangents

VOCAB, ROWS = 2048, 512


class LossAndLogits(torch.nn.Module):
    def __init__(self, vocab: int = VOCAB):
        super().__init__()
        self.a = torch.nn.Linear(32, 64)
        self.b = torch.nn.Linear(64, vocab)

    def forward(self, x, y):
        logits = self.b(torch.tanh(self.a(x)))
        return torch.nn.functional.cross_entropy(logits, y), logits


def _batch(i: int, rows: int = ROWS, vocab: int = VOCAB):
    g = torch.Generator().manual_seed(i)
    return torch.randn(rows, 32, generator=g), torch.randint(0, vocab, (rows,), generator=g)


def _loss(kind: str, loss, logits):
    return {"loss": lambda: loss,
            "both": lambda: loss + logits.square().mean(),
            "logits": lambda: logits.square().mean()}[kind]()


def _train(model, kinds, steps: int = 3, vocab: int = VOCAB):
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    grads = []
    for i in range(steps):
        opt.zero_grad(set_to_none=True)
        x, y = _batch(i, vocab=vocab)
        _loss(kinds[i % len(kinds)], *model(x, y)).backward()
        grads.append([p.grad.clone() for p in model.parameters()])
        opt.step()
    return grads


def _backward_graphs(model):
    return [cg for cg in model.forward._bessemer_backend.compiled if cg.name.startswith("backward")]


@pytest.mark.parametrize("kinds", [("loss",), ("both",), ("logits",), ("loss", "both", "logits", "loss")])
def test_every_pattern_of_tangents_trains_as_eager(kinds):
    torch.manual_seed(0)
    ref = LossAndLogits()
    model = copy.deepcopy(ref)
    bessemer.compile(model, config=bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))
    got, want = _train(model, kinds), _train(ref, kinds)
    for g, w in zip(got, want):
        for a, b in zip(g, w):
            torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
    for p, q in zip(model.parameters(), ref.parameters()):
        torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6)
    # the backward is compiled for the loss alone (no logits tangent), and once more for each
    # other pattern the steps show
    assert len(_backward_graphs(model)) == 1 + len(set(kinds) - {"loss"}), [cg.name for cg in _backward_graphs(model)]


def test_the_predicted_tangents_are_the_non_scalar_ones():
    gm = torch.fx.symbolic_trace(lambda t1, t2, s, tangents_1, tangents_2: t1 * tangents_1 + s * tangents_2)
    vals = {"t1": torch.randn(8, 4), "t2": torch.randn(8, 4), "s": torch.randn(()),
            "tangents_1": torch.randn(()), "tangents_2": torch.randn(8, 4)}
    for n in gm.graph.nodes:
        if n.op == "placeholder":
            n.meta["val"] = vals[n.name]
    assert tangents.tangent_positions(gm) == (3, 4)
    assert tangents.predicted(gm) == (4,)
    gm2, inputs = tangents.without(gm, list(vals.values()), (4,))
    assert [n.name for n in gm2.graph.nodes if n.op == "placeholder"] == ["t1", "t2", "s", "tangents_1"]
    torch.testing.assert_close(gm2(*inputs), gm(*vals.values()) - vals["s"] * vals["tangents_2"])


class MeanAndLogits(LossAndLogits):
    """A loss whose backward saves nothing: the peak is in the backward, where the logits'
    gradient is written, so a zero tangent beside it adds to the peak."""

    def forward(self, x, y):
        logits = self.b(torch.tanh(self.a(x)))
        return logits.mean(), logits


def test_no_zero_tangent_is_allocated():
    """The step's peak is lower by the logits' size than with the engine's zero filling."""
    peaks = {}
    for fill in (True, False):
        torch.manual_seed(0)
        model = MeanAndLogits()
        real = tangents.turns_off_filling
        if fill:
            tangents.turns_off_filling = lambda *a: False
        try:
            bessemer.compile(model, config=bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))
            batches = [_batch(i) for i in range(3)]
            tracker = measure.PeakMemory(torch.device("cpu"), [*model.parameters(), *(t for b in batches for t in b)])
            with tracker:
                for i in range(3):
                    ctx = tracker.measured_step() if i == 2 else _null()
                    with ctx:
                        model(*batches[i])[0].backward()
                        model.zero_grad(set_to_none=True)
        finally:
            tangents.turns_off_filling = real
        peaks[fill] = tracker.peak_bytes
    logits_bytes = ROWS * VOCAB * 4
    assert peaks[True] - peaks[False] >= 0.75 * logits_bytes, peaks


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_a_stored_graph_pickles_as_nodes_and_runs_the_same():
    """A graph the cache keeps unpickles with no tensor made for its constant ops."""
    g = torch.fx.Graph()
    x = g.placeholder("x")
    z = g.call_function(torch.ops.aten.full.default, ([256, 256], 0.0), {
        "dtype": torch.float32, "layout": torch.strided, "device": torch.device("cpu"), "pin_memory": False})
    s = g.call_function(torch.ops.aten.sum.dim_IntList, (g.call_function(torch.ops.aten.add.Tensor, (x, z)), [0]))
    g.output((s, g.call_function(torch.ops.aten.slice.Tensor, (x, 0, 1))))
    gm = torch.fx.GraphModule(torch.nn.Module(), g)
    back = pickle.loads(pickle.dumps(graph_cache.fallback_module(gm)))
    assert not [k for k, v in back.named_buffers()] and not [k for k in dir(back) if k.startswith("_tensor_constant")]
    x = torch.randn(256, 256)
    for a, b in zip(back(x), gm(x)):
        torch.testing.assert_close(a, b)


WORKER = textwrap.dedent('''
    import copy, json, sys
    import torch, bessemer
    sys.path.insert(0, sys.argv[3])
    from test_tangents import LossAndLogits, _train
    from bessemer.compiler.capture import graph_cache
    torch.manual_seed(0)
    ref = LossAndLogits(256)
    model = copy.deepcopy(ref)
    bessemer.compile(model, config=bessemer.TrainingCompilerConfig(fallback="error", cache_dir=sys.argv[1]))
    kinds = sys.argv[2].split(",")
    got, want = _train(model, kinds, vocab=256), _train(ref, kinds, vocab=256)
    ok = all(torch.allclose(a, b, rtol=1e-5, atol=1e-6) for g, w in zip(got, want) for a, b in zip(g, w))
    print("RESULT", json.dumps({"grads_equal": ok, "stats": graph_cache.stats,
                                "graphs": [cg.name for cg in model.forward._bessemer_backend.compiled]}))
''')


def _process(tmp_path, cache, kinds: str) -> dict:
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    env = dict(os.environ, BESSEMER_GRAPH_CACHE="1", BESSEMER_VERIFY="1")
    env.pop("BESSEMER_DEBUG", None)
    p = subprocess.run([sys.executable, str(script), str(cache), kinds, os.path.dirname(__file__)],
                       capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT "):])


def test_a_loaded_backward_compiles_another_pattern_from_the_graph_the_cache_kept(tmp_path):
    cache = tmp_path / "cache"
    first = _process(tmp_path, cache, "loss")
    assert first["grads_equal"] and first["stats"]["saved"] == 1, first
    second = _process(tmp_path, cache, "both,loss")
    assert second["grads_equal"], second
    assert second["stats"]["hits"] == 2, second          # forward and backward loaded
    assert len(second["graphs"]) == 3, second            # and one backward compiled for "both"


class SequenceLogits(torch.nn.Module):
    """A language model's shapes: [batch, length, vocabulary] logits, flattened for the loss."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(32, 512))

    def forward(self, x, y):
        logits = (x.view(-1, 32) @ self.w).view(4, 16, 512)
        return torch.nn.functional.cross_entropy(logits.view(-1, 512), y.view(-1)), logits


def test_a_missing_tangent_leaves_one_kernel_writing_the_gradient():
    """The zero tangent folds away (x + 0 is x), and the reshapes around it fold into one
    (fold_views: a reshape of a dense reshape), so the logits' gradient is written once, by
    the kernel that computes it, not copied into a buffer of the [batch, length] shape."""
    torch.manual_seed(0)
    ref = SequenceLogits()
    model = copy.deepcopy(ref)
    bessemer.compile(model, config=bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))
    x, y = torch.randn(4, 16, 32), torch.randint(0, 512, (4, 16))
    model(x, y)[0].backward()
    ref(x, y)[0].backward()
    torch.testing.assert_close(model.w.grad, ref.w.grad)
    (bw,) = _backward_graphs(model)
    assert bw.n_kernels == 1, bw.schedule_text
