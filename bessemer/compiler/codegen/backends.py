"""Backends: a renderer plus a build step, chosen by the device of the graph.

  cpp     C++/OpenMP kernels built by gcc, called through ctypes (CPU tensors)
  triton  Triton kernels in a generated Python module (CUDA tensors; CPU tensors
          only under Triton's interpreter, TRITON_INTERPRET=1, which the tests use)

Both render the same Schedule and hand the runtime one callable per kernel; the
runtime calls externs through ATen the same way for both. A backend that cannot
serve a graph raises CodegenError with the reason, and the graph runs eagerly.
"""
from __future__ import annotations

import ctypes
import hashlib
import importlib.util
import os
import sys
import threading
import warnings
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import torch

from bessemer.fsutil import PRIVATE_FILE_MODE, atomic_write_text
from bessemer.compiler.codegen import build as build_mod
from bessemer.compiler.codegen.kernel import CodegenError, KernelSource

BACKENDS = ("auto", "cpp", "triton")


@dataclass
class Built:
    launchers: dict[str, Callable]   # kernel name -> callable
    path: Optional[str]              # the built artifact (.so or .py)
    cache_hit: bool
    # a build still running in the background (CppBackend.build(background=True)): the
    # launchers are bound by finish(), which the program's first call makes
    pending: Optional[Future] = None
    kernels: tuple = ()

    def finish(self) -> None:
        """Wait for the background build and bind its launchers; BuildError if it failed."""
        future = self.pending
        if future is None:
            return
        # waited for without the lock: another thread's finish() of another library, or
        # wait_for_builds(), does not queue behind this build
        lib, so_path, hit = future.result()
        with _finish_lock:
            if self.pending is future:
                self.launchers.update(_cpp_launchers(lib, self.kernels))
                self.path, self.cache_hit, self.pending = so_path, hit, None


_finish_lock = threading.Lock()
# Kernel libraries built while the compile goes on (a graph's gcc beside the next graph's
# lowering and Dynamo's own work after it), one build at a time: each build already runs one
# gcc per core over its translation units.
_builder = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bessemer-build")
_started: list[Future] = []


def wait_for_builds() -> None:
    """Wait until every build started in the background has ended (a failure is left for its
    program's first call to report): a matrix product is timed with the cores to itself."""
    with _finish_lock:
        started = list(_started)
        _started.clear()
    wait(started)


def _cpp_launchers(lib, kernels) -> dict[str, Callable]:
    fns = {}
    for k in kernels:
        fn = getattr(lib, k.name)
        fn.argtypes = [ctypes.c_void_p] * len(k.args) + [ctypes.c_int64] * len(k.syms)
        fn.restype = None
        fns[k.name] = fn
    return fns


class CppBackend:
    name = "cpp"
    source_ext = "cpp"

    def print_program(self, program) -> tuple[str, list[KernelSource]]:
        from bessemer.compiler.codegen.cpp import print_program
        return print_program(program)

    def render(self, sched) -> tuple[str, list[KernelSource]]:
        """lower_kernels, then print_program (the pipeline runs them as two passes)."""
        from bessemer.compiler.passes.lower_kernels import lower_kernels
        return self.print_program(lower_kernels(sched, self.name))

    def build(self, src: str, kernels: list[KernelSource], cache_dir: str, name: str,
              background: bool = False) -> Built:
        """The kernels' library, from the cache or compiled. `background`: a library the cache
        does not hold is compiled on a thread of its own while the caller goes on; the Built
        returned is pending until its finish()."""
        from bessemer.compiler.codegen.cpp import translation_units
        parts = build_mod.unit_count(sum(len(k.code) for k in kernels))
        units = translation_units(kernels, parts) if parts > 1 else ()
        symbols = [k.name for k in kernels]
        if background:
            so_path = build_mod.library_path(src, cache_dir, name)
            if not so_path.exists():
                future = _builder.submit(build_mod.build, src, cache_dir, name, symbols, units)
                with _finish_lock:
                    _started.append(future)
                return Built({}, str(so_path), False, future, tuple(kernels))
        lib, so_path, hit = build_mod.build(src, cache_dir, name, symbols=symbols, units=units)
        return Built(_cpp_launchers(lib, kernels), so_path, hit)

    def call(self, k: KernelSource, args: list[str]) -> str:
        return f"{k.name}({', '.join([a + '.data_ptr()' for a in args] + list(k.syms))})"


_import_lock = threading.Lock()


class TritonBackend:
    name = "triton"
    source_ext = "py"

    def __init__(self, interpret: bool):
        self.interpret = interpret

    def print_program(self, program) -> tuple[str, list[KernelSource]]:
        from bessemer.compiler.codegen.triton import print_program
        return print_program(program)

    def render(self, sched) -> tuple[str, list[KernelSource]]:
        """lower_kernels, then print_program (the pipeline runs them as two passes)."""
        from bessemer.compiler.passes.lower_kernels import lower_kernels
        return self.print_program(lower_kernels(sched, self.name))

    def build(self, src: str, kernels: list[KernelSource], cache_dir: str, name: str) -> Built:
        """Write the module into the cache (Triton compiles each kernel at its first
        launch, into its own cache) and import it."""
        import triton

        from bessemer.compiler.codegen.triton_launch import make_launchers
        key = hashlib.sha256(f"{src}\0{triton.__version__}".encode()).hexdigest()[:32]
        path = build_mod.cache_folder(cache_dir, "triton", key) / f"kernels_{key}.py"
        # content-addressed: any graph with this source shares it
        with build_mod.entry_lock(path):
            hit = _cached_module_matches(path, src)
            if not hit:
                atomic_write_text(path, src, mode=PRIVATE_FILE_MODE)
        mod_name = f"bessemer_triton_{key}"
        with _import_lock:
            mod = sys.modules.get(mod_name)
            if mod is None:
                spec = importlib.util.spec_from_file_location(mod_name, path)
                mod = importlib.util.module_from_spec(spec)
                try:
                    spec.loader.exec_module(mod)
                except Exception as e:  # noqa: BLE001
                    raise CodegenError(f"generated Triton module {path} failed to import: {e}") from e
                sys.modules[mod_name] = mod
        tune = str(path.with_suffix(".tune.json"))
        return Built(make_launchers(mod, kernels, tune, self.interpret), str(path), hit)

    def call(self, k: KernelSource, args: list[str]) -> str:
        return f"{k.name}({', '.join(list(args) + list(k.syms))})"


def _cached_module_matches(path: Path, src: str) -> bool:
    """Whether the cached module holds exactly `src`; one that does not (truncated, corrupt,
    written by another version) is rewritten, with one warning."""
    if not path.exists():
        return False
    try:
        if path.read_text() == src:
            return True
        why = "its content differs from the kernels'"
    except (OSError, UnicodeDecodeError) as e:
        why = str(e)
    warnings.warn(f"bessemer: kernel cache entry {path} cannot be used ({why}); rewriting it",
                  RuntimeWarning, stacklevel=3)
    return False


def graph_device(example_inputs) -> torch.device:
    """The device a graph runs on: CUDA if any tensor input is on a GPU."""
    devs = {t.device for t in example_inputs if isinstance(t, torch.Tensor)}
    cuda = [d for d in devs if d.type == "cuda"]
    if len({(d.type, d.index) for d in cuda}) > 1:
        raise CodegenError(f"graph inputs are on several GPUs ({sorted(str(d) for d in cuda)})")
    if cuda:
        return cuda[0]
    other = [d for d in devs if d.type not in ("cpu", "cuda")]
    if other:
        raise CodegenError(f"no bessemer backend targets device {other[0]}")
    return torch.device("cpu")


def _import_triton_language():
    import triton.language as tl
    return tl


def triton_interpreting() -> bool:
    return os.environ.get("TRITON_INTERPRET", "0").lower() in ("1", "true", "on", "yes")


def select(kind: str, device: torch.device):
    """The backend for `kind` ("auto" | "cpp" | "triton") on `device`, or CodegenError
    saying why none can serve it."""
    if kind not in BACKENDS:
        raise CodegenError(f"unknown backend {kind!r} (expected one of {', '.join(BACKENDS)})")
    if kind == "auto":
        kind = "triton" if device.type == "cuda" else "cpp"
    if kind == "cpp":
        if device.type != "cpu":
            raise CodegenError(f"the cpp backend runs on CPU tensors, not {device}")
        return CppBackend()
    try:
        tl = _import_triton_language()
    except ImportError as e:
        raise CodegenError(f"Triton is not installed ({e}); install triton for GPU kernels") from None
    interpret = triton_interpreting()
    if interpret and type(tl.sum).__name__ != "InterpretedFunction":
        # triton wraps its library functions for the interpreter when it is imported
        raise CodegenError("TRITON_INTERPRET=1 was set after triton was imported; set it before the "
                           "process starts")
    if device.type == "cpu" and not interpret:
        raise CodegenError("Triton kernels on CPU tensors need Triton's interpreter (TRITON_INTERPRET=1)")
    if device.type == "cuda" and not interpret:
        major, _ = torch.cuda.get_device_capability(device)
        if major < 7:
            raise CodegenError(f"Triton needs a GPU of compute capability 7.0 or newer; {device} has {major}.x")
    return TritonBackend(interpret)

