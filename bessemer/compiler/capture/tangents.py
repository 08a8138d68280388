"""Absent tangents: a backward that does not receive zeros for outputs nobody differentiated.

A training step usually differentiates one output of a compiled graph, the loss, while the
graph also returns others (a language model's logits, its key/value caches). AOTAutograd's
backward takes a tangent for every differentiable output, and the autograd engine fills the
missing ones with freshly allocated zeros: for a language model a [tokens, vocabulary] tensor
that eager never allocates, live at the start of the backward, which is where the step's
memory peaks, and then added to the logits' gradient.

bessemer switches that filling off for the graph's autograd node (`ctx.set_materialize_grads
(False)`, on each call of the forward: direct.DirectGraph), so a missing tangent arrives as None.
The backward is compiled for the pattern of missing tangents the step is expected to have
(`predicted`: every tangent but the 0-dim ones when the graph returns a 0-dim loss): there
each missing tangent is a constant zero tensor in the graph (`without`), so the pipeline
folds it into its consumers (`x + 0` is x, passes/simplify.py) and nothing is allocated. Any other pattern seen at run time
(an output that was differentiated after all, the loss left out) gets its own compile of the
same graph, made at its first call (`AbsentTangents`); every pattern is correct, the
prediction only saves compiles.

Only graphs with static sizes take part: the zero tensor needs its shape inside the graph.
"""
from __future__ import annotations

import logging
import pickle
from typing import Any, Callable, Sequence

import torch

log = logging.getLogger("bessemer")
aten = torch.ops.aten


def _is_symbolic(v: Any) -> bool:
    return isinstance(v, torch.Tensor) and any(not isinstance(d, int) for d in (*v.shape, *v.stride()))


def _float_grad(v: Any) -> bool:
    return isinstance(v, torch.Tensor) and v.dtype.is_floating_point and v.requires_grad


def turns_off_filling(gm: torch.fx.GraphModule, example_inputs: Sequence[Any]) -> bool:
    """Whether a Dynamo graph's backward takes absent tangents as None: its sizes are static,
    and it returns a 0-dim differentiable output (a loss) beside others (whose tangents are
    then expected to be missing)."""
    if any(_is_symbolic(t) or isinstance(t, torch.SymInt) for t in example_inputs):
        return False
    vals: list = []
    for n in gm.graph.nodes:
        if n.op == "output":
            torch.fx.node.map_arg(n.args[0], lambda a: vals.append(a.meta.get("example_value")))
    grads = [v for v in vals if _float_grad(v)]
    return any(v.dim() == 0 for v in grads) and any(v.dim() > 0 for v in grads)


def tangent_positions(gm: torch.fx.GraphModule) -> tuple[int, ...]:
    """The argument positions of a backward graph's tangents (AOTAutograd names them)."""
    return tuple(i for i, n in enumerate(p for p in gm.graph.nodes if p.op == "placeholder")
                 if n.name.startswith("tangents"))


def predicted(gm: torch.fx.GraphModule) -> tuple[int, ...]:
    """The tangents a step is expected not to pass: all but the 0-dim ones, where there is a
    0-dim one (the loss, the one output the step differentiates)."""
    phs = [n for n in gm.graph.nodes if n.op == "placeholder"]
    tans = [(i, phs[i].meta.get("val")) for i in tangent_positions(gm)]
    if not any(isinstance(v, torch.Tensor) and v.dim() == 0 for _, v in tans):
        return ()
    return tuple(i for i, v in tans if isinstance(v, torch.Tensor) and v.dim() > 0)


def without(gm: torch.fx.GraphModule, example_inputs: Sequence[Any], absent: Sequence[int]):
    """gm and its inputs with the placeholders at `absent` replaced by zero tensors of their
    shape, dtype and device (the values the engine would have passed)."""
    if not absent:
        return gm, list(example_inputs)
    phs = [n for n in gm.graph.nodes if n.op == "placeholder"]
    gone = {phs[i] for i in absent}
    g = torch.fx.Graph()
    env: dict = {}
    for n in gm.graph.nodes:
        if n.op != "placeholder" and gone and not all(p in env for p in gone):
            for p in phs:
                if p in gone:
                    env[p] = _zeros(g, p)
        if n not in gone:
            env[n] = g.node_copy(n, lambda a: env[a])
    g.eliminate_dead_code()
    gm2 = torch.fx.GraphModule(gm, g)
    gm2.meta = dict(gm.meta)
    keep = set(range(len(phs))) - set(absent)
    return gm2, [x for i, x in enumerate(example_inputs) if i in keep]


def _zeros(g: torch.fx.Graph, p: torch.fx.Node) -> torch.fx.Node:
    v = p.meta["val"]
    z = g.call_function(aten.full.default, (list(v.shape), 0.0),
                        {"dtype": v.dtype, "layout": torch.strided, "device": v.device, "pin_memory": False})
    z.meta = dict(p.meta)
    z.meta["val"] = v.new_zeros(v.shape)
    z.meta.pop("tensor_meta", None)
    return z


def stored(gm: torch.fx.GraphModule, absent: tuple[int, ...]) -> dict:
    """What the graph cache keeps to compile a loaded backward for another pattern: the graph
    (without metadata, pickled) and the shape and dtype of every input."""
    from bessemer.compiler.capture.graph_cache import BypassAOTAutogradCache, fallback_module
    try:
        # kept pickled: a load rebuilds it only when another pattern of tangents shows up
        graph = pickle.dumps(fallback_module(gm))
    except Exception as e:  # noqa: BLE001 - an op that does not pickle: the graph is not stored
        raise BypassAOTAutogradCache(f"a backward graph that does not pickle ({type(e).__name__})") from e
    phs = [n for n in gm.graph.nodes if n.op == "placeholder"]
    metas = [(tuple(v.shape), tuple(v.stride()), str(v.dtype).removeprefix("torch."), str(v.device))
             if isinstance(v := p.meta.get("val"), torch.Tensor) else None for p in phs]
    return {"positions": tangent_positions(gm), "absent": tuple(absent), "gm": graph,
            "metas": metas}


def restored(tan: dict, args: list):
    """The stored graph with its metadata propagated from fake inputs made from the stored
    shapes (the call's arguments lack the missing tangents), and those inputs."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.passes.fake_tensor_prop import FakeTensorProp
    mode = FakeTensorMode(allow_non_fake_inputs=True)   # the graph's own constants are real
    inputs = []
    with mode:
        for a, m in zip(args, tan["metas"]):
            if m is None:
                inputs.append(a)
            else:
                shape, stride, dtype, device = m
                inputs.append(torch.empty_strided(shape, stride, dtype=getattr(torch, dtype), device=device))
    gm = tan["gm"]
    if isinstance(gm, bytes):
        gm = tan["gm"] = pickle.loads(gm)
    FakeTensorProp(gm, mode).propagate_dont_convert_inputs(*inputs)
    return gm, inputs


class AbsentTangents:
    """A backward graph's callable taking None for tangents nobody passed (boxed, like the
    compiled graph). The pattern of missing tangents `first` is compiled already (`fn`); any
    other is compiled at its first call by `compile_graph` from the graph and example inputs
    `graph_of(args)` gives, with that pattern's tangents made zeros (`without`)."""

    def __init__(self, positions: Sequence[int], first: tuple[int, ...], fn: Callable,
                 compile_graph: Callable, graph_of: Callable[[list], tuple]):
        self.positions = tuple(positions)
        self.variants: dict[tuple[int, ...], Callable] = {tuple(first): fn}
        self.compile_graph, self.graph_of = compile_graph, graph_of
        self._boxed_call = True

    def __call__(self, args: list):
        absent = tuple(i for i in self.positions if args[i] is None)
        fn = self.variants.get(absent)
        if fn is None:
            log.info("compiling a backward graph for the tangents it got (missing: %s)", absent)
            fn = self.variants[absent] = self.compile_graph(*without(*self.graph_of(args), absent))
        if absent:
            skip = set(absent)
            kept = [a for i, a in enumerate(args) if i not in skip]
            args.clear()
            return fn(kept)
        return fn(args)
