"""The compiled optimizer step.

`compile_optimizer(opt, config)` makes `opt.step()` of a torch.optim SGD, Adam
or AdamW run compiled code per parameter group instead of a dozen ATen ops per
parameter. The optimizer stays the same torch.optim object: `state` and
`param_groups` are read and written exactly as torch keeps them (same keys, same
lazily created tensors), hyperparameters are read from the param groups on every
step, and step hooks, learning-rate schedulers, `state_dict()` /
`load_state_dict()` keep working.

Two paths compile a group's update:

  template  one hand-written C++ kernel per group (codegen/optim_cpp.py), for
            float32/float64 CPU parameters: bit for bit eager's single-tensor step
            (it rounds op for op and calls torch's own sqrt); hyperparameters are
            kernel arguments, read every step.
  ir        the update traced from optim_rules.update, per group and signature, and
            compiled by bessemer's pipeline like any graph (optim_ir.py): C++ on a
            CPU, Triton on a GPU (codegen/backends.py picks by device and
            config.backend). Parameters and state agree with eager to float rounding.
            lr is an input; other hyperparameters are baked in (a new value compiles
            a new program, up to config.cache_size_limit per optimizer).

Which runs where (via="auto"): the template for a group whose parameters with a
gradient are all float32/float64 CPU tensors (and config.backend is not
"triton"); the IR path for everything the template cannot run: CUDA parameters,
bfloat16/float16 ones, and any group under backend="triton". The template stays
the CPU default because it is bit-exact with eager and, on a CPU, runs a whole
group in one OpenMP loop where the IR path runs one kernel per parameter; whether
the IR path is faster on CPU is measured side by side, for the parameters of
gpt2, bert-base-uncased and llama, by

    bessemer bench optim --scale small        (bessemer/bench/optim.py)

(eager foreach vs template vs IR vs torch.compile(opt.step)); if it is as fast,
the template and this split can go. `compile_optimizer(via="template" | "ir")`
forces one path, for that measurement and the tests.

What neither path covers runs torch's own step, loudly: an unsupported optimizer
or option (one warning, at compile time), or a parameter group that cannot be
compiled on some step (eager for that group, one warning per reason). With
`config.fallback == "error"` these raise OptimizerCompileError instead.
"""
from __future__ import annotations

import ctypes
import functools
import inspect
import itertools
import logging
import os
import sys
import threading
import types
import warnings
import weakref
from dataclasses import dataclass
from typing import Any, Callable, Optional

import torch
from torch.optim.optimizer import _get_scalar_dtype

from bessemer.config import TrainingCompilerConfig
from bessemer.compiler import optim_ir, optim_rules
from bessemer.compiler.optim_cache import GroupCache
from bessemer.compiler.codegen import build as _build
from bessemer.compiler.codegen import optim_cpp
from bessemer.compiler.codegen.optim_cpp import UpdateSpec

log = logging.getLogger("bessemer")

_ATTR = "_bessemer_fused_step"        # the FusedStep of a compiled optimizer instance
VIAS = ("auto", "template", "ir")      # compile_optimizer(via=...): see the module docstring
_DTYPES = {torch.float32: "float32", torch.float64: "float64"}


class OptimizerCompileError(RuntimeError):
    """The optimizer step cannot be compiled and config.fallback is "error"."""


# ---------------------------------------------------------------------------
# Kernels: render, build (content-addressed cache), load.
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Kernel:
    spec: UpdateSpec
    fn: Callable[..., int]
    so_path: str
    cache_hit: bool


_kernels: dict[tuple[str, str], Kernel] = {}
_kernels_lock = threading.Lock()


def load_kernel(spec: UpdateSpec, config: TrainingCompilerConfig) -> Kernel:
    """Render, build (or take from the cache) and load the kernel for `spec`.

    Raises build.BuildError with gcc's message when the source does not compile.
    """
    source = optim_cpp.render(spec)
    cache_dir = config.resolved_cache_dir()
    debug_dir = config.resolved_debug_dir()
    if debug_dir:
        out = os.path.join(debug_dir, "optimizer")
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, f"{spec.symbol}.cpp"), "w") as f:
            f.write(source)
    key = (source, cache_dir)
    with _kernels_lock:
        k = _kernels.get(key)
    if k is not None:
        return k
    lib, so_path, hit = _build.build(source, cache_dir, name="optim")
    fn = getattr(lib, spec.symbol)
    fn.restype = ctypes.c_int
    fn.argtypes = [getattr(ctypes, t) for _, t in optim_cpp.signature(spec)]
    k = Kernel(spec, fn, so_path, hit)
    with _kernels_lock:
        _kernels[key] = k
    return k


@functools.lru_cache(maxsize=None)
def torch_cpu_symbol(name: str) -> Optional[Any]:
    """The function `name` exported by torch's CPU library (MKL's routines are linked into
    it), or None where the library or the symbol is not there."""
    path = os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so")
    try:
        return getattr(ctypes.CDLL(path), name)
    except (OSError, AttributeError):
        return None


@functools.lru_cache(maxsize=None)
def torch_sqrt_impl(dtype: str) -> Optional[int]:
    """The address of the vector sqrt torch's CPU kernels use for `dtype`, or None.

    ATen builds with MKL compute sqrt with MKL's vsSqrt / vdSqrt, which is within
    1 ulp but not always the IEEE result; the Adam kernel calls the same routine
    so that it rounds as eager does. None: torch's sqrt is std::sqrt (or it is
    neither, and the update differs from eager by at most 1 ulp in sqrt).
    """
    tdtype = torch.float32 if dtype == "float32" else torch.float64
    gen = torch.Generator().manual_seed(0)            # leave the global RNG alone
    x = torch.rand(4099, generator=gen, dtype=tdtype) * 0.01
    ref = torch.sqrt(x)
    fn = torch_cpu_symbol("vsSqrt" if dtype == "float32" else "vdSqrt")
    if fn is not None:
        out = torch.empty_like(x)
        fn(ctypes.c_int(x.numel()), ctypes.c_void_p(x.data_ptr()), ctypes.c_void_p(out.data_ptr()))
        if torch.equal(out, ref):
            return ctypes.cast(fn, ctypes.c_void_p).value
    import numpy
    if not torch.equal(torch.from_numpy(numpy.sqrt(x.numpy())), ref):
        log.info("bessemer: torch's %s sqrt is neither IEEE nor MKL's; the fused Adam update "
                 "may differ from eager by 1 ulp in sqrt", dtype)
    return None


@functools.lru_cache(maxsize=None)
def mkl_threads_local() -> Optional[int]:
    """The address of MKL's mkl_set_num_threads_local (C interface) in torch's library, or None.

    The Adam kernel calls MKL's sqrt (torch_sqrt_impl) on the threads of its own
    parallel loop, and sets their MKL thread count to 1 meanwhile (optim_cpp's prelude
    says why)."""
    fn = torch_cpu_symbol("MKL_Set_Num_Threads_Local")   # the C interface (by value)
    return None if fn is None else ctypes.cast(fn, ctypes.c_void_p).value


# ---------------------------------------------------------------------------
# What can be compiled: the optimizer (once), each group (every step).
# ---------------------------------------------------------------------------

_KINDS = ((torch.optim.AdamW, "adam"), (torch.optim.Adam, "adam"), (torch.optim.SGD, "sgd"))
# Methods a subclass may not override and still get the compiled update.
_OWN_METHODS = ("step", "_init_group")


def _unwrap(fn: Any) -> Any:
    return inspect.unwrap(fn) if callable(fn) else fn


def _kind_of(opt: torch.optim.Optimizer) -> tuple[Optional[str], Optional[str]]:
    """(kind, None) for a supported optimizer, else (None, why not)."""
    name = type(opt).__name__
    for base, kind in _KINDS:
        if isinstance(opt, base):
            for meth in _OWN_METHODS:
                if _unwrap(getattr(type(opt), meth)) is not _unwrap(getattr(base, meth)):
                    return None, f"{name} overrides {base.__name__}.{meth}"
            return kind, None
    return None, f"{name} has no compiled update (compiled: SGD, Adam, AdamW)"


def _option_reason(group: dict) -> Optional[str]:
    """Why a group's options keep it on torch's step (None: they compile)."""
    for opt_name in ("foreach", "fused", "capturable", "differentiable"):
        if group.get(opt_name):
            return f"{opt_name}=True"
    return None


_PLAIN = (torch.Tensor, torch.nn.Parameter)   # a subclass may mean anything behind data_ptr


def _param_reason(p: torch.Tensor) -> Optional[str]:
    if type(p) not in _PLAIN:
        return f"a parameter is a {type(p).__name__} (a tensor subclass)"
    if p.device.type != "cpu":
        return f"a parameter is on {p.device} (the compiled update is for CPU)"
    if p.dtype not in _DTYPES:
        return f"a parameter has dtype {p.dtype} (the compiled update is for float32 and float64)"
    if p.layout != torch.strided:
        return f"a parameter has layout {p.layout}"
    if p.is_inference():
        return "a parameter is an inference tensor"
    return None


def _non_overlapping_and_dense(t: torch.Tensor) -> bool:
    """True when t's elements fill [data_ptr, data_ptr + numel) without overlap, in any order of
    dims: not contiguity (a channels-last tensor is dense and not contiguous) but contiguity
    of t's dims put in order of decreasing stride, by the one rule (ir/views.is_contiguous).
    The fused update walks a parameter and its companions as flat arrays of numel elements,
    which needs exactly this (and the same strides for all of them, _same_layout)."""
    if t.is_contiguous():
        return True
    from bessemer.compiler.ir.views import is_contiguous
    dims = sorted(zip(t.stride(), t.size()), reverse=True)
    return is_contiguous([size for _, size in dims], [stride for stride, _ in dims])


def _same_layout(p: torch.Tensor, t: Any, what: str) -> Optional[str]:
    """Why tensor t (a grad or state buffer of p) cannot be updated next to p."""
    if not isinstance(t, torch.Tensor):
        return f"{what} is a {type(t).__name__}, not a tensor"
    if type(t) not in _PLAIN:
        return f"{what} is a {type(t).__name__} (a tensor subclass)"
    if t.layout != torch.strided:
        return f"{what} has layout {t.layout}" + (" (sparse gradients)" if t.is_sparse else "")
    if t.device != p.device:
        return f"{what} is on {t.device}, its parameter on {p.device}"
    if t.dtype != p.dtype:
        return f"{what} has dtype {t.dtype}, its parameter {p.dtype}"
    if t.shape != p.shape or t.stride() != p.stride():
        return f"{what} has a different shape or memory layout than its parameter"
    return None


# The checks below run for every parameter on every step, so each starts with a
# fast test of the common case (plain contiguous CPU tensors that agree) made
# of cheap attribute reads; only when that fails do the full checks say why.

def _param_grad_reason(p: torch.Tensor, g: torch.Tensor) -> Optional[str]:
    if (type(p) in _PLAIN and p.is_cpu and p.dtype in _DTYPES and p.layout == torch.strided
            and not p.is_inference() and p.is_contiguous() and _companion_fast(p, g)):
        return None
    return (_param_reason(p) or _same_layout(p, g, "a gradient")
            or (None if _non_overlapping_and_dense(p) else "a parameter is not dense in memory"))


def _companion_fast(p: torch.Tensor, t: Any) -> bool:
    """t is a plain contiguous CPU tensor shaped and typed as p (itself contiguous)."""
    return (type(t) in _PLAIN and t.layout == torch.strided and t.is_cpu and t.dtype == p.dtype
            and t.is_contiguous() and t.shape == p.shape)


def _state_reason(p: torch.Tensor, t: Any, what: str) -> Optional[str]:
    if p.is_contiguous() and _companion_fast(p, t):
        return None
    return _same_layout(p, t, what)


def _scalar(group: dict, key: str, index: Optional[int] = None) -> tuple[Optional[float], Optional[str]]:
    """A hyperparameter as a Python float, or why it is not one we compile."""
    v = group[key] if index is None else group[key][index]
    name = key if index is None else f"{key}[{index}]"
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None, f"{name} is a {type(v).__name__} (compiled: a Python number)"
    return float(v), None


def _lr(group: dict) -> tuple[Optional[float], bool, Optional[str]]:
    """(lr, lr is a float32 tensor, None) or (None, False, why not)."""
    lr = group["lr"]
    if isinstance(lr, torch.Tensor):
        if lr.numel() != 1 or lr.device.type != "cpu" or lr.dtype not in _DTYPES:
            return None, False, "lr is a tensor that is not a one-element float32/float64 CPU tensor"
        if lr.requires_grad:
            return None, False, "lr is a tensor that requires grad"
        return lr.item(), lr.dtype == torch.float32, None
    v, why = _scalar(group, "lr")
    return v, False, why


# ---------------------------------------------------------------------------
# Building one group's kernel call.
# ---------------------------------------------------------------------------

class _Call:
    """The tensors and scalars of one kernel call (one spec within one group)."""

    def __init__(self, spec: UpdateSpec, scalars: tuple):
        self.spec = spec
        self.scalars = scalars
        self.columns: list[list[torch.Tensor]] = []   # per tensor role, e.g. params, grads, ...
        self.numels: list[int] = []
        self.fresh: list[int] = []                     # sgd: new momentum buffers
        self.new_state: list[tuple[dict, str, torch.Tensor]] = []   # stored once the kernel ran

    def add(self, tensors: list[Optional[torch.Tensor]], fresh: int = 0) -> None:
        if not self.columns:
            self.columns = [[] for _ in tensors]
        for col, t in zip(self.columns, tensors):
            col.append(t)
        self.numels.append(tensors[0].numel())
        self.fresh.append(fresh)

    def run(self, kernel: Kernel) -> None:
        n = len(self.numels)
        ptrs = [(ctypes.c_void_p * n)(*[t.data_ptr() if t is not None else None for t in col])
                for col in self.columns]
        numels = (ctypes.c_int64 * n)(*self.numels)
        if self.spec.kind == "sgd":
            fresh = (ctypes.c_uint8 * n)(*self.fresh)
            rc = kernel.fn(n, ptrs[0], ptrs[1], ptrs[2], fresh, numels, *self.scalars)
        else:
            rc = kernel.fn(n, *ptrs, numels, *self.scalars)
        if rc != 0:  # pragma: no cover - the kernels always return 0
            raise RuntimeError(f"bessemer: optimizer kernel {self.spec.symbol} returned {rc}")
        # The kernel wrote through raw pointers; tell autograd, as an in-place op would.
        torch._C._increment_version([t for col in self.columns for t in col if t is not None])
        for state, key, t in self.new_state:
            state[key] = t


def _sgd_hyper(group: dict) -> tuple[tuple, tuple, Optional[str]]:
    """(the kernel's scalars, what the kernel's spec takes from the group, None), or why not."""
    lr, _, why = _lr(group)
    if why:
        return (), (), why
    scalars = [lr]
    for key in ("weight_decay", "momentum", "dampening"):
        v, why = _scalar(group, key)
        if why:
            return (), (), why
        scalars.append(v)
    _, wd, momentum, _ = scalars
    return tuple(scalars), (bool(group["maximize"]), wd != 0, momentum != 0, bool(group["nesterov"])), None


def _adam_hyper(group: dict) -> tuple[tuple, tuple, Optional[str]]:
    """(lr, lr is float32, beta1, beta2, weight decay, eps), the spec's part, None; or why not."""
    lr, lr_is_f32, why = _lr(group)
    if why:
        return (), (), why
    hyper = [lr, int(lr_is_f32)]
    for key, index in (("betas", 0), ("betas", 1), ("weight_decay", None), ("eps", None)):
        v, why = _scalar(group, key, index)
        if why:
            return (), (), why
        hyper.append(v)
    wd = hyper[4]
    decay = "none" if wd == 0 else ("decoupled" if group.get("decoupled_weight_decay") else "l2")
    return tuple(hyper), (bool(group["maximize"]), decay, bool(group["amsgrad"])), None


def _sgd_calls(opt: torch.optim.Optimizer, group: dict) -> tuple[list[_Call], Optional[str]]:
    scalars, _, why = _sgd_hyper(group)
    if why:
        return [], why
    _, wd, momentum, dampening = scalars
    has_momentum = momentum != 0
    calls: dict[str, _Call] = {}
    for p in group["params"]:
        g = p.grad
        if g is None:
            continue
        if (why := _param_grad_reason(p, g)):
            return [], why
        buf, fresh = None, 0
        if has_momentum:
            state = opt.state.get(p)
            buf = state.get("momentum_buffer") if state else None
            if buf is None:
                buf, fresh = torch.empty_like(g), 1    # the kernel sets it to the gradient
            elif (why := _state_reason(p, buf, "a momentum buffer")):
                return [], why
        dtype = _DTYPES[p.dtype]
        call = calls.get(dtype)
        if call is None:
            spec = UpdateSpec("sgd", dtype, maximize=bool(group["maximize"]),
                              weight_decay="l2" if wd != 0 else "none", momentum=has_momentum,
                              nesterov=has_momentum and bool(group["nesterov"]))
            call = calls[dtype] = _Call(spec, scalars)
        call.add([p, g, buf], fresh)
        if fresh:
            # torch keeps state["momentum_buffer"] for every parameter with a gradient.
            call.new_state.append((opt.state[p], "momentum_buffer", buf))
    return list(calls.values()), None


def _adam_calls(opt: torch.optim.Optimizer, group: dict) -> tuple[list[_Call], Optional[str]]:
    hyper, spec_key, why = _adam_hyper(group)
    if why:
        return [], why
    _, decay, amsgrad = spec_key
    keys = ("exp_avg", "exp_avg_sq") + (("max_exp_avg_sq",) if amsgrad else ())
    scalar_dtype = _get_scalar_dtype()
    rows: list[tuple[torch.Tensor, torch.Tensor, Optional[dict]]] = []
    for p in group["params"]:
        g = p.grad
        if g is None:
            continue
        if (why := _param_grad_reason(p, g)):
            return [], why
        state = opt.state.get(p)
        if state:
            for key in keys:
                if key not in state:
                    return [], f"state of a parameter has no {key!r}"
                if (why := _state_reason(p, state[key], f"state {key!r}")):
                    return [], why
            step = state.get("step")
            if not (type(step) in _PLAIN and step.dim() == 0 and step.is_cpu and step.dtype in _DTYPES):
                return [], "state 'step' is not a 0-d float32/float64 CPU tensor"
        rows.append((p, g, state or None))
    # Every check passed: create missing state as torch's _init_group does.
    calls: dict[tuple[str, str], _Call] = {}
    for p, g, state in rows:
        if state is None:
            state = opt.state[p]
            state["step"] = torch.tensor(0.0, dtype=scalar_dtype)
            state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            if amsgrad:
                state["max_exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        key = (_DTYPES[p.dtype], _DTYPES[state["step"].dtype])
        call = calls.get(key)
        if call is None:
            spec = UpdateSpec("adam", key[0], maximize=bool(group["maximize"]), weight_decay=decay,
                              amsgrad=amsgrad, step_dtype=key[1])
            call = calls[key] = _Call(spec, (*hyper, torch_sqrt_impl(key[0]), mkl_threads_local()))
        call.add([p, g, state["exp_avg"], state["exp_avg_sq"],
                  state["max_exp_avg_sq"] if amsgrad else None, state["step"]])
    return list(calls.values()), None


_GROUP_CALLS = {"sgd": _sgd_calls, "adam": _adam_calls}
_GROUP_HYPER = {"sgd": _sgd_hyper, "adam": _adam_hyper}


# ---------------------------------------------------------------------------
# The step.
# ---------------------------------------------------------------------------

class FusedStep:
    """The compiled step of one optimizer instance (kept as an attribute of it)."""

    def __init__(self, opt: torch.optim.Optimizer, kind: str, config: TrainingCompilerConfig, via: str = "auto"):
        self.opt_ref = weakref.ref(opt)
        self.kind = kind
        self.config = config
        self.via = via
        self.kernels: dict[UpdateSpec, Kernel] = {}
        self.failed: dict[UpdateSpec, str] = {}        # spec -> gcc's message
        self.programs: dict[tuple, optim_ir.Program] = {}   # IR path: signature -> compiled program
        self.program_failed: dict[tuple, str] = {}
        self.warned: set[str] = set()
        self.cached: dict[int, GroupCache] = {}       # id(group) -> its update, kept between steps
        cls_step = type(opt).step
        # torch's step below its hook layer (the hooks already ran in ours).
        self.eager_step = cls_step.__wrapped__ if getattr(cls_step, "hooked", False) else cls_step
        self.fused_groups = 0      # group updates that ran compiled, either path (for tests and debugging)
        self.ir_groups = 0         # of those, the ones that ran a program compiled through the IR
        self.eager_groups = 0      # group updates that ran torch's step
        self.cache_hits = 0        # template group updates that ran the calls kept from a former step

    # -- kernels -------------------------------------------------------------
    def kernel(self, spec: UpdateSpec) -> tuple[Optional[Kernel], Optional[str]]:
        """(the kernel for spec, None), or (None, why it could not be built)."""
        k = self.kernels.get(spec)
        if k is not None:
            return k, None
        if spec in self.failed:
            return None, self.failed[spec]
        try:
            k = load_kernel(spec, self.config)
        except _build.BuildError as e:
            self.failed[spec] = f"building the fused update {spec.symbol} failed:\n{e}"
            return None, self.failed[spec]
        self.kernels[spec] = k
        return k, None

    def fallback(self, reason: str) -> None:
        """Report a part of the step that runs eagerly (once per reason)."""
        opt = self.opt_ref()
        name = type(opt).__name__ if opt is not None else "optimizer"
        msg = f"bessemer: {name}.step runs torch's eager update for a parameter group: {reason}"
        if self.config.fallback == "error":
            raise OptimizerCompileError(msg)
        if reason not in self.warned:
            self.warned.add(reason)
            _warn(msg)

    # -- one step ------------------------------------------------------------
    def uses_template(self, group: dict) -> bool:
        """Whether `group` runs the template kernel this step (else a program compiled through
        the IR): under via="auto", when the config renders C++ and every parameter with a
        gradient is a float32/float64 CPU tensor."""
        if self.via != "auto":
            return self.via == "template"
        if self.config.backend == "triton":
            return False
        return all(p.grad is None or (p.is_cpu and p.dtype in _DTYPES) for p in group["params"])

    def plan(self, opt: torch.optim.Optimizer, group: dict) -> tuple[list, Optional[str]]:
        """The kernel or program calls that update `group`, or why it runs eagerly this step."""
        why = _option_reason(group)
        if why:
            return [], why
        entry = self.cached.get(id(group))
        if entry is not None and entry.group is group:
            scalars, spec_key, why = _GROUP_HYPER[self.kind](group)
            if why is None and spec_key == entry.spec_key:
                grads = entry.grads(group, opt.state)
                if grads is not None:
                    self.cache_hits += 1
                    return [(entry, grads, scalars)], None
        self.cached.pop(id(group), None)
        if not self.uses_template(group):
            return self.plan_ir(opt, group)
        calls, why = _GROUP_CALLS[self.kind](opt, group)
        if why:
            return [], why
        planned = []
        for call in calls:
            k, why = self.kernel(call.spec)
            if why:
                return [], why
            planned.append((call, k))
        self.keep(opt, group, planned)
        return planned, None

    def keep(self, opt: torch.optim.Optimizer, group: dict, planned: list) -> None:
        """Keep a group's planned template calls for its next steps (optim_cache.py); not those
        that create momentum buffers, which the next step's plan no longer does."""
        if not planned or any(call.new_state or any(call.fresh) for call, _ in planned):
            return
        scalars, spec_key, why = _GROUP_HYPER[self.kind](group)
        if why:
            return
        if self.kind == "adam":
            keys = ("exp_avg", "exp_avg_sq") + (("max_exp_avg_sq",) if group["amsgrad"] else ()) + ("step",)
        else:
            keys = ("momentum_buffer",) if spec_key[2] else ()
        self.cached[id(group)] = GroupCache(opt, group, spec_key, keys, planned,
                                            [call.scalars[len(scalars):] for call, _ in planned])

    def plan_ir(self, opt: torch.optim.Optimizer, group: dict) -> tuple[list, Optional[str]]:
        """The compiled programs that update `group` (one per device), or why it runs eagerly."""
        lr, _, why = _lr(group)
        if why:
            return [], why
        keys = (("weight_decay", None), ("momentum", None), ("dampening", None)) if self.kind == "sgd" else (
            ("betas", 0), ("betas", 1), ("weight_decay", None), ("eps", None))
        for key, index in keys:
            if (why := _scalar(group, key, index)[1]):
                return [], why
        calls, why = optim_ir.collect(opt, group, self.kind, optim_rules.hyper(self.kind, group))
        if why:
            return [], why
        planned = []
        for call in calls:
            prog, why = self.program(call)
            if why:
                return [], why
            planned.append((call, prog, lr))
        return planned, None

    def program(self, call: optim_ir.IRCall) -> tuple[Optional[optim_ir.Program], Optional[str]]:
        """(the compiled program for call's signature, None), or (None, why it did not compile)."""
        key = call.key()
        prog = self.programs.get(key)
        if prog is not None:
            return prog, None
        if key in self.program_failed:
            return None, self.program_failed[key]
        limit = self.config.cache_size_limit
        if len(self.programs) >= limit:
            # hyperparameters other than lr are baked in: one that changes every step (OneCycleLR's
            # momentum or betas) would compile a program per step; past the limit the group runs
            # torch's step instead (the template, which reads them per step, needs no limit)
            return None, (f"{limit} update programs compiled already (cache_size_limit): a hyperparameter "
                          f"other than lr that changes every step, such as OneCycleLR's momentum, "
                          f"compiles a program per value")
        try:
            prog = optim_ir.program_for(call, self.config, f"optimizer{next(_program_ids)}")
        except Exception as e:  # noqa: BLE001 - a group the pipeline cannot compile runs eagerly
            self.program_failed[key] = f"compiling the update through bessemer's IR failed ({_first_line(e)})"
            return None, self.program_failed[key]
        self.programs[key] = prog
        return prog, None

    def run(self, opt: torch.optim.Optimizer) -> None:
        plans = [(group, *self.plan(opt, group)) for group in opt.param_groups]
        # Report before updating anything, so that fallback="error" never leaves
        # a step half done.
        for _, _, why in plans:
            if why:
                self.fallback(why)
        for group, planned, why in plans:
            if why:
                self.run_eager_group(opt, group)
                continue
            for call, *how in planned:
                if isinstance(call, (_Call, GroupCache)):
                    call.run(*how)
                else:
                    optim_ir.run(call, *how)
            self.ir_groups += bool(planned) and not isinstance(planned[0][0], (_Call, GroupCache))
            self.fused_groups += 1

    def run_eager_group(self, opt: torch.optim.Optimizer, group: dict) -> None:
        # torch's step updates every group in opt.param_groups; show it only this one.
        groups = opt.param_groups
        opt.param_groups = [group]
        try:
            self.eager_step(opt)
        finally:
            opt.param_groups = groups
        self.eager_groups += 1


_program_ids = itertools.count()


def _first_line(e: BaseException) -> str:
    lines = str(e).strip().splitlines()
    return f"{type(e).__name__}: {lines[0]}" if lines else type(e).__name__


def _fused_step(self: torch.optim.Optimizer, closure: Optional[Callable[[], Any]] = None) -> Any:
    """opt.step(closure=None) of a compiled optimizer."""
    runner: FusedStep = self.__dict__[_ATTR]
    loss = None
    if closure is not None:
        with torch.enable_grad():
            loss = closure()
    with torch.no_grad():
        runner.run(self)
    return loss


# Run the optimizer's step hooks (and profiler label) around the fused step, as
# torch does around every Optimizer subclass's step.
_hooked_fused_step = torch.optim.Optimizer.profile_hook_step(_fused_step)


def _mark_step_called(opt: torch.optim.Optimizer, step: types.MethodType) -> Callable[..., Any]:
    """Wrap `step` the way torch's LRScheduler wraps opt.step when it is created.

    A scheduler created before compile_optimizer has wrapped the class's step;
    replacing it must keep what the scheduler checks: the wrapper is marked
    `_wrapped_by_lr_sched`, and calling it sets `opt._opt_called`.
    """
    opt_ref = weakref.ref(opt)
    func = step.__func__

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        o = opt_ref()
        o._opt_called = True
        return func.__get__(o, o.__class__)(*args, **kwargs)

    wrapper.__wrapped__ = func
    wrapper._wrapped_by_lr_sched = True
    return wrapper


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_TORCH_OPTIM_DIR = os.path.dirname(os.path.abspath(torch.optim.__file__))


def _warn(msg: str) -> None:
    """warnings.warn, attributed to the first caller outside bessemer and torch.optim."""
    frame, level = sys._getframe(0), 1
    while frame is not None and frame.f_code.co_filename.startswith((_PACKAGE_DIR, _TORCH_OPTIM_DIR)):
        frame, level = frame.f_back, level + 1
    warnings.warn(msg, UserWarning, stacklevel=level)


def _warn_or_raise(config: TrainingCompilerConfig, opt: Any, reason: str) -> None:
    msg = f"bessemer: {type(opt).__name__}.step is not compiled and runs eagerly: {reason}"
    if config.fallback == "error":
        raise OptimizerCompileError(msg)
    _warn(msg)


def compile_optimizer(optimizer: torch.optim.Optimizer, config: Optional[TrainingCompilerConfig] = None,
                      *, via: str = "auto") -> None:
    """Make `optimizer.step()` run the compiled update (in place; returns None).

    Supported: torch.optim.SGD (momentum, dampening, nesterov, weight decay,
    maximize), Adam and AdamW (amsgrad, weight decay, maximize); float32,
    float64, bfloat16 and float16 parameters on the CPU or a CUDA GPU. Anything
    else keeps torch's step, with one warning (or OptimizerCompileError when
    config.fallback == "error"). Calling it again on a compiled optimizer does
    nothing. `via`: "auto" (the module docstring says which path runs where),
    "template" (the C++ template only: float32/float64 CPU parameters) or "ir"
    (programs compiled through bessemer's IR only), for measuring and testing.
    """
    if config is None:
        config = TrainingCompilerConfig()
    if not isinstance(config, TrainingCompilerConfig):
        raise ValueError(f"compile_optimizer expects a TrainingCompilerConfig, got {type(config).__name__}")
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise ValueError(f"compile_optimizer expects a torch.optim.Optimizer, got {type(optimizer).__name__}")
    if via not in VIAS:
        raise ValueError(f"compile_optimizer: via must be one of {', '.join(VIAS)}, got {via!r}")
    if _ATTR in optimizer.__dict__:
        return
    kind, why = _kind_of(optimizer)
    current = optimizer.__dict__.get("step")
    by_scheduler = current is not None and getattr(current, "_wrapped_by_lr_sched", False)
    if why is None and current is not None and not by_scheduler:
        why = "its step was replaced on the instance"
    param_reason = _param_reason if via == "template" else optim_ir.param_reason
    for group in optimizer.param_groups if why is None else ():
        why = _option_reason(group) or next(
            (r for p in group["params"] if (r := param_reason(p))), None)
        if why:
            break
    if why:
        _warn_or_raise(config, optimizer, why)
        return

    runner = FusedStep(optimizer, kind, config, via)
    # Build the template kernels the current groups need now, so that a compiler
    # failure shows at compile time (and the first step is not slow). The IR
    # path's programs depend on which parameters have gradients and state: each
    # compiles at the first step that needs it.
    for spec in _expected_specs(optimizer, kind, runner):
        _, why = runner.kernel(spec)
        if why:
            _warn_or_raise(config, optimizer, why)
            return
    optimizer.__dict__[_ATTR] = runner
    # clip_grad_norm_ over these parameters, between backward() and step(): one native call
    from bessemer.compiler.runtime import clip
    clip.register(optimizer, config.resolved_cache_dir())
    step = types.MethodType(_hooked_fused_step, optimizer)
    optimizer.step = _mark_step_called(optimizer, step) if by_scheduler else step


def _expected_specs(opt: torch.optim.Optimizer, kind: str, runner: FusedStep) -> list[UpdateSpec]:
    """The template specs the current param groups will ask for (by hyperparameters and dtypes)."""
    specs = []
    step_dtype = _DTYPES[_get_scalar_dtype()]
    for g in opt.param_groups:
        if runner.via == "ir" or (runner.via == "auto" and runner.config.backend == "triton") or any(
                not (p.is_cpu and p.dtype in _DTYPES) for p in g["params"]):
            continue   # the IR path's group
        try:
            wd = float(g["weight_decay"])
            dtypes = sorted({_DTYPES[p.dtype] for p in g["params"]})
            for dtype in dtypes:
                if kind == "sgd":
                    mom = float(g["momentum"]) != 0
                    spec = UpdateSpec("sgd", dtype, maximize=bool(g["maximize"]),
                                      weight_decay="l2" if wd != 0 else "none", momentum=mom,
                                      nesterov=mom and bool(g["nesterov"]))
                else:
                    decay = "none" if wd == 0 else ("decoupled" if g.get("decoupled_weight_decay") else "l2")
                    spec = UpdateSpec("adam", dtype, maximize=bool(g["maximize"]), weight_decay=decay,
                                      amsgrad=bool(g["amsgrad"]), step_dtype=step_dtype)
                if spec not in specs:
                    specs.append(spec)
        except (TypeError, ValueError, KeyError):
            continue   # unusual hyperparameters: the step decides (and says why)
    return specs


def fused_step_of(optimizer: torch.optim.Optimizer) -> Optional[FusedStep]:
    """The FusedStep of a compiled optimizer, or None when its step is torch's."""
    return optimizer.__dict__.get(_ATTR)
