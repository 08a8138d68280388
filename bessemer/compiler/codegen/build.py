"""Build C++ sources into shared libraries with the system compiler.

The cache is content-addressed: the key hashes the source, the compiler's
version and the flags. It is private: its folders are created 0700 and its files
0600, and a folder owned by another user is refused. One file lock per entry
makes processes and ranks that need the same kernel at once build it once. A
library is written under a temporary name and renamed into place, so no reader
sees half of one and a failed build leaves nothing behind; an entry that does not
load (truncated, corrupt, built by another compiler) is rebuilt with one warning.
"""
from __future__ import annotations

import _ctypes
import ctypes
import functools
import hashlib
import os
import subprocess
import sys
import tempfile
import threading
import warnings
from pathlib import Path
from typing import Sequence

from filelock import FileLock

from bessemer.fsutil import PRIVATE_FILE_MODE, atomic_write_text
from bessemer.compiler import cache_trust


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


def _torch_cpu_capability() -> str:
    try:
        import torch
        return torch.backends.cpu.get_cpu_capability()
    except Exception:  # noqa: BLE001 - unknown: gcc's own choice of vector width
        return ""


@functools.lru_cache(maxsize=None)
def build_flags() -> tuple[str, ...]:
    # -O3 -march=native: let gcc vectorize the generated loops for this CPU (the CPU
    # model is part of the cache key). -ffp-contract=off keeps a*b+c as two roundings,
    # as eager ATen does, so results match eager bit for bit where the formula does.
    # We do not use -ffast-math: it reorders reductions and changes results. C++14: C++17's
    # <cmath> adds the special functions (Bessel, Legendre, ...), 0.06 s of every compile.
    flags = ["-shared", "-fPIC", "-O3", "-march=native", "-ffp-contract=off",
             "-fno-math-errno", "-fno-trapping-math", "-fopenmp", "-std=c++14", "-w",
             # sinf and cosf of one value are no builtins: gcc would merge them into one sincos
             # call, which has no vector variant, and leave the loop scalar (a RoPE rotation,
             # [8, 4, 128, 64] bf16: 0.68 ms scalar; the preamble declares both `const`)
             "-fno-builtin-sinf", "-fno-builtin-cosf"]
    if _torch_cpu_capability() == "AVX512":
        # gcc's tuning for AVX-512 CPUs keeps vectors at 256 bits; eager's ATen kernels use
        # 512 here, and so does libmvec's 16-wide expf/erff when asked: a GELU over
        # [1576, 1024] takes 0.61 ms instead of 1.23 ms (2 threads), as fast as eager's.
        flags.append("-mprefer-vector-width=512")
    lib = _torch_lib_dir()
    if lib:
        # Link the OpenMP runtime torch itself uses, so both share one thread pool.
        flags += [f"-L{lib}", f"-Wl,-rpath,{lib}"]
    return tuple(flags)


# The layout of a cache entry (library, source, checksum); entries of another layout are
# never looked at.
CACHE_FORMAT = "2"


def cache_key(source: str, extra: str = "") -> str:
    h = hashlib.sha256()
    for part in (source, compiler_version(), " ".join(build_flags()), cpu_model(), CACHE_FORMAT, extra):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


_lock = threading.Lock()
_loaded: dict[str, ctypes.CDLL] = {}


def cache_folder(cache_dir: str, kind: str, key: str) -> Path:
    """`<cache_dir>/<kind>/<key[:2]>`, made owner-only (0700) where missing, when every folder
    from the cache root down is ours and writable by nobody else (cache_trust): a library
    another user could write would be loaded and run in our process. Otherwise a private
    temporary folder of this process, with one warning."""
    return cache_trust.place(cache_dir, kind, key[:2])


def entry_lock(path: Path) -> FileLock:
    """The lock of one cache entry, held while it is checked, built or repaired: processes
    and ranks that want the same kernel at once build it once, the others then load it."""
    return FileLock(str(path) + ".lock", mode=PRIVATE_FILE_MODE)


# A large program is compiled as several translation units at once, each the preamble and a
# share of the kernels, then linked into one library: one unit per core, each of at least
# MIN_UNIT_CHARS of kernel code. The trade: every unit parses the preamble again (0.08 s of
# gcc here; 0.22 s with <algorithm> and C++17's <cmath>) and the link adds a little, against
# the cores gcc otherwise leaves idle. T5 small on 2 cores: its backward (52 kernels, 65 KB)
# 1.70 s as one unit, 0.99 s as two; its forward (36 kernels, 32 KB) 1.23 s as one, 0.78 s
# as two.
MIN_UNIT_CHARS = 8000


def unit_count(kernel_chars: int) -> int:
    """How many translation units a program with this much kernel code is compiled as: no
    more than the cores this process may run on, nor than torch's threads (a container
    can show more cores than its CPU quota lets it use; torch's count is what the user
    gave the process)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    import torch
    cores = min(cores, max(1, torch.get_num_threads()))
    return max(1, min(cores, kernel_chars // MIN_UNIT_CHARS))


def library_path(source: str, cache_dir: str, name: str = "kernels") -> Path:
    """Where `build` keeps the library of `source`."""
    key = cache_key(source)
    return cache_folder(cache_dir, "kernels", key) / f"{name}_{key}.so"


def build(source: str, cache_dir: str, name: str = "kernels",
          symbols: Sequence[str] = (), units: Sequence[str] = ()) -> tuple[ctypes.CDLL, str, bool]:
    """Compile `source` (or take it from the cache) and load it.

    Returns (library, path of the .so, whether it came from the cache). A cached
    library that does not load, lacks one of `symbols`, or sits beside a source
    other than `source` (truncated, corrupt, planted) is rebuilt, with one warning.
    `units`, when given, are translation units that together define what `source` does
    (the caller's split of it): on a miss they are compiled at once and linked; the cache
    entry is keyed and checked by `source` alone.
    """
    so_path = library_path(source, cache_dir, name)
    with _lock:
        lib = _loaded.get(str(so_path))
        if lib is not None:
            return lib, str(so_path), True
    src_path = so_path.with_suffix(".cpp")
    with entry_lock(so_path):
        lib = _load_cached(so_path, src_path, source, symbols) if so_path.exists() else None
        hit = lib is not None
        if not hit:
            _compile(source, src_path, so_path, units)
            atomic_write_text(_digest_path(so_path), _digest(so_path), mode=PRIVATE_FILE_MODE)
            lib = ctypes.CDLL(str(so_path))
    with _lock:
        _loaded[str(so_path)] = lib
    return lib, str(so_path), hit


def _load_cached(so_path: Path, src_path: Path, source: str, symbols: Sequence[str]) -> ctypes.CDLL | None:
    """The cached library, or None (with one warning, the entry removed) when it cannot serve."""
    try:
        for p in (so_path, src_path, _digest_path(so_path)):
            untrusted = cache_trust.problem(p, so_path.parent)
            if untrusted:
                raise OSError(f"it is not trusted: {untrusted}")
        if not src_path.is_file() or src_path.read_text() != source:
            raise OSError("its source is missing or differs from the kernel's")
        # Checked before loading: the loader maps a truncated library and dies touching it.
        digest = _digest_path(so_path)
        if not digest.is_file() or digest.read_text().strip() != _digest(so_path):
            raise OSError("its checksum is missing or does not match")
        lib = ctypes.CDLL(str(so_path))
        missing = [s for s in symbols if not hasattr(lib, s)]
        if missing:
            # Unloaded, or loading the rebuilt library at this path would hand this one back.
            _ctypes.dlclose(lib._handle)
            raise OSError(f"it lacks {', '.join(missing[:3])}")
        return lib
    except (OSError, UnicodeDecodeError) as e:
        warnings.warn(f"bessemer: kernel cache entry {so_path} cannot be used ({e}); rebuilding it",
                      RuntimeWarning, stacklevel=3)
        for p in (so_path, src_path, _digest_path(so_path)):
            p.unlink(missing_ok=True)
        return None


def _digest_path(so_path: Path) -> Path:
    return so_path.with_suffix(".sha256")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _compile(source: str, src_path: Path, so_path: Path, units: Sequence[str] = ()) -> None:
    remove_stale_temporaries(so_path.parent)
    atomic_write_text(src_path, source, mode=PRIVATE_FILE_MODE)
    # the compiler writes a temporary named with this process's id, renamed into place: a
    # build killed midway leaves a file the next build in this folder knows to be dead
    tmp = so_path.parent / f".{so_path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    try:
        if len(units) > 1:
            _compile_units(units, src_path, tmp)
        else:
            cmd = [*compiler_cmd(), *build_flags(), str(src_path), "-o", str(tmp), "-lgomp"]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                raise BuildError(f"{compiler_cmd()[0]} failed on {src_path}:\n{proc.stderr.strip()[-4000:]}")
        os.chmod(tmp, PRIVATE_FILE_MODE)
        os.replace(tmp, so_path)
    finally:
        tmp.unlink(missing_ok=True)


def _compile_units(units: Sequence[str], src_path: Path, out: Path) -> None:
    """Compile the translation units at once (one compiler process each, in a private
    temporary folder), then link their objects into the library `out`."""
    cc = compiler_cmd()
    with tempfile.TemporaryDirectory(prefix="bessemer-build-") as work:
        procs = []
        for i, unit in enumerate(units):
            cpp, obj = Path(work) / f"unit{i}.cpp", Path(work) / f"unit{i}.o"
            cpp.write_text(unit)
            procs.append((obj, subprocess.Popen([*cc, *build_flags(), "-c", str(cpp), "-o", str(obj)],
                                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
        errors = []
        for i, (_, proc) in enumerate(procs):
            _, err = proc.communicate()
            if proc.returncode != 0:
                errors.append(f"unit {i}: {err.strip()[-4000:]}")
        if errors:
            raise BuildError(f"{cc[0]} failed on {src_path} (compiled as {len(units)} units):\n"
                             + "\n".join(errors))
        proc = subprocess.run([*cc, *build_flags(), *(str(obj) for obj, _ in procs), "-o", str(out), "-lgomp"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise BuildError(f"{cc[0]} failed linking {src_path}:\n{proc.stderr.strip()[-4000:]}")


# A temporary file whose name carries no process id (one written by fsutil's atomic_file) is
# removed once it is this old. The trade: a write that takes longer than this in another
# process would lose its file (and fail, to be redone); a dead writer's file stays this long.
STALE_SECONDS = 3600.0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:    # someone else's process: alive
        return True
    return True


def remove_stale_temporaries(folder: Path, now: float | None = None) -> list[Path]:
    """Remove the temporary files (`.<name>.<pid>.<random>.tmp`) a killed build left in
    `folder`: those whose process is gone, and any `.*.tmp` older than STALE_SECONDS."""
    import time
    now = time.time() if now is None else now
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for e in entries:
        if not (e.name.startswith(".") and e.name.endswith(".tmp")) or not e.is_file(follow_symlinks=False):
            continue
        parts = e.name[:-len(".tmp")].rsplit(".", 2)
        pid = int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else None
        try:
            old = now - e.stat(follow_symlinks=False).st_mtime > STALE_SECONDS
        except OSError:
            continue
        if (pid is not None and pid != os.getpid() and not _alive(pid)) or old:
            try:
                os.unlink(e.path)
                removed.append(Path(e.path))
            except OSError:
                pass
    return removed
