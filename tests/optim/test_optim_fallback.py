"""What the compiled step does not cover runs torch's step: with one warning, the
same results as eager, or a clear error; never a wrong result."""
import os
import subprocess
import sys
import textwrap
import warnings

import pytest
import torch
from torch import nn

from bessemer.compiler import optim as optim_mod
from bessemer.compiler.codegen import optim_cpp
from bessemer.compiler.optim import OptimizerCompileError, compile_optimizer, fused_step_of
from bessemer.config import TrainingCompilerConfig
from optim_helpers import assert_params_equal, batches, make_mlp, train

SGD, Adam, AdamW = torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class AdamWithOwnStep(Adam):
    def step(self, closure=None):
        return super().step(closure)


class PlainSubclass(AdamW):
    pass


UNSUPPORTED = {
    "sgd_foreach": (lambda p: SGD(p, lr=0.1, momentum=0.9, foreach=True), "foreach=True"),
    "adam_foreach": (lambda p: Adam(p, lr=1e-2, foreach=True), "foreach=True"),
    "adamw_fused": (lambda p: AdamW(p, lr=1e-2, fused=True), "fused=True"),
    "adagrad": (lambda p: torch.optim.Adagrad(p, lr=1e-2), "Adagrad has no compiled update"),
    "rmsprop": (lambda p: torch.optim.RMSprop(p, lr=1e-3), "RMSprop has no compiled update"),
    "subclass_overriding_step": (lambda p: AdamWithOwnStep(p, lr=1e-2), "overrides Adam.step"),
}


def _collect(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(w.message) for w in caught if "bessemer" in str(w.message)]


@pytest.mark.parametrize("case", sorted(UNSUPPORTED))
def test_unsupported_runs_eager_with_one_warning(case, config):
    make_opt, reason = UNSUPPORTED[case]
    data = batches(4)
    m_e = make_mlp()
    train(m_e, make_opt(m_e.parameters()), data)

    def compiled_run():
        model = make_mlp()
        opt = make_opt(model.parameters())
        compile_optimizer(opt, config)
        train(model, opt, data)
        return model, opt
    (m_c, o_c), msgs = _collect(compiled_run)
    assert len(msgs) == 1, msgs
    assert type(o_c).__name__ in msgs[0] and reason in msgs[0]
    assert fused_step_of(o_c) is None
    assert_params_equal(m_e, m_c)


@pytest.mark.parametrize("option", ["differentiable", "capturable"])
def test_unsupported_option_is_reported(option, config):
    # (Training with these needs non-leaf parameters or an accelerator; the report is the point.)
    opt = Adam(make_mlp().parameters(), lr=1e-2, **{option: True})
    _, msgs = _collect(lambda: compile_optimizer(opt, config))
    assert len(msgs) == 1 and f"{option}=True" in msgs[0] and "Adam" in msgs[0]
    assert fused_step_of(opt) is None and "step" not in opt.__dict__


def test_subclass_that_keeps_step_compiles(config, no_warnings):
    model = make_mlp()
    opt = PlainSubclass(model.parameters(), lr=1e-2)
    compile_optimizer(opt, config)
    train(model, opt, batches(2))
    assert fused_step_of(opt).fused_groups == 2


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_unsupported_dtype(dtype, config):
    def run(compiled):
        torch.manual_seed(0)
        p = nn.Parameter(torch.randn(64, dtype=dtype))
        opt = AdamW([p], lr=1e-2)
        if compiled:
            compile_optimizer(opt, config)
        g = torch.Generator().manual_seed(2)
        for _ in range(3):
            p.grad = torch.randn(64, generator=g, dtype=dtype)
            opt.step()
        return p
    p_c, msgs = _collect(lambda: run(True))
    assert len(msgs) == 1 and str(dtype) in msgs[0], msgs
    assert torch.equal(run(False), p_c)


def test_fallback_error_raises(tmp_path):
    cfg = TrainingCompilerConfig(cache_dir=str(tmp_path), fallback="error")
    opt = Adam(make_mlp().parameters(), lr=1e-2, foreach=True)
    with pytest.raises(OptimizerCompileError, match="foreach=True"):
        compile_optimizer(opt, cfg)
    assert "step" not in opt.__dict__


def test_replaced_instance_step_is_kept(config):
    opt = SGD(make_mlp().parameters(), lr=0.1)
    mine = opt.step
    opt.step = lambda closure=None: mine(closure)
    user_step = opt.step
    _, msgs = _collect(lambda: compile_optimizer(opt, config))
    assert len(msgs) == 1 and "replaced" in msgs[0]
    assert opt.step is user_step


def test_non_contiguous_grad_runs_that_group_eagerly(config):
    """A grad laid out unlike its parameter: that group runs eagerly (one warning);
    the other group stays compiled."""
    def run(compiled):
        model = make_mlp()
        params = list(model.parameters())
        opt = AdamW([{"params": params[:2]}, {"params": params[2:]}], lr=1e-2, amsgrad=True)
        if compiled:
            compile_optimizer(opt, config)
        for x, y in batches(4):
            opt.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            w = params[0]
            w.grad = w.grad.t().contiguous().t()         # same values, column-major
            assert not w.grad.is_contiguous()
            opt.step()
        return model, opt
    m_e, _ = run(False)
    (m_c, o_c), msgs = _collect(lambda: run(True))
    assert len(msgs) == 1 and "memory layout" in msgs[0], msgs
    assert_params_equal(m_e, m_c)
    runner = fused_step_of(o_c)
    assert runner.eager_groups == 4 and runner.fused_groups == 4


def test_sparse_grads(config):
    def run(make_opt, compiled):
        torch.manual_seed(0)
        emb = nn.Embedding(50, 8, sparse=True)
        opt = make_opt(emb.parameters())
        if compiled:
            compile_optimizer(opt, config)
        for i in range(3):
            opt.zero_grad()
            emb(torch.tensor([1, 4, 4, 9 + i])).pow(2).sum().backward()
            opt.step()
        return emb.weight
    sgd = lambda p: SGD(p, lr=0.1, momentum=0.9)   # noqa: E731
    w_c, msgs = _collect(lambda: run(sgd, True))
    assert len(msgs) == 1 and "sparse" in msgs[0], msgs
    assert torch.equal(run(sgd, False), w_c)
    # Adam refuses sparse gradients; the compiled optimizer says so just as eager does.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="does not support sparse gradients"):
            run(lambda p: Adam(p, lr=1e-2), True)


def test_options_changed_after_compile(config):
    def run(compiled):
        model = make_mlp()
        opt = Adam(model.parameters(), lr=1e-2)
        if compiled:
            compile_optimizer(opt, config)
        for i, (x, y) in enumerate(batches(6)):
            if i == 2:
                opt.param_groups[0]["betas"] = (torch.tensor(0.8), torch.tensor(0.99))
            if i == 4:
                opt.param_groups[0]["betas"] = (0.85, 0.995)
            opt.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        return model, opt
    m_e, _ = run(False)
    (m_c, o_c), msgs = _collect(lambda: run(True))
    assert len(msgs) == 1 and "betas[0] is a Tensor" in msgs[0], msgs
    assert_params_equal(m_e, m_c)
    assert fused_step_of(o_c).fused_groups == 4 and fused_step_of(o_c).eager_groups == 2


def test_group_added_later(config):
    def run(compiled):
        torch.manual_seed(0)
        a = nn.Parameter(torch.randn(30))
        b = nn.Parameter(torch.randn(30, dtype=torch.complex64))
        opt = SGD([a], lr=0.1, momentum=0.9)
        if compiled:
            compile_optimizer(opt, config)
        opt.add_param_group({"params": [b], "lr": 0.05})
        for _ in range(3):
            a.grad = torch.ones_like(a)
            b.grad = torch.ones_like(b)
            opt.step()
        return a, b, opt
    a_e, b_e, _ = run(False)
    (a_c, b_c, o_c), msgs = _collect(lambda: run(True))
    assert len(msgs) == 1 and "complex64" in msgs[0]
    assert torch.equal(a_e, a_c) and torch.equal(b_e, b_c)
    assert fused_step_of(o_c).fused_groups == 3



def test_build_failure_warns_with_gcc_message_and_runs_eager(tmp_path, monkeypatch):
    original = optim_cpp.render
    monkeypatch.setattr(optim_cpp, "render",
                        lambda spec: original(spec).replace("return 0;", "return undeclared_name;"))
    cache = tmp_path / "cache"
    cfg = TrainingCompilerConfig(cache_dir=str(cache))
    data = batches(3)
    m_e = make_mlp()
    train(m_e, AdamW(m_e.parameters(), lr=1e-2), data)

    def compiled_run():
        model = make_mlp()
        opt = AdamW(model.parameters(), lr=1e-2)
        compile_optimizer(opt, cfg)
        train(model, opt, data)
        return model, opt
    (m_c, o_c), msgs = _collect(compiled_run)
    assert len(msgs) == 1, msgs
    assert "undeclared_name" in msgs[0] and "error" in msgs[0]      # gcc's own words
    assert fused_step_of(o_c) is None
    assert_params_equal(m_e, m_c)
    left = [f for _, _, files in os.walk(cache) for f in files]
    assert not [f for f in left if f.endswith(".so") or ".tmp" in f], left

    cfg_err = cfg.replace(fallback="error")
    with pytest.raises(OptimizerCompileError, match="undeclared_name"):
        compile_optimizer(AdamW(make_mlp().parameters(), lr=1e-2), cfg_err)


def test_fresh_process_hits_the_cache(tmp_path):
    cfg = TrainingCompilerConfig(cache_dir=str(tmp_path))
    opt = AdamW([nn.Parameter(torch.randn(10))], lr=1e-2)
    compile_optimizer(opt, cfg)
    assert [k.cache_hit for k in fused_step_of(opt).kernels.values()] == [False]
    script = textwrap.dedent(f"""
        import torch
        from bessemer.config import TrainingCompilerConfig
        from bessemer.compiler.optim import compile_optimizer, fused_step_of
        p = torch.nn.Parameter(torch.randn(10))
        opt = torch.optim.AdamW([p], lr=1e-2)
        compile_optimizer(opt, TrainingCompilerConfig(cache_dir={str(tmp_path)!r}))
        p.grad = torch.ones(10)
        opt.step()
        print("HITS", [k.cache_hit for k in fused_step_of(opt).kernels.values()])
    """)
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, cwd=REPO, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "HITS [True]"


def test_debug_dir_gets_the_source(tmp_path):
    cfg = TrainingCompilerConfig(cache_dir=str(tmp_path / "cache"), debug_dir=str(tmp_path / "dbg"))
    opt = SGD(make_mlp().parameters(), lr=0.1, momentum=0.9, nesterov=True)
    compile_optimizer(opt, cfg)
    path = tmp_path / "dbg" / "optimizer" / "bessemer_sgd_f32_momentum_nesterov.cpp"
    assert path.exists()
    assert 'extern "C" int bessemer_sgd_f32_momentum_nesterov(' in path.read_text()


def test_bad_arguments(config):
    with pytest.raises(ValueError, match="torch.optim.Optimizer"):
        compile_optimizer(object(), config)
    with pytest.raises(ValueError, match="TrainingCompilerConfig"):
        compile_optimizer(SGD(make_mlp().parameters(), lr=0.1), {"cache_dir": "/tmp"})


def test_kernels_are_shared_within_a_process(config):
    a = AdamW(make_mlp().parameters(), lr=1e-2)
    b = AdamW(make_mlp().parameters(), lr=1e-3)
    compile_optimizer(a, config)
    compile_optimizer(b, config)
    (ka,), (kb,) = fused_step_of(a).kernels.values(), fused_step_of(b).kernels.values()
    assert ka is kb
    assert optim_mod.load_kernel(ka.spec, config) is ka


def test_build_failure_at_step_time(tmp_path, monkeypatch):
    """A kernel first needed on a later step (weight decay switched on) fails to build:
    that group runs eagerly with gcc's message, once."""
    cfg = TrainingCompilerConfig(cache_dir=str(tmp_path))

    def run(compiled):
        model = make_mlp()
        opt = SGD(model.parameters(), lr=0.1, momentum=0.9)
        if compiled:
            compile_optimizer(opt, cfg)
            original = optim_cpp.render
            monkeypatch.setattr(optim_cpp, "render",
                                lambda spec: original(spec).replace("return 0;", "return nope;"))
        for i, (x, y) in enumerate(batches(5)):
            if i == 2:
                opt.param_groups[0]["weight_decay"] = 0.01
            opt.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        return model, opt
    m_e, _ = run(False)
    (m_c, o_c), msgs = _collect(lambda: run(True))
    assert len(msgs) == 1 and "nope" in msgs[0], msgs
    assert_params_equal(m_e, m_c)
    assert fused_step_of(o_c).fused_groups == 2 and fused_step_of(o_c).eager_groups == 3


def test_fallback_error_at_step_time_updates_nothing(tmp_path):
    cfg = TrainingCompilerConfig(cache_dir=str(tmp_path), fallback="error")
    model = make_mlp()
    params = list(model.parameters())
    opt = AdamW([{"params": params[:2]}, {"params": params[2:]}], lr=1e-2)
    compile_optimizer(opt, cfg)
    x, y = batches(1)[0]
    nn.functional.mse_loss(model(x), y).backward()
    params[2].grad = params[2].grad.t().contiguous().t()      # laid out unlike its parameter
    before = [p.detach().clone() for p in params]
    with pytest.raises(OptimizerCompileError, match="memory layout"):
        opt.step()
    assert all(torch.equal(a, b) for a, b in zip(before, params))


def test_parameters_off_cpu(config):
    opt = AdamW([nn.Parameter(torch.empty(8, device="meta"))], lr=1e-2)
    _, msgs = _collect(lambda: compile_optimizer(opt, config))
    assert len(msgs) == 1 and "meta" in msgs[0] and "AdamW" in msgs[0]
    assert fused_step_of(opt) is None
