"""The C++ renderer of fused optimizer updates: specs, names, generated code."""
import itertools

import pytest
import torch

from bessemer.compiler import optim as optim_mod
from bessemer.compiler.codegen.optim_cpp import UpdateSpec, render, signature


def all_specs():
    for dtype, maximize in itertools.product(("float32", "float64"), (False, True)):
        for wd, (mom, nest) in itertools.product(("none", "l2"), ((False, False), (True, False), (True, True))):
            yield UpdateSpec("sgd", dtype, maximize=maximize, weight_decay=wd, momentum=mom, nesterov=nest)
        for wd, ams, step in itertools.product(("none", "l2", "decoupled"), (False, True),
                                               ("float32", "float64")):
            yield UpdateSpec("adam", dtype, maximize=maximize, weight_decay=wd, amsgrad=ams, step_dtype=step)


def test_every_spec_has_its_own_symbol():
    specs = list(all_specs())
    assert len({s.symbol for s in specs}) == len(specs) == 72
    for s in specs:
        src = render(s)
        assert src.count('extern "C"') == 1 and f"int {s.symbol}(" in src
        assert "std::fma(" in src                        # the roundings are spelled out


@pytest.mark.parametrize("bad", [
    dict(kind="lamb", dtype="float32"),
    dict(kind="sgd", dtype="bfloat16"),
    dict(kind="sgd", dtype="float32", amsgrad=True),
    dict(kind="sgd", dtype="float32", weight_decay="decoupled"),
    dict(kind="sgd", dtype="float32", nesterov=True),
    dict(kind="adam", dtype="float32", momentum=True),
    dict(kind="adam", dtype="float32", weight_decay="l1"),
    dict(kind="adam", dtype="float32", step_dtype="int64"),
])
def test_invalid_specs_are_refused(bad):
    with pytest.raises(ValueError, match="UpdateSpec"):
        UpdateSpec(**bad)


def test_code_has_only_what_the_spec_asks_for():
    plain = render(UpdateSpec("sgd", "float32"))
    nesterov = render(UpdateSpec("sgd", "float32", momentum=True, nesterov=True, weight_decay="l2"))
    assert "bufs[i]" not in plain and "bufs[i]" in nesterov
    assert "grad.add(buf, alpha=momentum)" in nesterov and "grad.add(param, alpha=wd)" in nesterov
    adam = render(UpdateSpec("adam", "float32"))
    adamw_ams = render(UpdateSpec("adam", "float32", weight_decay="decoupled", amsgrad=True))
    assert "vmax" not in adam.split("extern")[1] and "pj * dec" not in adam
    assert "torch.maximum" in adamw_ams and "pj * dec" in adamw_ams
    assert "typedef double scalar_t" in render(UpdateSpec("adam", "float64"))


def test_signature_matches_the_code():
    for spec in (UpdateSpec("sgd", "float32"), UpdateSpec("adam", "float64")):
        src = render(spec)
        for decl, ctype in signature(spec):
            assert decl in src
            assert hasattr(__import__("ctypes"), ctype)


def test_sqrt_is_torchs():
    """The sqrt the Adam kernel is given rounds exactly like torch.sqrt on this build."""
    import ctypes
    for dtype, tdtype in (("float32", torch.float32), ("float64", torch.float64)):
        addr = optim_mod.torch_sqrt_impl(dtype)
        x = torch.rand(1001, dtype=tdtype, generator=torch.Generator().manual_seed(9))
        if addr is None:
            assert torch.equal(torch.from_numpy(__import__("numpy").sqrt(x.numpy())), torch.sqrt(x))
            continue
        ctype = ctypes.c_float if dtype == "float32" else ctypes.c_double
        fn = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.POINTER(ctype), ctypes.POINTER(ctype))(addr)
        out = torch.empty_like(x)
        fn(x.numel(), ctypes.cast(x.data_ptr(), ctypes.POINTER(ctype)),
           ctypes.cast(out.data_ptr(), ctypes.POINTER(ctype)))
        assert torch.equal(out, torch.sqrt(x))


def test_mkl_thread_count_is_put_back():
    """The Adam kernel sets the MKL thread count of its threads to 1 while it calls MKL's
    sqrt (torch.set_num_threads turns MKL's dynamic threading off, and every call would
    open a nested parallel region); the calling thread's count is what it was after."""
    import ctypes
    addr = optim_mod.mkl_threads_local()
    if addr is None or optim_mod.torch_sqrt_impl("float32") is None:
        pytest.skip("torch's sqrt is not MKL's on this build")
    set_local = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int)(addr)
    get_max = optim_mod.torch_cpu_symbol("MKL_Get_Max_Threads")
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        assert get_max() == 2
        # the C interface: takes the count by value and answers the previous one
        assert set_local(1) == 2 and get_max() == 1
        assert set_local(2) == 1 and get_max() == 2
        for numel in (100, 200_000):              # one thread, and the parallel loop
            p = torch.nn.Parameter(torch.randn(numel))
            opt = torch.optim.AdamW([p], lr=1e-3)
            ref = torch.nn.Parameter(p.detach().clone())
            ref_opt = torch.optim.AdamW([ref], lr=1e-3)
            from bessemer.config import TrainingCompilerConfig
            optim_mod.compile_optimizer(opt, TrainingCompilerConfig(fallback="error"), via="template")
            assert optim_mod._ATTR in opt.__dict__
            for step in range(3):
                g = torch.randn(numel)
                g[: numel // 3] = 0                   # zeros in exp_avg_sq: MKL's scratch path
                p.grad, ref.grad = g.clone(), g.clone()
                opt.step()
                ref_opt.step()
                assert get_max() == 2
            assert torch.equal(p, ref)
    finally:
        torch.set_num_threads(before)
