"""bessemer.compile_step: the whole training step as one compiled program, against eager.

Eager is the oracle: the same model, data and random seeds trained with
opt.zero_grad / loss.backward / clip_grad_norm_ / opt.step. Compared per step: the
loss and the clipped gradient norm; after the steps: the (clipped) gradients, the
model's state_dict (parameters and BatchNorm's running statistics) and the
optimizer's state_dict. Every test compiles with fallback="error" and checks that
the step ran as a compiled program.
"""
import pytest
import torch
from torch import nn

import bessemer
from bessemer.compiler.capture.step import StepCompileError

CFG = dict(fallback="error", graph_cache=False)


class Net(nn.Module):
    """Linear (no bias: BatchNorm follows) + BatchNorm + ReLU + Dropout + Linear."""

    def __init__(self, p_drop: float = 0.3):
        super().__init__()
        self.fc1 = nn.Linear(16, 32, bias=False)
        self.bn = nn.BatchNorm1d(32)
        self.drop = nn.Dropout(p_drop)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(self.drop(torch.relu(self.bn(self.fc1(x)))))


def loss_fn(model, x, y):
    return nn.functional.mse_loss(model(x), y)


def _data(n):
    g = torch.Generator().manual_seed(1)
    return [(torch.randn(8, 16, generator=g), torch.randn(8, 4, generator=g)) for _ in range(n)]


OPTIMIZERS = {
    "sgd-momentum": lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=1e-2),
    "sgd-nesterov": lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.8, nesterov=True),
    "adamw": lambda ps: torch.optim.AdamW(ps, lr=0.01, weight_decay=0.05),
    "adam-maximize": lambda ps: torch.optim.Adam(ps, lr=0.01, maximize=True),
    "adamw-amsgrad": lambda ps: torch.optim.AdamW(ps, lr=0.01, weight_decay=0.05, amsgrad=True),
    "adam-amsgrad": lambda ps: torch.optim.Adam(ps, lr=0.02, amsgrad=True, weight_decay=1e-2),
}


def _eager_step(model, opt, x, y, clip):
    opt.zero_grad(set_to_none=True)
    loss = loss_fn(model, x, y)
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), clip) if clip else None
    opt.step()
    return loss.detach(), norm


def _assert_close_state(a, b, rtol=1e-5, atol=1e-6):
    for (k, x), (k2, y) in zip(a.items(), b.items()):
        assert k == k2
        torch.testing.assert_close(x, y, rtol=rtol, atol=atol, msg=lambda m: f"{k}: {m}")


def _train_pair(make_opt, steps=4, clip=0.5, set_grads=True):
    data = _data(steps)
    torch.manual_seed(0)
    me = Net()
    mc = Net()
    mc.load_state_dict(me.state_dict())
    oe, oc = make_opt(me.parameters()), make_opt(mc.parameters())
    step = bessemer.compile_step(mc, oc, loss_fn, max_grad_norm=clip, set_grads=set_grads, **CFG)
    for i, (x, y) in enumerate(data):
        torch.manual_seed(100 + i)          # the same dropout masks, if the draws are the same
        le, ne = _eager_step(me, oe, x, y, clip)
        torch.manual_seed(100 + i)
        lc = step(x, y)
        torch.testing.assert_close(lc, le, rtol=1e-5, atol=1e-6)
        if clip:
            torch.testing.assert_close(step.grad_norm, ne, rtol=1e-5, atol=1e-6)
    return me, oe, mc, oc, step


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_step_trains_as_eager(name):
    me, oe, mc, oc, step = _train_pair(OPTIMIZERS[name])
    assert step.compiled_steps == 4 and step.eager_steps == 0
    assert step.backend.compiled, "no graph was compiled"
    assert all(cg.n_kernels > 0 for cg in step.backend.compiled)
    for (n, pe), pc in zip(me.named_parameters(), mc.parameters()):
        torch.testing.assert_close(pc.grad, pe.grad, rtol=1e-5, atol=1e-6, msg=lambda m: f"grad {n}: {m}")
    _assert_close_state(me.state_dict(), mc.state_dict())
    se, sc = oe.state_dict(), oc.state_dict()
    assert se["param_groups"] == sc["param_groups"]
    assert se["state"].keys() == sc["state"].keys()
    for k in se["state"]:
        _assert_close_state(se["state"][k], sc["state"][k])


@pytest.mark.parametrize("name", ["adamw-amsgrad", "adam-amsgrad"])
def test_amsgrad_keeps_the_running_maximum(name):
    """amsgrad divides by the running maximum of exp_avg_sq (state 'max_exp_avg_sq', made with
    the rest of the state): where the second moment fell, the maximum is what the update used."""
    me, oe, mc, oc, step = _train_pair(OPTIMIZERS[name], steps=6)
    assert step.compiled_steps == 6 and step.eager_steps == 0 and len(step.programs) == 1
    _assert_close_state(me.state_dict(), mc.state_dict())
    for pe, pc in zip(me.parameters(), mc.parameters()):
        se, sc = oe.state[pe], oc.state[pc]
        assert sorted(sc) == sorted(se) == ["exp_avg", "exp_avg_sq", "max_exp_avg_sq", "step"]
        _assert_close_state(dict(sorted(se.items())), dict(sorted(sc.items())))
    fell = sum(int((oc.state[p]["max_exp_avg_sq"] > oc.state[p]["exp_avg_sq"]).sum()) for p in mc.parameters())
    assert fell > 0, "no second moment fell: the maximum was never used"


def test_amsgrad_turned_on_after_the_state_was_made_is_refused():
    m = Net(0.0)
    opt = torch.optim.Adam(m.parameters(), lr=0.01)
    step = bessemer.compile_step(m, opt, loss_fn, **CFG)
    step(*_data(1)[0])
    opt.param_groups[0]["amsgrad"] = True
    with pytest.raises(ValueError, match="no 'max_exp_avg_sq'"):
        step(*_data(1)[0])


def test_dropout_masks_are_eagers():
    """With p=0.5 a different mask changes the loss: equal losses over steps mean equal draws."""
    data = _data(3)
    torch.manual_seed(0)
    me, mc = Net(0.5), Net(0.5)
    mc.load_state_dict(me.state_dict())
    oe = torch.optim.SGD(me.parameters(), lr=0.1, momentum=0.9)
    oc = torch.optim.SGD(mc.parameters(), lr=0.1, momentum=0.9)
    step = bessemer.compile_step(mc, oc, loss_fn, **CFG)
    for i, (x, y) in enumerate(data):
        torch.manual_seed(7 + i)
        le, _ = _eager_step(me, oe, x, y, None)
        after_eager = torch.rand(3)
        torch.manual_seed(7 + i)
        torch.testing.assert_close(step(x, y), le, rtol=1e-5, atol=1e-6)
        assert torch.equal(torch.rand(3), after_eager), "the RNG is left where eager leaves it"
    _assert_close_state(me.state_dict(), mc.state_dict())
    assert all(p.grad is None for p in mc.parameters()), "set_grads=False keeps gradients inside the program"


def test_checkpoint_resumes_as_eager():
    """state_dict of model and optimizer saved mid-run, loaded into fresh objects: the
    compiled step continues exactly as eager does."""
    make_opt = OPTIMIZERS["adamw"]
    me, oe, mc, oc, _ = _train_pair(make_opt, steps=2)
    m2 = Net()
    m2.load_state_dict(mc.state_dict())
    o2 = make_opt(m2.parameters())
    o2.load_state_dict(oc.state_dict())
    step = bessemer.compile_step(m2, o2, loss_fn, max_grad_norm=0.5, **CFG)
    for i, (x, y) in enumerate(_data(4)[2:]):
        torch.manual_seed(200 + i)
        le, _ = _eager_step(me, oe, x, y, 0.5)
        torch.manual_seed(200 + i)
        torch.testing.assert_close(step(x, y), le, rtol=1e-5, atol=1e-6)
    _assert_close_state(me.state_dict(), m2.state_dict())


def test_lr_schedule_needs_no_recompile():
    data = _data(4)
    torch.manual_seed(0)
    me, mc = Net(0.0), Net(0.0)
    mc.load_state_dict(me.state_dict())
    oe = torch.optim.SGD(me.parameters(), lr=0.1, momentum=0.9)
    oc = torch.optim.SGD(mc.parameters(), lr=0.1, momentum=0.9)
    se = torch.optim.lr_scheduler.StepLR(oe, 1, gamma=0.5)
    sc = torch.optim.lr_scheduler.StepLR(oc, 1, gamma=0.5)
    step = bessemer.compile_step(mc, oc, loss_fn, **CFG)
    for x, y in data:
        _eager_step(me, oe, x, y, None)
        step(x, y)
        se.step()
        sc.step()
    _assert_close_state(me.state_dict(), mc.state_dict())
    # one program whatever the lr
    assert len(step.programs) == 1


def test_sgd_with_dampening_first_step_and_unused_parameters():
    """dampening != 0: the first step's buffer is the gradient itself (its own program); a
    parameter without a gradient gets no state, as in torch."""
    class WithUnused(Net):
        def __init__(self):
            super().__init__(0.0)
            self.unused = nn.Linear(3, 3)

    data = _data(3)
    torch.manual_seed(0)
    me, mc = WithUnused(), WithUnused()
    mc.load_state_dict(me.state_dict())
    make = lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.3)   # noqa: E731
    oe, oc = make(me.parameters()), make(mc.parameters())
    step = bessemer.compile_step(mc, oc, loss_fn, max_grad_norm=1.0, **CFG)
    for x, y in data:
        _eager_step(me, oe, x, y, 1.0)
        step(x, y)
    _assert_close_state(me.state_dict(), mc.state_dict())
    se, sc = oe.state_dict()["state"], oc.state_dict()["state"]
    assert se.keys() == sc.keys()
    for k in se:
        _assert_close_state(se[k], sc[k])
    assert len(step.programs) == 2


@pytest.mark.parametrize("name", ["sgd-momentum", "adamw"])
def test_state_of_unused_parameters_is_dropped(name):
    class WithUnused(Net):
        def __init__(self):
            super().__init__(0.0)
            self.unused = nn.Linear(3, 3)

    m = WithUnused()
    opt = OPTIMIZERS[name](m.parameters())
    step = bessemer.compile_step(m, opt, loss_fn, **CFG)
    step(*_data(1)[0])
    assert m.unused.weight not in opt.state and m.fc1.weight in opt.state


def test_unsupported_optimizer_is_one_line_error():
    m = Net()
    with pytest.raises(StepCompileError, match="RMSprop has no compiled step"):
        bessemer.compile_step(m, torch.optim.RMSprop(m.parameters()), loss_fn, **CFG)


def test_unsupported_optimizer_runs_eagerly_with_a_warning():
    torch.manual_seed(0)
    me, mc = Net(0.0), Net(0.0)
    mc.load_state_dict(me.state_dict())
    oe, oc = torch.optim.RMSprop(me.parameters()), torch.optim.RMSprop(mc.parameters())
    with pytest.warns(UserWarning, match="whole step runs eagerly .compile_step.: RMSprop"):
        step = bessemer.compile_step(mc, oc, loss_fn, max_grad_norm=1.0, graph_cache=False)
    x, y = _data(1)[0]
    _eager_step(me, oe, x, y, 1.0)
    step(x, y)
    assert step.eager_steps == 1
    _assert_close_state(me.state_dict(), mc.state_dict())


@pytest.mark.parametrize("kwargs, words", [
    (dict(max_grad_norm=-1.0), "max_grad_norm must be a positive number"),
    (dict(max_grad_norm=float("nan")), "max_grad_norm must be a positive number"),
])
def test_bad_arguments_name_the_field(kwargs, words):
    m = Net()
    with pytest.raises(ValueError, match=words):
        bessemer.compile_step(m, torch.optim.SGD(m.parameters(), lr=0.1), loss_fn, **kwargs, **CFG)


def test_optimizer_of_another_model_is_refused():
    m, other = Net(), Net()
    with pytest.raises(ValueError, match="not a parameter of the model"):
        bessemer.compile_step(m, torch.optim.SGD(other.parameters(), lr=0.1), loss_fn, **CFG)


def _loss_with_item(model, x, y):
    loss = loss_fn(model, x, y)
    return loss * 2 if loss.item() > 1e6 else loss     # data-dependent Python control flow


def test_untraceable_step_runs_eagerly_with_a_warning():
    torch.manual_seed(0)
    me, mc = Net(0.0), Net(0.0)
    mc.load_state_dict(me.state_dict())
    oe = torch.optim.SGD(me.parameters(), lr=0.1, momentum=0.9)
    oc = torch.optim.SGD(mc.parameters(), lr=0.1, momentum=0.9)
    step = bessemer.compile_step(mc, oc, _loss_with_item, graph_cache=False)
    for i, (x, y) in enumerate(_data(2)):
        oe.zero_grad()
        _loss_with_item(me, x, y).backward()
        oe.step()
        if i == 0:      # one warning, at the step that tried
            with pytest.warns(UserWarning, match="whole step runs eagerly .compile_step.: tracing the step failed"):
                step(x, y)
        else:
            step(x, y)
    assert step.eager_steps == 2 and step.compiled_steps == 0
    _assert_close_state(me.state_dict(), mc.state_dict())
    m = Net(0.0)
    with pytest.raises(Exception):
        bessemer.compile_step(m, torch.optim.SGD(m.parameters(), lr=0.1), _loss_with_item, **CFG)(*_data(1)[0])


class Deep(nn.Module):
    """Weights much larger than the activations at batch 4: the gradients dominate a step's
    memory beyond the parameters and the optimizer state."""

    def __init__(self, width=256, depth=6):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, x):
        for layer in self.layers:
            x = torch.tanh(layer(x))
        return x


def _peak(model, run, batches):
    """Peak live tensor bytes of the third step, as `bessemer bench memory` measures it."""
    from bessemer.bench.measure import PeakMemory
    tracker = PeakMemory(torch.device("cpu"), [*model.parameters(), *(t for b in batches for t in b)])
    with tracker:
        run(*batches[0])
        run(*batches[1])
        with tracker.measured_step():
            run(*batches[2])
    return tracker.peak_bytes


@pytest.mark.parametrize("name", ["adamw", "sgd-momentum"])
def test_updates_in_place_and_peak_below_eager(name):
    """The step stores each new parameter and state value into the caller's tensor as soon as
    its gradient is complete: parameters and state keep their storage, and the step never
    holds every gradient at once (eager holds them all in .grad at opt.step)."""
    g = torch.Generator().manual_seed(3)
    batches = [(torch.randn(4, 256, generator=g), torch.randn(4, 256, generator=g)) for _ in range(3)]
    torch.manual_seed(0)
    me, mc = Deep(), Deep()
    mc.load_state_dict(me.state_dict())
    oe, oc = OPTIMIZERS[name](me.parameters()), OPTIMIZERS[name](mc.parameters())
    step = bessemer.compile_step(mc, oc, loss_fn, **CFG)
    ptrs = [p.data_ptr() for p in mc.parameters()]
    step(*batches[0])                       # creates the state
    state_ptrs = [t.data_ptr() for st in oc.state.values() for t in st.values()]

    def eager(x, y):
        _eager_step(me, oe, x, y, None)

    eager(*batches[0])
    eager_peak = _peak(me, eager, batches)
    step_peak = _peak(mc, step, batches)
    # Adam divides by the root of the second moment: where a gradient is tiny, float rounding
    # of its value (the generated kernels sum in another order) shows in the update; an update
    # that read a parameter after it was written would be off by the learning rate
    _assert_close_state(me.state_dict(), mc.state_dict(), atol=5e-4 if name == "adamw" else 1e-6)
    assert [p.data_ptr() for p in mc.parameters()] == ptrs
    assert [t.data_ptr() for st in oc.state.values() for t in st.values()] == state_ptrs
    (cg,) = step.backend.compiled
    into_inputs = [m for m, d in cg.memory.inplace.items() if d.kind == "input"]
    weights = [p for p in mc.parameters() if p.dim() == 2]
    per_param = 3 if name == "adamw" else 2         # the parameter and its state tensors
    assert len(into_inputs) >= per_param * len(weights)
    param_bytes = sum(p.numel() * p.element_size() for p in mc.parameters())
    assert cg.memory.peak_bytes < param_bytes / 2, "the program held most gradients at once"
    assert step_peak < eager_peak - param_bytes / 2, (step_peak, eager_peak)


def test_state_in_another_layout_is_written_back():
    """A state tensor whose strides are not the compiled ones is written through a copy in the
    compiled layout, copied into the caller's tensor at the end of the step."""
    make = OPTIMIZERS["adamw"]
    data = _data(3)
    torch.manual_seed(0)
    me, mc = Net(0.0), Net(0.0)
    mc.load_state_dict(me.state_dict())
    oe, oc = make(me.parameters()), make(mc.parameters())
    step = bessemer.compile_step(mc, oc, loss_fn, **CFG)
    for i, (x, y) in enumerate(data):
        _eager_step(me, oe, x, y, None)
        step(x, y)
        if i == 0:
            st = oc.state[mc.fc1.weight]
            st["exp_avg"] = st["exp_avg"].t().contiguous().t()       # same values, column-major
            moved = st["exp_avg"]
    assert oc.state[mc.fc1.weight]["exp_avg"] is moved and not moved.is_contiguous()
    assert len(step.programs) == 1
    _assert_close_state(me.state_dict(), mc.state_dict())
    for k, se in oe.state_dict()["state"].items():
        _assert_close_state(se, oc.state_dict()["state"][k])
