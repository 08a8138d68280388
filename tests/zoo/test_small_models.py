"""The small custom models (zoo/small.py) train as eager does, compiled two ways.

Each model at scale tiny, three steps of SGD with momentum and clip_grad_norm_ (its
recipe), the same seeds before every step (dropout draws the same masks):

- `bessemer.compile(model, optimizer=opt)`: the model's graphs and the fused update;
  losses, gradients, state_dict and the optimizer's state equal eager's.
- `bessemer.compile_step`: the whole step as one program; losses, gradients (set_grads),
  state_dict and optimizer state equal eager's.

Both with fallback="error", and both check that graphs were compiled. The whole step of
the three larger graphs runs in `make test-full` (marked `full`).
"""
import copy

import pytest
import torch

import bessemer
from bessemer import zoo
from bessemer.bench.runner import make_optimizer
from bessemer.compiler.optim import fused_step_of

SMALL = zoo.names("small")
STEPS = 3
RTOL = 1e-4


def _close(c, e, name):
    atol = 1e-6 * max(1.0, e.abs().max().item()) if e.is_floating_point() and e.numel() else 0.0
    torch.testing.assert_close(c, e, rtol=RTOL if e.is_floating_point() else 0, atol=atol,
                               msg=lambda m: f"{name}: {m}")


def _eager(w, model, opt, clip):
    losses = []
    for i in range(STEPS):
        opt.zero_grad(set_to_none=True)
        torch.manual_seed(i)
        loss = w.loss_fn(model, w.make_batch(i))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        losses.append(loss.detach())
    return losses


def _compare(w, me, oe, mc, oc, le, lc):
    for i, (a, b) in enumerate(zip(lc, le)):
        _close(a, b, f"loss {i}")
    for (n, pe), pc in zip(me.named_parameters(), mc.parameters()):
        assert (pc.grad is None) == (pe.grad is None), n
        if pe.grad is not None:
            _close(pc.grad, pe.grad, f"{n}.grad")
    for (n, e), c in zip(me.state_dict().items(), mc.state_dict().values()):
        _close(c, e, n)
    se, sc = oe.state_dict(), oc.state_dict()
    assert se["param_groups"] == sc["param_groups"]
    for k, st in se["state"].items():
        for key, e in st.items():
            _close(sc["state"][k][key], e, f"optimizer state {k}.{key}")


@pytest.mark.parametrize("name", SMALL)
def test_small_model_compiled_trains_as_eager(name):
    w = zoo.build(name, "tiny", seed=0)
    training = zoo.spec(name).training
    assert training["optimizer"] == "sgd" and training["momentum"] > 0
    clip = training["max_grad_norm"]
    me, mc = w.model, copy.deepcopy(w.model)
    oe, oc = make_optimizer(training, me), make_optimizer(training, mc)
    le = _eager(w, me, oe, clip)
    bessemer.compile(mc, optimizer=oc, fallback="error", graph_cache=False)
    assert fused_step_of(oc) is not None
    lc = _eager(w, mc, oc, clip)     # the same loop: the model's call and opt.step are compiled
    assert mc.forward._bessemer_backend.compiled, "no graph was compiled"
    assert fused_step_of(oc).fused_groups == STEPS
    _compare(w, me, oe, mc, oc, le, lc)


# The whole step of the conv nets and the decoder is a large graph to compile (a minute on two
# loaded cores): `make test` runs the MLP and the MoE, `make test-full` all five.
_HEAVY = ("rope-decoder", "small-unet", "bn-cnn")


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.full) if n in _HEAVY else n for n in SMALL])
def test_small_model_whole_step_trains_as_eager(name):
    w = zoo.build(name, "tiny", seed=0)
    training = zoo.spec(name).training
    clip = training["max_grad_norm"]
    me, mc = w.model, copy.deepcopy(w.model)
    oe, oc = make_optimizer(training, me), make_optimizer(training, mc)
    le = _eager(w, me, oe, clip)
    step = bessemer.compile_step(mc, oc, lambda m, batch: w.loss_fn(m, batch), max_grad_norm=clip,
                                 set_grads=True, fallback="error", graph_cache=False)
    lc = []
    for i in range(STEPS):
        torch.manual_seed(i)
        lc.append(step(w.make_batch(i)))
    assert step.compiled_steps == STEPS and step.backend.compiled
    # one program for every step (no dampening: the first step's zero momentum buffers give
    # torch's buf = grad): new batches of the same shapes (a dict of tensors) compile nothing
    assert len(step.programs) == 1
    _compare(w, me, oe, mc, oc, le, lc)


@pytest.mark.parametrize("name", SMALL)
def test_small_model_step_is_one_region_called_directly(name, monkeypatch):
    """Each model's forward is one Dynamo graph (no graph break: topk-moe's routing, dropout's
    draws and BatchNorm's running statistics included), compiled as one forward and one
    backward program; after the first step (which compiles the backward) every step calls
    the two programs once each through the direct call, none through AOTAutograd's wrappers;
    and it trains as eager."""
    from torch._dynamo.utils import counters

    from bessemer.compiler.capture import direct
    from bessemer.compiler.runtime.graph_call import GraphCall

    torch._dynamo.reset()
    counters.clear()
    direct_calls, program_calls = [], []
    fw = direct.CompiledFunction.forward
    monkeypatch.setattr(direct.CompiledFunction, "forward",
                        staticmethod(lambda ctx, g, *a: direct_calls.append(1) or fw(ctx, g, *a)))
    call = GraphCall.__call__
    monkeypatch.setattr(GraphCall, "__call__", lambda self, args: program_calls.append(1) or call(self, args))

    w = zoo.build(name, "tiny", seed=0)
    training = zoo.spec(name).training
    clip = training["max_grad_norm"]
    me, mc = w.model, copy.deepcopy(w.model)
    oe, oc = make_optimizer(training, me), make_optimizer(training, mc)
    le = _eager(w, me, oe, clip)
    assert program_calls == []
    bessemer.compile(mc, optimizer=oc, fallback="error", graph_cache=False)
    lc = _eager(w, mc, oc, clip)
    graphs = mc.forward._bessemer_backend.compiled
    assert sorted(cg.name.rstrip("0123456789") for cg in graphs) == ["backward", "forward"]
    assert counters["stats"]["unique_graphs"] == 1
    assert sum(counters["graph_break"].values()) == 0, dict(counters["graph_break"])
    assert len(direct_calls) == STEPS - 1
    assert len(program_calls) == 2 * STEPS
    _compare(w, me, oe, mc, oc, le, lc)
