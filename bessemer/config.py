"""TrainingCompilerConfig: the one typed, immutable source of compiler options.

Every option is part of the cache key of what it influences. Environment
variables are read only where a process boundary needs them (a training job
passes its config to the processes it starts through BESSEMER_COMPILER_CONFIG;
BESSEMER_DEBUG and BESSEMER_CACHE_DIR override the debug and cache folders).
"""
from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

ENV_CONFIG = "BESSEMER_COMPILER_CONFIG"
ENV_DEBUG = "BESSEMER_DEBUG"
ENV_CACHE = "BESSEMER_CACHE_DIR"

_FALLBACKS = ("warn", "error")
_PARTITIONERS = ("bessemer", "min_cut", "default")
_PRECISIONS = ("fp32", "bf16", "fp16")
_BACKENDS = ("auto", "cpp", "triton")
_GEMMS = ("auto", "aten")


def default_cache_dir() -> str:
    env = os.environ.get(ENV_CACHE)
    if env:
        return env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return os.path.join(base, "bessemer")


@dataclass(frozen=True)
class TrainingCompilerConfig:
    """Options of the bessemer training compiler.

    enabled      compile the model (False: everything runs eagerly, untouched)
    debug        write the compiler's artifacts (graphs after each pass, generated
                 code, timings) to debug_dir
    debug_dir    where debug artifacts go (default: BESSEMER_DEBUG, else ./bessemer-debug)
    cache_dir    the on-disk kernel cache (default: BESSEMER_CACHE_DIR, else ~/.cache/bessemer)
    fallback     "warn": an op or graph the compiler cannot handle runs eagerly with a
                 warning; "error": raise instead
    partitioner  how forward and backward are split: "bessemer" (compiler/partition/partitioner.py)
                 saves or recomputes each value the backward needs by a cost model of
                 the generated kernels, under memory_budget; "min_cut" is torch's
                 min-cut rematerialization, "default" torch's save-everything split
    memory_budget  how much the forward may save for the backward (partitioner
                 "bessemer"): a fraction in [0.0, 1.0] of what the default plan saves
                 (1.0: the default plan, which already recomputes cheap pointwise work;
                 0.0: the least memory the graph allows, recomputing matmuls if need
                 be), or an int number of bytes per compiled graph. Random draws are
                 never recomputed, so results stay those of eager
    compile_optimizer  with bessemer.compile(model, optimizer=opt), run a fused update
    precision    "fp32" (no change), "bf16" or "fp16": the forward runs under
                 torch.autocast to that dtype on the model's device (fp16 wants a
                 torch.amp.GradScaler in the training loop, as in eager)
    backend      which kernel generator: "auto" (C++ for CPU tensors, Triton for CUDA
                 tensors), "cpp", or "triton" (on CPU only under TRITON_INTERPRET=1)
    cuda_graphs  replay each compiled CUDA graph of static shapes as one CUDA graph
                 (fewer launches); a graph that cannot be captured runs without, with
                 a warning saying why
    dynamic      as torch.compile's `dynamic`: None (default) compiles the first shape
                 statically and, when a second shape comes, one graph with symbolic
                 sizes; True symbolic from the start; False one static graph per shape.
                 A symbolic graph is specialized by bessemer per concrete shape at its
                 first call (compiler/capture/specialize.py), never run eagerly
    pad_to_multiple_of  None (default), or N: a compiled Hugging Face style model pads its
                 sequence inputs to the next multiple of N (attention mask 0, labels
                 -100) and cuts its sequence outputs back, so varying lengths share a
                 few static graphs; offered only where the attention mask makes it
                 exact (bessemer/padding.py)
    cache_size_limit   how many shapes one function may be compiled for before Dynamo
                 falls back to eager for new ones (bounded recompilation)
    graph_cache  keep the compiled forward/backward graphs under cache_dir/graphs, so a
                 later process with the same model and config skips AOTAutograd's
                 tracing, the partitioner and the pipeline (compiler/capture/graph_cache.py;
                 BESSEMER_GRAPH_CACHE=0 also turns it off)
    gemm         "auto" (default): each large float32 matrix product on the CPU runs on
                 ATen's BLAS in one call, on oneDNN, or on ATen's in blocks of columns
                 (a wide result), whichever was measured fastest for its sizes and layout
                 when the graph compiled (oneDNN sums in its own order: results agree with
                 eager's to float32 rounding); "aten": always ATen's one call, as eager
                 (compiler/passes/gemm_choice.py)
    retain_host_memory  keep freed host (CPU) memory in the process for the next step
                 instead of returning it to the operating system and faulting it back in
                 page by page (glibc's malloc thresholds, compiler/runtime/hostmem.py); the
                 process's resident memory stays at its high-water mark, as with a GPU
                 caching allocator. Applies to the whole process, once set
    """

    enabled: bool = True
    debug: bool = False
    debug_dir: Optional[str] = None
    cache_dir: Optional[str] = None
    fallback: str = "warn"
    partitioner: str = "bessemer"
    memory_budget: float = 1.0
    compile_optimizer: bool = True
    precision: str = "fp32"
    cache_size_limit: int = 8
    backend: str = "auto"
    cuda_graphs: bool = False
    dynamic: Optional[bool] = None
    graph_cache: bool = True
    pad_to_multiple_of: Optional[int] = None
    retain_host_memory: bool = True
    gemm: str = "auto"

    def __post_init__(self):
        for name in ("enabled", "debug", "compile_optimizer", "cuda_graphs", "graph_cache",
                     "retain_host_memory"):
            v = getattr(self, name)
            if not isinstance(v, bool):
                raise ValueError(f"TrainingCompilerConfig.{name} must be True or False, got {v!r}")
        for name in ("debug_dir", "cache_dir"):
            v = getattr(self, name)
            if v is not None and not isinstance(v, (str, os.PathLike)):
                raise ValueError(f"TrainingCompilerConfig.{name} must be a path or None, got {v!r}")
            if v is not None:
                object.__setattr__(self, name, os.fspath(v))
        _choice("fallback", self.fallback, _FALLBACKS)
        _choice("partitioner", self.partitioner, _PARTITIONERS)
        object.__setattr__(self, "memory_budget", _budget(self.memory_budget))
        if self.memory_budget != 1.0 and self.partitioner != "bessemer":
            raise ValueError(f"TrainingCompilerConfig.memory_budget applies to partitioner='bessemer', "
                             f"not {self.partitioner!r}")
        _choice("precision", self.precision, _PRECISIONS)
        _choice("backend", self.backend, _BACKENDS)
        _choice("gemm", self.gemm, _GEMMS)
        if self.dynamic not in (None, True, False):
            raise ValueError(f"TrainingCompilerConfig.dynamic must be None, True or False, got {self.dynamic!r}")
        p = self.pad_to_multiple_of
        if p is not None and (not isinstance(p, int) or isinstance(p, bool) or p < 1):
            raise ValueError(f"TrainingCompilerConfig.pad_to_multiple_of must be None or an int >= 1 "
                             f"(a sequence length multiple, such as 8 or 64), got {p!r}")
        if not isinstance(self.cache_size_limit, int) or isinstance(self.cache_size_limit, bool) \
                or self.cache_size_limit < 1:
            raise ValueError(f"TrainingCompilerConfig.cache_size_limit must be an int >= 1, "
                             f"got {self.cache_size_limit!r}")

    # -- derived values -------------------------------------------------------
    def resolved_cache_dir(self) -> str:
        return self.cache_dir or default_cache_dir()

    def resolved_debug_dir(self) -> Optional[str]:
        """The debug folder, or None when debug output is off."""
        env = os.environ.get(ENV_DEBUG)
        if self.debug_dir:
            return self.debug_dir
        if env:
            return env
        if self.debug:
            return os.path.abspath("bessemer-debug")
        return None

    def replace(self, **changes: Any) -> "TrainingCompilerConfig":
        unknown = set(changes) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            raise ValueError(f"unknown TrainingCompilerConfig field(s): {sorted(unknown)}; "
                             f"allowed: {[f.name for f in dataclasses.fields(self)]}")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, d: dict) -> "TrainingCompilerConfig":
        if not isinstance(d, dict):
            raise ValueError(f"TrainingCompilerConfig expects a mapping, got {type(d).__name__}")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(d) - names
        if unknown:
            raise ValueError(f"unknown TrainingCompilerConfig field(s): {sorted(unknown)}; "
                             f"allowed: {sorted(names)}")
        return cls(**d)

    @classmethod
    def from_json(cls, s: str) -> "TrainingCompilerConfig":
        try:
            d = json.loads(s)
        except json.JSONDecodeError as e:
            raise ValueError(f"{ENV_CONFIG} is not valid JSON: {e}") from None
        return cls.from_dict(d)

    @classmethod
    def from_env(cls) -> "TrainingCompilerConfig":
        """The config a training job passed to this process, or the defaults."""
        s = os.environ.get(ENV_CONFIG)
        return cls.from_json(s) if s else cls()


def resolve_config(config: Optional[TrainingCompilerConfig] = None, **options: Any) -> TrainingCompilerConfig:
    """The config a compile runs under: `config` (or, with none, the one a training job passed to
    this process through the environment, or the defaults) with `options` as field overrides."""
    if config is None:
        config = TrainingCompilerConfig.from_env()
    elif not isinstance(config, TrainingCompilerConfig):
        raise ValueError(f"config must be a bessemer.TrainingCompilerConfig, got {type(config).__name__}")
    return config.replace(**options) if options else config


def _budget(value: Any) -> float | int:
    """memory_budget: a fraction in [0, 1] (the ints 0 and 1 read as 0.0 and 1.0) or bytes (int >= 1024)."""
    name = "TrainingCompilerConfig.memory_budget"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a fraction in [0.0, 1.0] of the default plan's saved bytes, "
                         f"or an int number of bytes, got {value!r}")
    if isinstance(value, float):
        if not 0.0 <= value <= 1.0:  # also rejects nan
            raise ValueError(f"{name} must be a fraction in [0.0, 1.0] of the default plan's saved bytes "
                             f"(or an int number of bytes), got {value!r}")
        return value
    if value in (0, 1):
        return float(value)
    if value < 1024:
        raise ValueError(f"{name}: {value} bytes is no real activation budget; give a fraction in "
                         f"[0.0, 1.0] or bytes >= 1024")
    return value


def _choice(name: str, value: Any, allowed: tuple) -> None:
    if value not in allowed:
        raise ValueError(f"TrainingCompilerConfig.{name} must be one of {list(allowed)}, got {value!r}")
