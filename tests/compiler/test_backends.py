"""Choosing a backend, and what happens when one cannot serve a graph.

On CPU the Triton backend runs under Triton's interpreter (tests/conftest.py).
Every refusal is one warning naming the cause, and the graph still gives eager's
result: Triton missing, no interpreter on a CPU, a kernel that fails to render,
a kernel that fails at its first launch, CUDA graphs asked for on CPU tensors.
"""
from __future__ import annotations

import json
import os
import warnings

import pytest
import torch

from bessemer.compiler.capture.backend import make_backend
from bessemer.compiler.codegen import backends, triton as triton_mod
from bessemer.compiler.codegen.kernel import CodegenError
from bessemer.config import TrainingCompilerConfig

interpreting = pytest.mark.skipif(not backends.triton_interpreting(),
                                  reason="runs CPU tensors through Triton's interpreter")


def _compile(fn, tmp_path, **opts):
    cfg = TrainingCompilerConfig(cache_dir=str(tmp_path / "cache"), **opts)
    backend = make_backend(cfg)
    return torch.compile(fn, backend=backend, dynamic=False), backend.bessemer


def _run_warned(f, *args):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        y = f(*args)
    return y, [str(w.message) for w in rec if "bessemer:" in str(w.message)]


def test_auto_picks_cpp_on_cpu():
    assert backends.select("auto", torch.device("cpu")).name == "cpp"


def test_unknown_backend_is_named():
    with pytest.raises(CodegenError, match="unknown backend 'metal'"):
        backends.select("metal", torch.device("cpu"))


def test_cpp_refuses_a_gpu_device():
    with pytest.raises(CodegenError, match="cpp backend runs on CPU"):
        backends.select("cpp", torch.device("cuda", 0))


def test_triton_on_cpu_needs_the_interpreter(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    with pytest.raises(CodegenError, match="TRITON_INTERPRET=1"):
        backends.select("triton", torch.device("cpu"))


def test_graph_device_rejects_other_devices():
    with pytest.raises(CodegenError, match="no bessemer backend targets device meta"):
        backends.graph_device([torch.empty(2, device="meta")])


def test_triton_missing_runs_eagerly_with_one_warning(tmp_path, monkeypatch):
    def missing():
        raise ImportError("No module named 'triton'")
    monkeypatch.setattr(backends, "_import_triton_language", missing)
    f, be = _compile(lambda x: torch.tanh(x) * 3, tmp_path, backend="triton")
    x = torch.randn(8, 5)
    y, warned = _run_warned(f, x)
    torch.testing.assert_close(y, torch.tanh(x) * 3)
    assert len(warned) == 1 and "Triton is not installed" in warned[0], warned
    assert be.compiled == []


@interpreting
def test_unrenderable_kernel_runs_eagerly(tmp_path, monkeypatch):
    real = triton_mod.render_op

    def no_tanh(op, *a):
        if op == "tanh":
            raise CodegenError("no Triton rendering for pointwise op 'tanh'")
        return real(op, *a)

    monkeypatch.setattr(triton_mod, "render_op", no_tanh)
    f, _ = _compile(lambda x: torch.tanh(x) + 1, tmp_path, backend="triton")
    x = torch.randn(8, 5)
    y, warned = _run_warned(f, x)
    torch.testing.assert_close(y, torch.tanh(x) + 1)
    assert len(warned) == 1 and "runs eagerly" in warned[0] and "tanh" in warned[0], warned


@interpreting
def test_kernel_failing_at_first_launch_runs_eagerly(tmp_path, monkeypatch):
    """Triton compiles a kernel when it first launches: a failure there is caught
    in the graph's first call, and the graph continues eagerly from then on."""
    real = triton_mod.PREAMBLE
    monkeypatch.setattr(triton_mod, "PREAMBLE", real.replace(
        "def _prod(a, b):\n    return a * b", "def _prod(a, b):\n    return a * b\n\n\n"
        "@triton.jit\ndef _broken(a):\n    return a"))
    real_op = triton_mod.render_op
    monkeypatch.setattr(triton_mod, "render_op",
                        lambda op, args, *a: f"_broken({args[0]}, 1)" if op == "sin" else real_op(op, args, *a))
    f, _ = _compile(lambda x: torch.sin(x) * 2, tmp_path, backend="triton")
    x = torch.randn(8, 5)
    y, warned = _run_warned(f, x)
    torch.testing.assert_close(y, torch.sin(x) * 2)
    assert len(warned) == 1 and "failed at their first launch" in warned[0], warned
    y2, warned2 = _run_warned(f, x)   # later calls: eager, silently
    torch.testing.assert_close(y2, torch.sin(x) * 2)
    assert warned2 == []


@interpreting
def test_fallback_error_raises_for_a_failing_launch(tmp_path, monkeypatch):
    real_op = triton_mod.render_op
    monkeypatch.setattr(triton_mod, "render_op",
                        lambda op, args, *a: f"undefined_fn({args[0]})" if op == "cos" else real_op(op, args, *a))
    f, _ = _compile(lambda x: torch.cos(x) * 2, tmp_path, backend="triton", fallback="error")
    with pytest.raises(Exception, match="undefined_fn"):
        f(torch.randn(4, 4))


def test_cuda_graphs_on_cpu_tensors_are_refused_with_a_reason(tmp_path):
    f, be = _compile(lambda x: torch.exp(x) - 1, tmp_path, cuda_graphs=True)
    x = torch.randn(6, 7)
    y, warned = _run_warned(f, x)
    torch.testing.assert_close(y, torch.exp(x) - 1)
    assert len(warned) == 1 and "CUDA graphs off" in warned[0] and "cpu tensor" in warned[0], warned
    assert len(be.compiled) == 1   # the graph is still compiled, it just is not captured


@interpreting
def test_triton_kernels_are_cached_on_disk(tmp_path):
    f, be = _compile(lambda x: torch.softmax(x, -1) * 2, tmp_path, backend="triton", fallback="error")
    f(torch.randn(16, 10))
    cg = be.compiled[0]
    assert cg.backend == "triton" and cg.artifact.endswith(".py") and os.path.exists(cg.artifact)
    assert not cg.cache_hit
    torch._dynamo.reset()
    f2, be2 = _compile(lambda x: torch.softmax(x, -1) * 2, tmp_path, backend="triton", fallback="error")
    f2(torch.randn(16, 10))
    assert be2.compiled[0].cache_hit and be2.compiled[0].artifact == cg.artifact


def test_autotune_winners_are_cached(tmp_path):
    """The tune cache round-trips through its JSON file, keyed by device and kernel."""
    from bessemer.compiler.codegen.triton_launch import LaunchConfig, TuneCache
    path = str(tmp_path / "k.tune.json")
    TuneCache(path).put("NVIDIA H200", "k3", LaunchConfig(4, 1024, 8))
    assert json.load(open(path)) == {"NVIDIA H200": {"k3": [4, 1024, 8]}}
    assert TuneCache(path).get("NVIDIA H200", "k3") == LaunchConfig(4, 1024, 8)
    assert TuneCache(path).get("other GPU", "k3") is None


def test_candidates_fit_the_tiling():
    from bessemer.compiler.codegen.triton_launch import candidates
    row = triton_mod.TritonMeta("reduce", 8192 * 768, 8192, 768, True, False, 0)
    for c in candidates(row):   # a persistent row reduction holds whole rows in one tile
        assert c.RBLOCK >= 768 and c.XBLOCK * c.RBLOCK <= 8192
    col = triton_mod.TritonMeta("reduce", 8192 * 768, 768, 8192, False, True, 0)
    for c in candidates(col):   # a column reduction reads a wide block of columns per row step
        assert c.XBLOCK >= 32
    pw = triton_mod.TritonMeta("pointwise", 100, 100, 1, False, False, 0)
    assert all(c.XBLOCK <= 128 for c in candidates(pw))


@interpreting
def test_huge_tensors_index_in_int64_and_compile_for_sm90(tmp_path):
    """A kernel whose addresses pass 2**31 indexes in int64 (rendered only: such a
    tensor is 8 GiB), and the kernel compiles for a real GPU."""
    from bessemer.compiler.ir import graph as ir
    from bessemer.compiler.codegen.backends import TritonBackend
    from bessemer.compiler.codegen.triton_aot import manifest_entry
    from bessemer.compiler.passes.fuse import fuse

    g = ir.Graph()
    shape = (1 << 16, 1 << 15)
    x = g.input(shape, torch.float32, (1 << 15, 1))
    y = g.pointwise("exp", [x], torch.float32)
    row_sum = g.reduce("sum", y, (1,), True, torch.float32)
    g.output([y, row_sum])
    src, kernels = TritonBackend(interpret=True).render(fuse(g))
    assert "tl.int64" in src and "tl.int32" not in src.split(f"def {kernels[0].meta.fn_name}")[1]
    path = tmp_path / "huge.py"
    path.write_text(src)
    import subprocess
    import sys
    code = ("import json,sys; from bessemer.compiler.codegen.triton_aot import compile_module; "
            "print(compile_module(json.loads(sys.argv[1]), 90))")
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    p = subprocess.run([sys.executable, "-c", code, json.dumps(manifest_entry(str(path), kernels))],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0 and p.stdout.strip() == "[]", p.stdout + p.stderr


@interpreting
def test_identical_kernels_share_one_triton_function(tmp_path):
    """The same block twice (as in a transformer's layers) is one function to compile
    and to tune, launched twice."""
    def two_blocks(x, w):
        h = torch.softmax(x * 2, -1) + 1
        return torch.softmax((h @ w) * 2, -1) + 1   # the matmul in between keeps two kernels
    f, be = _compile(two_blocks, tmp_path, backend="triton", fallback="error")
    x, w = torch.randn(16, 10), torch.randn(10, 10)
    torch.testing.assert_close(f(x, w), two_blocks(x, w))
    cg = be.compiled[0]
    names = {k.meta.fn_name for k in cg.kernels}
    assert len(cg.kernels) == 2 * len(names)
    assert cg.source.count("@triton.jit\ndef k_") == len(names)


def test_interpreter_switched_on_after_import_is_refused_by_name():
    """TRITON_INTERPRET only takes effect when set before triton is imported; set
    later, the backend says so instead of failing inside a kernel."""
    import subprocess
    import sys
    code = ("import os, torch, triton.language; os.environ['TRITON_INTERPRET'] = '1'\n"
            "from bessemer.compiler.codegen import backends\n"
            "try:\n    backends.select('triton', torch.device('cpu'))\nexcept Exception as e:\n    print(e)\n")
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert "set after triton was imported" in p.stdout, p.stdout + p.stderr


def test_column_reductions_of_transformer_size_split_into_enough_programs():
    """A bias gradient of GPT-2 (768 columns over 3072 rows) is cut into row chunks,
    so it runs as hundreds of programs, not the dozen its column blocks give."""
    from bessemer.compiler.ir import graph as ir
    from bessemer.compiler.codegen.backends import TritonBackend
    from bessemer.compiler.passes.fuse import fuse

    g = ir.Graph()
    grad = g.input((3072, 768), torch.bfloat16, (768, 1))
    g.output([g.reduce("sum", g.cast(grad, torch.float32), (0,), False, torch.float32)])
    _, (k,) = TritonBackend(interpret=True).render(fuse(g))
    assert k.kind == "column reduction" and k.meta.split >= 8
    assert -(-768 // 64) * k.meta.split >= 256
