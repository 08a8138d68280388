"""The direct call: a compiled training graph run without AOTAutograd's runtime wrappers.

AOTAutograd returns each Dynamo graph wrapped for every case a graph can be in: inputs it
mutates, outputs that alias inputs or each other, tensor subclasses, functionalized random
state, effect tokens, symbolic sizes saved for the backward. Each call walks those layers
(a runtime wrapper, an autograd.Function with a generated prologue and epilogue on both
sides, a `torch._dynamo.disable` frame per layer); for a small model that costs as much
as its arithmetic (a two-layer MLP: about 100 µs of a 260 µs step, eager's whole step
125 µs).

Most training graphs are in none of those cases, and AOTAutograd's own metadata for the
graph says so. `DirectGraph` sends the first calls through AOTAutograd and reads the
metadata of the autograd.Function it built (from the grad_fn of the outputs); once the
backward is compiled too, and where the metadata shows that the wrappers have nothing to
do, it calls the same compiled forward and backward through one small autograd.Function
of its own (`CompiledFunction`, so its node has the name AOTAutograd's has in a profile).
An input the graph mutates as BatchNorm its running statistics (new data, returned by the
forward, for a tensor autograd does not track) is written as AOTAutograd's epilogue writes it:
one copy_ after the call. Everything else (another input mutation, an aliased output, a call
under autocast, vmap or compiled autograd, a subclass) stays on AOTAutograd's path, call by
call.

It also switches the filling of missing tangents off where `tangents.turns_off_filling` asks
(on AOTAutograd's node or its own): the backward takes tangents nobody passed as None.
"""
from __future__ import annotations

import logging
import os
from typing import Callable, Optional

import torch

log = logging.getLogger("bessemer")

_PLAIN = (torch.Tensor, torch.nn.Parameter)
ENV = "BESSEMER_DIRECT"   # "0": every call goes through AOTAutograd's wrappers


def enabled() -> bool:
    return os.environ.get(ENV, "1") != "0"


def _boxed(fn: Callable) -> Callable:
    """fn taking its arguments as one list (which it may clear), as AOTAutograd calls it."""
    if getattr(fn, "_boxed_call", False):
        return fn
    return lambda args: fn(*args)


def _has_tangent(o) -> bool:
    """Whether an output's gradient is a tangent of the backward (torch before 2.13 has no
    requires_grad_for_backward: there it is requires_grad)."""
    return getattr(o, "requires_grad_for_backward", o.requires_grad)


class _Graph:
    """What the direct call needs of one compiled graph, read from AOTAutograd's metadata."""

    def __init__(self, cls: type, marked: bool):
        m = cls.metadata
        self.cls, self.meta, self.marked = cls, m, marked
        self.fw = _boxed(cls.compiled_fw)
        # the forward returns the new values of the inputs it mutates first (BatchNorm's running
        # statistics), then the outputs, then what it saves for the backward
        self.mutated = tuple(m.mutated_inp_runtime_indices)
        k = self.n_mut = len(self.mutated)
        self.n_out = k + len(m.output_info)
        self.saved = m.tensors_saved_for_backwards_with_vc_check_slice
        self.non_diff = tuple(range(k)) + tuple(k + i for i, o in enumerate(m.output_info) if not o.requires_grad)
        self.with_grads = tuple(k + i for i, o in enumerate(m.output_info) if _has_tangent(o))
        self.deterministic = m.deterministic

    @property
    def bw(self) -> Callable:
        # read at each backward: AOTAutograd may compile the backward again (a retained graph);
        # the backward already runs with Dynamo off, so not through AOTAutograd's own disable
        fn = self.cls.compiled_bw
        if getattr(fn, "_torchdynamo_disable", False) and hasattr(fn, "__wrapped__"):
            fn = fn.__wrapped__
        return _boxed(fn)


def _why_not(cls: type, args: tuple) -> Optional[str]:
    """Why AOTAutograd's wrappers have work to do for this graph (None: they have none)."""
    from torch._functorch._aot_autograd.schemas import MutationType, OutputType, PlainTensorMeta
    m = getattr(cls, "metadata", None)
    if m is None or getattr(cls, "compiled_fw", None) is None:
        return "not an AOTAutograd graph"
    if getattr(cls, "maybe_subclass_metadata", None) is not None:
        return "tensor subclasses"
    if len(args) != len(m.input_info) or not all(type(a) in _PLAIN for a in args):
        return "arguments that are not plain tensors, or deduplicated ones"
    if any(i.mutates_metadata or i.mutates_storage_metadata or i.mutation_inductor_storage_resize
           for i in m.input_info):
        return "it changes an input's sizes, strides or storage"
    mutated = [i for i in m.input_info if i.mutates_data]
    if any(i.mutation_type != MutationType.MUTATED_OUT_GRAPH or i.requires_grad
           or i.mutations_hidden_from_autograd for i in mutated):
        # the data mutation the direct call applies is AOTAutograd's plainest: a new value the
        # forward returns, copied into an input autograd does not track (a running statistic)
        return "it mutates an input that requires grad, or within the graph"
    if (m.num_mutated_inp_runtime_indices != len(mutated)
            or any(x is not None for x in (m.mutated_inp_stream_indices or ()))):
        return "input mutations of another kind"
    if any(o.output_type != OutputType.non_alias or not issubclass(o.raw_type, torch.Tensor)
           for o in m.output_info):
        return "an output aliases an input or another output"
    if (m.num_intermediate_bases or m.tokens or m.num_backward_tokens or m.is_rng_op_functionalized
            or m.num_outputs_rng_offset or m.num_graphsafe_rng_states or m.num_unsafe_view_outputs):
        return "intermediate bases, effect tokens or functionalized random state"
    if (m.num_symints_saved_for_bw or getattr(cls, "num_symints_saved_for_bw", 0)
            or m.num_tensors_saved_with_no_vc_check or m.num_opaque_objects_saved_for_bw):
        return "sizes or untracked values saved for the backward"
    if m.dynamic_outputs or m.grad_enabled_mutation is not None:
        return "dynamic outputs, or a change of grad mode"
    n_grads = sum(1 for o in m.output_info if _has_tangent(o))
    if len(m.subclass_tangent_meta) != n_grads or not all(
            isinstance(t, PlainTensorMeta) for t in m.subclass_tangent_meta):
        return "tangents that are not plain tensors"
    return None


# ATen's refusal to write a tensor whose elements share memory (at::assert_no_internal_overlap)
_OVERLAP = "more than one element of the written-to tensor refers to a single memory location"


def _overlapping_input_error(e: RuntimeError, args: tuple) -> Optional[RuntimeError]:
    """The error for an in-place write to an input whose elements share memory (an expanded
    tensor), or None where `e` is something else. Eager writes such a tensor in place where
    the op allows it (fill_, zero_, a write to an empty slice); a compiled graph computes the
    input's new value and AOTAutograd copies it into the input, which ATen refuses for such a
    tensor (torch.compile's Inductor refuses the graph at compile time)."""
    if _OVERLAP not in str(e):
        return None
    which = [f"shape {tuple(a.shape)}, strides {tuple(a.stride())}" for a in args
             if isinstance(a, torch.Tensor) and a.layout == torch.strided
             and torch._debug_has_internal_overlap(a) == 1]
    if not which:
        return None
    return RuntimeError(
        f"bessemer: the compiled graph writes in place to an input whose elements share memory "
        f"({'; '.join(which[:3])}: an expanded or broadcast tensor); compiled code writes an input's new "
        f"value back with one copy, which cannot go into such a tensor. Pass a tensor with memory of "
        f"its own instead (x.clone() or x.contiguous()).")


def _usable() -> bool:
    """Whether this call's global state is the one the direct call reproduces: grad mode on,
    no autocast (AOTAutograd would switch it off inside), no functorch transform, no
    compiled autograd (which traces AOTAutograd's own backward)."""
    return (torch.is_grad_enabled() and not torch._C._is_any_autocast_enabled()
            and torch._C._functorch.peek_interpreter_stack() is None
            and not torch._dynamo.compiled_autograd.in_compiled_autograd_region
            and torch._dynamo.compiled_autograd.compiled_autograd_enabled is False)


class CompiledFunction(torch.autograd.Function):
    """One compiled forward and backward (a `_Graph`), called directly."""

    @staticmethod
    def forward(ctx, g: _Graph, *args):
        outs = g.fw(list(args))
        if not isinstance(outs, list):
            outs = list(outs) if isinstance(outs, tuple) else [outs]
        # a saved view is saved detached: its base may be an output autograd rewrites
        ctx.save_for_backward(*[t.detach() if t._is_view() else t for t in outs[g.saved]])
        ctx.graph = g
        returned = outs[:g.n_out]
        if g.non_diff:
            ctx.mark_non_differentiable(*[returned[i] for i in g.non_diff if isinstance(returned[i], torch.Tensor)])
        ctx._materialize_non_diff_grads = False
        if g.marked:
            ctx.set_materialize_grads(False)
        return tuple(returned)

    @staticmethod
    def backward(ctx, *grads):
        # with Dynamo watching (a backward called inside a compiled function), with Dynamo
        # off; otherwise directly: torch._dynamo.disable's wrapper costs 4 set_eval_frame
        # calls and two Python frames per call, for nothing when no callback is set
        if _eval_frame_callback() is not None:
            return _backward_without_dynamo(ctx, *grads)
        return _backward(ctx, *grads)


def _backward(ctx, *grads):
    """A compiled graph's backward (CompiledFunction.backward), run directly."""
    g: _Graph = ctx.graph
    torch._check(torch._C._functorch.peek_interpreter_stack() is None, lambda: (
        "a compiled backward cannot run inside vmap/grad/vjp; wrap vmap inside the compiled "
        "function, or leave the backward uncompiled"))
    if not g.deterministic and torch.are_deterministic_algorithms_enabled():
        raise RuntimeError("this compiled backward runs with torch.use_deterministic_algorithms(True), "
                           "but its forward was compiled without it")
    use_once = not torch._C._autograd._get_current_graph_task_keep_graph()
    if (not use_once and g.meta.bw_donated_idxs and torch._functorch.config.donated_buffer):
        raise RuntimeError(
            "this backward was compiled to write over values saved for it, which needs "
            "backward(create_graph=False, retain_graph=False) every time; or set "
            "torch._functorch.config.donated_buffer=False")
    saved = ctx.saved_tensors
    args = [*saved, *[grads[i] for i in g.with_grads]]
    del saved, grads
    ctx.maybe_clear_saved_tensors()
    bw = g.bw
    if torch.is_grad_enabled():
        # create_graph=True: the gradients get a node that refuses a second backward; a
        # dummy input that requires grad gives them one when no argument does
        dummy = () if any(t.requires_grad for t in args if isinstance(t, torch.Tensor)) \
            else (torch.empty(0, requires_grad=True),)
        return (None, *_OnceOnly.apply(bw, len(dummy), *dummy, *args))
    return (None, *bw(args))


_backward_without_dynamo = torch._dynamo.disable(_backward)
_eval_frame_callback = torch._C._dynamo.eval_frame.get_eval_frame_callback


class _OnceOnly(torch.autograd.Function):
    """A compiled backward run with create_graph=True: its results are connected to the
    graph, and differentiating them again is an error, as under AOTAutograd."""

    @staticmethod
    def forward(ctx, bw, skip: int, *args):
        return tuple(bw(list(args[skip:])))

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError("a compiled backward cannot be differentiated again (double backward)")


class DirectGraph:
    """A compiled Dynamo graph (AOTAutograd's callable): the first calls through AOTAutograd,
    then, where its metadata allows, the direct call (module docstring). `marked`: the
    backward takes missing tangents as None (tangents.py)."""

    def __init__(self, aot: Callable, marked: bool):
        self.aot, self.marked = aot, marked
        self.cls: Optional[type] = None    # AOTAutograd's autograd.Function, once seen
        self.graph: Optional[_Graph] = None
        self.settled = not enabled()       # the direct call is built, or never will be
        self._where: Optional[int] = None  # the output whose node AOTAutograd's calls mark

    def __call__(self, *args):
        # Dynamo calls a compiled graph with its callback off already (its own disable
        # wrapper); only a caller Dynamo watches needs this one (see CompiledFunction.backward)
        if _eval_frame_callback() is not None:
            return self._call_without_dynamo(*args)
        return self._call(*args)

    def _call(self, *args):
        g = self.graph
        if g is None and not self.settled and self.cls is not None and self.cls.compiled_bw is not None:
            g = self._build()   # the first backward has compiled the backward
        if g is not None and _usable():
            outs = CompiledFunction.apply(g, *args)
            if not g.mutated:
                return list(outs)
            # as AOTAutograd's epilogue: each mutated input takes its new value
            for i, new in zip(g.mutated, outs):
                args[i].copy_(new)
            return list(outs[g.n_mut:])
        try:
            outs = self.aot(*args)
        except RuntimeError as e:
            clear = _overlapping_input_error(e, args)
            if clear is None:
                raise
            raise clear from e
        if self.marked:
            self._mark(outs)
        if not self.settled:
            self._learn(outs, args)
        return outs

    _call_without_dynamo = torch._dynamo.disable(_call)

    def _mark(self, outs) -> None:
        """Missing tangents arrive as None at AOTAutograd's backward node (tangents.py)."""
        for i in ((self._where,) if self._where is not None else range(len(outs))):
            node = getattr(outs[i], "grad_fn", None)
            if node is not None and type(node).__name__ == "CompiledFunctionBackward":
                node.set_materialize_grads(False)
                self._where = i
                return

    def _learn(self, outs, args: tuple) -> None:
        if self.cls is None:
            if not torch.is_grad_enabled():
                return
            nodes = [o.grad_fn for o in outs if isinstance(o, torch.Tensor) and o.grad_fn is not None]
            cls = next((getattr(n, "_forward_cls", None) for n in nodes
                        if type(n).__name__ == "CompiledFunctionBackward"), None)
            if cls is None:
                self.settled = True   # an inference graph, or one AOTAutograd did not wrap
                return
            why = _why_not(cls, args)
            if why is not None:
                log.debug("bessemer: graph called through AOTAutograd's wrappers (%s)", why)
                self.settled = True
                return
            self.cls = cls
        if self.cls.compiled_bw is not None:   # compiled with the forward (a graph cache entry)
            self._build()

    def _build(self) -> _Graph:
        self.graph = _Graph(self.cls, self.marked)
        self.settled = True
        return self.graph
