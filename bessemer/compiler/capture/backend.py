"""Capture: the Dynamo backend and the AOTAutograd wiring.

Dynamo turns the user's Python into FX graphs (graph breaks run eagerly, as
Dynamo does); AOTAutograd traces each graph's forward and backward into ATen
graphs with the decompositions below and splits them with the partitioner; each
half goes through the bessemer pipeline. A graph the pipeline cannot compile
runs eagerly, with one warning naming the cause. With the graph cache on
(graph_cache.py), a graph compiled by an earlier process under the same config
is loaded instead: no AOTAutograd trace, no partition, no pipeline run.
"""
from __future__ import annotations

import contextlib
import functools
import gc
import itertools
import logging
import math
import os
import time
import warnings
from collections.abc import Mapping
from typing import Optional

import torch
from torch._decomp import core_aten_decompositions, get_decompositions
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.partitioners import default_partition, min_cut_rematerialization_partition

from bessemer.config import TrainingCompilerConfig

# BESSEMER_VERIFY=1 (the tests set it): check the IR's invariants after every pass,
# and raise when generated code does not build instead of falling back.
ENV_VERIFY = "BESSEMER_VERIFY"
from bessemer.compiler.capture import direct
from bessemer.compiler.capture import graph_cache
from bessemer.compiler.lowering import attention, nan_semantics, narrow_float, thin_matmul
from bessemer.compiler.partition import partitioner as partition
from bessemer.compiler.lowering import pooling, upsampling
from bessemer.compiler.runtime import graph_call as runtime
from bessemer.compiler.capture import tangents
from bessemer.compiler.capture import rows, unbind
from bessemer.compiler.capture import tangent_layout
from bessemer.compiler.capture.eager_layouts import eager_layouts
from bessemer.compiler.codegen import backends
from bessemer.compiler.codegen.build import BuildError
from bessemer.compiler.lowering.lower import PADDING_BACKWARDS, UPSAMPLE_OPS
from bessemer.compiler.pipeline import CompiledGraph, Pipeline
from bessemer.compiler.capture.specialize import MAX_SHAPES, ShapeSpecialized, is_symbolic

log = logging.getLogger("bessemer")
aten = torch.ops.aten

# Composite ops we decompose so that their parts fuse (softmax, layer norm, GELU,
# batch norm become pointwise ops and reductions). native_dropout is not in the
# list: it is lowered by hand so its random draw is the same ATen call as eager.
_EXTRA_DECOMPOSITIONS = [
    aten._softmax, aten._log_softmax, aten.native_layer_norm, aten.gelu,
    aten._native_batch_norm_legit_functional, aten._native_batch_norm_legit,
    aten._native_batch_norm_legit_no_training, aten.native_batch_norm, aten.var_mean,
    aten.native_group_norm, aten.hardtanh, aten.mean, aten.squeeze, aten.linalg_vector_norm,
]


def _weight_norm_backward(grad_w, v, g, norms, dim):
    """Gradients of w = v * g / norms (norms: the 2-norm of v over every dim but
    `dim`, shaped like g) in plain ATen ops, so they fuse; torch has no
    decomposition for this op, which the backward of weight_norm (wav2vec2's
    positional convolution) calls."""
    dim %= v.dim()
    others = [d for d in range(v.dim()) if d != dim]
    norms = norms.to(g.dtype)
    sums = (grad_w * v).sum(others, keepdim=True)
    grad_v = (g / norms) * (grad_w - v * (sums / (norms * norms)))
    return grad_v, sums / norms


# Ops kept whole: dropout for its RNG (the same generator calls as eager); mean and
# var_mean are lowered directly; scaled-dot-product attention runs in ATen's fused
# CPU kernel (its core decomposition also computes wrong gradients for causal
# attention without dropout, tests/models covers that case). An embedding's backward
# runs as eager's ATen op: its decomposition, an index_put with accumulate, takes ATen's
# serial CPU path (about 20x slower for a BERT-sized vocabulary).
_KEEP = {"native_dropout", "native_dropout_backward", "mean", "var_mean", "embedding_dense_backward",
         "_scaled_dot_product_flash_attention_for_cpu", "scaled_dot_product_attention",
         "_scaled_dot_product_attention_math"}

# Upsampling (F.interpolate, nn.Upsample) runs as ATen's kernels, forward and backward
# (lowering.UPSAMPLE_OPS). torch decomposes it into gathers and lerps, both through the
# table and through Python kernels registered on the ops' Autograd and
# CompositeImplicitAutograd keys, which the trace uses whatever the table says; the
# gathers' backward is an index_put with accumulate, ATen's serial CPU path. A UNet with
# three bilinear 2x upsamples (the `unet` zoo model's small shape) spent 73 ms of a 224 ms
# step in those index_puts, against eager's 160 ms; with ATen's kernels, 123 ms. The
# backward of a linear upsampling by 2, 4 or 8 is then decomposed our way (table below).
_KEEP.update(UPSAMPLE_OPS)
# Reflection padding's forward decomposes into a gather that fuses; its backward's
# decomposition is again an index_put with accumulate: four Conv2d(padding_mode="reflect")
# layers over [8, 32, 64, 64] took 340 ms a step that way, eager 98 ms. ATen's backward runs
# instead (replication padding's backward has no decomposition: ATen's already).
_KEEP.update(name for name in PADDING_BACKWARDS if name.startswith("reflection"))
# index_add runs as eager's ATen op: its decomposition, an index_put with accumulate (as serial
# on a CPU), rounds a bf16 or fp16 sum otherwise than index_add's kernel does.
_KEEP.add("index_add")
_TRACE_KEYS = (torch._C.DispatchKey.Autograd, torch._C.DispatchKey.CompositeImplicitAutograd)


@contextlib.contextmanager
def aten_upsampling():
    """While AOTAutograd traces: the upsampling ops without torch's Python decompositions
    (their meta kernels stay), so the trace records ATen's op and its backward op."""
    removed = []
    # and the ops whose Python autograd kernel differs from eager at NaN (nan_semantics.py):
    # the trace records the op and its backward op, which that module decomposes
    for name in (*UPSAMPLE_OPS, *nan_semantics.ATEN_AUTOGRAD):
        packet = getattr(aten, name, None)
        for overload in (packet.overloads() if packet is not None else ()):
            op = getattr(packet, overload)
            for key in _TRACE_KEYS:
                fn = op.py_kernels.pop(key, None)
                if fn is not None:
                    removed.append((op, key, fn))
            op._dispatch_cache.clear()
    try:
        yield
    finally:
        for op, key, fn in removed:
            op.py_kernels[key] = fn
            op._dispatch_cache.clear()


def _core_table() -> dict:
    """torch's core ATen decompositions, without the CompositeImplicitAutograd entries
    `core_aten_decompositions()` adds for export: a trace decomposes those ops whatever the
    table says (above autograd, or by the op's own `decompose` where one reaches the proxy
    mode), and listing them meant materializing every ATen overload, 0.5 s of a cold compile."""
    post_autograd = getattr(torch._decomp, "_core_aten_decompositions_post_autograd", None)
    return dict(post_autograd() if post_autograd is not None else core_aten_decompositions())


@functools.cache
def _decompositions() -> dict:
    table = _core_table()
    table.update(get_decompositions(_EXTRA_DECOMPOSITIONS))
    table.update(nan_semantics.table())   # eager's branch for NaN
    table.update(narrow_float.table(table))   # bf16 / fp16 formulas rounded once, as ATen's kernels
    table[aten._weight_norm_interface_backward.default] = _weight_norm_backward
    table[aten.max_pool2d_with_indices.default] = pooling.max_pool2d_with_indices
    # linear upsampling's backward by 2, 4 or 8 as strided views and products (lowering/upsampling.py)
    table.update(upsampling.table())
    # bf16 / fp16 attention backward on a CPU (lowering/attention.py; float32 keeps ATen's kernel)
    table[aten._scaled_dot_product_flash_attention_for_cpu_backward.default] = attention.flash_attention_backward_cpu
    # batched matmuls with a size of 1: products and sums (lowering/thin_matmul.py)
    table[aten.bmm.default] = thin_matmul.thin_bmm
    for op in list(table):
        name = op.overloadpacket.__name__ if isinstance(op, torch._ops.OpOverload) else str(op)
        if name in _KEEP:
            del table[op]
    return table


def decompositions() -> dict:
    """The decomposition table AOTAutograd traces with (built once per process)."""
    return dict(_decompositions())


class _LazyDecompositions(Mapping):
    """The decomposition table, built when AOTAutograd first reads it: a process whose graphs
    all come from the graph cache never traces, so never pays for building it."""

    def __getitem__(self, op):
        return _decompositions()[op]

    def __iter__(self):
        return iter(_decompositions())

    def __len__(self) -> int:
        return len(_decompositions())


_graph_ids = itertools.count()


def _why(e: BaseException) -> str:
    """A failed compile's reason for its warning: the first line, and a compiler's own lines."""
    msg = str(e).strip().splitlines()
    why = msg[0] if msg else type(e).__name__
    if len(msg) > 1 and "failed" in why:
        why += "\n" + "\n".join(msg[1:12])
    return why


class BessemerBackend:
    """The compilers AOTAutograd calls for each forward and backward graph."""

    def __init__(self, config: TrainingCompilerConfig):
        self.config = config
        self.compiled: list = []  # CompiledGraph per graph, for inspection and tests
        self.partitions: list = []  # partition.PartitionReport per joint graph
        self._to_store: Optional[dict] = None  # what the graph cache keeps of the graph just compiled

    def compiler(self, kind: str):
        def compile_graph(gm: torch.fx.GraphModule, example_inputs):
            gid = next(_graph_ids)
            name = f"{kind}{gid}"
            if is_symbolic(example_inputs):
                # sizes are symbols: one static compile per concrete shape, at its first call
                return ShapeSpecialized(gm, lambda g, args, n, sizes=None, strict=False: self._compile_static(
                    g, args, kind, n, gid, sizes, strict), name, self.config.fallback,
                    strict=os.environ.get(ENV_VERIFY) == "1", per_shape=self._per_shape)
            return self._compile_static(gm, example_inputs, kind, name, gid)
        return compile_graph

    def _compile_static(self, gm: torch.fx.GraphModule, example_inputs, kind: str, name: str, gid: int,
                        sizes=None, strict: bool = False):
        debug = self.config.resolved_debug_dir()
        if debug and int(os.environ.get("WORLD_SIZE", "1")) > 1:
            debug = os.path.join(debug, f"rank-{os.environ.get('RANK', '0')}")
        ddir = os.path.join(debug, f"graph_{gid:03d}_{kind}", name.partition(".")[2]) if debug else None
        log.info("compiling graph %s", name, extra={"bessemer_compile": {"event": "start", "graph": name}})
        started = time.perf_counter()
        verify = os.environ.get(ENV_VERIFY) == "1"
        _as_strided_to_view(gm)
        _exact_expand_updates(gm)
        try:
            # the library of a graph with static sizes is built while the compile goes on (the
            # next graph's lowering, Dynamo's guards); its first call waits for it
            cg = Pipeline(self.config.resolved_cache_dir(), ddir, name, self.config.backend,
                          verify=verify, gemm=self.config.gemm,
                          background_build=sizes is None).run(gm, example_inputs, self.config.fallback, sizes)
        except Exception as e:  # noqa: BLE001 - any failure falls back to eager
            log.info("graph %s not compiled", name, extra={"bessemer_compile": {"event": "failed", "graph": name}})
            if strict:
                raise   # the caller compiles another way (symbolic sizes -> one shape)
            if self.config.fallback == "error" or (verify and isinstance(e, BuildError)):
                # under verification (the tests) generated code that does not build is
                # a compiler bug, whatever the fallback setting
                raise
            warnings.warn(f"bessemer: {kind} graph {name} runs eagerly ({type(e).__name__}: {_why(e)})",
                          stacklevel=2)
            if ddir:
                os.makedirs(ddir, exist_ok=True)
                import traceback
                with open(os.path.join(ddir, "fallback.txt"), "w") as f:
                    f.write(traceback.format_exc())
            from functorch.compile import make_boxed_func
            return make_boxed_func(gm.forward)
        if getattr(cg.fn, "await_build", None) is not None:
            cg.fn.on_build_error = lambda e: self._build_failed(e, gm, kind, name, verify)
        log.info("compiled graph %s", name, extra={"bessemer_compile": {  # the job log's line
            "event": "done", "graph": name, "kernels": cg.n_kernels, "externs": cg.n_externs,
            "seconds": time.perf_counter() - started, "cache_hit": cg.cache_hit}})
        self.compiled.append(cg)
        if kind != "backward" and sizes is None:
            _report_output_strides(cg.output_strides)
        if self._caching():
            self._to_store = {
                "kind": kind, "name": name, "device": str(backends.graph_device(example_inputs)),
                "src": cg.source, "wrapper": cg.wrapper, "consts": cg.consts,
                "kernels": graph_cache.light_kernels(cg.kernels), "n_kernels": cg.n_kernels,
                "n_externs": cg.n_externs, "schedule": cg.schedule_text,
                "fallback_gm": graph_cache.fallback_module(gm) if cg.backend == "triton" else None}
        # a compile with symbolic sizes serves many shapes: what is per shape is added per shape
        symbolic = sizes is not None and sizes.symbolic
        return self._finish(cg.fn, cg.backend, gm, name, kind, example_inputs, per_shape=not symbolic)

    def _build_failed(self, e: BaseException, gm: torch.fx.GraphModule, kind: str, name: str, verify: bool):
        """What a graph whose library failed to build in the background runs instead, at its
        first call: the graph eagerly, with the warning a failed compile gives (or the error)."""
        if self.config.fallback == "error" or verify:
            raise e
        warnings.warn(f"bessemer: {kind} graph {name} runs eagerly ({type(e).__name__}: {_why(e)})", stacklevel=2)
        from functorch.compile import make_boxed_func
        return make_boxed_func(gm.forward)

    def _per_shape(self, fn, name: str, example_inputs):
        """What a graph needs per concrete shape: a CUDA graph is captured for one shape."""
        if self.config.cuda_graphs:
            from bessemer.compiler.runtime.cudagraphs import wrap
            return wrap(fn, name, example_inputs)
        return fn

    def _finish(self, fn, backend: str, gm, name: str, kind: str, example_inputs, per_shape: bool = True):
        """A compiled graph's callable with the guards its backend and the config ask for."""
        fn._boxed_call = True
        if backend == "triton":
            fn = FirstCallGuard(fn, gm, name, kind, self.config.fallback)
        if self.config.cuda_graphs and per_shape:
            from bessemer.compiler.runtime.cudagraphs import wrap
            fn = wrap(fn, name, example_inputs)
        return fn

    def _caching(self) -> bool:
        """Whether this compile runs with the graph cache (graph_cache.active)."""
        return graph_cache.current() is self

    def load_cached(self, state: dict, example_inputs):
        """A graph the graph cache stored, loaded again and reported as a compile is."""
        started = time.perf_counter()
        kind = state["kind"]
        name = f"{kind}{next(_graph_ids)}"
        device = torch.device(state["device"])
        backend = backends.select(self.config.backend, device)
        built = backends.Built({}, None, True)
        if state["kernels"]:
            # the kernel cache holds the build; a missing artifact is built again from the source
            built = backend.build(state["src"], state["kernels"], self.config.resolved_cache_dir(),
                                  state["name"])
        fn = runtime.load(state["wrapper"], state["consts"], built, device)
        cg = CompiledGraph(fn, state["src"], state["wrapper"], {"graph_cache": time.perf_counter() - started},
                           state["n_kernels"], state["n_externs"], True, built.path, state["schedule"],
                           backend.name, state["kernels"], built, name, None, state["consts"])
        rep = state.get("partition")
        cg.partition = rep
        if rep is not None and kind == "forward":
            rep.graph = f"joint{len(self.partitions)}"
            self.partitions.append(rep)
        graph_cache.stats["hits"] += 1
        log.info("compiled graph %s", name, extra={"bessemer_compile": {
            "event": "done", "graph": name, "kernels": cg.n_kernels, "externs": cg.n_externs,
            "seconds": time.perf_counter() - started, "cache_hit": True, "graph_cache": True}})
        self.compiled.append(cg)
        gm = state.get("fallback_gm")
        fn = self._finish(fn, backend.name, gm, name, kind, example_inputs)
        if kind != "backward":
            return fn
        fn = _CollectOnce(fn)
        tan = state.get("tangents")
        if tan is None:
            return fn
        # another pattern compiles from the graph the cache kept, its metadata propagated again
        return tangents.AbsentTangents(tan["positions"], tan["absent"], fn, self.compiler("backward"),
                                       functools.partial(tangents.restored, tan))

    def aot(self, cached: bool = False):
        """AOTAutograd with bessemer's compilers; `cached`: for a compile under graph_cache.active,
        whose compilers return what torch's AOTAutograd cache stores."""
        part = {"min_cut": min_cut_rematerialization_partition, "default": default_partition}.get(
            self.config.partitioner) or self._partition
        fw = self._reported(self.compiler("forward"))
        if cached:
            from torch._functorch._aot_autograd.schemas import SerializableAOTDispatchCompiler
            fw = SerializableAOTDispatchCompiler(graph_cache.CachedGraph, fw)
        return aot_autograd(fw_compiler=fw,
                            bw_compiler=self._reported(self.compiler("backward"), collect=True),
                            inference_compiler=self._reported(self.compiler("inference")),
                            decompositions=_LazyDecompositions(), partition_fn=part)

    def _partition(self, joint: torch.fx.GraphModule, joint_inputs, **kwargs):
        """partition.partition under this config; a joint graph it cannot split saves every value
        the backward needs (torch's default partition), with a warning."""
        try:
            return partition.partition(joint, joint_inputs, budget=self.config.memory_budget,
                                       report=self._partitioned, **kwargs)
        except partition.PartitionError as e:
            if self.config.fallback == "error":
                raise
            warnings.warn(f"bessemer: {e}; this graph saves every value its backward needs", stacklevel=2)
            return default_partition(joint, joint_inputs, **kwargs)

    def _partitioned(self, rep) -> None:
        rep.graph = f"joint{len(self.partitions)}"
        self.partitions.append(rep)
        partition.write_report(rep, self.config.resolved_debug_dir())

    def _reported(self, compile_graph, collect: bool = False):
        """compile_graph, with the partition report on the graphs it compiled (`.partition`)."""
        def run(gm: torch.fx.GraphModule, example_inputs):
            absent = None
            if collect:
                gm.meta["bessemer_donated"] = _donated(example_inputs)
                names = gm.meta.get("bessemer_saved_returned", ())
                gm.meta["bessemer_maybe_donated"] = frozenset(
                    i for i, p in enumerate(n for n in gm.graph.nodes if n.op == "placeholder") if p.name in names)
                if not is_symbolic(example_inputs):
                    absent = tangents.predicted(gm)   # compiled for the tangents a step passes
            n = len(self.compiled)
            self._to_store = None
            fn = compile_graph(*tangents.without(gm, example_inputs, absent or ()))
            for cg in self.compiled[n:]:
                cg.partition = gm.meta.get("bessemer_partition")
            fn = _CollectOnce(fn) if collect else fn
            if absent is not None:
                fn = tangents.AbsentTangents(tangents.tangent_positions(gm), absent, fn, compile_graph,
                                             lambda args: (gm, example_inputs))
            if self._caching():
                state, self._to_store = self._to_store, None
                if state is None:   # eager, or symbolic sizes: not stored
                    return graph_cache.EagerGraph(fn)
                state["partition"] = gm.meta.get("bessemer_partition")
                if absent is not None:
                    try:
                        state["tangents"] = tangents.stored(gm, absent)
                    except graph_cache.BypassAOTAutogradCache:
                        # its graph does not pickle (an effect token's with_effects, from
                        # linalg's error checks): compiled and run, but not stored
                        return graph_cache.EagerGraph(fn)
                return graph_cache.CachedGraph(fn, state)
            return fn
        return run


def _donated(example_inputs) -> frozenset:
    """Backward inputs the graph may overwrite once dead: saved tensors AOTAutograd donates (seen
    by nothing else; it refuses backward(retain_graph=True) for such graphs), less any that
    shares its storage with another input."""
    from torch.multiprocessing.reductions import StorageWeakRef
    ctx = torch._guards.TracingContext.try_get()
    meta = getattr(ctx, "fw_metadata", None)
    idxs = getattr(meta, "bw_donated_idxs", None) or ()
    if not idxs or not torch._functorch.config.donated_buffer:
        return frozenset()
    if getattr(meta, "tokens", None):
        # a forward with effect tokens (linalg's error checks) returns its token first, and
        # AOTAutograd's donation analysis does not count it: its indices are one off, naming
        # saved values the caller holds (lu_factor's LU) and tangents. None is trusted then.
        return frozenset()
    seen: dict = {}
    for i, t in enumerate(example_inputs):
        if isinstance(t, torch.Tensor):
            seen.setdefault(StorageWeakRef(t.untyped_storage()), []).append(i)
    shared = {i for group in seen.values() if len(group) > 1 for i in group}
    return frozenset(i for i in idxs if i not in shared)


def _as_strided_to_view(gm: torch.fx.GraphModule) -> None:
    """Each as_strided that reads a contiguous tensor's own elements in their order (offset 0,
    as many elements, contiguous strides) becomes the view it is. Decompositions write such
    reshapes as as_strided (GroupNorm's statistics: [N, G, C/G, 1] -> [N, C], forward and
    backward), which the lowering otherwise runs as an ATen call on a materialized buffer: a
    small UNet's step made 40 of them, each splitting the kernels around it."""
    changed = False
    for n in gm.graph.nodes:
        if n.target is not aten.as_strided.default or not isinstance(n.args[0], torch.fx.Node):
            continue
        x, size, stride = n.args[0].meta.get("val"), n.args[1], n.args[2]
        offset = n.args[3] if len(n.args) > 3 else n.kwargs.get("storage_offset")
        if not isinstance(x, torch.Tensor) or offset not in (None, 0):
            continue
        dims = (*x.shape, *x.stride(), x.storage_offset(), *size, *stride)
        if not all(type(d) is int for d in dims) or x.storage_offset() != 0 or not x.is_contiguous():
            continue
        if math.prod(size) != x.numel() or tuple(stride) != _contiguous_strides(size):
            continue
        n.target, n.args, n.kwargs = aten.view.default, (n.args[0], list(size)), {}
        changed = True
    if changed:
        gm.recompile()


_SCATTERS = (aten.slice_scatter.default, aten.select_scatter.default, aten.diagonal_scatter.default,
             aten.as_strided_scatter.default, aten.copy.default)


def _same_meta(*nodes) -> bool:
    vals = [n.meta.get("val") if isinstance(n, torch.fx.Node) else None for n in nodes]
    return all(isinstance(v, torch.Tensor) for v in vals) and \
        len({(tuple(v.shape), v.dtype, v.device) for v in vals}) == 1


def _exact_expand_updates(gm: torch.fx.GraphModule) -> None:
    """An in-place update through an expand that broadcasts nothing (`x.expand(x.shape)[...] =
    v`) is functionalized as `x + (y - x)`, y the expanded view with the update scattered in
    (torch's inverse of expand adds the view's change to its base): in floating point that is
    not y (an infinite x makes it NaN; a large x rounds a small y away), where eager writes y
    into x's memory. The sum becomes y. Matched only as functionalization writes it: the
    difference read by nothing else, y built by scatters over `expand(x)` of x's own shape."""
    changed = False
    for n in list(gm.graph.nodes):
        if n.target is not aten.add.Tensor or len(n.args) != 2 or n.kwargs.get("alpha", 1) != 1:
            continue
        x, d = n.args
        if not (isinstance(d, torch.fx.Node) and d.target is aten.sub.Tensor and len(d.args) == 2
                and d.kwargs.get("alpha", 1) == 1 and d.args[1] is x and len(d.users) == 1):
            continue
        y = d.args[0]
        if not (isinstance(x, torch.fx.Node) and isinstance(y, torch.fx.Node) and _same_meta(n, x, y, d)):
            continue
        base = y
        while isinstance(base, torch.fx.Node) and base.target in _SCATTERS:
            base = base.args[0]
        if not (isinstance(base, torch.fx.Node) and base.target is aten.expand.default and base.args[0] is x
                and _same_meta(base, x)):
            continue
        n.replace_all_uses_with(y)
        changed = True
    if changed:
        gm.graph.eliminate_dead_code()
        gm.recompile()


def _contiguous_strides(size) -> tuple:
    st, acc = [], 1
    for d in reversed(size):
        st.append(acc)
        acc *= max(d, 1)
    return tuple(reversed(st))


def _report_output_strides(strides) -> None:
    """Tell AOTAutograd the strides of the outputs a forward program returns, as Inductor does
    (TracingContext.report_output_strides): it compiles the backward for the saved tensors as
    the forward lays them out, not as eager would have. Unreported, a saved value our forward
    lays out otherwise (rotary q and k, contiguous where eager's follow the attention's
    permuted projection) fails the backward's stride check at every call and is copied."""
    ctx = torch._guards.TracingContext.try_get()
    if ctx is not None and ctx.output_strides is not None and strides is not None:
        # a forward with effect tokens returns them first, and AOTAutograd's slice of the
        # saved values does not count them: report the outputs after the tokens
        tokens = len(getattr(getattr(ctx, "fw_metadata", None), "tokens", None) or ())
        ctx.output_strides.extend(strides[tokens:])


class _CollectOnce:
    """Collects the young garbage once, at a backward graph's first call. Dynamo's compile-time
    objects hold the first step's outputs (logits, caches) in reference cycles, which can stay
    alive until Python's collector happens to run; by the first backward every frame of the
    step is compiled and those cycles are garbage. Only generations 0 and 1 are collected: a
    full collection walks every object of the process (transformers and torch: 0.19 s at a
    GPT-2's warm start), and the compile's cycles are young."""

    def __init__(self, fn):
        self.fn, self.first, self._boxed_call = fn, True, True

    def __call__(self, args: list):
        if self.first:
            self.first = False
            gc.collect(1)
        return self.fn(args)


class FirstCallGuard:
    """Triton compiles each kernel at its first launch, so a kernel that fails to
    compile shows up in the graph's first call, not in the pipeline. If that call
    fails, the graph runs eagerly from then on, with one warning naming the cause
    (the compiled graph is pure: its inputs are untouched, so the eager run starts
    from the same state). After one good call the kernels are built and the guard
    only passes calls through."""

    def __init__(self, fn, gm: torch.fx.GraphModule, name: str, kind: str, fallback: str):
        self.fn, self.gm, self.name, self.kind, self.fallback = fn, gm, name, kind, fallback
        self.first = True
        self._boxed_call = True

    def __call__(self, args: list):
        if not self.first:
            return self.fn(args)
        saved = list(args)
        try:
            out = self.fn(args)
        except Exception as e:  # noqa: BLE001
            if self.fallback == "error":
                raise
            why = (str(e).strip().splitlines() or [type(e).__name__])[0]
            warnings.warn(f"bessemer: {self.kind} graph {self.name} runs eagerly (its Triton kernels failed "
                          f"at their first launch: {type(e).__name__}: {why})", stacklevel=2)
            from functorch.compile import make_boxed_func
            self.fn = make_boxed_func(self.gm.forward)
            self.first = False
            return self.fn(saved)
        self.first = False
        return out


def _skip_logger_warning_once() -> None:
    """transformers gives every logger a `warning_once` (an lru_cache'd method), and its
    models call it inside forward (a causal LM's loss without `loss_type` in its config).
    Dynamo cannot trace it: it breaks the graph there, so the model is traced as two
    frames and compiled as two graphs, which doubles Dynamo's share of every cold and
    warm start. Dynamo is told to skip it inside compiled code; the trade is that such a
    once-per-process notice is not printed from compiled code."""
    import logging
    fn = getattr(logging.Logger, "warning_once", None)
    if fn is not None:
        torch._dynamo.config.ignore_logging_functions.add(fn)


def make_backend(config: Optional[TrainingCompilerConfig] = None):
    """A torch.compile backend bound to `config`.

    A graph compiled again for new input shapes is reported: every new shape costs
    a compile, and a silent recompile each step is a slow run nobody can see."""
    be = BessemerBackend(config or TrainingCompilerConfig.from_env())
    _skip_logger_warning_once()
    aots: dict = {}   # cached or not -> AOTAutograd with this backend's compilers, made at first use
    shapes_seen: dict[str, list] = {}

    def compile_graph(gm: torch.fx.GraphModule, example_inputs, **kwargs):
        """(the compiled graph as AOTAutograd returns it, whether its outputs' autograd node
        must have the filling of missing tangents switched off at every call)."""
        unbind.select_unbound(gm)   # x.unbind(d)[i] as x.select(d, i): no view per row to trace
        rows.prune_rows(gm)         # rows nothing reads (a classifier's one token) not computed
        # sizes as text: a symbolic size ("s0") must not be compared as a number here
        shapes = [tuple(str(s) for s in t.shape) for t in example_inputs if isinstance(t, torch.Tensor)]
        # the same code traced again: the same sequence of tensor ops, whatever the shapes
        # (a graph with symbolic sizes also computes sizes; those nodes are left out)
        key = "|".join(f"{n.op}:{n.target}" for n in gm.graph.nodes
                       if n.op != "placeholder" and not _computes_sizes(n))
        seen = shapes_seen.setdefault(key, [])
        if seen and shapes not in seen:
            changed = [f"({', '.join(a)}) -> ({', '.join(b)})" for a, b in zip(seen[-1], shapes) if a != b][:3]
            if is_symbolic(example_inputs):
                warnings.warn(f"bessemer: recompiling a graph for new input shapes ({'; '.join(changed)}) with "
                              f"symbolic sizes; each new shape is specialized at its first call (one compile "
                              f"of bessemer's pipeline per shape; up to {MAX_SHAPES} shapes)", stacklevel=2)
            else:
                warnings.warn(f"bessemer: recompiling a graph for new input shapes ({'; '.join(changed)}); "
                              f"pad to fixed shapes to avoid this (compile {len(seen) + 1}, limit "
                              f"{be.config.cache_size_limit})", stacklevel=2)
        seen.append(shapes)
        cached = graph_cache.enabled(be.config)
        aot = aots.get(cached) or aots.setdefault(cached, be.aot(cached))
        with aten_upsampling(), eager_layouts(), tangent_layout.dense_tangents_for_overlapping_outputs():
            if cached:
                with graph_cache.active(be):
                    fn = aot(gm, example_inputs, **kwargs)
            else:
                fn = aot(gm, example_inputs, **kwargs)
        return fn, tangents.turns_off_filling(gm, example_inputs)

    def backend(gm: torch.fx.GraphModule, example_inputs, **kwargs):
        fn, marked = compile_graph(gm, example_inputs, **kwargs)
        # called directly where AOTAutograd's wrappers have nothing to do (direct.py); the
        # backward takes None for the outputs a step does not differentiate (tangents.py)
        return direct.DirectGraph(fn, marked)

    backend.bessemer = be  # type: ignore[attr-defined]
    backend.compile_graph = compile_graph  # type: ignore[attr-defined]  # precompile.py stores its result
    return backend


_backends_by_config: dict[TrainingCompilerConfig, object] = {}


def backend_for(config: TrainingCompilerConfig):
    """The one backend of a config: graphs compiled under the same config share its
    recompile tracking and its list of compiled graphs."""
    be = _backends_by_config.get(config)
    if be is None:
        be = _backends_by_config[config] = make_backend(config)
    return be


def _computes_sizes(n: torch.fx.Node) -> bool:
    v = n.meta.get("example_value")
    if isinstance(v, (tuple, list, torch.Size)):
        return any(isinstance(x, torch.SymInt) for x in v)
    return isinstance(v, (torch.SymInt, int)) and not isinstance(v, bool)


def bessemer_backend(gm, example_inputs, **kwargs):
    """torch.compile(model, backend="bessemer"): the config comes from the environment.

    Registered through the `torch_dynamo_backends` entry point (pyproject.toml), so
    the name works without importing bessemer first. Every call with the same config
    goes to one backend object, so a recompile for new shapes is reported and
    `bessemer_backend.bessemer.compiled` lists what was compiled."""
    be = backend_for(TrainingCompilerConfig.from_env())
    bessemer_backend.bessemer = be.bessemer  # type: ignore[attr-defined]
    return be(gm, example_inputs, **kwargs)
