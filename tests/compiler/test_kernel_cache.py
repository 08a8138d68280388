"""The kernel cache: private to its owner, one build per kernel across processes, and an
entry that cannot be used (truncated, corrupt, from another compiler) rebuilt with one warning."""
import ctypes
import itertools
import json
import multiprocessing
import os
import stat
import subprocess
import sys
import textwrap
import time
import warnings

import pytest
import torch

from bessemer import TrainingCompilerConfig
from bessemer.compiler.capture.backend import make_backend
from bessemer.compiler.codegen import build as build_mod
from bessemer.compiler.codegen.backends import TritonBackend

SRC = 'extern "C" int answer() { return 42; }\n'


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def answer(lib) -> int:
    lib.answer.restype = ctypes.c_int
    return lib.answer()


def entry_paths(cache, source, name):
    key = build_mod.cache_key(source)
    folder = cache / "kernels" / key[:2]
    return folder / f"{name}_{key}.so", folder / f"{name}_{key}.cpp"


def test_the_cache_is_created_owner_only(tmp_path):
    cache = tmp_path / "cache"
    lib, so_path, hit = build_mod.build(SRC.replace("42", "43"), str(cache), "private")
    assert not hit and answer(lib) == 43
    so, cpp = entry_paths(cache, SRC.replace("42", "43"), "private")
    assert str(so) == so_path
    for folder in (cache / "kernels", so.parent):
        assert mode(folder) == 0o700, folder
    for f in so.parent.iterdir():
        assert mode(f) & 0o077 == 0, f"{f.name} is readable or writable by others ({oct(mode(f))})"
    assert {p.suffix for p in so.parent.iterdir()} >= {".so", ".cpp", ".lock"}


@pytest.mark.parametrize("damage", ["truncated", "garbage", "other source"])
def test_an_entry_that_cannot_be_used_is_rebuilt_with_one_warning(tmp_path, damage):
    source = SRC.replace("42", "44") + f"// {damage}\n"
    so, cpp = entry_paths(tmp_path, source, "planted")
    lib, _, hit = build_mod.build(source, str(tmp_path), "seed")  # a real library to damage
    so.parent.mkdir(parents=True, exist_ok=True)
    seed = so.parent / f"seed_{so.name.split('_', 1)[1]}"
    data = seed.read_bytes()
    so.write_bytes({"truncated": data[: len(data) // 3], "garbage": b"\x7fELF" + b"\0" * 64,
                    "other source": data}[damage])
    so.with_suffix(".sha256").write_text(seed.with_suffix(".sha256").read_text())  # the whole library's
    cpp.write_text(source if damage != "other source" else SRC.replace("42", "7"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib, path, hit = build_mod.build(source, str(tmp_path), "planted")
    messages = [str(w.message) for w in caught if "kernel cache entry" in str(w.message)]
    assert len(messages) == 1 and "rebuilding it" in messages[0] and str(so) in messages[0]
    assert not hit and answer(lib) == 44
    assert cpp.read_text() == source
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, _, hit = build_mod.build(source, str(tmp_path), "planted")  # healed: a hit, no warning
    assert hit


def test_a_library_without_the_kernels_symbols_is_rebuilt(tmp_path):
    source = 'extern "C" int other() { return 1; }\nextern "C" int answer() { return 45; }\n'
    so, cpp = entry_paths(tmp_path, source, "symbols")
    build_mod.build('extern "C" int other() { return 1; }\n', str(tmp_path), "donor")
    [donor] = (tmp_path / "kernels").rglob("donor_*.so")
    so.parent.mkdir(parents=True, exist_ok=True)
    so.write_bytes(donor.read_bytes())
    so.with_suffix(".sha256").write_text(donor.with_suffix(".sha256").read_text())
    cpp.write_text(source)
    with pytest.warns(RuntimeWarning, match="lacks answer"):
        lib, _, hit = build_mod.build(source, str(tmp_path), "symbols", symbols=["other", "answer"])
    assert not hit and answer(lib) == 45


def test_a_corrupt_triton_module_is_rewritten_with_one_warning(tmp_path):
    src = "X = 1\n"
    backend = TritonBackend(interpret=True)
    built = backend.build(src, [], str(tmp_path), "g")
    assert not built.cache_hit and mode(os.path.dirname(built.path)) == 0o700 and mode(built.path) == 0o600
    with open(built.path, "w") as f:
        f.write("X = 1 +\n")  # truncated
    with pytest.warns(RuntimeWarning, match="kernel cache entry .* cannot be used"):
        again = backend.build(src, [], str(tmp_path), "g")
    assert not again.cache_hit and open(again.path).read() == src
    assert backend.build(src, [], str(tmp_path), "g").cache_hit


def _build_when_all_are_ready(barrier, results, source, cache):
    barrier.wait(timeout=60)
    results.put(build_mod.build(source, cache, "shared")[2])


def test_one_build_per_kernel_across_processes(tmp_path):
    """Processes that want the same kernel at the same moment: one builds, the others wait
    for it and load it."""
    source = SRC.replace("42", "46") + f"// {time.time()}\n"
    ctx = multiprocessing.get_context("fork")  # the builders start at once, without importing torch again
    barrier, results = ctx.Barrier(3), ctx.Queue()
    procs = [ctx.Process(target=_build_when_all_are_ready, args=(barrier, results, source, str(tmp_path)))
             for _ in range(3)]
    for p in procs:
        p.start()
    hits = [results.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    assert sorted(hits) == [False, True, True]


def test_a_compiled_function_heals_its_cache_in_a_new_process(tmp_path, monkeypatch):
    """End to end: a corrupt library under a compiled graph costs one warning and a rebuild
    in the next process that needs it, and the results stay eager's."""
    from bessemer.compiler.capture import backend as capture

    monkeypatch.setattr(capture, "_graph_ids", itertools.count())  # graph names as in a new process
    cache = tmp_path / "cache"
    be = make_backend(TrainingCompilerConfig(cache_dir=str(cache), fallback="error"))
    f = torch.compile(lambda x: torch.tanh(x) * 3 + 1, backend=be, dynamic=False)
    f(torch.linspace(-2, 2, 16))
    assert [cg.cache_hit for cg in be.bessemer.compiled] == [False]
    [so] = cache.rglob("*.so")
    data = so.read_bytes()
    so.unlink()  # a new file: this process has the library mapped
    so.write_bytes(data[:100])
    script = textwrap.dedent(f"""
        import json, warnings
        import torch, bessemer
        from bessemer.compiler.capture.backend import make_backend
        be = make_backend(bessemer.TrainingCompilerConfig(cache_dir={str(cache)!r}, fallback="error"))
        f = torch.compile(lambda x: torch.tanh(x) * 3 + 1, backend=be, dynamic=False)
        x = torch.linspace(-2, 2, 16)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = f(x)
        torch.testing.assert_close(y, torch.tanh(x) * 3 + 1)
        print(json.dumps({{"hits": [cg.cache_hit for cg in be.bessemer.compiled],
                          "warnings": [str(w.message) for w in caught if "kernel cache" in str(w.message)]}}))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    healed = json.loads(out.stdout.strip().splitlines()[-1])
    assert healed["hits"] == [False] and len(healed["warnings"]) == 1 and "rebuilding it" in healed["warnings"][0]
    assert len(so.read_bytes()) > 100


def test_a_killed_builds_temporary_files_are_removed_by_the_next_build(tmp_path):
    """A build killed midway (kill -9 during gcc) leaves `.<name>.so.<pid>.<random>.tmp`; the
    next build into that folder removes those of dead processes and any old `.*.tmp`, and
    keeps a live process's."""
    cache = tmp_path / "cache"
    src = SRC.replace("42", "44")
    so, _ = entry_paths(cache, src, "stale")
    so.parent.mkdir(parents=True, mode=0o700)
    os.chmod(cache, 0o700)
    os.chmod(cache / "kernels", 0o700)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = so.parent / f".{so.name}.{dead.pid}.abcd1234.tmp"
    live = so.parent / f".{so.name}.{os.getppid()}.abcd1234.tmp"
    old = so.parent / f".{so.name}.x7k2m9.tmp"        # fsutil's atomic_file name: no pid
    for p in (stale, live, old):
        p.write_bytes(b"half a library")
    os.utime(old, (time.time() - 2 * build_mod.STALE_SECONDS,) * 2)
    lib, _, hit = build_mod.build(src, str(cache), "stale")
    assert not hit and answer(lib) == 44
    assert not stale.exists() and not old.exists() and live.exists()
