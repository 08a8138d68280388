"""Training on a CUDA GPU with Triton kernels: equal to eager in fp32, within
bf16 tolerance under autocast, fp16 with a GradScaler, and with CUDA graphs."""
from __future__ import annotations

import copy
import glob
import json
import os
import warnings

import pytest
import torch

import bessemer
from fidelity import train_mixed
from model_cases import GPT2, MLP

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("no_tf32")]


def _train(case, model, opt, steps, amp=None, scaler=None):
    return train_mixed(case, model, opt, steps, amp, scaler, device="cuda")


def _pair(case, steps, cache, make_opt, amp=None, scaler=False, **options):
    torch.manual_seed(0)
    eager = case.build().cuda()
    comp = copy.deepcopy(eager)
    le = _train(case, eager, make_opt(eager), steps, amp, torch.amp.GradScaler("cuda") if scaler else None)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        bessemer.compile(comp, cache_dir=cache, **options)
        # autocast comes from the config (precision=...), as a user would ask for it
        lc = _train(case, comp, make_opt(comp), steps, None, torch.amp.GradScaler("cuda") if scaler else None)
    warned = [str(w.message) for w in rec if "bessemer:" in str(w.message) and "recompiling" not in str(w.message)]
    return eager, comp, le, lc, warned


def _sgd(m):
    return torch.optim.SGD(m.parameters(), lr=0.02, momentum=0.9)


def _adamw(m):
    return torch.optim.AdamW(m.parameters(), lr=1e-3)


@pytest.mark.parametrize("case", [MLP, GPT2], ids=["mlp", "gpt2"])
def test_fp32_training_matches_eager_on_gpu(case, kernel_cache):
    eager, comp, le, lc, warned = _pair(case, 10, kernel_cache, _sgd, fallback="error")
    assert warned == []
    torch.testing.assert_close(lc, le, rtol=1e-4, atol=0)
    for (n, pe), pc in zip(eager.named_parameters(), comp.parameters()):
        torch.testing.assert_close(pc, pe, rtol=1e-4, atol=1e-6 * max(1.0, pe.abs().max().item()), msg=n)


def test_bf16_autocast_trains_like_eager(kernel_cache):
    eager, comp, le, lc, warned = _pair(GPT2, 20, kernel_cache, _adamw, amp=torch.bfloat16,
                                         precision="bf16", fallback="error")
    assert warned == []
    torch.testing.assert_close(lc, le, rtol=2e-2, atol=0)


def test_fp16_with_grad_scaler_trains_like_eager(kernel_cache):
    eager, comp, le, lc, warned = _pair(MLP, 20, kernel_cache, _adamw, amp=torch.float16, scaler=True,
                                         precision="fp16", fallback="error")
    assert warned == []
    torch.testing.assert_close(lc, le, rtol=2e-2, atol=0)


def test_cuda_graphs_replay_like_eager(kernel_cache):
    eager, comp, le, lc, warned = _pair(MLP, 10, kernel_cache, _sgd, cuda_graphs=True, fallback="error")
    assert not any("CUDA graphs off" in w for w in warned), warned
    torch.testing.assert_close(lc, le, rtol=1e-4, atol=0)


def test_autotuned_configs_are_cached_with_the_kernels(tmp_path):
    f = bessemer.compile(lambda x: torch.softmax(x * 2, -1), cache_dir=str(tmp_path), fallback="error")
    x = torch.randn(4096, 2048, device="cuda")
    torch.testing.assert_close(f(x), torch.softmax(x * 2, -1))
    tunes = glob.glob(str(tmp_path / "triton" / "*" / "*.tune.json"))
    assert tunes, "no autotuning record was written"
    data = json.load(open(tunes[0]))
    assert torch.cuda.get_device_name() in data
    assert os.path.exists(tunes[0].replace(".tune.json", ".py"))


def test_optimizer_on_gpu_runs_a_triton_update(kernel_cache):
    """bessemer.compile(model, optimizer=opt) on a GPU compiles the update through bessemer's
    IR to Triton, which trains like the default (foreach) update."""
    from bessemer.compiler.optim import fused_step_of
    torch.manual_seed(0)
    eager = MLP.build().cuda()
    comp = copy.deepcopy(eager)
    le = _train(MLP, eager, _adamw(eager), 10)
    opt = _adamw(comp)
    bessemer.compile(comp, optimizer=opt, cache_dir=kernel_cache, fallback="error")
    lc = _train(MLP, comp, opt, 10)
    runner = fused_step_of(opt)
    assert runner.ir_groups == 10 and {p.backend for p in runner.programs.values()} == {"triton"}
    torch.testing.assert_close(lc, le, rtol=1e-4, atol=0)


def test_compile_step_trains_like_eager_on_gpu():
    """bessemer.compile_step on CUDA: forward, loss, backward, clipping and the AdamW update as
    one program of Triton kernels, step for step as eager's loop (losses, gradient norms,
    trained parameters and the optimizer's state)."""
    def build():
        torch.manual_seed(0)
        return torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.LayerNorm(128), torch.nn.GELU(),
                                   torch.nn.Linear(128, 10)).cuda()

    def loss_fn(model, x, y):
        return torch.nn.functional.cross_entropy(model(x), y)

    me, mc = build(), build()
    oe, oc = _adamw(me), _adamw(mc)
    step = bessemer.compile_step(mc, oc, loss_fn, max_grad_norm=0.5, fallback="error", graph_cache=False)
    g = torch.Generator().manual_seed(1)
    for _ in range(5):
        x, y = torch.randn(32, 64, generator=g).cuda(), torch.randint(0, 10, (32,), generator=g).cuda()
        oe.zero_grad(set_to_none=True)
        le = loss_fn(me, x, y)
        le.backward()
        ne = torch.nn.utils.clip_grad_norm_(me.parameters(), 0.5)
        oe.step()
        lc = step(x, y)
        torch.testing.assert_close(lc, le.detach(), rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(step.grad_norm, ne, rtol=1e-5, atol=1e-6)
    assert step.compiled_steps == 5 and step.eager_steps == 0
    assert step.backend.compiled and all(cg.backend == "triton" for cg in step.backend.compiled)
    for (n, pe), pc in zip(me.named_parameters(), mc.parameters()):
        torch.testing.assert_close(pc, pe, rtol=1e-5, atol=1e-6, msg=n)
    for pe, pc in zip(me.parameters(), mc.parameters()):
        for k in oe.state[pe]:
            torch.testing.assert_close(oc.state[pc][k], oe.state[pe][k], rtol=1e-5, atol=1e-6, msg=k)
