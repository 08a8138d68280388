"""Structure, caching, debug output and failure handling of the compiler."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings

import pytest
import torch

import bessemer
from bessemer.compiler.capture.backend import make_backend
from bessemer.compiler.codegen import build as build_mod
from bessemer.config import TrainingCompilerConfig

F = torch.nn.functional


def _compile_fn(fn, tmp_path, **opts):
    cfg = TrainingCompilerConfig(cache_dir=str(tmp_path / "cache"), fallback="error", **opts)
    backend = make_backend(cfg)
    return torch.compile(fn, backend=backend, dynamic=False), backend.bessemer


def _kernels(be, kind="forward"):
    return [cg for cg in be.compiled]


def test_softmax_is_one_kernel_forward_and_backward(tmp_path):
    f, be = _compile_fn(lambda x: torch.softmax(x, -1), tmp_path)
    x = torch.randn(64, 100, requires_grad=True)
    y = f(x)
    y.backward(torch.randn_like(y))
    fw, bw = be.compiled
    assert (fw.n_kernels, fw.n_externs) == (1, 0)
    assert (bw.n_kernels, bw.n_externs) == (1, 0)


def test_layer_norm_gelu_chain_fuses(tmp_path):
    ln = torch.nn.LayerNorm(32)
    f, be = _compile_fn(lambda x: F.gelu(ln(x)) * 2 + 1, tmp_path)
    x = torch.randn(16, 32, requires_grad=True)
    f(x).sum().backward()
    fw, bw = be.compiled
    assert fw.n_kernels == 1, fw.schedule_text
    # the row reductions and the column reductions (weight and bias grads) of the backward
    assert bw.n_kernels <= 3, bw.schedule_text


def test_members_over_a_trailing_size_one_dim_fuse_into_the_reduction(tmp_path):
    """The pointwise members of a reduction kernel whose domain ends in a size-1 dim ([32, 4, 1]
    reduced over the 4: GroupNorm's per-channel scale and shift after its per-group statistics)
    read each other element for element: one kernel, not one per member."""
    def fn(x, w, b):
        mean = x.mean(1, keepdim=True)
        scale = torch.rsqrt(x.var(1, keepdim=True) + 1e-5) * w
        return scale, b - mean * scale
    f, be = _compile_fn(fn, tmp_path)
    x, w, b = torch.randn(32, 4, 1), torch.randn(4, 1), torch.randn(4, 1)
    for got, want in zip(f(x, w, b), fn(x, w, b)):
        torch.testing.assert_close(got, want)
    (fw,) = be.compiled
    assert fw.n_kernels == 1, fw.schedule_text


def test_row_invariant_load_is_named_before_the_row_loop(tmp_path):
    """A 0-d value read inside a row kernel's loops is loaded once per row, into a local
    declared before them: gcc did not vectorize a loop that kept such a load inside."""
    import re
    f, be = _compile_fn(lambda x, s: torch.softmax(x * s, -1) * s, tmp_path)
    x, s = torch.randn(64, 256), torch.tensor(0.5)
    torch.testing.assert_close(f(x, s), torch.softmax(x * s, -1) * s)
    (cg,) = be.compiled
    code = cg.source[cg.source.index('extern "C" void'):]
    scalar = re.search(r"float (t\d+) = (b\d+)\[\(0\)\];", code)
    assert scalar, code
    loops = code.split("#pragma omp simd")
    assert scalar.group(0) in loops[0] and all(f"{scalar.group(2)}[" not in body for body in loops[1:]), code


def test_views_fold_into_indexing(tmp_path):
    f, be = _compile_fn(lambda x, y: (x.transpose(0, 1) * y[::2].unsqueeze(0)).reshape(-1), tmp_path)
    x, y = torch.randn(6, 5), torch.randn(12)
    torch.testing.assert_close(f(x, y), (x.transpose(0, 1) * y[::2].unsqueeze(0)).reshape(-1))
    assert be.compiled[0].n_kernels == 1 and be.compiled[0].n_externs == 0


def test_cse_and_simplify(tmp_path):
    f, be = _compile_fn(lambda x: (x * 1 + 0) * torch.exp(x) + torch.exp(x), tmp_path, debug_dir=str(tmp_path / "dbg"))
    x = torch.randn(100)
    torch.testing.assert_close(f(x), x * torch.exp(x) + torch.exp(x))
    cpp = be.compiled[0].source.split('extern "C" void k0')[1]
    assert cpp.count("expf(") == 1 and "* ((float)1.0)" not in cpp



def test_lerp_by_a_constant_weight_selects_no_branch_at_run_time(tmp_path):
    """lerp's decomposition picks its formula by `|weight| < 0.5`; with a constant weight that
    condition is a broadcast constant, and the generated kernel holds no select."""
    f, be = _compile_fn(lambda a, b: torch.lerp(a, b, 0.1) * 2, tmp_path)
    a, b = torch.randn(64), torch.randn(64)
    torch.testing.assert_close(f(a, b), torch.lerp(a, b, 0.1) * 2)
    kernels = be.compiled[0].source.split("void k0", 1)[1]
    assert " ? " not in kernels and "where" not in kernels

def test_debug_dir_has_every_pass(tmp_path):
    dbg = tmp_path / "dbg"
    f, be = _compile_fn(lambda x: torch.relu(x) @ x.t(), tmp_path, debug_dir=str(dbg))
    f(torch.randn(4, 4))
    (gdir,) = list(dbg.iterdir())
    names = sorted(p.name for p in gdir.iterdir())
    for stage in ("aten_graph", "lower", "simplify", "cse", "fuse", "plan_memory", "kernels", "wrapper", "timings"):
        assert any(stage in n for n in names), (stage, names)
    timings = json.loads(next(p for p in gdir.iterdir() if "timings" in p.name).read_text())
    assert "fuse" in timings["passes_s"] and timings["kernels"] >= 1


def test_second_process_compiles_nothing(tmp_path):
    script = textwrap.dedent(f"""
        import torch, bessemer, json
        from bessemer.compiler.capture.backend import make_backend
        be = make_backend(bessemer.TrainingCompilerConfig(cache_dir={str(tmp_path / 'cache')!r}, fallback="error"))
        f = torch.compile(lambda x: torch.tanh(x) * 3 + x.sum(-1, keepdim=True), backend=be, dynamic=False)
        x = torch.randn(8, 8, requires_grad=True)
        f(x).sum().backward()
        print(json.dumps([cg.cache_hit for cg in be.bessemer.compiled]))
    """)
    runs = [json.loads(subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                                      check=True).stdout.strip().splitlines()[-1]) for _ in range(2)]
    assert runs[0] == [False, False]
    assert runs[1] == [True, True]


def test_concurrent_builds_of_one_kernel_do_not_corrupt(tmp_path):
    src = 'extern "C" int answer() { return 42; }\n'
    script = textwrap.dedent(f"""
        import ctypes
        from bessemer.compiler.codegen.build import build
        lib, path, hit = build({src!r}, {str(tmp_path)!r}, "race")
        lib.answer.restype = ctypes.c_int
        print(lib.answer())
    """)
    procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True) for _ in range(4)]
    outs = [p.communicate()[0].strip() for p in procs]
    assert outs == ["42"] * 4
    leftovers = [p for p in (tmp_path / "kernels").rglob("*") if p.name.endswith(".tmp")]
    assert leftovers == []


def test_gcc_failure_falls_back_with_its_message(tmp_path, monkeypatch):
    from bessemer.compiler.codegen import cpp
    monkeypatch.setenv("BESSEMER_VERIFY", "0")   # verification makes a build failure an error
    real = cpp.preamble
    monkeypatch.setattr(cpp, "preamble", lambda: real() + "\nthis is not C++;\n")
    cfg = TrainingCompilerConfig(cache_dir=str(tmp_path / "cache"))
    f = torch.compile(lambda x: torch.sin(x) + 1, backend=make_backend(cfg), dynamic=False)
    x = torch.randn(10)
    with pytest.warns(UserWarning, match="(?s)runs eagerly.*BuildError.*error"):
        y = f(x)
    torch.testing.assert_close(y, torch.sin(x) + 1)
    built = [p for p in (tmp_path / "cache").rglob("*.so")]
    assert built == []


def test_build_failure_under_verification_raises_even_with_fallback_warn(tmp_path, monkeypatch):
    from bessemer.compiler.codegen import cpp
    real = cpp.preamble
    monkeypatch.setattr(cpp, "preamble", lambda: real() + "\nthis is not C++;\n")
    cfg = TrainingCompilerConfig(cache_dir=str(tmp_path / "cache"), fallback="warn")
    f = torch.compile(lambda x: torch.sin(x) - 1, backend=make_backend(cfg), dynamic=False)
    with pytest.raises(Exception, match="BuildError|failed"):
        f(torch.randn(10))


def test_fallback_error_raises(tmp_path, monkeypatch):
    from bessemer.compiler.codegen import cpp
    real = cpp.preamble
    monkeypatch.setattr(cpp, "preamble", lambda: real() + "\nthis is not C++;\n")
    f, _ = _compile_fn(lambda x: torch.cos(x) + 2, tmp_path)
    with pytest.raises(Exception, match="BuildError|failed"):
        f(torch.randn(10))


def test_unlowered_op_runs_in_aten_with_one_warning(tmp_path):
    cfg = TrainingCompilerConfig(cache_dir=str(tmp_path / "cache"))
    f = torch.compile(lambda x: torch.special.i0(x) + 1, backend=make_backend(cfg), dynamic=False)
    x = torch.randn(10)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        y = f(x)
    torch.testing.assert_close(y, torch.special.i0(x) + 1)
    msgs = [str(w.message) for w in rec if "bessemer" in str(w.message)]
    assert len(msgs) == 1 and "i0" in msgs[0] and "ATen" in msgs[0]


def test_new_shape_recompiles_and_stays_correct(tmp_path):
    f, be = _compile_fn(lambda x: torch.log_softmax(x, -1), tmp_path)
    for n in (4, 7, 4):
        x = torch.randn(n, 9)
        torch.testing.assert_close(f(x), torch.log_softmax(x, -1))
    assert len(be.compiled) == 2


def test_dropout_draws_match_eager(tmp_path):
    model = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.Dropout(0.3), torch.nn.Linear(16, 4))
    ref = __import__("copy").deepcopy(model)
    bessemer.compile(model, cache_dir=str(tmp_path / "cache"), fallback="error")
    x = torch.randn(32, 16)
    torch.manual_seed(7)
    a = model(x)
    torch.manual_seed(7)
    b = ref(x)
    torch.testing.assert_close(a, b)
    a.sum().backward()
    b.sum().backward()
    for p, q in zip(model.parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad)


def test_bf16_and_integer_ops(tmp_path):
    f, _ = _compile_fn(lambda x, i: (x.float() * 2).to(torch.bfloat16) + (i % 3).to(torch.bfloat16), tmp_path)
    x = torch.randn(33, dtype=torch.bfloat16)
    i = torch.arange(33) - 10
    torch.testing.assert_close(f(x, i), (x.float() * 2).to(torch.bfloat16) + (i % 3).to(torch.bfloat16))


def test_compile_disabled_leaves_model_alone():
    m = torch.nn.Linear(3, 3)
    fwd = m.forward
    assert bessemer.compile(m, enabled=False) is m and m.forward == fwd


def test_state_dict_keys_unchanged(tmp_path):
    m = torch.nn.Sequential(torch.nn.Linear(3, 3))
    keys = list(m.state_dict())
    bessemer.compile(m, cache_dir=str(tmp_path))
    assert list(m.state_dict()) == keys


def test_backend_by_name(tmp_path, monkeypatch):
    monkeypatch.setenv("BESSEMER_CACHE_DIR", str(tmp_path))
    f = torch.compile(lambda x: torch.sigmoid(x) * x, backend="bessemer")
    x = torch.randn(20)
    torch.testing.assert_close(f(x), torch.sigmoid(x) * x)


def test_recompile_is_reported(tmp_path):
    f, _ = _compile_fn(lambda x: x * 2, tmp_path)
    f(torch.randn(3))
    with pytest.warns(UserWarning, match="recompiling a graph for new input shapes"):
        f(torch.randn(5))


def test_bf16_precision_trains_like_eager_autocast(tmp_path):
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 1))
    ref = __import__("copy").deepcopy(m)
    bessemer.compile(m, cache_dir=str(tmp_path), precision="bf16", fallback="error")
    x = torch.randn(4, 8)
    out = m(x)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        want = ref(x)
    assert out.dtype == torch.bfloat16
    torch.testing.assert_close(out, want, rtol=2e-2, atol=2e-2)
    out.float().sum().backward()
    want.float().sum().backward()
    for p, q in zip(m.parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad, rtol=3e-2, atol=3e-2)


def test_a_library_builds_while_the_compile_goes_on(tmp_path):
    """A static graph's library is built on a thread of its own: the compiled program is
    pending until its first call, which waits for the build, binds the kernels and computes
    eager's result; a later compile of the same graph loads the library at once."""
    from bessemer.compiler.runtime.graph_call import GraphCall
    f, be = _compile_fn(lambda x: torch.sin(x) * 2 + 1, tmp_path)
    x = torch.randn(100)
    torch.testing.assert_close(f(x), torch.sin(x) * 2 + 1)
    cg = be.compiled[0]
    assert isinstance(cg.fn, GraphCall) and cg.fn.fn is cg.fn._program   # bound at the first call
    assert cg.built.pending is None and cg.built.launchers and os.path.exists(cg.built.path)
    from bessemer.compiler.codegen import backends
    # pending before its first call: a fresh build of another program
    be2 = backends.CppBackend()
    src = cg.source + "\n// another library\n"
    built = be2.build(src, cg.kernels, str(tmp_path / "cache2"), "other", background=True)
    assert built.pending is not None and built.launchers == {}
    built.finish()
    assert built.pending is None and set(built.launchers) == {k.name for k in cg.kernels}
    again = be2.build(src, cg.kernels, str(tmp_path / "cache2"), "other", background=True)
    assert again.pending is None and again.cache_hit
