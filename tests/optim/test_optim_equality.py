"""The compiled step trains exactly like torch's eager step."""
import pytest
import torch
from torch import nn

from bessemer.compiler.optim import compile_optimizer, fused_step_of
from optim_helpers import (assert_params_equal, assert_state_equal, batches, make_mlp, run_pair,
                           train)

SGD, Adam, AdamW = torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW

CASES = {
    "sgd": lambda p: SGD(p, lr=0.1),
    "sgd_momentum": lambda p: SGD(p, lr=0.1, momentum=0.9),
    "sgd_nesterov": lambda p: SGD(p, lr=0.1, momentum=0.9, nesterov=True),
    "sgd_dampening": lambda p: SGD(p, lr=0.1, momentum=0.8, dampening=0.3),
    "sgd_weight_decay": lambda p: SGD(p, lr=0.1, momentum=0.9, weight_decay=1e-2),
    "sgd_maximize": lambda p: SGD(p, lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3,
                                  maximize=True),
    "adam": lambda p: Adam(p, lr=1e-2),
    "adam_amsgrad": lambda p: Adam(p, lr=1e-2, amsgrad=True),
    "adam_weight_decay": lambda p: Adam(p, lr=1e-2, weight_decay=0.1),
    "adam_amsgrad_weight_decay_maximize": lambda p: Adam(p, lr=1e-2, amsgrad=True, weight_decay=0.1,
                                                         maximize=True),
    "adam_decoupled": lambda p: Adam(p, lr=1e-2, weight_decay=0.1, decoupled_weight_decay=True),
    "adam_small_beta1": lambda p: Adam(p, lr=1e-2, betas=(0.3, 0.9)),   # lerp's other branch
    "adamw": lambda p: AdamW(p, lr=1e-2),
    "adamw_amsgrad": lambda p: AdamW(p, lr=1e-2, amsgrad=True, weight_decay=0.05),
    "adamw_no_weight_decay": lambda p: AdamW(p, lr=1e-2, weight_decay=0.0),
    "adamw_foreach_false": lambda p: AdamW(p, lr=1e-2, foreach=False, fused=False),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_eager(case, config, no_warnings):
    (m_e, o_e), (m_c, o_c) = run_pair(CASES[case], config, steps=10)
    assert_params_equal(m_e, m_c)
    assert_state_equal(o_e, o_c, list(m_e.parameters()), list(m_c.parameters()))
    runner = fused_step_of(o_c)
    assert runner is not None and runner.fused_groups == 10 and runner.eager_groups == 0


@pytest.mark.parametrize("case", ["sgd_nesterov", "adam_amsgrad_weight_decay_maximize", "adamw"])
def test_float64_matches_eager(case, config, no_warnings):
    (m_e, o_e), (m_c, o_c) = run_pair(CASES[case], config, steps=10, dtype=torch.float64)
    assert_params_equal(m_e, m_c)
    assert_state_equal(o_e, o_c, list(m_e.parameters()), list(m_c.parameters()))
    assert fused_step_of(o_c).eager_groups == 0


def test_state_is_torchs(config):
    """Same keys and tensors as torch makes them: 'step' a float32 0-d CPU tensor."""
    (_, o_e), (m_c, o_c) = run_pair(CASES["adam_amsgrad"], config, steps=2)
    st = o_c.state[next(m_c.parameters())]
    assert sorted(st) == ["exp_avg", "exp_avg_sq", "max_exp_avg_sq", "step"]
    assert st["step"].dtype == torch.float32 and st["step"].dim() == 0 and float(st["step"]) == 2.0
    (_, o_e), (m_c, o_c) = run_pair(CASES["sgd_momentum"], config, steps=2)
    assert sorted(o_c.state[next(m_c.parameters())]) == ["momentum_buffer"]
    (_, o_e), (m_c, o_c) = run_pair(CASES["sgd"], config, steps=2)
    assert len(o_c.state) == 0 == len(o_e.state)


@pytest.mark.parametrize("lr_dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("kind", ["adamw", "adam_weight_decay", "sgd_momentum"])
def test_tensor_lr(kind, lr_dtype, config, no_warnings):
    def make(p):
        opt = CASES[kind](p)
        for g in opt.param_groups:
            g["lr"] = torch.tensor(g["lr"], dtype=lr_dtype)
        return opt
    (m_e, _), (m_c, o_c) = run_pair(make, config, steps=6)
    assert_params_equal(m_e, m_c)
    assert fused_step_of(o_c).eager_groups == 0


def test_param_groups_with_different_options(config, no_warnings):
    def make(params):
        params = list(params)
        return AdamW([{"params": params[:2], "weight_decay": 0.0},
                      {"params": params[2:4], "lr": 3e-3, "amsgrad": True},
                      {"params": params[4:], "betas": (0.8, 0.99), "maximize": True}], lr=1e-2)
    (m_e, o_e), (m_c, o_c) = run_pair(make, config, steps=8)
    assert_params_equal(m_e, m_c)
    assert_state_equal(o_e, o_c, list(m_e.parameters()), list(m_c.parameters()))
    assert fused_step_of(o_c).fused_groups == 3 * 8


def test_mixed_dtypes_in_a_group(config, no_warnings):
    def run(compiled):
        torch.manual_seed(0)
        a = nn.Parameter(torch.randn(40, 3))
        b = nn.Parameter(torch.randn(17, dtype=torch.float64))
        opt = Adam([a, b], lr=1e-2, weight_decay=0.01)
        if compiled:
            compile_optimizer(opt, config)
        g = torch.Generator().manual_seed(3)
        for _ in range(5):
            a.grad = torch.randn(a.shape, generator=g)
            b.grad = torch.randn(b.shape, generator=g, dtype=torch.float64)
            opt.step()
        return a, b
    for x, y in zip(run(False), run(True)):
        assert torch.equal(x, y)


def test_grad_none_is_skipped(config, no_warnings):
    """A parameter without a gradient keeps its value and gets no state, as in torch."""
    def run(make_opt, compiled):
        model = make_mlp()
        model[0].weight.requires_grad_(False)           # never a gradient
        opt = make_opt(model.parameters())
        if compiled:
            compile_optimizer(opt, config)
        for i, (x, y) in enumerate(batches(6)):
            opt.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            if i % 2:
                model[2].bias.grad = None                # a gradient on some steps only
            opt.step()
        return model, opt
    for case in ("sgd_momentum", "adam_amsgrad"):
        (m_e, o_e), (m_c, o_c) = run(CASES[case], False), run(CASES[case], True)
        assert_params_equal(m_e, m_c)
        assert_state_equal(o_e, o_c, list(m_e.parameters()), list(m_c.parameters()))
        assert m_c[0].weight not in o_c.state or len(o_c.state[m_c[0].weight]) == 0
        assert torch.equal(m_c[0].weight, make_mlp()[0].weight)


@pytest.mark.parametrize("case", ["sgd_weight_decay", "adamw_amsgrad"])
def test_grad_clipping_before_step(case, config, no_warnings):
    (m_e, _), (m_c, _) = run_pair(CASES[case], config, steps=10, clip=0.05)
    assert_params_equal(m_e, m_c)


@pytest.mark.parametrize("case", ["sgd_momentum", "adam"])
def test_closure(case, config, no_warnings):
    data = batches(5)
    results = []
    for compiled in (False, True):
        model = make_mlp()
        opt = CASES[case](model.parameters())
        if compiled:
            compile_optimizer(opt, config)
        losses = train(model, opt, data, use_closure=True)
        results.append((model, losses))
    assert results[0][1] == results[1][1]
    assert_params_equal(results[0][0], results[1][0])


def test_step_hooks_run(config):
    model = make_mlp()
    opt = Adam(model.parameters(), lr=1e-2)
    compile_optimizer(opt, config)
    calls = []
    opt.register_step_pre_hook(lambda o, args, kwargs: calls.append(("pre", o is opt)))
    opt.register_step_post_hook(lambda o, args, kwargs: calls.append(("post", o is opt)))
    train(model, opt, batches(3))
    assert calls == [("pre", True), ("post", True)] * 3
    assert fused_step_of(opt).fused_groups == 3


def test_version_counter_bumped(config):
    """Using a parameter's old value after the step fails as in eager, never silently."""
    for compiled in (False, True):
        model = make_mlp()
        opt = SGD(model.parameters(), lr=0.1)
        if compiled:
            compile_optimizer(opt, config)
        x, y = batches(1)[0]
        nn.functional.mse_loss(model(x), y).backward()
        out = nn.functional.mse_loss(model(x), y)
        opt.step()
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.backward()


def test_odd_sizes_and_many_tensors(config, no_warnings):
    """Thread slices that start and end inside tensors, empty tensors, tails."""
    sizes = [0, 1, 17, 70001, 5, 0, 65536 + 3, 64, 31]
    for make in (lambda ps: AdamW(ps, lr=1e-2, amsgrad=True),
                 lambda ps: SGD(ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)):
        results = []
        for compiled in (False, True):
            torch.manual_seed(0)
            ps = [nn.Parameter(torch.randn(n)) for n in sizes]
            opt = make(ps)
            if compiled:
                compile_optimizer(opt, config)
            g = torch.Generator().manual_seed(5)
            for _ in range(3):
                for p in ps:
                    p.grad = torch.randn(p.shape, generator=g)
                opt.step()
            results.append(ps)
        for a, b in zip(*results):
            assert torch.equal(a, b)


def test_default_dtype_float64_step_state(config, no_warnings):
    """With float64 as default dtype torch keeps 'step' in float64; so do we."""
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        (m_e, o_e), (m_c, o_c) = run_pair(CASES["adamw"], config, steps=4, dtype=torch.float64)
    finally:
        torch.set_default_dtype(old)
    assert_params_equal(m_e, m_c)
    assert_state_equal(o_e, o_c, list(m_e.parameters()), list(m_c.parameters()))
    assert o_c.state[next(m_c.parameters())]["step"].dtype == torch.float64


@pytest.mark.parametrize("case", ["sgd_nesterov", "adam_amsgrad_weight_decay_maximize", "adamw"])
def test_nan_and_inf_gradients(case, config, no_warnings):
    """Non-finite values go through exactly as in eager (torch.maximum keeps NaN)."""
    results = []
    for compiled in (False, True):
        torch.manual_seed(0)
        p = nn.Parameter(torch.randn(100))
        opt = CASES[case]([p])
        if compiled:
            compile_optimizer(opt, config)
        g = torch.Generator().manual_seed(4)
        for i in range(3):
            grad = torch.randn(100, generator=g)
            grad[i * 7] = float("nan")
            grad[i * 7 + 1] = float("inf") if i % 2 else -float("inf")
            p.grad = grad
            opt.step()
        results.append((p.detach().clone(), {k: v.clone() for k, v in opt.state[p].items()}))
    (p_e, s_e), (p_c, s_c) = results
    torch.testing.assert_close(p_c, p_e, rtol=0, atol=0, equal_nan=True)
    for k in s_e:
        torch.testing.assert_close(s_c[k], s_e[k], rtol=0, atol=0, equal_nan=True)


def test_grad_scaler(config, no_warnings):
    """torch.amp.GradScaler's unscale-then-step goes through the compiled step."""
    data = batches(5)
    results = []
    for compiled in (False, True):
        model = make_mlp()
        opt = AdamW(model.parameters(), lr=1e-2)
        if compiled:
            compile_optimizer(opt, config)
        scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
        for x, y in data:
            opt.zero_grad()
            scaler.scale(nn.functional.mse_loss(model(x), y)).backward()
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(opt)
            scaler.update()
        results.append((model, opt))
    assert_params_equal(results[0][0], results[1][0])
    assert fused_step_of(results[1][1]).fused_groups == 5


def test_channels_last_parameters(config, no_warnings):
    """Dense but not contiguous: parameter, gradient and state share one layout."""
    results = []
    for compiled in (False, True):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Conv2d(8, 4, 3)).to(
            memory_format=torch.channels_last)
        assert not model[0].weight.is_contiguous()
        opt = AdamW(model.parameters(), lr=1e-2, amsgrad=True)
        if compiled:
            compile_optimizer(opt, config)
        g = torch.Generator().manual_seed(2)
        for _ in range(4):
            opt.zero_grad()
            model(torch.randn(2, 3, 9, 9, generator=g)).square().mean().backward()
            opt.step()
        results.append((model, opt))
    assert_params_equal(results[0][0], results[1][0])
    assert fused_step_of(results[1][1]).eager_groups == 0


@pytest.mark.parametrize("case", ["adamw", "adamw_amsgrad", "adam"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_zero_second_moments(case, dtype, config, no_warnings):
    """An embedding's rows that no batch touched keep exp_avg_sq at zero: whole blocks of
    zeros, blocks that mix zeros and other values, and negative zeros in the gradient all
    update as eager does, bit for bit (the fused update answers sqrt(0) itself)."""
    rows, width = 300, 40
    results = []
    for compiled in (False, True):
        torch.manual_seed(0)
        p = nn.Parameter(torch.randn(rows, width, dtype=dtype))
        opt = CASES[case]([p])
        if compiled:
            compile_optimizer(opt, config)
        g = torch.Generator().manual_seed(6)
        for step in range(4):
            grad = torch.randn(rows, width, generator=g, dtype=dtype)
            touched = torch.zeros(rows, dtype=torch.bool)
            touched[torch.randint(0, rows, (25,), generator=g)] = True   # rows of this batch
            touched[:64] = False                                         # never touched: whole blocks
            grad[~touched] = 0.0
            grad[70, :3] = -0.0
            grad[71, 5:9] = 0.0                                          # zeros among values
            p.grad = grad
            opt.step()
        results.append((p.detach().clone(), {k: v.clone() for k, v in opt.state[p].items()}))
    (p_e, s_e), (p_c, s_c) = results
    assert (s_e["exp_avg_sq"] == 0).any() and (s_e["exp_avg_sq"] != 0).any()
    assert torch.equal(p_c, p_e)
    for k in s_e:
        assert torch.equal(s_c[k], s_e[k]), k
        assert torch.equal(torch.signbit(s_c[k]), torch.signbit(s_e[k])), k
