"""The compiled step through bessemer's IR (optim_ir.py) trains like torch's eager step.

Parameters and state agree with eager to float rounding (the generated kernels fuse
each update into one expression and use the backend's sqrt; eager rounds op by op),
step counts exactly. The same update rendered to Triton runs under Triton's
interpreter (TRITON_INTERPRET=1, set by the tests' conftest) on CPU tensors.
"""
import io
import warnings

import pytest
import torch
from torch import nn

from bessemer.compiler import optim_ir
from bessemer.compiler.codegen import backends
from bessemer.compiler.optim import OptimizerCompileError, compile_optimizer, fused_step_of
from bessemer.config import TrainingCompilerConfig
from optim_helpers import (assert_params_close, assert_state_close, batches, make_mlp, run_pair, train)

SGD, Adam, AdamW = torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW
sched = torch.optim.lr_scheduler
# float32 over 10 steps of a small MLP: the differences seen are a few ulp
TOL = dict(rtol=1e-5, atol=1e-6)

CASES = {
    "sgd": lambda p: SGD(p, lr=0.1),
    "sgd_momentum": lambda p: SGD(p, lr=0.1, momentum=0.9),
    "sgd_nesterov": lambda p: SGD(p, lr=0.1, momentum=0.9, nesterov=True),
    "sgd_dampening": lambda p: SGD(p, lr=0.1, momentum=0.8, dampening=0.3),
    "sgd_weight_decay": lambda p: SGD(p, lr=0.1, momentum=0.9, weight_decay=1e-2),
    "sgd_maximize": lambda p: SGD(p, lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3, maximize=True),
    "adam": lambda p: Adam(p, lr=1e-2),
    "adam_amsgrad": lambda p: Adam(p, lr=1e-2, amsgrad=True),
    "adam_weight_decay_maximize": lambda p: Adam(p, lr=1e-2, weight_decay=0.1, maximize=True),
    "adam_small_beta1": lambda p: Adam(p, lr=1e-2, betas=(0.3, 0.9)),
    "adamw": lambda p: AdamW(p, lr=1e-2),
    "adamw_amsgrad": lambda p: AdamW(p, lr=1e-2, amsgrad=True, weight_decay=0.05),
}


def _check(pair, steps, groups=1, backend="cpp"):
    (m_e, o_e), (m_c, o_c) = pair
    assert_params_close(m_e, m_c, **TOL)
    assert_state_close(o_e, o_c, list(m_e.parameters()), list(m_c.parameters()), **TOL)
    runner = fused_step_of(o_c)
    assert (runner.ir_groups, runner.fused_groups, runner.eager_groups) == (steps * groups, steps * groups, 0)
    assert runner.programs and {p.backend for p in runner.programs.values()} == {backend}
    assert not runner.kernels          # no template kernel was built or run
    return runner


@pytest.mark.parametrize("case", sorted(CASES))
def test_ir_path_matches_eager(case, config, no_warnings):
    runner = _check(run_pair(CASES[case], config, steps=10, via="ir"), 10)
    # one program per signature: SGD with momentum has a first step that makes the buffers
    assert len(runner.programs) == (2 if case.startswith("sgd_") else 1)


@pytest.mark.parametrize("case", ["sgd_nesterov", "adamw_amsgrad"])
def test_ir_path_float64(case, config, no_warnings):
    _check(run_pair(CASES[case], config, steps=6, dtype=torch.float64, via="ir"), 6)


@pytest.mark.parametrize("case", ["sgd_momentum", "adamw_amsgrad"])
def test_ir_path_with_a_scheduler_needs_no_recompile(case, config, no_warnings):
    data = batches(12)
    results = []
    for compiled in (False, True):
        model = make_mlp()
        opt = CASES[case](model.parameters())
        if compiled:
            compile_optimizer(opt, config, via="ir")
        scheduler = sched.SequentialLR(opt, [sched.LinearLR(opt, 0.1, total_iters=4),
                                             sched.CosineAnnealingLR(opt, T_max=8)], milestones=[4])
        train(model, opt, data, scheduler=scheduler)
        results.append((model, opt))
    runner = _check(results, 12)
    assert len(runner.programs) == (2 if case.startswith("sgd") else 1)    # lr is an input
    assert results[0][1].param_groups[0]["lr"] == results[1][1].param_groups[0]["lr"]


def test_hyperparameter_changing_every_step_stops_at_the_cache_limit(shared_cache):
    """OneCycleLR also cycles SGD's momentum, which the program bakes in: past
    cache_size_limit programs the group runs torch's step, with one warning."""
    cfg = TrainingCompilerConfig(cache_dir=shared_cache, cache_size_limit=3)
    data = batches(6)
    results = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for compiled in (False, True):
            model = make_mlp()
            opt = SGD(model.parameters(), lr=0.1, momentum=0.9)
            if compiled:
                compile_optimizer(opt, cfg, via="ir")
            scheduler = sched.OneCycleLR(opt, max_lr=0.3, total_steps=6)
            train(model, opt, data, scheduler=scheduler)
            results.append((model, opt))
    msgs = [str(w.message) for w in caught if "bessemer" in str(w.message)]
    assert len(msgs) == 1 and "cache_size_limit" in msgs[0], msgs
    assert_params_close(results[0][0], results[1][0], **TOL)
    runner = fused_step_of(results[1][1])
    assert (len(runner.programs), runner.ir_groups, runner.eager_groups) == (3, 3, 3)


def test_ir_path_tensor_lr(config, no_warnings):
    def make(p):
        opt = AdamW(p, lr=1e-2)
        opt.param_groups[0]["lr"] = torch.tensor(1e-2, dtype=torch.float64)
        return opt
    _check(run_pair(make, config, steps=5, via="ir"), 5)


@pytest.mark.parametrize("case", ["sgd_nesterov", "adamw_amsgrad"])
def test_ir_path_state_dict_round_trip(case, config, no_warnings):
    """Train 4 steps, checkpoint, resume 4 steps in a fresh model and optimizer; eager and the
    IR path agree, and the compiled optimizer's state_dict has eager's layout."""
    data = batches(8)

    def resume(compiled):
        model = make_mlp()
        opt = CASES[case](model.parameters())
        if compiled:
            compile_optimizer(opt, config, via="ir")
        train(model, opt, data[:4])
        buf = io.BytesIO()
        torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, buf)
        buf.seek(0)
        ckpt = torch.load(buf)
        model2 = make_mlp(seed=7)
        model2.load_state_dict(ckpt["model"])
        opt2 = CASES[case](model2.parameters())
        if compiled:
            compile_optimizer(opt2, config, via="ir")
        opt2.load_state_dict(ckpt["opt"])
        train(model2, opt2, data[4:])
        return (model2, opt2), ckpt["opt"]
    (pair_e, sd_e), (pair_c, sd_c) = resume(False), resume(True)
    _check([pair_e, pair_c], 4)
    assert sd_e["param_groups"] == sd_c["param_groups"]
    assert {k: sorted(v) for k, v in sd_e["state"].items()} == {k: sorted(v) for k, v in sd_c["state"].items()}


def test_ir_path_grad_none_and_lazy_state(config, no_warnings):
    """A parameter without a gradient keeps its value and gets no state; one with a gradient on
    some steps only gets its state at its first, as in torch."""
    def run(make_opt, compiled):
        model = make_mlp()
        model[0].weight.requires_grad_(False)
        opt = make_opt(model.parameters())
        if compiled:
            compile_optimizer(opt, config, via="ir")
        for i, (x, y) in enumerate(batches(6)):
            opt.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            if i < 3:
                model[2].bias.grad = None
            opt.step()
        return model, opt
    for case in ("sgd_momentum", "adam_amsgrad"):
        m_e, o_e = run(CASES[case], False)
        m_c, o_c = run(CASES[case], True)
        assert_params_close(m_e, m_c, **TOL)
        assert_state_close(o_e, o_c, list(m_e.parameters()), list(m_c.parameters()), **TOL)
        assert len(o_c.state.get(m_c[0].weight, {})) == 0
        assert torch.equal(m_c[0].weight, make_mlp()[0].weight)


def test_ir_path_hooks_closure_and_version_counter(config, no_warnings):
    model = make_mlp()
    opt = AdamW(model.parameters(), lr=1e-2)
    compile_optimizer(opt, config, via="ir")
    calls = []
    opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
    x, y = batches(1)[0]

    def closure():
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        return loss
    assert isinstance(opt.step(closure), torch.Tensor)
    assert calls == ["pre", "post"]
    # a value computed from the old parameters cannot be differentiated after the step
    out = nn.functional.mse_loss(model(x), y)
    nn.functional.mse_loss(model(x), y).backward()
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()
    assert fused_step_of(opt).ir_groups == 2


# (Adam in float16 is left out: its eps underflows, eager's update divides by zero)
@pytest.mark.parametrize("dtype,case", [(torch.bfloat16, "adamw_amsgrad"), (torch.bfloat16, "sgd_nesterov"),
                                        (torch.float16, "sgd_maximize")])
def test_half_precision_parameters_run_the_ir_path(dtype, case, config, no_warnings):
    """Under via="auto" the template covers float32/float64 CPU parameters; bfloat16 and
    float16 ones compile through the IR (agreeing with eager to their own rounding)."""
    pair = run_pair(CASES[case], config, steps=4, dtype=dtype)
    (m_e, o_e), (m_c, o_c) = pair
    tol = dict(rtol=2e-2, atol=1e-3)
    assert_params_close(m_e, m_c, **tol)
    assert_state_close(o_e, o_c, list(m_e.parameters()), list(m_c.parameters()), **tol)
    assert fused_step_of(o_c).ir_groups == 4


def test_auto_mixes_the_template_and_the_ir_path(config, no_warnings):
    def run(compiled):
        torch.manual_seed(0)
        a = nn.Parameter(torch.randn(40, 3))
        b = nn.Parameter(torch.randn(17, dtype=torch.bfloat16))
        opt = SGD([{"params": [a]}, {"params": [b], "lr": 0.05}], lr=0.1, momentum=0.9)
        if compiled:
            compile_optimizer(opt, config)
        g = torch.Generator().manual_seed(3)
        for _ in range(3):
            a.grad = torch.randn(a.shape, generator=g)
            b.grad = torch.randn(b.shape, generator=g).to(torch.bfloat16)
            opt.step()
        return a, b, opt
    a_e, b_e, _ = run(False)
    a_c, b_c, o_c = run(True)
    assert torch.equal(a_e, a_c)                                   # the template: bit for bit
    torch.testing.assert_close(b_c, b_e, rtol=2e-2, atol=1e-3)
    runner = fused_step_of(o_c)
    assert (runner.fused_groups, runner.ir_groups) == (6, 3) and runner.kernels and runner.programs


def _failing_compile(*args, **kwargs):
    raise RuntimeError("lowering refused the graph")


def test_ir_compile_failure_runs_the_group_eagerly(config, monkeypatch):
    monkeypatch.setattr(optim_ir, "compile_program", _failing_compile)
    monkeypatch.setattr(optim_ir, "_programs", {})     # none compiled yet in this process
    pair = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pair = run_pair(CASES["adamw"], config, steps=3, via="ir")
    msgs = [str(w.message) for w in caught if "bessemer" in str(w.message)]
    assert len(msgs) == 1 and "lowering refused the graph" in msgs[0], msgs
    (m_e, _), (m_c, o_c) = pair
    for a, b in zip(m_e.parameters(), m_c.parameters()):
        assert torch.equal(a, b)                                   # torch's own step ran
    assert (fused_step_of(o_c).eager_groups, fused_step_of(o_c).ir_groups) == (3, 0)


def test_ir_compile_failure_raises_under_fallback_error(tmp_path, monkeypatch):
    monkeypatch.setattr(optim_ir, "compile_program", _failing_compile)
    monkeypatch.setattr(optim_ir, "_programs", {})     # none compiled yet in this process
    cfg = TrainingCompilerConfig(cache_dir=str(tmp_path), fallback="error")
    model = make_mlp()
    opt = AdamW(model.parameters(), lr=1e-2)
    compile_optimizer(opt, cfg, via="ir")
    x, y = batches(1)[0]
    nn.functional.mse_loss(model(x), y).backward()
    before = [p.detach().clone() for p in model.parameters()]
    with pytest.raises(OptimizerCompileError, match="lowering refused the graph"):
        opt.step()
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters()))


def test_bad_via_is_refused(config):
    with pytest.raises(ValueError, match="via"):
        compile_optimizer(SGD(make_mlp().parameters(), lr=0.1), config, via="fast")


# -- Triton ---------------------------------------------------------------------------------------

interpreting = pytest.mark.skipif(not backends.triton_interpreting(),
                                  reason="Triton on CPU tensors needs TRITON_INTERPRET=1 at process start")


@interpreting
@pytest.mark.parametrize("case", ["sgd_maximize", "adam_amsgrad", "adamw"])
def test_triton_rendering_matches_eager(case, shared_cache, no_warnings):
    """config.backend="triton": the same update's graph rendered to Triton (as on a GPU),
    run by Triton's interpreter."""
    cfg = TrainingCompilerConfig(cache_dir=shared_cache, backend="triton", fallback="error")
    _check(run_pair(CASES[case], cfg, steps=4), 4, backend="triton")


@pytest.mark.parametrize("case", ["sgd_maximize", "adamw_amsgrad"])
def test_ir_path_odd_sizes_and_non_finite_gradients(case, config, no_warnings):
    """Empty tensors, one element, tails past a vector width; NaN and ±Inf in gradients go
    through as in eager (torch.maximum keeps NaN)."""
    sizes = [0, 1, 17, 4099, (3, 5), 0, 64]
    results = []
    for compiled in (False, True):
        torch.manual_seed(0)
        ps = [nn.Parameter(torch.randn(n)) for n in sizes]
        opt = CASES[case](ps)
        if compiled:
            compile_optimizer(opt, config, via="ir")
        g = torch.Generator().manual_seed(5)
        for i in range(3):
            for p in ps:
                p.grad = torch.randn(p.shape, generator=g)
            big = ps[3].grad
            big[i * 7] = float("nan")
            big[i * 7 + 1] = float("inf") if i % 2 else -float("inf")
            opt.step()
        results.append((ps, opt))
    (ps_e, o_e), (ps_c, o_c) = results
    for a, b in zip(ps_e, ps_c):
        torch.testing.assert_close(b, a, **TOL, equal_nan=True)
        for key, t in o_e.state[a].items():
            torch.testing.assert_close(o_c.state[b][key], t, **TOL, equal_nan=True)
    assert fused_step_of(o_c).ir_groups == 3


def test_ir_path_sparse_gradients_run_eagerly_with_one_warning(config):
    def run(compiled):
        torch.manual_seed(0)
        emb = nn.Embedding(50, 8, sparse=True)
        opt = SGD(emb.parameters(), lr=0.1, momentum=0.9)
        if compiled:
            compile_optimizer(opt, config, via="ir")
        for i in range(3):
            opt.zero_grad()
            emb(torch.tensor([1, 4, 4, 9 + i])).pow(2).sum().backward()
            opt.step()
        return emb.weight, opt
    w_e, _ = run(False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        w_c, o_c = run(True)
    msgs = [str(w.message) for w in caught if "bessemer" in str(w.message)]
    assert len(msgs) == 1 and "sparse" in msgs[0], msgs
    assert torch.equal(w_e, w_c) and fused_step_of(o_c).eager_groups == 3


def test_ir_path_debug_dir_gets_the_program(tmp_path):
    cfg = TrainingCompilerConfig(cache_dir=str(tmp_path / "cache"), debug_dir=str(tmp_path / "dbg"))
    model = make_mlp()
    opt = AdamW(model.parameters(), lr=1e-2)
    compile_optimizer(opt, cfg, via="ir")
    train(model, opt, batches(1))
    (folder,) = (tmp_path / "dbg" / "optimizer").iterdir()
    names = sorted(f.name for f in folder.iterdir())
    assert any(n.endswith("_aten_graph.py") for n in names) and any(n.endswith("_kernels.cpp") for n in names)
    assert any(n.endswith("_wrapper.py") for n in names)


def test_programs_are_shared_within_a_process(config):
    """A second optimizer with the same signature runs the program the first compiled."""
    runners = []
    for _ in range(2):
        model = make_mlp()
        opt = AdamW(model.parameters(), lr=1e-3)
        compile_optimizer(opt, config, via="ir")
        train(model, opt, batches(1))
        runners.append(fused_step_of(opt))
    (a,), (b,) = runners[0].programs.values(), runners[1].programs.values()
    assert a is b


def test_ir_path_channels_last_and_non_contiguous_gradients(config, no_warnings):
    """Parameters, gradients and state in another layout than the traced one: the program's
    wrapper lays them out and writes the new values back into the caller's tensors."""
    results = []
    for compiled in (False, True):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Conv2d(8, 4, 3)).to(
            memory_format=torch.channels_last)
        opt = AdamW(model.parameters(), lr=1e-2, amsgrad=True)
        if compiled:
            compile_optimizer(opt, config, via="ir")
        g = torch.Generator().manual_seed(2)
        for i in range(4):
            opt.zero_grad()
            model(torch.randn(2, 3, 9, 9, generator=g)).square().mean().backward()
            if i % 2:
                w = model[2].weight
                w.grad = w.grad.contiguous()                 # this step: laid out unlike w
            opt.step()
        results.append((model, opt))
    (m_e, o_e), (m_c, o_c) = results
    assert not m_c[0].weight.is_contiguous()
    assert_params_close(m_e, m_c, **TOL)
    assert_state_close(o_e, o_c, list(m_e.parameters()), list(m_c.parameters()), **TOL)
    assert fused_step_of(o_c).ir_groups == 4
