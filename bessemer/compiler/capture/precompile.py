"""Stored frames: a warm start without Dynamo's trace.

The graph cache (graph_cache.py) skips AOTAutograd and the pipeline in a warm
process, but Dynamo still traces the model's Python before it can look a graph up:
1.5-2.5 s of a transformer's first step. A module's forward that compiles to one
whole graph (no graph break) is therefore captured once with torch's
ahead-of-time Dynamo capture (`aot_compile`) and stored under
`<cache_dir>/frames/`: the rewritten bytecode that calls the compiled graph, the
guards that can be stored, and the AOTAutograd entry holding bessemer's compiled
forward and backward. A later process finds it by key, loads it (bessemer's
graphs come back through the graph cache's loader) and runs it whenever its
guards pass; any call they refuse takes the ordinary Dynamo path, which compiles
as it always does.

A stored frame is used only where every guard Dynamo installs for it holds. Those
torch can write down (tensor metadata, constants, types, globals' guards) are
stored and checked by torch's guard manager; those it cannot (identity guards,
guards on the forward's free variables) are recorded and checked by
frame_guards.py, at load before anything is loaded and at every call. The key
(the traced function, the module tree, the call's argument metadata, the global
state that changes a trace, the versions of Python, torch and the model's
packages, the graph cache's salt) only says where to look. On load, every source
file the trace went through must still hash as it did at capture (torch keeps a
checksum per inlined function); a changed file, or a guard that does not hold,
refuses the entry and the frame is captured afresh. A forward that cannot be
captured (a graph break, a graph that runs eagerly, a guard that cannot be checked
in another process) leaves a marker under the same key, so a warm process does not
try again and goes straight to Dynamo. Nothing is read from the folder unless
cache_trust finds it and the file ours and writable by nobody else.
"""
from __future__ import annotations

import builtins
import functools
import hashlib
import importlib
import inspect
import logging
import operator
import os
import pickle
import re
import sys
import time
import types
from pathlib import Path
from typing import Any, Callable, Optional

import torch
from torch._dynamo.aot_compile_types import SerializableCallable

from bessemer.fsutil import PRIVATE_FILE_MODE, atomic_write_bytes, private_dir
from bessemer.compiler import cache_trust
from bessemer.compiler.capture import direct
from bessemer.compiler.capture import graph_cache
from bessemer.compiler.capture import frame_guards as frame_guards_mod

log = logging.getLogger("bessemer")

FORMAT = b"bessemer-frame-2\n"
_DIGEST = 64
# Counters for tests and the bench: frames loaded and stored, forwards that could not be
# captured, entries refused at load; seconds spent loading.
stats: dict[str, float] = {"loaded": 0, "saved": 0, "uncaptured": 0, "refused": 0, "untrusted": 0,
                           "load_seconds": 0.0}


class Unstorable(Exception):
    """The forward cannot be stored as one frame (the reason says why)."""


def enabled(config) -> bool:
    """Stored frames ride on the graph cache; symbolic sizes and CUDA graphs are not stored."""
    if os.environ.get("BESSEMER_FRAME_CACHE", "1").lower() in ("0", "false", "off", "no"):
        return False
    return graph_cache.enabled(config) and config.dynamic is not True and not config.cuda_graphs


def folder(config) -> Path:
    return Path(config.resolved_cache_dir()) / "frames"


# -- the key -------------------------------------------------------------------------------------

_PLAIN = (bool, int, float, str, type(None))


def _plain(v: Any) -> bool:
    if isinstance(v, _PLAIN):
        return True
    if isinstance(v, (tuple, list)) and len(v) <= 64:
        return all(isinstance(x, _PLAIN) for x in v)
    return isinstance(v, torch.dtype)


def _code_digest(code: types.CodeType) -> str:
    h = hashlib.sha256()
    h.update(code.co_code)
    h.update(repr([c for c in code.co_consts if _plain(c)]).encode())
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            h.update(_code_digest(c).encode())
    h.update(repr((code.co_names, code.co_varnames, code.co_freevars)).encode())
    return h.hexdigest()


def _tensor_meta(t: torch.Tensor) -> tuple:
    return ("T", str(t.dtype), tuple(t.shape), tuple(t.stride()), str(t.device), t.requires_grad,
            type(t).__qualname__)


def _value_meta(v: Any, depth: int = 0) -> Any:
    if isinstance(v, torch.Tensor):
        return _tensor_meta(v)
    if _plain(v):
        return v
    if depth < 3 and isinstance(v, (tuple, list)):
        return (type(v).__name__, tuple(_value_meta(x, depth + 1) for x in v))
    if depth < 3 and isinstance(v, dict):
        return ("dict", tuple((repr(k), _value_meta(x, depth + 1)) for k, x in v.items()))
    if isinstance(v, torch.nn.Module):
        return ("module", type(v).__module__, type(v).__qualname__)
    if isinstance(v, (types.FunctionType, types.MethodType)):
        f = getattr(v, "__func__", v)
        return ("function", f.__module__, f.__qualname__, _code_digest(f.__code__))
    return ("object", type(v).__module__, type(v).__qualname__)


def _hf_config(obj: Any) -> Optional[str]:
    to_dict = getattr(obj, "to_dict", None)
    if to_dict is None or not callable(to_dict) or isinstance(obj, (torch.nn.Module, torch.Tensor)):
        return None
    try:
        return repr(sorted((k, repr(v)) for k, v in to_dict().items()))
    except Exception:  # noqa: BLE001 - not a config after all
        return None


def _module_digest(model: torch.nn.Module, add: Callable[..., None]) -> None:
    for name, m in model.named_modules(remove_duplicate=False):
        add("module", name, type(m).__module__, type(m).__qualname__, m.training,
            len(m._forward_hooks), len(m._forward_pre_hooks), len(m._backward_hooks),
            len(m._backward_pre_hooks), len(getattr(m, "_state_dict_hooks", ())))
        for k, v in sorted(vars(m).items()):
            if k in ("_parameters", "_buffers", "_modules") or isinstance(v, torch.Tensor):
                continue
            if _plain(v):
                add(k, v)
            else:
                cfg = _hf_config(v)
                if cfg is not None:
                    add(k, cfg)
        for k, p in m._parameters.items():
            add("param", k, None if p is None else _tensor_meta(p))
        for k, b in m._buffers.items():
            add("buffer", k, None if b is None else _tensor_meta(b))


_HOOK_DICTS = ("_global_forward_hooks", "_global_forward_pre_hooks", "_global_backward_hooks",
               "_global_backward_pre_hooks", "_global_module_registration_hooks",
               "_global_parameter_registration_hooks", "_global_buffer_registration_hooks")
_hook_dicts = operator.attrgetter(*_HOOK_DICTS)


def _global_hooks() -> tuple:
    """How many global module hooks are registered (guards on them are globals: not stored).
    Read at every call of a stored frame: one C-level attrgetter and map, not a generator."""
    mod = torch.nn.modules.module
    try:
        return tuple(map(len, _hook_dicts(mod)))
    except AttributeError:   # a torch without one of them
        return tuple(len(getattr(mod, n, ())) for n in _HOOK_DICTS)


def _package_versions(model: torch.nn.Module) -> list:
    pkgs = sorted({type(m).__module__.partition(".")[0] for m in model.modules()})
    return [(p, str(getattr(sys.modules.get(p), "__version__", ""))) for p in pkgs]


def traced_function(fn: Callable) -> types.FunctionType:
    return fn.__func__ if inspect.ismethod(fn) else fn


def frame_key(fn: Callable, args: tuple, kwargs: dict, config) -> str:
    """The key of one forward's stored frame (see the module's docstring)."""
    h = hashlib.sha256()

    def add(*parts: Any) -> None:
        for x in parts:
            h.update(repr(x).encode())
            h.update(b"\0")

    f = traced_function(fn)
    add(FORMAT, sys.version, torch.__version__, graph_cache.salt(config))
    add(f.__module__, f.__qualname__, f.__code__.co_filename, _code_digest(f.__code__))
    for cell in f.__closure__ or ():
        try:
            v = cell.cell_contents
        except ValueError:   # an empty cell
            v = None
        add("closure", _value_meta(v))
        if isinstance(v, torch.nn.Module):
            _module_digest(v, add)
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, torch.nn.Module):
        _module_digest(owner, add)
        add(_package_versions(owner))
    for a in args:
        add("arg", _value_meta(a))
    for k in sorted(kwargs):
        add("kwarg", k, _value_meta(kwargs[k]))
    add(torch.is_grad_enabled(), torch.are_deterministic_algorithms_enabled(), torch.get_default_dtype(),
        _global_hooks(), torch.is_inference_mode_enabled())
    for dev in torch._C._autocast_supported_devices():
        add(dev, torch.is_autocast_enabled(dev), torch.get_autocast_dtype(dev))
    return "f" + h.hexdigest()[:40]


# -- what is stored ------------------------------------------------------------------------------

class _Filter:
    """Dynamo's guard filter: which guards torch writes down with the frame. Those it cannot
    (identity guards: UNSUPPORTED_SERIALIZATION_GUARD_TYPES) and those on the traced
    function's free variables (a decorator's `func`, which torch reads back as missing) are
    kept aside for frame_guards to record and check; every other guard, globals' included,
    is stored and checked by torch."""

    def __init__(self, fn: Callable):
        from torch._dynamo.guards import CheckFunctionManager
        self.unsupported = set(CheckFunctionManager.UNSUPPORTED_SERIALIZATION_GUARD_TYPES)
        self.free = set(traced_function(fn).__code__.co_freevars)
        self.aside: list = []
        self.entries: list = []

    def _root(self, name: str) -> str:
        m = re.match(r"L\['([^']+)'\]", name)
        return m.group(1) if m else ""

    def __call__(self, entries) -> list[bool]:
        keep = [not (self.unsupported.intersection((g.guard_type, *g.derived_guard_types))
                     or self._root(g.orig_guard.name) in self.free) for g in entries]
        self.entries = list(entries)
        self.aside = [g for g, k in zip(entries, keep) if not k]
        return keep


def _external(fn: Callable) -> dict[str, Any]:
    """Objects a stored frame may refer to that are this process's own (the forward itself,
    its closure, the module it is called on): stored by name, given back at load."""
    data: dict[str, Any] = {"forward": fn}
    for i, cell in enumerate(traced_function(fn).__closure__ or ()):
        try:
            data[f"closure{i}"] = cell.cell_contents
        except ValueError:
            pass
    owner = getattr(fn, "__self__", None)
    if owner is not None:
        data["self"] = owner
    return data


def _same_code(a: types.CodeType, b: types.CodeType) -> bool:
    return (a.co_name, a.co_filename, a.co_firstlineno) == (b.co_name, b.co_filename, b.co_firstlineno)


class StoredGraph(SerializableCallable):
    """The compiled graph a stored frame calls: AOTAutograd's bundled entry (bessemer's forward
    and backward inside), called through direct.DirectGraph, and whether its outputs' autograd
    node takes missing tangents as None (tangents.py), which is a wrapper and so is stored as a
    flag."""

    def __init__(self, compiled: Callable, marked: bool):
        self.compiled, self.marked = compiled, marked
        self._run = direct.DirectGraph(compiled, marked)

    @classmethod
    def serialize_compile_artifacts(cls, fn: "StoredGraph") -> bytes:
        from torch._dynamo.aot_compile_types import BundledAOTAutogradSerializableCallable as Bundled
        return pickle.dumps((Bundled.serialize_compile_artifacts(Bundled(fn.compiled)), fn.marked))

    @classmethod
    def deserialize_compile_artifacts(cls, data: bytes) -> "StoredGraph":
        from torch._dynamo.aot_compile_types import BundledAOTAutogradSerializableCallable as Bundled
        inner, marked = pickle.loads(data)
        return cls(Bundled.deserialize_compile_artifacts(inner), marked)

    def __call__(self, *args: Any) -> Any:
        return self._run(*args)


def _storing_backend(backend: Callable) -> Callable:
    """The bessemer backend, returning what a stored frame keeps."""
    def store(gm: torch.fx.GraphModule, example_inputs, **kwargs):
        fn, marked = backend.compile_graph(gm, example_inputs, **kwargs)
        if getattr(fn, "serialize", None) is None:
            raise Unstorable("the graph was not stored by the graph cache (it runs eagerly, or its sizes "
                             "are symbolic)")
        return StoredGraph(fn, marked)
    return store


def capture(fn: Callable, args: tuple, kwargs: dict, backend: Callable, config):
    """fn traced and compiled as one whole graph, ready to store: (AOTCompiledFunction, the
    guard filter that saw its guards)."""
    if torch._dynamo.config.caching_precompile:
        raise Unstorable("TORCH_CACHING_PRECOMPILE is set")
    from torch._dynamo import trace_rules
    if trace_rules.check(fn):
        # Dynamo traces a function of torch's own (the forward of a container such as
        # Sequential) through a wrapper frame, whose guards on the module cannot be read back
        raise Unstorable(f"the forward ({traced_function(fn).__qualname__}) is torch's own")
    guard_filter = _Filter(fn)
    # on by default from torch 2.13; torch 2.11 has the capture behind this flag
    with torch._dynamo.config.patch(enable_aot_compile=True):
        opt = torch.compile(fn, backend=_storing_backend(backend), fullgraph=True, dynamic=config.dynamic,
                            options={"guard_filter_fn": guard_filter})
    return opt.aot_compile((args, kwargs)), guard_filter


# A global Dynamo installs by the object's id (`_140712243323712_c0`: the torch module, where a
# model reaches it other than by a global of its own name); the name is in the traced code,
# the object is not in a later process's module until the stored frame puts it there
_BY_ID = re.compile(r"_\d+_c\d+")


def _installed(ref: str) -> bool:
    """Is `ref` a global Dynamo installed under a name of its own?"""
    return ref.startswith("___") or _BY_ID.fullmatch(ref) is not None


def _aliases(names, f: types.FunctionType) -> dict[str, str]:
    """The globals among `names` that Dynamo installed under names of its own (a module
    imported as `__import_torch_dot_nn` or installed by its id, the builtins' dict), as what
    a later process imports for them."""
    out = {}
    for ref in sorted(names):
        v = f.__globals__.get(ref, _MISSING)
        if not (ref.startswith("__") or _BY_ID.fullmatch(ref)):
            continue
        if isinstance(v, types.ModuleType):
            out[ref] = v.__name__
        elif v is builtins.__dict__:
            out[ref] = "builtins.__dict__"
    return out


def _import_alias(target: str) -> Any:
    return builtins.__dict__ if target == "builtins.__dict__" else importlib.import_module(target)


def frame_guards(aot, fn: Callable, guard_filter: "_Filter") -> dict:
    """The guards torch does not store (frame_guards.record) and the globals every guard reads,
    as stored beside the frame. Raises Unstorable."""
    f = traced_function(fn)
    try:
        guards = frame_guards_mod.record(guard_filter.aside, getattr(fn, "__self__", None), guard_filter.free)
    except frame_guards_mod.Unguardable as e:
        raise Unstorable(f"a guard cannot be checked in another process ({e})") from None
    roots = frame_guards_mod.global_roots(guard_filter.entries)
    return {"guards": guards, "roots": sorted(roots), "aliases": _aliases(roots, f),
            "code": frame_guards_mod.code_digest(f.__code__)}


def serialize(aot, fn: Callable, guard_filter: "_Filter") -> bytes:
    code = aot._artifacts.original_code
    f = traced_function(fn)
    if not _same_code(code, f.__code__):
        # torch traces the forward of its own modules (containers such as Sequential) through
        # a wrapper frame, whose guards on the module cannot be read back in another process
        raise Unstorable(f"the traced frame is {code.co_name}, not the forward itself")
    env = aot._artifacts.runtime_env
    modules: dict[str, str] = {}
    for ref in sorted(env.external_refs):
        if (ref in env.used_globals or ref in env.import_sources or ref == aot._artifacts.backend_id
                or hasattr(builtins, ref)):
            continue
        v = f.__globals__.get(ref, _MISSING)
        if isinstance(v, types.ModuleType):
            if _installed(ref):    # a module Dynamo installed under a name of its own
                modules[ref] = v.__name__
        elif v is _MISSING or _installed(ref):
            raise Unstorable(f"the frame refers to {ref}, which a later process cannot rebuild")
    guards = frame_guards(aot, fn, guard_filter)
    from torch._dynamo.aot_compile import AOTCompiledFunction
    blob = AOTCompiledFunction.serialize(aot, _external(fn)).serialized_data
    sources = sorted((s.module, s.firstlineno, s.lastlineno, s.checksum)
                     for s in aot._artifacts.source_info.inlined_sources)
    return pickle.dumps({"modules": modules, "sources": sources, "frame": blob, **guards})


_MISSING = object()


def bind_guards(state: dict, fn: Callable, args: tuple, kwargs: dict):
    """The stored frame's own guards (frame_guards.FrameGuards) bound to this call, or
    Unstorable naming the first that does not hold."""
    f = traced_function(fn)
    if frame_guards_mod.code_digest(f.__code__) != state["code"]:
        raise Unstorable("the forward's code changed since it was stored")
    aliases = {k: _import_alias(v) for k, v in state["aliases"].items()}
    guards = frame_guards_mod.FrameGuards(state["guards"], state["roots"], f, getattr(fn, "__self__", None),
                                          aliases)
    owner = getattr(fn, "__self__", None)
    full = ((owner,) if owner is not None else ()) + tuple(args)
    failed = guards.bind(_Locals(f, full, kwargs))
    if failed:
        raise Unstorable(f"a guard does not hold: {failed}")
    return guards


def _Locals(f: types.FunctionType, full: tuple, kwargs: dict) -> dict:
    """The frame's locals as Dynamo names them: its free variables and its bound arguments."""
    out = {}
    for name, cell in zip(f.__code__.co_freevars, f.__closure__ or ()):
        try:
            out[name] = cell.cell_contents
        except ValueError:
            pass
    bound = inspect.signature(f).bind(*full, **kwargs)
    out.update(bound.arguments)
    return out


def deserialize(content: bytes, fn: Callable, be, args: tuple = (), kwargs: Optional[dict] = None):
    """(the loaded AOTCompiledFunction, its FrameGuards). Every check that can refuse the entry
    runs before anything of it is loaded."""
    from torch._dynamo.aot_compile import AOTCompiledFunction
    state = pickle.loads(content)
    stale = _changed_sources(state["sources"])
    if stale:
        raise Unstorable(f"its source changed since it was stored ({stale})")
    guards = bind_guards(state, fn, args, kwargs or {})
    g = dict(traced_function(fn).__globals__)
    g.update({name: importlib.import_module(mod) for name, mod in state["modules"].items()})
    with graph_cache.active(be):
        frame = AOTCompiledFunction.deserialize(state["frame"], f_globals=g, external_closure_data=_external(fn))
    failed = guards.finish(frame.fn.__globals__)
    if failed:
        raise Unstorable(f"a guard does not hold: {failed}")
    return frame, guards


def _changed_sources(sources: list) -> Optional[str]:
    """The first of the functions the trace went through whose source is not as at capture
    (torch's checksum of its lines), or None."""
    from torch._dynamo.package import _hash_sourcelines
    for module, first, last, checksum in sources:
        try:
            mod = sys.modules.get(module) or importlib.import_module(module)
            if _hash_sourcelines(mod, first, last) != checksum:
                return f"{module}, lines {first}-{last}"
        except Exception as e:  # noqa: BLE001 - a module that cannot be read is a change
            return f"{module}: {type(e).__name__}"
    return None


# -- the store -----------------------------------------------------------------------------------

def _path(config, key: str) -> Path:
    frames = folder(config)
    return cache_trust.place(frames.parent, frames.name) / key


def _trusted(path: Path, config) -> bool:
    """Whether `path` may be read: it and every folder from the cache root down are ours and
    writable by nobody else (cache_trust); otherwise one warning and False."""
    root = Path(config.resolved_cache_dir())
    untrusted = cache_trust.problem(path, root if path.is_relative_to(root) else path.parent)
    if untrusted:
        stats["untrusted"] += 1
        cache_trust.refuse(path, untrusted)
    return untrusted is None


def _read(path: Path) -> Optional[bytes]:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    digest, content = data[len(FORMAT):len(FORMAT) + _DIGEST], data[len(FORMAT) + _DIGEST:]
    if not data.startswith(FORMAT) or hashlib.sha256(content).hexdigest().encode() != digest:
        log.warning("bessemer: stored frame %s is damaged; tracing afresh", path)
        _remove(path)
        return None
    return content


def _write(path: Path, content: bytes) -> None:
    private_dir(path.parent)
    data = FORMAT + hashlib.sha256(content).hexdigest().encode() + content
    atomic_write_bytes(path, data, mode=PRIVATE_FILE_MODE)


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


# -- the forward -----------------------------------------------------------------------------------

class StoredForward:
    """A module's compiled forward with a stored frame in front of it. The first call finds the
    frame by key (or captures and stores it); every call its guards accept runs it, any other
    call runs `compiled`, the forward under torch.compile."""

    def __init__(self, forward: Callable, compiled: Callable, backend: Callable, config):
        self.forward, self.compiled, self.backend, self.config = forward, compiled, backend, config
        self.frame = None           # the loaded AOTCompiledFunction
        self.guards = None          # its guards torch does not keep (frame_guards.FrameGuards)
        self.first = True
        self.hooks: tuple = ()
        owner = getattr(forward, "__self__", None)
        self.self_args = (owner,) if owner is not None else ()   # the frame's own `self`
        self.by_children = False    # the forward runs eagerly, its large children compiled

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.first:
            self.first = False
            self._find(args, kwargs)
        frame = self.frame
        if self.by_children:
            return self.forward(*args, **kwargs)
        if frame is not None and _global_hooks() == self.hooks and not torch.compiler.is_compiling():
            full = (*self.self_args, *args)
            try:
                # frame.guard_check(*full, **kwargs), with the locals bound once for both checks
                f_locals = self.binder(full, kwargs)
                ok = (self.guards.check(self.guards.locals(frame, full, kwargs, f_locals))
                      and self.guard_manager.check(f_locals))
            except TypeError:    # arguments the forward does not take: its own error, below
                ok = False
            if ok:
                return frame.fn(*full, **kwargs)
        return self.compiled(*args, **kwargs)

    @property
    def frame(self):
        return self._frame

    @frame.setter
    def frame(self, frame) -> None:
        """The loaded frame, with what its per-call check reads from it."""
        self._frame = frame
        self.binder = None if frame is None else frame_guards_mod.CallBinder(frame)
        self.guard_manager = None if frame is None else frame._artifacts.guard_manager

    def _find(self, args: tuple, kwargs: dict) -> None:
        try:
            key = frame_key(self.forward, args, kwargs, self.config)
        except Exception as e:  # noqa: BLE001 - a call the key cannot describe is not stored
            log.info("bessemer: forward not stored (%s: %s)", type(e).__name__, e)
            return
        path = _path(self.config, key)
        marker = path.with_suffix(".none")
        if marker.exists() and _trusted(marker, self.config):
            first = marker.read_text(errors="replace").partition("\n")[0]
            if first.startswith(_CHILDREN):
                self._compile_children(first[len(_CHILDREN):].split(","))
            return
        self.hooks = _global_hooks()
        content = _read(path) if path.exists() and _trusted(path, self.config) else None
        if content is not None:
            started = time.perf_counter()
            try:
                full = (*self.self_args, *args)
                self.frame, self.guards = deserialize(content, self.forward, self.backend.bessemer, args, kwargs)
                if not self.frame.guard_check(*full, **kwargs):
                    raise Unstorable("its stored guards refuse the first call")
            except Exception as e:  # noqa: BLE001 - any entry that cannot serve is traced afresh
                self.frame = self.guards = None
                stats["refused"] += 1
                log.info("bessemer: stored frame %s not used (%s: %s)", path.name, type(e).__name__, e)
                _remove(path)
            else:
                stats["loaded"] += 1
                stats["load_seconds"] += time.perf_counter() - started
                return
        try:
            aot, guard_filter = capture(self.forward, args, kwargs, self.backend, self.config)
            content = serialize(aot, self.forward, guard_filter)
            state = pickle.loads(content)
            guards = bind_guards(state, self.forward, args, kwargs)
            if guards.finish(aot.fn.__globals__) is not None:
                raise Unstorable("the captured frame's globals are not the forward's")
        except Exception as e:  # noqa: BLE001 - graph breaks and the like: Dynamo's ordinary path
            stats["uncaptured"] += 1
            reason = " ".join(f"{type(e).__name__}: {e}".split())[:300]
            children = self._large_children(e)
            told = " ".join(str(e).split())[:300] if isinstance(e, Unstorable) else reason
            log.info("bessemer: the model's forward is not kept whole for the next start (%s); %s", told,
                     f"its parts {', '.join(children)} are kept instead" if children
                     else "a later start traces it again (a second or two)")
            private_dir(marker.parent)
            text = (_CHILDREN + ",".join(children) + "\n" if children else "") + reason
            atomic_write_bytes(marker, text.encode(), mode=PRIVATE_FILE_MODE)
            if children:
                self._compile_children(children)
            return
        _write(path, content)
        stats["saved"] += 1
        self.frame, self.guards = aot, guards


    def _large_children(self, e: Exception) -> list[str]:
        """Where the forward breaks Dynamo's graph, the children to compile instead: those that
        are modules of their own (not single layers, not torch's containers) and together hold
        at least CHILDREN_SHARE of the parameters.

        The trade: with a graph break Dynamo traces the whole forward at every start (2.8 s of
        a DeBERTa's warm start, whose classification loss breaks the graph); its large children
        load from stored frames instead, and the forward's own code (typically the loss and
        some glue) runs eagerly, uncompiled. Where the children hold less than that share,
        too much would run eagerly: Dynamo's path is kept."""
        from torch._dynamo import trace_rules
        from torch._dynamo.exc import Unsupported, UserError
        owner = getattr(self.forward, "__self__", None)
        if not isinstance(e, (Unsupported, UserError)) or not isinstance(owner, torch.nn.Module):
            return []
        numel = lambda m: sum(p.numel() for p in m.parameters())   # noqa: E731
        total = numel(owner)
        picked = [(name, m) for name, m in owner.named_children()
                  if next(m.children(), None) is not None and not trace_rules.check(m.forward)
                  and not getattr(m.forward, "_bessemer_compiled", False)]
        if not picked or total == 0 or sum(numel(m) for _, m in picked) < CHILDREN_SHARE * total:
            return []
        return [name for name, _ in picked]

    def _compile_children(self, names: list[str]) -> None:
        owner = self.forward.__self__
        for name in names:
            child = getattr(owner, name, None)
            if not isinstance(child, torch.nn.Module) or getattr(child.forward, "_bessemer_compiled", False):
                continue
            forward = child.forward
            compiled = torch.compile(forward, backend=self.backend, dynamic=self.config.dynamic)
            run = wrap(forward, compiled, self.backend, self.config)
            run._bessemer_compiled = True  # type: ignore[attr-defined]
            child.forward = run
        self.by_children = True


_CHILDREN = "children:"
# the share of a module's parameters its large children must hold for them to be compiled in
# place of a forward Dynamo cannot capture whole (StoredForward._large_children)
CHILDREN_SHARE = 0.9


def wrap(forward: Callable, compiled: Callable, backend: Callable, config) -> Callable:
    """`compiled` (torch.compile of `forward` with `backend`) behind a stored frame, as a function
    with forward's signature."""
    stored = StoredForward(forward, compiled, backend, config)

    @functools.wraps(forward)
    def run(*args: Any, **kwargs: Any) -> Any:
        return stored(*args, **kwargs)
    run._bessemer_frame = stored  # type: ignore[attr-defined]
    return run
