"""Build C++ sources into shared libraries with the system compiler.

The cache is content-addressed: the key hashes the source, the compiler's
version and the flags. A library is written under a temporary name and renamed
into place atomically, so two processes building the same kernel at once never
see a half-written file, and a failed build leaves nothing behind.
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path


class BuildError(RuntimeError):
    """gcc rejected a generated source; the message holds gcc's own output."""


def _torch_lib_dir() -> str | None:
    try:
        import torch
        d = os.path.join(os.path.dirname(torch.__file__), "lib")
        return d if os.path.exists(os.path.join(d, "libgomp.so.1")) else None
    except Exception:  # pragma: no cover
        return None


@functools.lru_cache(maxsize=None)
def compiler_cmd() -> tuple[str, ...]:
    cxx = os.environ.get("CXX", "g++")
    return (cxx,)


@functools.lru_cache(maxsize=None)
def compiler_version() -> str:
    try:
        out = subprocess.run([*compiler_cmd(), "--version"], capture_output=True, text=True, check=True)
        return out.stdout.splitlines()[0]
    except (OSError, subprocess.CalledProcessError) as e:
        raise BuildError(f"no C++ compiler found ({compiler_cmd()[0]}): {e}") from None


@functools.lru_cache(maxsize=None)
def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") or line.startswith("flags"):
                    return line.strip()
    except OSError:
        pass
    return sys.platform


@functools.lru_cache(maxsize=None)
def build_flags() -> tuple[str, ...]:
    # -O3 -march=native: let gcc vectorize the generated loops for this CPU (the CPU
    # model is part of the cache key). -ffp-contract=off keeps a*b+c as two roundings,
    # as eager ATen does, so results match eager bit for bit where the formula does.
    # We do not use -ffast-math: it reorders reductions and changes results.
    flags = ["-shared", "-fPIC", "-O3", "-march=native", "-ffp-contract=off",
             "-fno-math-errno", "-fno-trapping-math", "-fopenmp", "-std=c++17", "-w"]
    lib = _torch_lib_dir()
    if lib:
        # Link the OpenMP runtime torch itself uses, so both share one thread pool.
        flags += [f"-L{lib}", f"-Wl,-rpath,{lib}"]
    return tuple(flags)


def cache_key(source: str, extra: str = "") -> str:
    h = hashlib.sha256()
    for part in (source, compiler_version(), " ".join(build_flags()), cpu_model(), extra):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


_lock = threading.Lock()
_loaded: dict[str, ctypes.CDLL] = {}


def build(source: str, cache_dir: str, name: str = "kernels") -> tuple[ctypes.CDLL, str, bool]:
    """Compile `source` (or take it from the cache) and load it.

    Returns (library, path of the .so, whether it came from the cache).
    """
    key = cache_key(source)
    out_dir = Path(cache_dir) / "kernels" / key[:2]
    so_path = out_dir / f"{name}_{key}.so"
    with _lock:
        lib = _loaded.get(str(so_path))
        if lib is not None:
            return lib, str(so_path), True
    hit = so_path.exists()
    if not hit:
        out_dir.mkdir(parents=True, exist_ok=True)
        src_path = out_dir / f"{name}_{key}.cpp"
        _atomic_write(src_path, source.encode())
        fd, tmp = tempfile.mkstemp(dir=out_dir, suffix=".so.tmp")
        os.close(fd)
        try:
            cmd = [*compiler_cmd(), *build_flags(), str(src_path), "-o", tmp, "-lgomp"]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                raise BuildError(f"{compiler_cmd()[0]} failed on {src_path}:\n{proc.stderr.strip()[-4000:]}")
            os.replace(tmp, so_path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    lib = ctypes.CDLL(str(so_path))
    with _lock:
        _loaded[str(so_path)] = lib
    return lib, str(so_path), hit


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
