"""The graph cache: compiled forward and backward graphs kept across processes.

A warm process (the same model, the same config, the kernel cache full) still
spends seconds before its first step: AOTAutograd traces the joint graph and
decomposes it, the partitioner splits it, and the pipeline runs again up to the
kernel build (which the kernel cache already skips). This cache skips all three.

It rides on torch's AOTAutograd cache in its "bundled" mode, which stores a
compiled forward/backward pair together with AOTAutograd's runtime wrappers
(input mutations, aliased outputs, what the backward receives) under a key
computed from the Dynamo graph and its inputs' metadata, the autograd/grad mode
state and torch's version. bessemer adds to that key (`salt`) what decides the
rest: the config fields that shape compiled code, a hash of the compiler's own
source, and the environment switches the pipeline reads.

What is stored per graph is a `CachedGraph`: the generated wrapper program and
its constants, the kernels' source and their names (the built library or module
itself stays in the kernel cache; a missing one is rebuilt from the source), and
what reporting needs (kernel and extern counts, the schedule's text, the
partition report). On a hit `post_compile` loads the program again and hands it
to the BessemerBackend of the compile in progress (`active`), which reports it
as it reports a fresh compile: `backend.compiled`, `backend.partitions`, the
job log's "compiled graph" line with `cache_hit` true, and the same wrappers
(first-launch guard for Triton, CUDA graphs, a backward's one collection).

Entries live under `<cache_dir>/graphs/` in folders of mode 0700, files 0600,
each prefixed by a checksum of its content: an entry that is truncated or
altered is dropped with one warning, the graph is compiled afresh and the entry
written again. Graphs that run eagerly, graphs of symbolic sizes, and compiles
with a debug folder are never stored (`TrainingCompilerConfig.graph_cache=False`
or BESSEMER_GRAPH_CACHE=0 turns the cache off).
"""
from __future__ import annotations

import contextlib
import copy
import hashlib
import logging
import os
import pickle
import threading
import warnings
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import torch
from torch._functorch._aot_autograd import autograd_cache as _aot_cache
from torch._functorch._aot_autograd.autograd_cache import AOTAutogradCache, BypassAOTAutogradCache
from torch._inductor.output_code import OutputCode

from bessemer.fsutil import PRIVATE_FILE_MODE, atomic_write_bytes, private_dir
from bessemer.compiler import cache_trust

log = logging.getLogger("bessemer")

# The layout of a stored entry; entries of another layout are never read.
FORMAT = b"bessemer-graph-1\n"
_DIGEST = 64   # hex sha256 of the pickled entry, after FORMAT

_state = threading.local()
# Counters for tests and the bench: entries loaded, stored, found corrupt.
stats = {"hits": 0, "saved": 0, "corrupt": 0, "untrusted": 0}


def enabled(config) -> bool:
    if not config.graph_cache:
        return False
    if os.environ.get("BESSEMER_GRAPH_CACHE", "1").lower() in ("0", "false", "off", "no"):
        return False
    # a debug folder wants every pass's output written: compile afresh
    return not config.resolved_debug_dir()


def current():
    """The BessemerBackend whose compile runs under `active` now, or None."""
    return getattr(_state, "backend", None)


def folder(config) -> Path:
    return Path(config.resolved_cache_dir()) / "graphs"


_source_hash: Optional[str] = None


def _compiler_source_hash() -> str:
    """A hash of the sources that compile a graph: all of bessemer/compiler/ and the two modules
    outside it the compiler imports (config.py, fsutil.py). Any change to them compiles afresh."""
    global _source_hash
    if _source_hash is None:
        h = hashlib.sha256()
        compiler = Path(__file__).resolve().parent.parent
        package = compiler.parent
        files = [*sorted(compiler.rglob("*.py")), package / "config.py", package / "fsutil.py"]
        for p in files:
            h.update(str(p.relative_to(package)).encode())
            h.update(p.read_bytes())
        _source_hash = h.hexdigest()
    return _source_hash


def salt(config) -> str:
    """What the key needs beyond the Dynamo graph, its inputs and torch's own state.

    bessemer's version is not part of it: the version is a label a release puts on its
    sources, and the sources that decide a compiled graph are hashed whole, so two
    installs with the same version but edited sources (a checkout) key apart, and two
    versions whose compiler is unchanged share their entries, as they may."""
    fields = {k: v for k, v in config.to_dict().items()
              if k not in ("enabled", "debug", "debug_dir", "cache_dir", "graph_cache", "cache_size_limit",
                           "retain_host_memory")}
    env = {k: os.environ.get(k, "") for k in ("BESSEMER_VERIFY", "TRITON_INTERPRET")}
    parts = [FORMAT.decode().strip(), _compiler_source_hash(), repr(sorted(fields.items())),
             repr(sorted(env.items()))]
    return "bessemer:" + hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


_MISSING = object()


@contextlib.contextmanager
def _patched(owner: Any, name: str, value: Any) -> Iterator[None]:
    """`owner.name` set to `value` for the block and put back after it, as it was: the raw
    entry of the owner's own namespace (a class's classmethod or staticmethod object, not the
    bound function getattr would give), or no entry at all where the name was inherited."""
    before = vars(owner).get(name, _MISSING)
    setattr(owner, name, value)
    try:
        yield
    finally:
        if before is _MISSING:
            delattr(owner, name)
        else:
            setattr(owner, name, before)


class CachedGraph(OutputCode):
    """One compiled graph as AOTAutograd's cache stores it; called like the compiled graph."""

    def __init__(self, fn: Callable, state: dict):
        self._fn = fn
        self.state = state
        self._boxed_call = True

    def __call__(self, args: list) -> Any:
        return self._fn(args)

    def prepare_for_serialization(self) -> None:
        self._fn = None

    def post_compile(self, example_inputs, constants, graph_kwargs) -> None:
        be = current()
        if be is None:
            raise BypassAOTAutogradCache("a bessemer graph is loaded outside a bessemer compile")
        self._fn = be.load_cached(self.state, example_inputs)

    def set_triton_bundle(self, triton_bundle: Any) -> None:
        pass

    def __reduce__(self):
        state = dict(self.state, consts={k: _encode(v) for k, v in self.state["consts"].items()})
        return (_rebuild, (state,))


class _Op:
    """An ATen operator in a stored entry, by name (OpOverloads do not pickle)."""

    def __init__(self, namespace: str, name: str, overload: str):
        self.namespace, self.name, self.overload = namespace, name, overload

    def resolve(self):
        return getattr(getattr(getattr(torch.ops, self.namespace), self.name), self.overload)


def _encode(v: Any) -> Any:
    if isinstance(v, torch._ops.OpOverload):
        return _Op(v.namespace, v._opname, v._overloadname)
    return v


def _rebuild(state: dict) -> "CachedGraph":
    consts = {k: v.resolve() if isinstance(v, _Op) else v for k, v in state["consts"].items()}
    return CachedGraph(None, dict(state, consts=consts))


class EagerGraph(OutputCode):
    """A graph that is not stored (it runs eagerly, or its sizes are symbolic)."""

    def __init__(self, fn: Callable):
        self._fn = fn
        self._boxed_call = True

    def __call__(self, args: list) -> Any:
        return self._fn(args)

    def prepare_for_serialization(self) -> None:
        raise BypassAOTAutogradCache("a graph bessemer did not compile statically is not cached")

    def post_compile(self, example_inputs, constants, graph_kwargs) -> None:  # never stored
        raise BypassAOTAutogradCache("not a cached graph")

    def set_triton_bundle(self, triton_bundle: Any) -> None:
        pass


def light_kernels(kernels: list) -> list:
    """The kernels as the build step needs them on a hit: names, argument counts, launch
    metadata; not the IR nodes they were rendered from."""
    out = []
    for k in kernels:
        k2 = copy.copy(k)
        k2.args = [None] * len(k.args)
        k2.writes = []
        out.append(k2)
    return out


def fallback_module(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """gm as the cache keeps a graph to run or compile again after a load (a reloaded Triton
    graph that fails at its first launch runs it eagerly; a backward compiled for other
    tangents, tangents.py): a PortableGraph."""
    g = torch.fx.Graph()
    g.output(g.graph_copy(gm.graph, {}))   # gm keeps its own graph (a module owns one graph)
    return PortableGraph(gm, g)


class _Ref:
    """A node named in a stored node's arguments."""

    def __init__(self, name: str):
        self.name = name


class PortableGraph(torch.fx.GraphModule):
    """A graph module that pickles as its node list and the tensors it reads (get_attr), with
    no node metadata. A plain GraphModule pickles as its code, which unpickling traces again:
    that runs every op whose arguments are all constants (a `full` of zeros) and keeps the
    result as a real tensor constant of the graph."""

    def __reduce__(self):
        nodes, attrs = [], {}
        for n in self.graph.nodes:
            if n.op == "get_attr":
                attrs[n.target] = _getattr_path(self, n.target)
            ref = lambda a: _Ref(a.name)   # noqa: E731
            nodes.append((n.op, n.name, _encode(n.target), torch.fx.node.map_arg(n.args, ref),
                          torch.fx.node.map_arg(n.kwargs, ref)))
        return (_rebuild_graph, (nodes, attrs))


def _getattr_path(obj, path: str):
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _rebuild_graph(nodes: list, attrs: dict) -> PortableGraph:
    root = torch.nn.Module()
    for path, value in attrs.items():
        owner = root
        *parents, leaf = path.split(".")
        for part in parents:
            if not hasattr(owner, part):
                owner.add_module(part, torch.nn.Module())
            owner = getattr(owner, part)
        setattr(owner, leaf, value)
    g = torch.fx.Graph()
    env: dict = {}
    deref = lambda a: env[a.name] if isinstance(a, _Ref) else a   # noqa: E731
    for op, name, target, args, kwargs in nodes:
        target = target.resolve() if isinstance(target, _Op) else target
        if op == "output":
            env[name] = g.output(torch.fx.node.map_aggregate(args[0], deref))
            continue
        env[name] = g.create_node(op, target, torch.fx.node.map_aggregate(args, deref),
                                  torch.fx.node.map_aggregate(kwargs, deref), name=name)
    return PortableGraph(root, g)


# -- the key -------------------------------------------------------------------------------------

def _tensor_meta(t: torch.Tensor) -> tuple:
    if any(not isinstance(d, int) for d in (*t.shape, *t.stride())):
        raise BypassAOTAutogradCache("symbolic sizes")
    if type(t) not in (torch.Tensor, torch.nn.Parameter) and not isinstance(t, torch._subclasses.FakeTensor):
        raise BypassAOTAutogradCache(f"a tensor subclass input ({type(t).__name__})")
    return ("T", str(t.dtype), tuple(t.shape), tuple(t.stride()), t.storage_offset(), str(t.device), str(t.layout),
            t.requires_grad, t.is_leaf, t.is_conj(), t.is_neg(), t.is_inference(), t.is_sparse, t.is_quantized)


def _value_hash(t: torch.Tensor) -> str:
    """A constant the graph reads (get_attr) may be folded into the compiled code: its value counts."""
    with torch._subclasses.fake_tensor.unset_fake_temporarily():
        data = t.detach().cpu().contiguous().view(-1).view(torch.uint8).numpy().tobytes()
    return hashlib.sha256(data).hexdigest()


def _key(mod, args, aot_config, compiler_config_extra=None) -> tuple[str, list[str]]:
    """The key of one Dynamo graph's compile, in place of torch's (`autograd_cache_key`): the
    graph's code and constants, its inputs' metadata, AOTAutograd's options, the global state
    that changes what is traced (grad mode, autocast, deterministic algorithms, functorch's
    config) and bessemer's salt. torch's own key hashes torch's and Triton's sources and
    imports every Inductor backend on first use; this one costs a few milliseconds."""
    gm = mod.gm if isinstance(mod, torch._dynamo.utils.GmWrapper) else mod
    _aot_cache.check_cacheable(gm)          # torch's list of graphs whose key says enough
    h = hashlib.sha256()

    def add(*parts: Any) -> None:
        for x in parts:
            h.update(repr(x).encode())
            h.update(b"\0")

    add(FORMAT, torch.__version__, torch.compiler.config.cache_key_tag)
    for name, m in sorted(gm.named_modules(), key=lambda x: x[0]):
        if isinstance(m, torch.fx.GraphModule):
            add(name, m.code)
    for node in gm.graph.nodes:
        if node.op != "get_attr":
            continue
        v = torch.fx.graph_module._get_attr(gm, node.target)
        if isinstance(v, torch.Tensor):
            add(node.target, _tensor_meta(v), _value_hash(v))
        elif not isinstance(v, torch.fx.GraphModule):
            raise BypassAOTAutogradCache(f"graph attribute {node.target} of type {type(v).__name__}")
    # which inputs share a storage: AOTAutograd's runtime handling of aliased inputs
    # depends on it, and the same graph code can be called with either pattern
    from torch.multiprocessing.reductions import StorageWeakRef
    first: dict = {}
    for i, a in enumerate(args):
        if isinstance(a, torch.Tensor):
            add(("storage of", first.setdefault(StorageWeakRef(a.untyped_storage()), i)))
    for a in args:
        if isinstance(a, torch.Tensor):
            add(_tensor_meta(a))
        elif a is None or isinstance(a, (bool, int, float, str)):
            add(a)
        else:
            raise BypassAOTAutogradCache(f"an input of type {type(a).__name__}")
    c = aot_config
    add(c.num_params_buffers, c.keep_inference_input_mutations, c.is_export, c.no_tangents, c.dynamic_shapes,
        [repr(s) for s in (c.aot_autograd_arg_pos_to_source or [])], c.static_input_indices, c.pre_dispatch)
    add(torch.is_grad_enabled(), torch.are_deterministic_algorithms_enabled(), torch.get_default_dtype())
    for dev in torch._C._autocast_supported_devices():
        if torch.is_autocast_enabled(dev):
            add(dev, torch.get_autocast_dtype(dev))
    add(hashlib.sha256(torch._functorch.config.save_config()).hexdigest())
    return "b" + h.hexdigest()[:51], []


# -- the store: torch's cache, redirected to bessemer's folder ---------------------------------

def _entry_dir(key: str) -> str:
    return os.path.join(_state.dir, key)


def _write(key: str, content: bytes) -> None:
    """One entry per key (a rewrite replaces it), checksummed, private."""
    try:
        d = private_dir(_entry_dir(key))
    except (PermissionError, NotADirectoryError) as e:   # another user's folder: not written
        warnings.warn(f"bessemer: graph cache entry {_entry_dir(key)} is not written ({e})",
                      RuntimeWarning, stacklevel=2)
        return
    data = FORMAT + hashlib.sha256(content).hexdigest().encode() + content
    atomic_write_bytes(d / "entry", data, mode=PRIVATE_FILE_MODE)
    for p in d.iterdir():
        if p.name != "entry" and not p.name.startswith("."):
            with contextlib.suppress(OSError):
                p.unlink()
    stats["saved"] += 1


# What a stored entry may name when it is read (module, name): the classes and functions
# torch's bundled AOTAutograd entry and bessemer's CachedGraph are made of, nothing else.
_ALLOWED = {
    ("builtins", "list"), ("builtins", "dict"), ("builtins", "set"), ("builtins", "frozenset"),
    ("builtins", "tuple"), ("builtins", "slice"), ("builtins", "complex"),
    ("collections", "OrderedDict"), ("collections", "defaultdict"),
    ("torch", "Size"), ("torch", "Tensor"), ("torch", "device"), ("torch", "dtype"),
    ("torch._utils", "_rebuild_tensor_v2"), ("torch._utils", "_rebuild_parameter"),
    ("torch.fx.graph_module", "reduce_graph_module"),
    ("torch._subclasses.functional_tensor", "FunctionalTensor"),
}
_FORMATS = ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format", "strided")
_ALLOWED_MODULES = ("torch._dynamo.source", "torch._functorch._aot_autograd.", "bessemer.compiler.")


def _load_tensor_bytes(b: bytes) -> Any:
    """torch.storage._load_from_bytes, as weights only (torch's own runs a full pickle)."""
    import io
    return torch.load(io.BytesIO(b), weights_only=True)


class _EntryUnpickler(pickle.Unpickler):
    """Reads an entry naming only what bessemer writes (_ALLOWED); anything else is refused.
    The owner check (cache_trust) comes first: torch's entry holds a graph module's code,
    which its reduction executes, so this narrows what a planted entry can name rather than
    making a foreign entry safe."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("torch.storage", "_load_from_bytes"):
            return _load_tensor_bytes
        if module in ("torch", "torch._utils") and name.rpartition(".")[2] in _FORMATS:
            # torch 2.11 writes a memory format as a dotted name in torch._utils
            obj = super().find_class(module, name)
            if isinstance(obj, (torch.memory_format, torch.layout)):
                return obj
        if (module, name) in _ALLOWED or (module.startswith(_ALLOWED_MODULES) and not name.startswith("__")):
            obj = super().find_class(module, name)
            if (module, name) in _ALLOWED or isinstance(obj, type) or module.startswith("bessemer."):
                return obj
        raise pickle.UnpicklingError(f"an entry may not name {module}.{name}")


def _loads(content: bytes) -> Any:
    import io
    return _EntryUnpickler(io.BytesIO(content)).load()


def _candidates(local: bool, remote_cache, key: str) -> Iterator[tuple]:
    path = Path(_entry_dir(key)) / "entry"
    if not local or not path.exists():
        return
    untrusted = cache_trust.problem(path, _state.trust_root)
    if untrusted:
        stats["untrusted"] += 1
        cache_trust.refuse(path, untrusted)
        return
    try:
        data = path.read_bytes()
        if not data.startswith(FORMAT):
            raise ValueError("not an entry of this format")
        digest, content = data[len(FORMAT):len(FORMAT) + _DIGEST], data[len(FORMAT) + _DIGEST:]
        if hashlib.sha256(content).hexdigest().encode() != digest:
            raise ValueError("its checksum does not match its content")
        entry = _loads(content)
    except Exception as e:  # noqa: BLE001 - any unreadable entry is recompiled
        stats["corrupt"] += 1
        warnings.warn(f"bessemer: graph cache entry {path} cannot be used ({e}); compiling the graph "
                      f"afresh and rewriting it", RuntimeWarning, stacklevel=2)
        with contextlib.suppress(OSError):
            path.unlink()
        return
    yield entry, content, True


@contextlib.contextmanager
def active(backend) -> Iterator[None]:
    """The compile of one Dynamo graph by `backend` (a BessemerBackend), with the cache on:
    torch's AOTAutograd cache bundled, keyed with bessemer's salt, stored in bessemer's folder.
    The backward is compiled with the forward, so that its entry is written here too."""
    cfg = backend.config
    graphs = folder(cfg)
    root = str(cache_trust.place(graphs.parent, graphs.name))
    prev = (getattr(_state, "backend", None), getattr(_state, "dir", None),
            getattr(_state, "trust_root", None))
    _state.backend, _state.dir = backend, root
    _state.trust_root = graphs.parent if root == str(graphs) else root
    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(torch._functorch.config.patch(
                bundled_autograd_cache=True, enable_autograd_cache=True,
                force_non_lazy_backward_lowering=True, enable_remote_autograd_cache=False))
            stack.enter_context(torch._inductor.config.patch(fx_graph_cache=True))
            stack.enter_context(torch.compiler.config.patch(cache_key_tag=salt(cfg)))
            # torch's cache, keyed, stored and looked up bessemer's way (module and class
            # attributes of torch set for the block and restored after it)
            stack.enter_context(_patched(_aot_cache, "autograd_cache_key", _key))
            stack.enter_context(_patched(AOTAutogradCache, "_get_tmp_dir",
                                         classmethod(lambda cls: root)))
            stack.enter_context(_patched(AOTAutogradCache, "_write_to_local_cache",
                                         staticmethod(_write)))
            stack.enter_context(_patched(AOTAutogradCache, "iterate_over_candidates",
                                         classmethod(lambda cls, *a: _candidates(*a))))
            yield
    finally:
        _state.backend, _state.dir, _state.trust_root = prev
