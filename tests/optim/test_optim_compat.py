"""The compiled optimizer stays a torch.optim optimizer: schedulers, state_dict,
checkpoints, pickling."""
import copy
import io
import pickle

import pytest
import torch

from bessemer.compiler.optim import compile_optimizer, fused_step_of
from optim_helpers import (assert_params_equal, assert_state_equal, batches, make_mlp, train)

SGD, AdamW = torch.optim.SGD, torch.optim.AdamW
sched = torch.optim.lr_scheduler

SCHEDULERS = {
    "step": (lambda p: SGD(p, lr=0.1, momentum=0.9), lambda o: sched.StepLR(o, step_size=3, gamma=0.5)),
    "onecycle_sgd": (lambda p: SGD(p, lr=0.1, momentum=0.9),
                     lambda o: sched.OneCycleLR(o, max_lr=0.5, total_steps=12)),
    "onecycle_adamw": (lambda p: AdamW(p, lr=1e-2, amsgrad=True),
                       lambda o: sched.OneCycleLR(o, max_lr=3e-2, total_steps=12)),
}


@pytest.mark.parametrize("when", ["scheduler_first", "compile_first"])
@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_lr_scheduler(name, when, config, no_warnings):
    """No spurious 'lr_scheduler.step() before optimizer.step()' warning, same training."""
    make_opt, make_sched = SCHEDULERS[name]
    data = batches(10)
    results = []
    for compiled in (False, True):
        model = make_mlp()
        opt = make_opt(model.parameters())
        if compiled and when == "compile_first":
            compile_optimizer(opt, config)
        scheduler = make_sched(opt)
        if compiled and when == "scheduler_first":
            compile_optimizer(opt, config)
        train(model, opt, data, scheduler=scheduler)
        results.append((model, opt, scheduler))
    (m_e, o_e, s_e), (m_c, o_c, s_c) = results
    assert_params_equal(m_e, m_c)
    assert s_e.get_last_lr() == s_c.get_last_lr()
    assert o_c.param_groups[0]["lr"] == o_e.param_groups[0]["lr"]
    assert fused_step_of(o_c).fused_groups == 10


def test_scheduler_step_before_optimizer_step_still_warns(config):
    """The scheduler's own check keeps working: calling it first is still reported."""
    opt = SGD(make_mlp().parameters(), lr=0.1)
    compile_optimizer(opt, config)
    scheduler = sched.StepLR(opt, step_size=1)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        scheduler.step()


def _train_resume(make_opt, config, first, second):
    """Train 4 steps under `first`, checkpoint, resume 4 steps under `second`."""
    data = batches(8)
    model = make_mlp()
    opt = make_opt(model.parameters())
    if first:
        compile_optimizer(opt, config)
    train(model, opt, data[:4])
    buf = io.BytesIO()
    torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, buf)
    buf.seek(0)
    ckpt = torch.load(buf)
    model2 = make_mlp(seed=123)
    model2.load_state_dict(ckpt["model"])
    opt2 = make_opt(model2.parameters())
    if second:
        compile_optimizer(opt2, config)
    opt2.load_state_dict(ckpt["opt"])
    train(model2, opt2, data[4:])
    return model2, opt2


@pytest.mark.parametrize("make_opt", [lambda p: SGD(p, lr=0.1, momentum=0.9, nesterov=True),
                                      lambda p: AdamW(p, lr=1e-2, amsgrad=True)],
                         ids=["sgd", "adamw"])
def test_checkpoint_resume(make_opt, config, no_warnings):
    m_ref, o_ref = _train_resume(make_opt, config, False, False)
    for first, second in ((True, False), (False, True), (True, True)):
        m, o = _train_resume(make_opt, config, first, second)
        assert_params_equal(m_ref, m)
        assert_state_equal(o_ref, o, list(m_ref.parameters()), list(m.parameters()))
        if second:
            assert fused_step_of(o).fused_groups == 4


def test_state_dict_is_torchs(config):
    """A compiled optimizer's state_dict has exactly the layout of an eager one."""
    dicts = []
    for compiled in (False, True):
        model = make_mlp()
        opt = AdamW(model.parameters(), lr=1e-2)
        if compiled:
            compile_optimizer(opt, config)
        train(model, opt, batches(3))
        dicts.append(opt.state_dict())
    e, c = dicts
    assert e["param_groups"] == c["param_groups"]
    assert e["state"].keys() == c["state"].keys()
    for k in e["state"]:
        assert e["state"][k].keys() == c["state"][k].keys()
        for name in e["state"][k]:
            assert torch.equal(e["state"][k][name], c["state"][k][name])


def test_pickle_and_deepcopy_keep_torch_state(config):
    model = make_mlp()
    opt = AdamW(model.parameters(), lr=1e-2)
    compile_optimizer(opt, config)
    train(model, opt, batches(2))
    for clone in (pickle.loads(pickle.dumps(opt)), copy.deepcopy(opt)):
        assert type(clone) is AdamW
        assert len(clone.state) == len(opt.state)
        assert clone.param_groups[0]["lr"] == opt.param_groups[0]["lr"]


def test_compile_twice_is_a_no_op(config, no_warnings):
    model = make_mlp()
    opt = SGD(model.parameters(), lr=0.1)
    compile_optimizer(opt, config)
    step, runner = opt.step, fused_step_of(opt)
    compile_optimizer(opt, config)
    assert opt.step is step and fused_step_of(opt) is runner
    assert type(opt) is SGD


def test_class_step_is_untouched(config):
    model = make_mlp()
    opt = SGD(model.parameters(), lr=0.1)
    before = SGD.step
    compile_optimizer(opt, config)
    assert SGD.step is before
    other = SGD(make_mlp().parameters(), lr=0.1)
    assert fused_step_of(other) is None and "step" not in other.__dict__


def test_bessemer_compile_with_optimizer(shared_cache):
    import bessemer
    model = make_mlp()
    opt = AdamW(model.parameters(), lr=1e-2)
    bessemer.compile(model, optimizer=opt, cache_dir=shared_cache)
    assert fused_step_of(opt) is not None
    opt2 = AdamW(make_mlp().parameters(), lr=1e-2)
    bessemer.compile(make_mlp(), optimizer=opt2, cache_dir=shared_cache, compile_optimizer=False)
    assert fused_step_of(opt2) is None
