"""compile_step after the model or the optimizer was changed between two steps: a parameter,
module or param group replaced or added builds the step again, a frozen parameter is left
alone, the optimizer's state reset or loaded is read as it is, and an optimizer that still
holds a replaced parameter is refused by name. Eager, doing the same, is the oracle: losses,
clipped norms, gradients, trained parameters and buffers, optimizer state."""
import copy

import pytest
import torch
from torch import nn

import bessemer
from bessemer.compiler.capture.step import StepCompileError

from test_step import CFG, OPTIMIZERS, Net, _assert_close_state, _data, _eager_step, loss_fn

CLIP = 0.5
STEPS = 6


def _new(shape, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g) * 0.2


def _repoint(opt, model):
    """The optimizer's single group made to hold the model's parameters as they are now."""
    opt.param_groups[0]["params"] = list(model.parameters())


def _param_assigned(m, opt):
    old = m.fc2.weight
    m.fc2.weight = nn.Parameter(_new(old.shape, 1))
    opt.param_groups[0]["params"] = [m.fc2.weight if p is old else p for p in opt.param_groups[0]["params"]]


def _loaded_with_assign(m, opt):
    sd = {k: (_new(v.shape, i) if v.is_floating_point() else v.clone()) for i, (k, v) in enumerate(m.state_dict().items())}
    sd["bn.running_var"] = sd["bn.running_var"].abs() + 0.5
    m.load_state_dict(sd, assign=True)
    _repoint(opt, m)


def _module_swapped(m, opt):
    fc2 = nn.Linear(32, 4)
    with torch.no_grad():
        fc2.weight.copy_(_new(fc2.weight.shape, 2))
        fc2.bias.copy_(_new(fc2.bias.shape, 3))
    m.fc2 = fc2
    _repoint(opt, m)


REPLACEMENTS = {"param_assigned": _param_assigned, "load_state_dict_assign": _loaded_with_assign,
                "module_swapped": _module_swapped}


def _pair(make_opt, select=lambda m: m.parameters(), setup=lambda m: None):
    torch.manual_seed(0)
    me, mc = Net(), Net()
    mc.load_state_dict(me.state_dict())
    setup(me)
    setup(mc)
    oe, oc = make_opt(select(me)), make_opt(select(mc))
    step = bessemer.compile_step(mc, oc, loss_fn, max_grad_norm=CLIP, set_grads=True, **CFG)
    return me, oe, mc, oc, step


def _train(me, oe, mc, oc, step, changes: dict):
    """STEPS steps of both; changes[i](model, opt) runs on both before step i. Returns the
    number of compiled graphs before each change."""
    graphs = {}
    for i, (x, y) in enumerate(_data(STEPS)):
        if i in changes:
            graphs[i] = len(step.backend.compiled)
            changes[i](me, oe)
            changes[i](mc, oc)
        torch.manual_seed(100 + i)           # the same dropout masks
        le, ne = _eager_step(me, oe, x, y, CLIP)
        torch.manual_seed(100 + i)
        lc = step(x, y)
        torch.testing.assert_close(lc, le, rtol=1e-5, atol=1e-6, msg=lambda m: f"loss, step {i}: {m}")
        torch.testing.assert_close(step.grad_norm, ne, rtol=1e-5, atol=1e-6, msg=lambda m: f"norm, step {i}: {m}")
    assert step.compiled_steps == STEPS and step.eager_steps == 0
    _assert_same(me, oe, mc, oc)
    return graphs


def _assert_same(me, oe, mc, oc):
    """Gradients, parameters and buffers, and every parameter's optimizer state (state_dict()
    cannot pack the state of a tensor that left the groups, so it is compared by parameter)."""
    for (n, pe), pc in zip(me.named_parameters(), mc.parameters()):
        assert (pe.grad is None) == (pc.grad is None), n
        if pe.grad is not None:
            torch.testing.assert_close(pc.grad, pe.grad, rtol=1e-5, atol=1e-6, msg=lambda m: f"grad {n}: {m}")
        assert (pe in oe.state) == (pc in oc.state), n
        if pe in oe.state:
            _assert_close_state(oe.state[pe], oc.state[pc])
    _assert_close_state(me.state_dict(), mc.state_dict())
    assert [g["lr"] for g in oe.param_groups] == [g["lr"] for g in oc.param_groups]


@pytest.mark.parametrize("opt", ["adamw", "sgd-momentum"])
@pytest.mark.parametrize("kind", list(REPLACEMENTS))
def test_replaced_parameters_are_trained(kind, opt):
    me, oe, mc, oc, step = _pair(OPTIMIZERS[opt])
    old = list(mc.parameters())
    graphs = _train(me, oe, mc, oc, step, {3: REPLACEMENTS[kind]})
    assert step.rebuilds == 1
    # SGD: a parameter without a momentum buffer among ones with has a first-step program of its own
    assert len(step.backend.compiled) == graphs[3] + (2 if opt == "sgd-momentum" and kind != "load_state_dict_assign"
                                                      else 1), "the step was not built again"
    new = [p for p in mc.parameters() if not any(p is q for q in old)]
    assert new, "the change replaced no parameter"
    assert all(p in oc.state for p in new), "a new parameter was not trained"


def test_param_group_added_for_unfrozen_parameters():
    """Fine-tuning: fc1 frozen and outside the optimizer, then unfrozen and added as a group
    of its own learning rate."""
    def freeze(m):
        m.fc1.weight.requires_grad_(False)

    def unfreeze(m, opt):
        m.fc1.weight.requires_grad_(True)
        opt.add_param_group({"params": [m.fc1.weight], "lr": 0.003})

    me, oe, mc, oc, step = _pair(OPTIMIZERS["adamw"], select=lambda m: [p for n, p in m.named_parameters()
                                                                        if not n.startswith("fc1")], setup=freeze)
    w0 = mc.fc1.weight.detach().clone()
    graphs = _train(me, oe, mc, oc, step, {2: lambda m, o: None, 3: unfreeze})
    assert step.rebuilds == 1 and len(step.backend.compiled) == graphs[3] + 1
    assert len(oc.param_groups) == 2 and mc.fc1.weight in oc.state
    assert not torch.equal(mc.fc1.weight, w0)


def test_frozen_parameter_is_not_updated():
    """requires_grad_(False) mid-run: no gradient, no update, state untouched, as in eager; the
    flag is in the program key, and unfreezing it again finds the first program."""
    def freeze(m, opt):
        m.fc2.weight.requires_grad_(False)

    def unfreeze(m, opt):
        m.fc2.weight.requires_grad_(True)

    me, oe, mc, oc, step = _pair(OPTIMIZERS["adamw"])
    frozen = {}

    def check_frozen(m, opt):
        if m is mc:
            assert torch.equal(mc.fc2.weight, frozen["w"]) and mc.fc2.weight.grad is None
            assert torch.equal(oc.state[mc.fc2.weight]["step"], frozen["step"])
        unfreeze(m, opt)

    def freeze_and_keep(m, opt):
        freeze(m, opt)
        if m is mc:
            frozen["w"] = mc.fc2.weight.detach().clone()
            frozen["step"] = oc.state[mc.fc2.weight]["step"].clone()

    graphs = _train(me, oe, mc, oc, step, {2: freeze_and_keep, 4: check_frozen})
    assert graphs[4] == graphs[2] + 1, "freezing did not trace a program of its own"
    assert len(step.backend.compiled) == graphs[4], "unfreezing did not find the first program"
    assert step.rebuilds == 0 and len(step.programs) == 2


@pytest.mark.parametrize("opt", ["adamw", "sgd-momentum"])
def test_optimizer_state_reset_and_loaded(opt):
    """The state is read from opt.state at every call: cleared, it starts again as torch's
    does; loaded from an earlier state_dict, it continues from there; neither builds again."""
    saved = {}

    def save(m, o):
        saved[id(o)] = copy.deepcopy(o.state_dict())

    def load(m, o):
        o.load_state_dict(saved[id(o)])

    def reset(m, o):
        o.state.clear()

    me, oe, mc, oc, step = _pair(OPTIMIZERS[opt])
    graphs = _train(me, oe, mc, oc, step, {1: save, 2: reset, 4: load})
    assert step.rebuilds == 0
    first = len(step.backend.compiled)
    assert first == graphs[1], "the state's change traced a program"


def test_values_changed_in_place_need_no_rebuild():
    def in_place(m, o):
        with torch.no_grad():
            m.fc1.weight.mul_(2)
        m.fc2.bias.data.copy_(torch.full_like(m.fc2.bias, 0.25))

    me, oe, mc, oc, step = _pair(OPTIMIZERS["adamw"])
    graphs = _train(me, oe, mc, oc, step, {3: in_place})
    assert step.rebuilds == 0 and len(step.backend.compiled) == graphs[3] == 1


def _param_removed(m, opt):
    m.fc2.bias = None


@pytest.mark.parametrize("kind, words", [
    ("param_assigned", "former parameter 'fc2.weight'.*model.fc2.weight is another tensor"),
    ("load_state_dict_assign", "former parameter 'fc1.weight'.*is another tensor"),
    ("module_swapped", "former parameter 'fc2.weight'"),
    ("param_removed", "former parameter 'fc2.bias'.*model.fc2.bias is gone"),
])
def test_optimizer_holding_a_replaced_parameter_is_refused(kind, words):
    """The model changed, the optimizer not: each call refuses, changing nothing, until the
    optimizer holds the model's parameters; then the step trains as eager does."""
    change = {**REPLACEMENTS, "param_removed": _param_removed}[kind]

    def model_only(m, opt):
        keep = opt.param_groups[0]["params"]
        change(m, opt)
        opt.param_groups[0]["params"] = keep

    me, oe, mc, oc, step = _pair(OPTIMIZERS["adamw"])
    _train(me, oe, mc, oc, step, {})
    model_only(me, oe)
    model_only(mc, oc)
    before = copy.deepcopy(mc.state_dict())
    x, y = _data(1)[0]
    for _ in range(2):
        with pytest.raises(ValueError, match=words):
            step(x, y)
    _assert_close_state(before, mc.state_dict(), rtol=0, atol=0)
    _repoint(oe, me)
    _repoint(oc, mc)
    compiled = step.compiled_steps
    for i, (x, y) in enumerate(_data(3)):
        torch.manual_seed(300 + i)
        le, _ = _eager_step(me, oe, x, y, CLIP)
        torch.manual_seed(300 + i)
        torch.testing.assert_close(step(x, y), le, rtol=1e-5, atol=1e-6)
    assert step.compiled_steps == compiled + 3 and step.rebuilds == 1
    _assert_same(me, oe, mc, oc)


def test_group_added_with_a_flag_the_program_lacks():
    """A group added with foreach=True: under fallback="error" every call refuses; otherwise
    the step warns once and runs eagerly from there, as eager does."""
    def add_fc1(m, opt):
        m.fc1.weight.requires_grad_(True)
        opt.add_param_group({"params": [m.fc1.weight], "foreach": True})

    def freeze(m):
        m.fc1.weight.requires_grad_(False)

    select = lambda m: [p for n, p in m.named_parameters() if not n.startswith("fc1")]   # noqa: E731
    me, oe, mc, oc, step = _pair(OPTIMIZERS["adamw"], select=select, setup=freeze)
    _train(me, oe, mc, oc, step, {})
    add_fc1(mc, oc)
    for _ in range(2):
        with pytest.raises(StepCompileError, match="foreach=True"):
            step(*_data(1)[0])

    torch.manual_seed(0)
    me, mc = Net(0.0), Net(0.0)
    mc.load_state_dict(me.state_dict())
    freeze(me)
    freeze(mc)
    oe, oc = OPTIMIZERS["adamw"](select(me)), OPTIMIZERS["adamw"](select(mc))
    step = bessemer.compile_step(mc, oc, loss_fn, max_grad_norm=CLIP, graph_cache=False)
    for i, (x, y) in enumerate(_data(4)):
        if i == 2:
            add_fc1(me, oe)
            add_fc1(mc, oc)
            with pytest.warns(UserWarning, match="runs eagerly .compile_step.: foreach=True"):
                lc = step(x, y)
        else:
            lc = step(x, y)
        le, _ = _eager_step(me, oe, x, y, CLIP)
        torch.testing.assert_close(lc, le, rtol=1e-5, atol=1e-6)
    assert step.compiled_steps == 2 and step.eager_steps == 2
    _assert_close_state(me.state_dict(), mc.state_dict())
