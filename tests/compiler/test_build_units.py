"""A large program compiled as several translation units at once (codegen/build.py): the
library the units link into defines every kernel and computes what the one-unit library
computes; the split is balanced and keeps the preamble in each unit; a unit gcc rejects
fails the build with gcc's message naming the unit, and leaves no cache entry behind."""
import ctypes

import pytest
import torch
import torch.nn as nn

import bessemer
from bessemer.compiler.codegen import build as build_mod
from bessemer.compiler.codegen import cpp
from bessemer.compiler.codegen.kernel import KernelSource


def _kernel(name: str, body_lines: int) -> KernelSource:
    code = f'extern "C" int {name}(int x) {{\n' + "".join(f"  x = x * 3 + {i};\n" for i in range(body_lines)) \
        + "  return x;\n}\n"
    return KernelSource(name, code, [], [], None, "pointwise", 0, [])


def _expected(body_lines: int, x: int) -> int:
    for i in range(body_lines):
        x = (x * 3 + i) & 0xFFFFFFFF
    return x - (1 << 32) if x >= 1 << 31 else x


KERNELS = [_kernel(f"k{i}", n) for i, n in enumerate((40, 5, 30, 12, 25, 8))]


def test_the_units_hold_every_kernel_once_with_the_preamble_and_balance_their_length():
    units = cpp.translation_units(KERNELS, 2)
    assert len(units) == 2
    for u in units:
        assert u.startswith(cpp.preamble())
    names = [k.name for k in KERNELS]
    found = [n for u in units for n in names if f" {n}(" in u]
    assert sorted(found) == sorted(names)
    lengths = [len(u) - len(cpp.preamble()) for u in units]
    assert max(lengths) - min(lengths) <= max(len(k.code) for k in KERNELS)
    assert len(cpp.translation_units(KERNELS[:1], 4)) == 1       # never an empty unit


def test_a_library_built_from_units_computes_what_the_one_unit_library_does(tmp_path):
    source = cpp._unit(KERNELS)
    units = cpp.translation_units(KERNELS, 3)
    one, _, _ = build_mod.build(source, str(tmp_path / "one"), "one", symbols=[k.name for k in KERNELS])
    split, so_path, hit = build_mod.build(source, str(tmp_path / "split"), "split",
                                          symbols=[k.name for k in KERNELS], units=units)
    assert not hit
    for k, lines in zip(KERNELS, (40, 5, 30, 12, 25, 8)):
        for lib in (one, split):
            fn = getattr(lib, k.name)
            fn.restype, fn.argtypes = ctypes.c_int, [ctypes.c_int]
        assert getattr(split, k.name)(7) == getattr(one, k.name)(7) == _expected(lines, 7)
    # the entry is keyed by the whole source: a later build without units finds it on disk
    # (this process's own record of the loaded library dropped first, so the entry is read and
    # checked against the source as a new process would)
    with build_mod._lock:
        build_mod._loaded.pop(so_path)
    _, again, hit = build_mod.build(source, str(tmp_path / "split"), "split", symbols=[k.name for k in KERNELS])
    assert hit and again == so_path


def test_a_unit_the_compiler_rejects_fails_the_build_naming_it_and_stores_nothing(tmp_path):
    bad = KernelSource("k9", 'extern "C" int k9(int x) { return x +; }\n', [], [], None, "pointwise", 0, [])
    kernels = [*KERNELS[:2], bad]
    source = cpp._unit(kernels)
    with pytest.raises(build_mod.BuildError, match=r"unit \d+:.*k9|unit \d+:.*error"):
        build_mod.build(source, str(tmp_path), "bad", units=cpp.translation_units(kernels, 2))
    folder = tmp_path / "kernels" / build_mod.cache_key(source)[:2]
    assert not list(folder.glob("*.so")) and not list(folder.glob(".*.tmp"))


def test_unit_count_follows_the_code_length_the_cores_and_torchs_threads(monkeypatch):
    monkeypatch.setattr(build_mod.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    monkeypatch.setattr(torch, "get_num_threads", lambda: 4)
    assert build_mod.unit_count(build_mod.MIN_UNIT_CHARS - 1) == 1
    assert build_mod.unit_count(2 * build_mod.MIN_UNIT_CHARS) == 2
    assert build_mod.unit_count(100 * build_mod.MIN_UNIT_CHARS) == 4
    monkeypatch.setattr(torch, "get_num_threads", lambda: 3)      # the user's thread count
    assert build_mod.unit_count(100 * build_mod.MIN_UNIT_CHARS) == 3
    monkeypatch.setattr(build_mod.os, "sched_getaffinity", lambda pid: {0})
    assert build_mod.unit_count(100 * build_mod.MIN_UNIT_CHARS) == 1


def test_a_model_compiled_with_its_kernels_in_units_trains_as_eager(monkeypatch, tmp_path):
    monkeypatch.setattr(build_mod, "MIN_UNIT_CHARS", 1)          # every program split
    monkeypatch.setattr(build_mod.os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(torch, "get_num_threads", lambda: 2)
    monkeypatch.setenv("BESSEMER_CACHE_DIR", str(tmp_path))
    split = []
    real = build_mod._compile_units
    monkeypatch.setattr(build_mod, "_compile_units", lambda units, *a: (split.append(len(units)), real(units, *a)))
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.LayerNorm(32), nn.Linear(32, 4))
    ref = __import__("copy").deepcopy(model)
    x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))
    opts = [torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9) for m in (model, ref)]
    bessemer.compile(model, fallback="error")
    for _ in range(3):
        for m, opt in zip((model, ref), opts):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(m(x), y)
            loss.backward()
            opt.step()
        torch.testing.assert_close(model[0].weight.grad, ref[0].weight.grad, rtol=1e-5, atol=1e-6)
    for p, q in zip(model.parameters(), ref.parameters()):
        torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6)
    graphs = model.forward._bessemer_backend.compiled
    assert len(graphs) == 2 and all(cg.n_kernels > 1 and cg.artifact for cg in graphs)
    assert split == [2, 2]      # the forward's and the backward's kernels, each in two units
