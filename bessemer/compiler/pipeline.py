"""The pipeline: one ordered list of named passes, from an ATen graph to a callable.

    lower        ATen FX graph -> IR (lowerings.LOWERINGS; the rest become externs)
    dce          drop values nothing reads
    fold_views   a view of a view is one index map; identity views vanish
    simplify     constant folding and the algebraic rule table (x*1 -> x, ...)
    cse          one node per distinct computation
    dce          drop what simplification orphaned
    dense_reads  a small strided operand kernels read broadcast is copied dense once
    fuse         decide buffers; group members into pointwise / reduction kernels
    input_writes a new value of an input (copy_ into it, kept in the graph) stored into
                 the input by the kernel computing it, after every reader of the old value
    plan_memory  the step order that lowers the peak; liveness; outputs written in place
                 over dying inputs, dead storages handed to new buffers; the planned peak
    gemm_choice  each large float32 CPU matrix product on ATen's BLAS in one call, oneDNN, or
                 ATen's in blocks of columns, whichever was measured fastest for its sizes
    render       kernels -> source: one C++ translation unit (CPU) or one Triton
                 module (GPU); codegen/backends.py picks by the graph's device
    build        gcc / the module import, through the content-addressed cache
    wrapper      the Python program that runs kernels and externs (codegen/wrapper.py)
    load         that program as a callable, its runtime names bound (runtime/graph_call.py)

Every pass is timed; with a debug folder, each writes what it produced there.
With `verify` (always in the tests, and under debug) the IR's invariants are
checked after every graph pass, the schedule's after fusion and the loop program
the backend prints (verify.py).
"""
from __future__ import annotations

import functools
import json
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

import torch

from bessemer.compiler.ir import symbolic
from bessemer.compiler.ir import graph as ir
from bessemer.compiler.ir.views import layout_of
from bessemer.compiler.runtime import gemm as products
from bessemer.compiler.runtime import graph_call as runtime
from bessemer.compiler.codegen import backends
from bessemer.compiler.codegen.wrapper import write_wrapper
from bessemer.compiler.lowering.lower import lower
from bessemer.compiler.passes.dense_reads import dense_broadcast_reads
from bessemer.compiler.passes.fuse import fuse
from bessemer.compiler.passes.gemm_choice import choose_gemms
from bessemer.compiler.passes.input_writes import write_into_inputs
from bessemer.compiler.passes.lower_kernels import lower_kernels
from bessemer.compiler.passes.memory import plan_memory
from bessemer.compiler.passes.simplify import cse, dce, fold_views, simplify
from bessemer.compiler.ir.verify import verify_graph, verify_loops, verify_schedule

GRAPH_PASSES: list[tuple[str, Callable[[ir.Graph], ir.Graph]]] = [
    ("dce", dce),
    ("fold_views", fold_views),
    ("simplify", simplify),
    ("cse", cse),
    ("fold_views", fold_views),
    ("dce", dce),
    ("dense_reads", dense_broadcast_reads),
    ("dce", dce),
]


@dataclass
class CompiledGraph:
    fn: Callable
    source: str                       # the kernels' source: C++ or a Triton module
    wrapper: str
    timings: dict
    n_kernels: int
    n_externs: int
    cache_hit: bool
    artifact: Optional[str]           # the built artifact: .so (cpp) or .py (triton)
    schedule_text: str = ""
    backend: str = "cpp"
    kernels: list = field(default_factory=list)     # KernelSource per kernel
    built: Any = None                                # backends.Built: the launchers
    name: str = ""
    memory: Any = None                               # the MemoryPlan (planned peak, reuse, in place)
    consts: dict = field(default_factory=dict)       # the constants the wrapper refers to by name
    # the strides of the tensors `fn` returns, per output (None: not a tensor, symbolic or not
    # known before a call); the forward's are reported to AOTAutograd (capture/backend.py)
    output_strides: Optional[list] = None


class Pipeline:
    def __init__(self, cache_dir: str, debug_dir: Optional[str] = None, name: str = "graph",
                 backend: str = "auto", verify: bool = False, gemm: str = "auto",
                 background_build: bool = False):
        self.cache_dir = cache_dir
        # the kernels' library compiled on a thread of its own while the compile goes on
        # (CppBackend.build(background=True)); the program's first call waits for it
        self.background_build = background_build
        self.gemm = gemm
        self.verify = verify or bool(debug_dir)
        self.backend_kind = backend
        self.debug_dir = debug_dir
        self.name = name
        self.timings: dict[str, float] = {}
        self._step = 0

    def _dump(self, label: str, text: str, ext: str = "txt") -> None:
        if not self.debug_dir:
            return
        os.makedirs(self.debug_dir, exist_ok=True)
        self._step += 1
        with open(os.path.join(self.debug_dir, f"{self._step:02d}_{label}.{ext}"), "w") as f:
            f.write(text)

    def _verify(self, check, what, where: str) -> None:
        if self.verify:
            with symbolic.recording(None):   # checks, not decisions: no guards on symbolic sizes
                self._timed("verify", check, what, where)

    def _timed(self, label: str, fn, *args):
        t0 = time.perf_counter()
        out = fn(*args)
        dt = time.perf_counter() - t0
        key = label
        i = 2
        while key in self.timings:
            key = f"{label}#{i}"
            i += 1
        self.timings[key] = dt
        return out

    def run(self, gm: torch.fx.GraphModule, example_inputs: Sequence[Any], fallback: str = "warn",
            sizes=None) -> CompiledGraph:
        """Compile `gm` for `example_inputs`. `sizes` (a sizes.SizeBinding): `gm` has
        symbolic sizes and is compiled at the concrete ones it gives."""
        device = backends.graph_device(example_inputs)
        backend = backends.select(self.backend_kind, device)
        if self.debug_dir:
            self._dump("aten_graph", gm.print_readable(print_output=False), "py")
        g = self._timed("lower", lower, gm, example_inputs, fallback, device, sizes, backend.name,
                        self.cache_dir)
        self._dump("lower", g.format())
        self._verify(verify_graph, g, "lower")
        for name, p in GRAPH_PASSES:
            g = self._timed(name, p, g)
            self._dump(name, g.format())
            self._verify(verify_graph, g, name)
        sched = self._timed("fuse", fuse, g)
        self._dump("fuse", sched.format())
        self._verify(verify_schedule, sched, "fuse")
        donated = frozenset(f"arg{i}" for i in gm.meta.get("bessemer_donated", ()))  # placeholder i is arg<i>
        # saved values the caller may still hold: planned over, and checked at run time
        maybe = frozenset(f"arg{i}" for i in gm.meta.get("bessemer_maybe_donated", ())) - donated
        writes = self._timed("input_writes", write_into_inputs, sched)
        if writes.written:
            self._dump("input_writes", writes.format())
            self._verify(verify_schedule, sched, "input_writes")
        plan = self._timed("plan_memory", plan_memory, sched, donated | maybe, writes.stores)
        self._dump("plan_memory", plan.format())
        # products are timed with the cores to themselves: no gcc of an earlier graph beside them
        chosen = self._timed("gemm_choice", choose_gemms, sched, device, self.gemm,
                             products.onednn_mm if products.linear_op() is not None else None,
                             products.blocked_mm, backends.wait_for_builds)
        if chosen:
            self._dump("gemm_choice", "not ATen's one call: " + ", ".join(chosen) + "\n")
        loops = self._timed("lower_kernels", lower_kernels, sched, backend.name)
        if self.debug_dir:
            self._dump("loops", loops.format())
        self._verify(verify_loops, loops, "lower_kernels")
        src, kernels = self._timed("print", backend.print_program, loops)
        self._dump("kernels", src, backend.source_ext)
        built = backends.Built({}, None, True)
        if kernels:
            if self.background_build and backend.name == "cpp":
                built = self._timed("build", functools.partial(backend.build, background=True), src, kernels,
                                    self.cache_dir, self.name)
            else:
                built = self._timed("build", backend.build, src, kernels, self.cache_dir, self.name)
        placeholders = []
        for i, n in enumerate(n for n in gm.graph.nodes if n.op == "placeholder"):
            ex = example_inputs[i] if i < len(example_inputs) else None
            placeholders.append(f"arg{i}" if isinstance(ex, torch.Tensor) else f"_unused{i}")
        sources = sizes.sources if sizes is not None and sizes.symbolic else None
        wrapper, consts = self._timed("wrapper", write_wrapper, sched, plan, kernels, backend, placeholders,
                                      sources, maybe, writes.written)
        fn = self._timed("load", runtime.load, wrapper, consts, built, device)
        self._dump("wrapper", wrapper, "py")
        n_k = len(sched.kernels)
        n_e = len(sched.steps) - n_k
        if self.debug_dir:
            self._dump("timings", json.dumps({"passes_s": self.timings, "kernels": n_k, "externs": n_e,
                                              "backend": backend.name, "cache_hit": built.cache_hit,
                                              "artifact": built.path}, indent=2), "json")
        return CompiledGraph(fn, src, wrapper, dict(self.timings), n_k, n_e, built.cache_hit, built.path,
                             sched.format(), backend.name, kernels, built, self.name, plan, consts,
                             output_strides(sched))


def output_strides(sched) -> list:
    """The strides of each output the generated program returns, as the wrapper lays it out
    (views of a buffer, a buffer's own strides, an extern's result put into its planned layout);
    None for a value that is not a tensor, a symbolic stride, or a broadcast output (returned
    as a clone, whose strides are ATen's choice)."""
    out = []
    for o in sched.graph.output_node.attrs["outs"]:
        lay = layout_of(o, sched.realized) if isinstance(o, ir.Node) else None
        st = tuple(lay[1]) if lay is not None else None
        if st is not None and (not all(isinstance(x, int) for x in (*st, *o.shape))
                               or any(x == 0 and n > 1 for x, n in zip(st, o.shape))):
            st = None
        out.append(st)
    return out
