"""The compiled update keeps a group's kernel calls between steps (optim_cache.py): every change
the kept calls depend on, made between two steps, must give what eager gives.

Each test trains the same parameters eagerly and compiled, makes the same change to both
after a few steps (when the compiled update already runs its kept calls), trains on and
compares parameters and optimizer state bit for bit (the template update is eager's, op
for op), and checks that the kept calls did run before and after the change.
"""
import dataclasses

import pytest
import torch
from torch import nn

from bessemer.compiler import optim_cache
from bessemer.compiler.optim import OptimizerCompileError, compile_optimizer, fused_step_of

SGD, Adam, AdamW = torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW
SHAPES = [(5, 3), (7,), (4, 4), (6, 2)]
STEPS, AT = 7, 3


def make_params(seed=0, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    return [nn.Parameter(torch.randn(s, generator=g, dtype=dtype)) for s in SHAPES]


def current(opt):
    return [p for group in opt.param_groups for p in group["params"]]


def step(opt, i, skip=()):
    """One eager training step on whatever parameters the optimizer holds now."""
    opt.zero_grad(set_to_none=True)
    g = torch.Generator().manual_seed(100 + i)
    loss = 0
    for j, p in enumerate(current(opt)):
        if j in skip:
            continue
        w = torch.randn(p.shape, generator=g, dtype=p.dtype)
        loss = loss + (p * w).sum() + (p * p).sum() * 0.5 + (p.sin() * w).sum()
    loss.backward()
    opt.step()


def train(make_opt, change, config, compiled, steps=STEPS, at=AT, skip_after=()):
    params = make_params()
    opt = make_opt(params)
    if compiled:
        compile_optimizer(opt, config, via="template")
    for i in range(steps):
        if i == at:
            change(opt)
        step(opt, i, skip_after if i >= at else ())
    return opt


def assert_same(opt_e, opt_c):
    pe, pc = current(opt_e), current(opt_c)
    assert len(pe) == len(pc)
    for j, (a, b) in enumerate(zip(pe, pc)):
        assert b.shape == a.shape and b.stride() == a.stride(), j
        assert torch.equal(a, b), f"parameter {j} differs from eager"
        sa, sb = opt_e.state.get(a, {}), opt_c.state.get(b, {})
        assert sorted(sa) == sorted(sb), j
        for key in sa:
            assert torch.equal(sa[key], sb[key]), f"parameter {j}: state {key!r} differs from eager"


def check(make_opt, change, config, **kw):
    opt_e = train(make_opt, change, config, compiled=False, **kw)
    hits = []

    def change_and_count(opt):
        hits.append(fused_step_of(opt).cache_hits)
        change(opt)
    opt_c = train(make_opt, change_and_count, config, compiled=True, **kw)
    assert_same(opt_e, opt_c)
    runner = fused_step_of(opt_c)
    assert runner.eager_groups == 0
    assert hits[0] > 0, "the kept calls never ran before the change"
    assert runner.cache_hits > hits[0] + 1, "the kept calls never ran again after the change"
    return opt_c


OPTS = {
    "sgd": lambda p: SGD(p, lr=0.05),
    "sgd_momentum": lambda p: SGD(p, lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3),
    "adam": lambda p: Adam(p, lr=1e-2),
    "adamw_amsgrad": lambda p: AdamW(p, lr=1e-2, amsgrad=True, weight_decay=0.05),
}


def _replace_param(opt):
    group = opt.param_groups[0]
    old = group["params"][1]
    new = nn.Parameter(old.detach() * 0.5 + 1.0)
    group["params"][1] = new
    if old in opt.state:
        opt.state[new] = {k: v.clone() for k, v in opt.state.pop(old).items()}


def _param_data(opt):
    p = opt.param_groups[0]["params"][2]
    p.data = p.data.clone() + 0.25          # same object, new storage


def _param_view(opt):
    """Same objects and storage, transposed strides (4x4): only the metadata says so."""
    p = opt.param_groups[0]["params"][2]
    p.data = p.data.t()
    for t in opt.state.get(p, {}).values():
        if t.dim() == 2:
            t.data = t.data.t()


def _state_tensor(opt):
    p = opt.param_groups[0]["params"][0]
    st = opt.state[p]
    for key in list(st):
        if key != "step":
            st[key] = st[key].clone() * 0.5
            return


def _state_dict_replaced(opt):
    p = opt.param_groups[0]["params"][3]
    opt.state[p] = {k: v.clone() for k, v in opt.state[p].items()}


def _load_state_dict(opt):
    opt.load_state_dict(opt.state_dict())


def _lr(opt):
    opt.param_groups[0]["lr"] *= 0.3


def _weight_decay_on(opt):
    opt.param_groups[0]["weight_decay"] = 0.02


def _maximize(opt):
    opt.param_groups[0]["maximize"] = True


CHANGES = {"replace_param": _replace_param, "param_data": _param_data, "param_view": _param_view,
           "lr": _lr, "weight_decay_on": _weight_decay_on, "maximize": _maximize,
           "load_state_dict": _load_state_dict}
STATE_CHANGES = {"state_tensor": _state_tensor, "state_dict_replaced": _state_dict_replaced}


@pytest.fixture(params=["tensor_guards", "maps"])
def same_check(request, monkeypatch):
    """The kept calls' tensor check by Dynamo's TensorGuards, and by the maps used without them."""
    if request.param == "maps":
        monkeypatch.setattr(optim_cache, "_TensorGuards", None)
    return request.param


@pytest.mark.parametrize("change", sorted(CHANGES))
@pytest.mark.parametrize("opt", sorted(OPTS))
def test_change_between_steps(opt, change, config, no_warnings, same_check):
    check(OPTS[opt], CHANGES[change], dataclasses.replace(config, fallback="error"))


def test_same_sees_every_change_of_a_tensor(same_check):
    class Sub(torch.Tensor):
        pass

    base = [torch.randn(4, 4), nn.Parameter(torch.randn(3)), torch.randn(2, 3)]
    same = optim_cache._Same(base, ptrs=True)
    assert (same.guards is not None) == (same_check == "tensor_guards")
    assert same(base) and same(list(base))
    with torch.inference_mode():
        inference = torch.randn(2, 3)
    changed = {
        "storage": torch.randn(4, 4),
        "stride": base[0].t(),
        "shape": base[0].view(2, 8),
        "dtype": base[0].view(torch.int32),
        "type": base[0].as_subclass(Sub),
        "device": torch.empty(4, 4, device="meta"),
        "inference": inference,
        "requires_grad": base[2].detach().requires_grad_(),
    }
    for what, t in changed.items():
        i = 2 if what in ("inference", "requires_grad") else 0
        ts = list(base)
        ts[i] = t
        if what == "requires_grad" and same_check == "maps":
            continue        # the maps do not read requires_grad (the planned path does not either)
        assert not same(ts), what
    assert not same(base[:2])
    unchecked_ptrs = optim_cache._Same(base, ptrs=False)
    moved = list(base)
    moved[0] = torch.randn(4, 4)
    assert unchecked_ptrs(moved)


@pytest.mark.parametrize("change", sorted(STATE_CHANGES))
@pytest.mark.parametrize("opt", ["sgd_momentum", "adam", "adamw_amsgrad"])
def test_state_change_between_steps(opt, change, config, no_warnings):
    check(OPTS[opt], STATE_CHANGES[change], dataclasses.replace(config, fallback="error"))


@pytest.mark.parametrize("opt", ["sgd", "sgd_momentum", "adam"])
def test_betas_or_momentum_change(opt, config, no_warnings):
    def change(o):
        g = o.param_groups[0]
        if "betas" in g:
            g["betas"] = (0.5, 0.95)
        else:
            g["momentum"] = 0.5 if g["momentum"] else 0.9   # sgd: momentum switched on
    check(OPTS[opt], change, dataclasses.replace(config, fallback="error"))


@pytest.mark.parametrize("opt", sorted(OPTS))
def test_grad_becomes_none(opt, config, no_warnings):
    """A parameter that stops getting a gradient is skipped, state and all, as eager skips it."""
    check(OPTS[opt], lambda o: None, dataclasses.replace(config, fallback="error"), skip_after=(1,))


def test_tensor_lr_changed_in_place(config, no_warnings):
    """A tensor lr that a scheduler fills in place: same object, new value each step."""
    def make(p):
        return Adam(p, lr=torch.tensor(1e-2))
    check(make, lambda o: o.param_groups[0]["lr"].fill_(3e-3), dataclasses.replace(config, fallback="error"))


def test_foreign_grad_layout_is_refused(config):
    """A gradient whose strides differ from its parameter's, set after the calls were kept: the
    kept calls must not run it; the planned path refuses it (fallback="error" raises)."""
    params = make_params()
    opt = SGD(params, lr=0.05, momentum=0.9)
    compile_optimizer(opt, dataclasses.replace(config, fallback="error"), via="template")
    for i in range(3):
        step(opt, i)
    assert fused_step_of(opt).cache_hits > 0
    p = params[2]
    before = p.detach().clone()
    opt.zero_grad()
    p.grad = torch.randn(4, 4).t()
    with pytest.raises(OptimizerCompileError, match="memory layout"):
        opt.step()
    assert torch.equal(p.detach(), before)


def test_second_group_added(config, no_warnings):
    def change(o):
        g = torch.Generator().manual_seed(5)
        o.add_param_group({"params": [nn.Parameter(torch.randn(3, 3, generator=g))], "lr": 0.01})
    check(OPTS["adam"], change, dataclasses.replace(config, fallback="error"))
