"""bessemer.compile: the one line a training script adds."""
from __future__ import annotations

import logging
from typing import Any, Optional

import torch

from .config import TrainingCompilerConfig, resolve_config

log = logging.getLogger("bessemer")


def compile(model: Any, optimizer: Optional[torch.optim.Optimizer] = None,
            config: Optional[TrainingCompilerConfig] = None, **options: Any) -> Any:
    """Compile a model's forward and backward (and, with `optimizer`, its update).

    `model` is an nn.Module (compiled in place, so its state_dict keys and identity
    stay the same) or a function. With no `config`, the config a training job passed
    to this process is used (or the defaults). Keyword options override config fields:
    ``bessemer.compile(model, debug=True)``.
    """
    cfg = resolve_config(config, **options)
    if not cfg.enabled:
        log.info("bessemer: compiler disabled by config; the model runs eagerly")
        return model
    if cfg.pad_to_multiple_of is not None:
        from . import padding
        padding.check_model(model, cfg.pad_to_multiple_of)   # before anything is changed
    from bessemer.compiler.capture.backend import make_backend

    if cfg.retain_host_memory:
        from bessemer.compiler.runtime import hostmem
        hostmem.retain()

    backend = make_backend(cfg)
    torch._dynamo.config.cache_size_limit = max(cfg.cache_size_limit, 1)
    # Dynamo's profiler labels around each frame's pre-graph bytecode: two calls through
    # torch._dynamo.disable per frame and call (8 set_eval_frame calls, 5-10 µs), paid with
    # no profiler running. Process-wide, as the limit above; the trade: a torch.profiler
    # trace has no "Pregraph bytecode" spans (the frame's time is still in its parent's).
    torch._dynamo.config.record_runtime_overhead = False
    if optimizer is not None and cfg.compile_optimizer:
        from bessemer.compiler.optim import compile_optimizer
        compile_optimizer(optimizer, cfg)
    if isinstance(model, torch.nn.Module):
        # The module's own forward is replaced by its compiled version: the module
        # object, its parameters and its state_dict keys stay exactly the same.
        if getattr(model.forward, "_bessemer_compiled", False):
            return model
        forward = model.forward
        if cfg.precision != "fp32":
            forward = _autocast(forward, model, _AUTOCAST_DTYPES[cfg.precision])
        compiled = _torch_compile(forward, backend, cfg)
        from bessemer.compiler.capture import precompile
        if precompile.enabled(cfg):
            # a warm process loads the forward's stored frame instead of tracing it
            compiled = precompile.wrap(forward, compiled, backend, cfg)
        if cfg.pad_to_multiple_of is not None:
            # outside the compiled function: Dynamo sees the padded lengths only
            compiled = padding.wrap(compiled, model, cfg.pad_to_multiple_of)
        compiled._bessemer_compiled = True
        compiled._bessemer_backend = backend.bessemer  # its .compiled: the graphs, for profiling
        model.forward = _checked_first_call(model, compiled, backend.bessemer, cfg)
        return model
    if callable(model):
        compiled = _torch_compile(model, backend, cfg)
        compiled._bessemer_backend = backend.bessemer  # its .compiled: the graphs, for profiling
        return compiled
    raise ValueError(f"bessemer.compile expects an nn.Module or a function, got {type(model).__name__}")


def compile_step(model: torch.nn.Module, optimizer: torch.optim.Optimizer, loss_fn: Any, *,
                 max_grad_norm: Optional[float] = None, set_grads: bool = False,
                 config: Optional[TrainingCompilerConfig] = None, **options: Any) -> Any:
    """Compile a whole training step (forward, loss, backward, clipping, update) into one program.

    ``step = bessemer.compile_step(model, opt, loss_fn, max_grad_norm=1.0)``; then
    ``loss = step(*batch)`` replaces ``opt.zero_grad(); loss = loss_fn(model, *batch);
    loss.backward(); clip_grad_norm_(model.parameters(), 1.0); opt.step()``.
    See compiler/capture/step.py.
    """
    from bessemer.compiler.capture.step import compile_step as _compile_step
    return _compile_step(model, optimizer, loss_fn, max_grad_norm=max_grad_norm, set_grads=set_grads,
                         config=config, **options)


def _torch_compile(fn, backend, cfg: TrainingCompilerConfig):
    """torch.compile with bessemer's backend, without torch's experimental Dynamo cache
    (TORCH_CACHING_PRECOMPILE=1): its entries are keyed by the function's name and line
    alone, so it would install graphs compiled under another config, and it cannot load
    bessemer's graphs outside a bessemer compile. bessemer's graph cache serves warm starts."""
    if not torch._dynamo.config.caching_precompile:
        return torch.compile(fn, backend=backend, dynamic=cfg.dynamic)
    if not _warned_precompile:
        _warned_precompile.append(True)
        log.warning("bessemer: TORCH_CACHING_PRECOMPILE is set; torch's experimental Dynamo cache is not "
                    "used for bessemer-compiled functions (bessemer's graph cache keeps their graphs)")
    with torch._dynamo.config.patch(caching_precompile=False):
        return torch.compile(fn, backend=backend, dynamic=cfg.dynamic)


_warned_precompile: list = []


class NothingCompiled(RuntimeError):
    """A compiled module's first call ran without bessemer compiling any graph of it."""


def _checked_first_call(model: torch.nn.Module, compiled, bessemer_backend, cfg: TrainingCompilerConfig):
    """The module's forward for its first call: it runs the compiled forward, then puts that
    forward in its own place (later calls pay nothing for the check) and says so when the call
    compiled no graph, i.e. Dynamo ran the whole forward eagerly (a forward under
    torch._dynamo.disable, hooks that Dynamo skips, a graph break before any tensor op): with
    fallback="error" that raises NothingCompiled, otherwise it is one warning. A forward that
    a stored frame served, or whose graphs another module of the same config compiled first,
    passes (the backend's list is shared)."""
    import functools

    from bessemer.compiler.capture import precompile

    @functools.wraps(compiled)
    def first_call(*args: Any, **kwargs: Any) -> Any:
        loaded = precompile.stats["loaded"]
        out = compiled(*args, **kwargs)
        if model.__dict__.get("forward") is first_call:
            model.forward = compiled
        if not bessemer_backend.compiled and precompile.stats["loaded"] == loaded:
            why = (f"bessemer compiled no graph of {type(model).__name__}'s forward: Dynamo ran all of it eagerly "
                   "(is the forward, or a hook around each of its layers, under torch._dynamo.disable? "
                   "Compile the layers themselves: bessemer.compile(layer) for each)")
            if cfg.fallback == "error":
                raise NothingCompiled(why)
            log.warning("bessemer: %s", why)
        return out

    first_call._bessemer_compiled = True
    first_call._bessemer_backend = bessemer_backend
    return first_call


_AUTOCAST_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}


def _autocast(fn, model: torch.nn.Module, dtype: torch.dtype):
    """fn under torch.autocast on the device the model's parameters live on."""
    import functools

    @functools.wraps(fn)
    def run(*args, **kwargs):
        p = next(model.parameters(), None)
        device_type = p.device.type if p is not None else "cpu"
        with torch.autocast(device_type=device_type, dtype=dtype):
            return fn(*args, **kwargs)
    return run
