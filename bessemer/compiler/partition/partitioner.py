"""Rematerialization: which forward values the backward is handed, which it recomputes.

AOTAutograd traces a compiled region's forward and backward as one joint graph
and asks a partitioner to split it (its `partition_fn`). The forward graph takes
the primal inputs and returns the user's outputs followed by the values saved for
the backward (tensors, then symbolic sizes); the backward graph takes those saved
values (sizes first), then the gradients of the outputs, and returns the
gradients of the inputs.

Every value the backward needs is either saved (it stays alive from the forward
to the backward: memory) or recomputed in the backward from saved values
(work). The choice is a minimum s-t cut of a flow network built from the joint
graph:

* each value v is an edge v_in -> v_out whose capacity is the cost of saving v:
  its bytes (a parameter costs nothing, it lives anyway; a view costs its base,
  so views are never saved themselves; a tuple cannot be saved);
* a data edge u_out -> v_in (infinite) for every use;
* the primal inputs hang off the source; every node of the backward proper (it
  depends on a gradient) hangs off the sink;
* the cost of recomputing a forward value is an edge source -> v_in: cut (paid)
  when v lands on the backward side. partition/cost.py says what each kind of op
  costs in our generated code, in bytes of memory traffic.

A minimum cut minimizes (bytes saved) + (recompute cost); the values whose
in -> out edge is cut are the saved set, the forward values on the sink side are
recomputed. Ops that must never run twice (random draws: eager's random stream
is drawn once, in the forward, so the values stay eager-exact; mutations and
other side effects) are tied to the source with infinite capacity.

The default plan (memory_budget 1.0) recomputes what our fused kernels make
cheap: pointwise ops and the pointwise part of row work (softmax, layer norm:
their row statistics are saved, they are small), and never recomputes matmuls,
convolutions, attention, other ATen calls or large reductions. A smaller budget
(a fraction of the default plan's saved bytes, or bytes) is met by scaling the
recompute costs down, the expensive kinds allowed, until the saved bytes fit:
a bisection over that scale. A budget below what any cut saves (0.0) takes the
least memory the graph allows: of the cuts across the scales, and of the cuts that
keep every s-th value of the forward's trunk (the values every path of large values
from the batch to the loss passes through: a transformer's residual stream) and
recompute everything between, matmuls included, as checkpointing each layer does, the
one whose backward holds the fewest bytes at its fullest point (saving less is not
holding less when the backward recomputes a chain of layers all at once).

Regions of user code under `torch.utils.checkpoint` keep their meaning: their
values are recomputed, not saved (a region boundary feeding the next region is
saved, as eager's nested checkpoints do), except random draws, which are saved so
that the values stay the same as eager's.

The backward is then ordered so that each recomputed value is computed right
before its first use, not all at the start of the backward.
"""
from __future__ import annotations

import logging
import math
import operator
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

import torch
import torch.fx as fx

from bessemer.compiler.partition.joint import rewrite as rewrite_joint
from bessemer.compiler.partition.cost import (INPUT_SAVE_SHARE, MUTATED_SAVE_COST, NO_KIND, OUTPUT_SAVE_SHARE, OpClass,
                             UNWRITTEN_SAVE_SHARE, BudgetT, classify, hint, is_sym, is_tensor, is_view,
                             lowered_ops, materialized, nbytes, op_name, val)

log = logging.getLogger("bessemer")


# -- the report ---------------------------------------------------------------------------
@dataclass
class Saved:
    name: str
    op: str
    shape: tuple
    dtype: str
    nbytes: int


@dataclass
class PartitionReport:
    """What the partitioner chose for one joint graph (also on each compiled graph: `.partition`)."""

    graph: str
    budget: BudgetT
    default_bytes: int                 # saved bytes of the default plan (budget 1.0)
    target_bytes: Optional[int]        # what the budget asks for (None: the default plan)
    saved_bytes: int                   # bytes of the values saved now
    saved: list[Saved] = field(default_factory=list)
    recomputed: list[str] = field(default_factory=list)   # forward nodes the backward recomputes
    recomputed_ops: dict = field(default_factory=dict)    # their ops, counted
    scale: Optional[float] = None      # the recompute-cost scale the budget search settled on
    least: bool = False                # the budget is below what the graph allows: the least was taken
    cuts: int = 1                      # minimum cuts solved
    checkpointed: int = 0              # nodes in torch.utils.checkpoint regions
    backward_peak_bytes: int = 0       # estimated_peak of the backward it made

    @property
    def saved_names(self) -> list[str]:
        return [s.name for s in self.saved]

    def summary(self) -> str:
        mib = 2 ** 20
        ask = ("default plan" if self.target_bytes is None else
               f"budget {self.budget!r} -> {self.target_bytes / mib:.2f} MiB"
               + (" (below the least possible: least taken)" if self.least else ""))
        return (f"partition {self.graph}: saves {len(self.saved)} values, {self.saved_bytes / mib:.2f} MiB "
                f"(default plan {self.default_bytes / mib:.2f} MiB; {ask}); recomputes "
                f"{len(self.recomputed)} ops in the backward (estimated backward peak "
                f"{self.backward_peak_bytes / mib:.2f} MiB)"
                + (f" ({', '.join(f'{k} x{v}' for k, v in sorted(self.recomputed_ops.items()))})"
                   if self.recomputed_ops else ""))

    def format(self) -> str:
        lines = [self.summary(), "", "saved:"]
        for s in self.saved:
            lines.append(f"  {s.name:24s} {s.op:28s} {s.dtype:9s} {list(s.shape)!s:22s} {s.nbytes} B")
        lines += ["", "recomputed in the backward:"] + [f"  {n}" for n in self.recomputed]
        return "\n".join(lines) + "\n"


# -- the joint graph's parts -----------------------------------------------------------------
def _is_tangent(n: fx.Node) -> bool:
    return n.op == "placeholder" and "tangents" in str(n.target)


def _is_bwd_seed(n: fx.Node) -> bool:
    return n.op == "placeholder" and ("bwd_seed" in str(n.target) or "bwd_base_offset" in str(n.target))


def _is_fwd_seed(n: fx.Node) -> bool:
    return n.op == "placeholder" and ("fwd_seed" in str(n.target) or "fwd_base_offset" in str(n.target))


def _is_backward_state(n: fx.Node) -> bool:
    try:
        from torch.fx.experimental._backward_state import BackwardState
    except ImportError:
        return False
    return n.op == "placeholder" and isinstance(val(n), BackwardState)


def _is_primal(n: fx.Node) -> bool:
    return (n.op == "placeholder" and not _is_tangent(n) and not _is_bwd_seed(n) and not _is_fwd_seed(n)
            and not _is_backward_state(n))


def _tag(n: fx.Node) -> Optional[str]:
    return n.meta.get("partitioner_tag")


def _must_be_backward(n: fx.Node) -> bool:
    t = n.target
    mutable = isinstance(t, torch._ops.OpOverload) and t._schema.is_mutable
    return _tag(n) == "must_be_in_backward" or (_tag(n) == "is_backward" and mutable)


def _must_be_forward(n: fx.Node) -> bool:
    t = n.target
    mutable = isinstance(t, torch._ops.OpOverload) and t._schema.is_mutable
    return _tag(n) == "must_be_in_forward" or (mutable and _tag(n) not in ("is_backward", "must_be_in_backward"))


def _checkpoint_policy(n: fx.Node) -> Optional[str]:
    """"recompute" / "save" from torch.utils.checkpoint's tags, or None."""
    from torch.utils.checkpoint import CheckpointPolicy
    p = n.meta.get("recompute")
    if p in (CheckpointPolicy.MUST_RECOMPUTE, CheckpointPolicy.PREFER_RECOMPUTE):
        return "recompute"
    if p in (CheckpointPolicy.MUST_SAVE, CheckpointPolicy.PREFER_SAVE):
        return "save"
    return None


def _checkpoint_boundaries(g: fx.Graph) -> set:
    """Region outputs that feed a later checkpoint region: saved, as nested eager checkpoints do
    (else recomputing region k would mean recomputing every region before it)."""
    out = set()
    for n in g.nodes:
        if _checkpoint_policy(n) != "recompute":
            continue
        gid = n.meta.get("ac_graph_id")
        for u in n.users:
            if _checkpoint_policy(u) == "recompute" and gid is not None \
                    and u.meta.get("ac_graph_id") is not None and u.meta["ac_graph_id"] > gid:
                out.add(n)
    return out


@dataclass
class _Joint:
    g: fx.Graph
    primals: list
    tangents: list
    fwd_seeds: list
    bwd_seeds: list
    backward_state: list
    fwd_outputs: list
    bwd_outputs: list
    fwd_descs: list
    bwd_descs: list
    forward: set           # needed to compute the forward outputs
    backward: set          # depends on a gradient (or must run in the backward)
    order: dict
    mutated: set           # primal inputs the forward mutates


def budget_bytes(budget: BudgetT, default_bytes: int) -> Optional[int]:
    """The bytes a memory_budget lets a plan keep (None: the default plan): a fraction below
    1.0 of the default plan's `default_bytes`, or bytes."""
    if isinstance(budget, float) and budget < 1.0:
        return int(budget * default_bytes)
    if isinstance(budget, int) and not isinstance(budget, bool) and budget >= 1024:
        return budget
    return None


def needed_outside(roots: list, backward: set) -> set:
    """The roots and every node they read, transitively, short of the backward's nodes."""
    out: set = set()
    stack = list(roots)
    while stack:
        n = stack.pop()
        if n in out or n in backward:
            continue
        out.add(n)
        stack.extend(n.all_input_nodes)
    return out


def _analyze(gm: fx.GraphModule, num_fwd_outputs: int) -> _Joint:
    g = gm.graph
    out_node = next(n for n in g.nodes if n.op == "output")
    outputs = list(torch.utils._pytree.arg_tree_leaves(*out_node.args))
    descs = out_node.meta.get("desc")
    descs = list(torch.utils._pytree.tree_leaves(descs)) if descs is not None else [None] * len(outputs)
    if len(descs) != len(outputs):
        descs = [None] * len(outputs)
    placeholders = [n for n in g.nodes if n.op == "placeholder"]
    backward: set = set()
    for n in g.nodes:
        if _is_tangent(n) or _must_be_backward(n) or any(a in backward for a in n.all_input_nodes):
            if n.op != "output":
                backward.add(n)
    fwd_outputs = outputs[:num_fwd_outputs]
    # what the forward's outputs need, and its side effects, which run there even when no
    # output needs them
    forward = needed_outside([o for o in fwd_outputs if isinstance(o, fx.Node)]
                             + [n for n in g.nodes if n.op == "call_function" and n not in backward
                                and _must_be_forward(n)], backward)
    # inputs the forward writes to (AOTAutograd copies their new values in after it): saving
    # one would hand the backward a tensor modified in place, which autograd refuses
    mutated_descs = [getattr(d, "mutated_input", None) for d in descs[:num_fwd_outputs]]
    mutated = {p for p in placeholders if p.meta.get("desc") is not None and p.meta["desc"] in mutated_descs}
    return _Joint(g, [n for n in placeholders if _is_primal(n)], [n for n in placeholders if _is_tangent(n)],
                  [n for n in placeholders if _is_fwd_seed(n)], [n for n in placeholders if _is_bwd_seed(n)],
                  [n for n in placeholders if _is_backward_state(n)],
                  fwd_outputs, outputs[num_fwd_outputs:], descs[:num_fwd_outputs], descs[num_fwd_outputs:],
                  forward, backward, {n: i for i, n in enumerate(g.nodes)}, mutated)


def _equality_tests(j: _Joint, kinds: dict) -> tuple[set, set]:
    """The equality tests of two tensors that only the backward needs (amax / amin's
    gradient: eq(result, input)), and the forward values they compare (through views).

    Such a test holds only where both sides are the very same bits; a value computed
    twice is not when its op is a libm call (gcc's vector sinf for most of a loop, the
    scalar one for its remainder: they differ in the last bit). So a compared value is
    saved, never recomputed: the forward stores it and its reduction reads it there (as
    eager does), the backward reads the same buffer; the test itself runs in the
    backward, not in the forward, where a kernel would compute the value afresh. This
    trades the compared value's memory (eager's amax / amin keep their input too) for a
    gradient at the extremum."""
    aten = torch.ops.aten
    tests, compared = set(), set()
    for n in j.g.nodes:
        if n.op != "call_function" or n.target not in (aten.eq.Tensor, aten.ne.Tensor) or n in j.forward:
            continue
        tests.add(n)
        for a in n.all_input_nodes:
            while kinds[a].kind == OpClass.VIEW and a.args and isinstance(a.args[0], fx.Node):
                a = a.args[0]
            if a.op != "placeholder" and a not in j.backward and is_tensor(a):
                compared.add(a)
    return tests, compared


# -- the cut -------------------------------------------------------------------------------
@dataclass
class _Cut:
    saved: list            # fx nodes, in graph order
    sink_side: set         # nodes computed in the backward (recomputed or backward proper)
    saved_bytes: int


class _Network:
    """The flow network of one joint graph; `solve(scale)` is one minimum cut."""

    def __init__(self, j: _Joint, static_inputs: set, lowered: dict):
        self.j = j
        self.kinds = {n: classify(n, lowered) for n in j.g.nodes if n.op != "output"}
        self.static_inputs = static_inputs
        self.boundaries = _checkpoint_boundaries(j.g)
        self.checkpointed = sum(1 for n in j.g.nodes if _checkpoint_policy(n) == "recompute")
        self.bw_needed = {o for o in j.bwd_outputs if isinstance(o, fx.Node)}
        self.lowered = lowered
        self.tests, self.compared = _equality_tests(j, self.kinds)
        self.returned = set()      # returned values, and the bases of returned views
        for o in j.fwd_outputs:
            while isinstance(o, fx.Node) and o not in self.returned:
                self.returned.add(o)
                o = o.args[0] if self.kinds[o].kind == OpClass.VIEW and o.args else None

    def _of_never(self, n: fx.Node) -> bool:
        """A tensor of a tuple that must not be recomputed (dropout's output and mask): it is saved."""
        return n.target is operator.getitem and self.kinds.get(n.args[0], NO_KIND).never

    def save_cost(self, n: fx.Node) -> float:
        """Capacity of n_in -> n_out: what keeping n alive for the backward costs."""
        if is_sym(n):
            return 1.0
        if not is_tensor(n):
            return math.inf
        if n in self.j.mutated:
            return MUTATED_SAVE_COST
        if n.op == "placeholder":
            return 0.0 if n in self.static_inputs else INPUT_SAVE_SHARE * nbytes(n)
        if self.kinds[n].kind == OpClass.VIEW:
            return math.inf
        if n in self.returned:
            return OUTPUT_SAVE_SHARE * nbytes(n)
        if self.kinds[n].kind == OpClass.POINTWISE and not materialized(n, self.lowered, among=self.j.forward):
            return (1.0 + UNWRITTEN_SAVE_SHARE) * nbytes(n)
        return float(nbytes(n))

    def solve(self, scale: Optional[float], pinned: frozenset = frozenset()) -> _Cut:
        """scale None: the default plan (expensive kinds banned, cheap ones at their cost).
        Else every kind but the never-recomputed ones is allowed: cheap ones at
        cost * min(scale, 1), expensive ones at cost * scale. `pinned` forward values are
        never recomputed (saved where the backward reads them)."""
        import networkx as nx

        j = self.j
        G = nx.DiGraph()
        G.add_node("source")
        G.add_node("sink")
        for n in j.g.nodes:
            if n.op == "output":
                continue
            k = self.kinds[n]
            i, o = n.name + "_in", n.name + "_out"
            policy = _checkpoint_policy(n)
            if n in j.backward or n in self.tests:
                G.add_edge(i, "sink")               # computed in the backward
                continue
            if n in self.bw_needed:
                G.add_edge(o, "sink")               # a gradient that does not depend on a gradient
            if n.op == "placeholder":
                G.add_edge("source", i)
            elif policy == "recompute" and not k.never and n not in self.boundaries and not self._of_never(n) \
                    and n not in self.compared:
                G.add_edge(i, "sink")               # a checkpoint region: recompute
                continue
            elif n in j.forward:
                if k.never or policy == "save" or n in self.boundaries or (scale is None and k.banned) \
                        or n in self.compared or n in pinned:
                    G.add_edge("source", i)
                elif k.cost > 0:
                    c = k.cost if scale is None else k.cost * (scale if k.banned else min(scale, 1.0))
                    G.add_edge("source", i, capacity=c)
            elif k.never or n in self.compared:
                G.add_edge("source", i)
            cap = self.save_cost(n)
            if math.isinf(cap):
                G.add_edge(i, o)
            else:
                G.add_edge(i, o, capacity=cap)
            for u in n.users:
                if u.op != "output":
                    G.add_edge(o, u.name + "_in")
        try:
            _value, (reach, _rest) = nx.minimum_cut(G, "source", "sink")
        except nx.NetworkXUnbounded:
            raise PartitionError(_explain_unbounded(G)) from None
        saved, sink_side = [], set()
        for n in j.g.nodes:
            if n.op == "output":
                continue
            i, o = n.name + "_in", n.name + "_out"
            in_src = i in reach or i not in G
            if not in_src:
                sink_side.add(n)
            elif o in G and o not in reach and G.has_edge(i, o):
                saved.append(n)
        return _Cut(saved, sink_side, _saved_bytes(saved, self.static_inputs))

    def trunk(self, sources: Optional[set] = None) -> list:
        """The forward's trunk: the values every path of large values from the batch to where
        they end (the head that reduces them to the loss) passes through: a transformer's
        residual stream between its layers and inside them, a CNN's activations between its
        blocks; in graph order. Values under 1/16 of the largest batch-dependent value (masks,
        position ids, row statistics) are left out of the paths, so a small side input reaching
        every layer does not hide the trunk."""
        import networkx as nx
        j = self.j
        if sources is None:         # the inputs that are not parameters
            sources = {p for p in j.primals if p not in self.static_inputs}
        # a tuple (attention's outputs) passes its inputs' paths on to its items
        fwd = [n for n in j.g.nodes if n in j.forward and n.op != "output" and not is_sym(n)
               and (n.op != "placeholder" or n in sources)]
        if not fwd:
            return []
        batch: set = set()          # values that depend on the batch (not on parameters alone)
        for n in fwd:
            if n in sources or any(a in batch for a in n.all_input_nodes):
                batch.add(n)
        if not batch:
            return []
        big = max((nbytes(n) for n in batch if is_tensor(n)), default=0) / 16
        keep = {n for n in batch if is_tensor(n) and nbytes(n) >= big}
        keep |= {n for n in batch if not is_tensor(n) and any(u in keep for u in n.users)}
        G = nx.DiGraph()
        G.add_node("S")
        for n in keep:
            if not any(a in keep for a in n.all_input_nodes):
                G.add_edge("S", n)
            for u in n.users:
                if u in keep:
                    G.add_edge(n, u)
        for n in keep:      # where the large values end (a head reduces them to the small loss)
            if not any(u in keep for u in n.users):
                G.add_edge(n, "T")
        if "T" not in G or not nx.has_path(G, "S", "T"):
            return []
        idom = nx.immediate_dominators(G, "S")
        chain, v = [], idom.get("T")
        while v is not None and v != "S":
            chain.append(v)
            v = idom.get(v)
        return sorted((n for n in chain if isinstance(n, fx.Node) and n.op != "placeholder" and is_tensor(n)
                       and self.kinds[n].kind != OpClass.VIEW), key=lambda n: j.order[n])

    def trunk_pins(self, sources: Optional[set] = None) -> list:
        """Candidate sets of trunk values to keep (TRUNK_STRIDES): every s-th value of the
        trunk, and every s-th of those a matmul or other call reads (_feeds_a_call)."""
        trunk = self.trunk(sources)
        out, seen = [], set()
        for values in (trunk, [n for n in trunk if self._feeds_a_call(n)]):
            for stride in TRUNK_STRIDES:
                pins = frozenset(values[stride - 1::stride])
                if pins and pins not in seen:
                    seen.add(pins)
                    out.append(pins)
        return out

    def _feeds_a_call(self, n: fx.Node) -> bool:
        """Does a matmul, convolution or other call the default plan never recomputes read n
        (through views)? Such a value is written to memory in any plan, so keeping it costs
        its bytes and no more; a pointwise value fused into its readers would be kept as the
        inputs it is computed from."""
        stack, seen = list(n.users), set()
        while stack:
            u = stack.pop()
            if u in seen or u.op != "call_function":
                continue
            seen.add(u)
            k = self.kinds.get(u, NO_KIND)
            if k.kind == OpClass.VIEW:
                stack.extend(u.users)
            elif k.banned:
                return True
        return False


def _saved_bytes(saved: Sequence[fx.Node], static_inputs: set) -> int:
    return sum(nbytes(n) for n in saved if not is_sym(n) and n not in static_inputs)


class PartitionError(RuntimeError):
    """The joint graph has a value the backward needs that can be neither saved nor recomputed."""


def _explain_unbounded(G) -> str:
    import networkx as nx
    inf = nx.DiGraph((u, v) for u, v, d in G.edges(data=True) if "capacity" not in d)
    try:
        path = nx.shortest_path(inf, "source", "sink")
    except (nx.NetworkXNoPath, nx.NodeNotFound):
        path = []
    return ("no partition: a value the backward needs can be neither saved nor recomputed: "
            + " -> ".join(path))


# -- extraction ------------------------------------------------------------------------
def _subgraph(gm: fx.GraphModule, j: _Joint, inputs: list, outputs: list, descs: list,
              keep: Callable[[fx.Node], bool]) -> fx.Graph:
    g = fx.Graph()
    env: dict = {}
    for n in inputs:
        p = g.placeholder(n.name)
        p.meta = n.meta
        env[n] = p
    for n in j.g.nodes:
        if n in env or n.op in ("placeholder", "output") or not keep(n):
            continue
        if all(a in env for a in n.all_input_nodes):
            env[n] = g.node_copy(n, lambda a: env[a])
    missing = [o.name for o in outputs if isinstance(o, fx.Node) and o not in env]
    if missing:
        raise PartitionError(f"no partition: {', '.join(missing[:5])} cannot be computed on its side")
    out = g.output(tuple(env[o] if isinstance(o, fx.Node) else o for o in outputs))
    out.meta["desc"] = descs
    g.eliminate_dead_code()
    g.lint()
    return g


def _symbol_bindings(j: _Joint, saved: list, sym_saved: list) -> list:
    """Sizes the backward needs: saved symbolic values, and the nodes binding every symbol
    in the shapes of saved tensors and gradients (bound ones first)."""
    from torch.fx.experimental.symbolic_shapes import (find_symbol_binding_fx_nodes, free_symbols,
                                                       is_symbol_binding_fx_node)
    bound, binding, derived = set(), [], []
    for n in sym_saved:
        s = is_symbol_binding_fx_node(n)
        if s:
            bound.add(s)
            binding.append(n)
        else:
            derived.append(n)
    table = find_symbol_binding_fx_nodes(j.g)
    for n in [*derived, *saved, *j.tangents]:
        v = val(n)
        if v is None:
            continue
        for s in sorted(free_symbols(v) - bound, key=lambda s: s.name):
            if s in table and table[s] not in binding:
                binding.append(table[s])
            bound.add(s)
    return binding + [n for n in derived if n not in binding]


def _extract(gm: fx.GraphModule, j: _Joint, saved: list, sink_side: set) -> tuple[fx.GraphModule, fx.GraphModule, list]:
    """The forward and backward modules for a saved set (AOTAutograd's calling convention)."""
    from torch._functorch._aot_autograd.descriptors import (SavedForBackwardsAOTOutput,
                                                            SavedForBackwardsNoVcCheckAOTOutput)
    tensors = [n for n in saved if not is_sym(n)]
    syms = [n for n in saved if is_sym(n)]

    def bw_keep(n):
        return n in sink_side and not _must_be_forward(n)

    def bw_graph(tensors, syms):
        return _subgraph(gm, j, syms + tensors + j.tangents + j.bwd_seeds + j.backward_state,
                         j.bwd_outputs, j.bwd_descs, bw_keep)

    bw = bw_graph(tensors, syms)
    used = {p.name for p in bw.nodes if p.op == "placeholder" and p.users}
    tensors = [n for n in tensors if n.name in used]
    syms = [n for n in syms if n.name in used]
    if any(is_sym(n) or any(not isinstance(s, int) for s in getattr(val(n), "shape", ()))
           for n in j.g.nodes if n.op == "placeholder"):
        syms = _symbol_bindings(j, tensors, syms)
    # tensors stashed without a version-counter check go last (AOTAutograd's convention)
    tensors = ([n for n in tensors if not n.meta.get("saved_tensor_with_no_vc_check", False)]
               + [n for n in tensors if n.meta.get("saved_tensor_with_no_vc_check", False)])
    first_no_vc = sum(1 for n in tensors if not n.meta.get("saved_tensor_with_no_vc_check", False))
    descs = [SavedForBackwardsNoVcCheckAOTOutput(i) if first_no_vc <= i < len(tensors)
             else SavedForBackwardsAOTOutput(i) for i in range(len(tensors) + len(syms))]
    fw = _subgraph(gm, j, j.primals + j.fwd_seeds, j.fwd_outputs + tensors + syms, j.fwd_descs + descs,
                   lambda n: n not in j.backward and not _must_be_backward(n))
    bw = bw_graph(tensors, syms)
    bw = _order_backward(bw)
    for n in bw.nodes:
        if n.op in ("call_function", "get_attr"):
            n.meta["autograd_backward"] = True
    return fx.GraphModule(gm, fw), fx.GraphModule(gm, bw), tensors + syms


def _order_backward(g: fx.Graph) -> fx.Graph:
    """Each value computed right before its first use: the backward proper in its traced
    order, every recomputed forward value pulled in just ahead of the first node needing it
    (instead of all recomputation up front, where it would all be live at once)."""
    placeholders = [n for n in g.nodes if n.op == "placeholder"]
    out = next(n for n in g.nodes if n.op == "output")
    tangent_side: set = set()
    for n in g.nodes:
        if n.op == "placeholder":
            if "tangents" in n.name:
                tangent_side.add(n)
        elif any(a in tangent_side for a in n.all_input_nodes):
            tangent_side.add(n)
    anchors = [n for n in g.nodes if n in tangent_side and n.op != "placeholder"]
    order: list = []
    placed = set(placeholders)

    def place(root):
        stack = [(root, False)]
        while stack:
            n, ready = stack.pop()
            if n in placed:
                continue
            if ready:
                placed.add(n)
                order.append(n)
                continue
            stack.append((n, True))
            for a in reversed(n.all_input_nodes):
                if a not in placed:
                    stack.append((a, False))

    for n in anchors:
        place(n)
    for n in g.nodes:                      # anything not feeding the backward proper (rare)
        if n.op not in ("placeholder", "output"):
            place(n)
    new = fx.Graph()
    env = {}
    for n in placeholders + order + [out]:
        env[n] = new.node_copy(n, lambda a: env[a])
    new.lint()
    return new


# -- the partitioner -----------------------------------------------------------------------
def partition(joint: fx.GraphModule, joint_inputs: Any, *, num_fwd_outputs: int,
              static_lifetime_input_indices: Optional[list] = None, budget: BudgetT = 1.0,
              name: str = "graph", report: Optional[Callable[[PartitionReport], None]] = None,
              **_ignored: Any) -> tuple[fx.GraphModule, fx.GraphModule]:
    """AOTAutograd's partition_fn: (forward module, backward module) for a joint graph."""
    joint.graph.eliminate_dead_code()
    joint.recompile()
    rewrite_joint(joint)
    j = _analyze(joint, num_fwd_outputs)
    static = {p for i, p in enumerate(j.primals) if i in set(static_lifetime_input_indices or ())}
    net = _Network(j, static, lowered_ops())
    cut = net.solve(None)
    default_bytes = cut.saved_bytes
    target = budget_bytes(budget, default_bytes)
    scale = None
    least = False
    cuts = 1
    if target is not None and cut.saved_bytes > target:
        static_names = {p.name for p in static}

        def peak_of(c: _Cut) -> int:
            return estimated_peak(_extract(joint, j, c.saved, c.sink_side)[1], static_names)
        cut, scale, least, n = _search(net, target, peak_of)
        cuts += n
    fw, bw, saved = _extract(joint, j, cut.saved, cut.sink_side)
    fw_ops = {n.name for n in fw.graph.nodes if n.op == "call_function"}
    recomputed = [n.name for n in bw.graph.nodes if n.op == "call_function" and n.name in fw_ops]
    ops: dict = {}
    by_name = {n.name: n for n in j.g.nodes}
    for r in recomputed:
        k = op_name(by_name[r]) if r in by_name else "?"
        ops[k] = ops.get(k, 0) + 1
    rep = PartitionReport(
        graph=name, budget=budget, default_bytes=default_bytes, target_bytes=target,
        saved_bytes=_saved_bytes(saved, static),
        saved=[Saved(n.name, op_name(n) if n.op == "call_function" else n.op,
                     tuple(hint(s) for s in getattr(val(n), "shape", ())),
                     str(getattr(val(n), "dtype", type(val(n)).__name__)).replace("torch.", ""),
                     0 if (is_sym(n) or n in static) else nbytes(n)) for n in saved],
        recomputed=recomputed, recomputed_ops=ops, scale=scale, least=least, cuts=cuts,
        checkpointed=net.checkpointed,
        backward_peak_bytes=estimated_peak(bw, {p.name for p in static}))
    fw.meta["bessemer_partition"] = rep
    bw.meta["bessemer_partition"] = rep
    # saved values the forward also returns: AOTAutograd does not donate them (the caller may
    # hold them), the backward may still write over them where it finds nobody does
    bw.meta["bessemer_saved_returned"] = frozenset(n.name for n in saved if n in net.returned)
    if report is not None:
        report(rep)
    log.info("bessemer: %s", rep.summary())
    return fw, bw


def estimated_peak(bw: fx.GraphModule, static_inputs: set = frozenset()) -> int:
    """Live tensor bytes at the backward's fullest point, walking its nodes in order: the
    saved values and gradients it is handed, each value it computes (a view lives in its
    base) until its last use, and its outputs (the gradients) to the end. Parameters
    handed in cost nothing: they live anyway."""
    return graph_peak(bw.graph, static_inputs)


def graph_peak(g: fx.Graph, static_inputs: set = frozenset(), lowered: Optional[dict] = None) -> int:
    """estimated_peak's walk over any graph (`static_inputs`: names of placeholders that cost
    nothing). With `lowered` (lowered_ops()), a pointwise value no ATen call reads is taken
    as fused into its readers, as the generated kernels compute it: it holds no memory, and
    its readers hold its inputs instead."""
    nodes = list(g.nodes)
    roots: dict = {}        # node -> the storages reading it reads
    last: dict = {}
    for i, n in enumerate(nodes):
        if n.op == "call_function" and is_view(n) and n.all_input_nodes:
            roots[n] = roots.get(n.all_input_nodes[0], {n.all_input_nodes[0]})
        elif (lowered is not None and n.op == "call_function" and n.users and is_tensor(n)
              and classify(n, lowered).kind == OpClass.POINTWISE and not materialized(n, lowered)):
            roots[n] = set().union(*(roots.get(a, {a}) for a in n.all_input_nodes)) if n.all_input_nodes else set()
        else:
            roots[n] = {n}
        for a in n.all_input_nodes:
            for r in roots.get(a, {a}):
                last[r] = len(nodes) if n.op == "output" else max(last.get(r, -1), i)
    root = {n: n if roots[n] == {n} else None for n in nodes}
    live = peak = 0
    frees: dict = {}
    for r, i in last.items():
        frees.setdefault(i, []).append(r)
    for i, n in enumerate(nodes):
        if root[n] is n and is_tensor(n) and not (n.op == "placeholder" and n.name in static_inputs):
            live += nbytes(n)
            peak = max(peak, live)
        for r in frees.get(i, ()):
            if is_tensor(r) and not (r.op == "placeholder" and r.name in static_inputs):
                live -= nbytes(r)
    return peak


# Scales tried for the least-memory plan: from recomputing everything that may be
# (2**-24) to the default plan's choices (2**12). Saving the least is not always
# holding the least: a plan that recomputes a whole chain of layers in the backward
# has them all live at once there, so the least-memory plan is the one of these
# whose estimated backward peak (estimated_peak) is lowest.
LEAST_SCALES = tuple(2.0 ** e for e in range(-24, 13))
# Every s-th trunk value kept for the least-memory candidates (partition's _search): 1 keeps
# the most and recomputes the shortest segments; larger strides keep less and recompute
# longer segments, all of whose values the backward then holds at once.
TRUNK_STRIDES = (1, 2, 3, 4, 6, 8, 12, 16)


def _search(net: _Network, target: int, peak_of: Callable[[_Cut], int]) -> tuple[_Cut, float, bool, int]:
    """The largest recompute-cost scale whose cut saves at most `target` bytes (bisection on
    its logarithm); when none does, the cut of least estimated peak (`peak_of`)."""
    lo_exp, hi_exp = -24.0, 12.0
    n = 1
    least = net.solve(2.0 ** lo_exp)
    if least.saved_bytes > target:
        tried = [(peak_of(least), least.saved_bytes, 0, least, 2.0 ** lo_exp)]
        seen = {frozenset(least.saved)}
        for k, sc in enumerate(LEAST_SCALES[1:], 1):
            c = net.solve(sc)
            n += 1
            if frozenset(c.saved) not in seen:     # the same cut as a scale already tried
                seen.add(frozenset(c.saved))
                tried.append((peak_of(c), c.saved_bytes, k, c, sc))
        # Recomputing from the batch alone holds every layer it recomputes until that
        # layer's own gradient (the backward recomputes each value once, before its first
        # use): so also the cuts that keep every s-th value of the forward's trunk and
        # recompute only the segments between them, as checkpointing each block does.
        for pins in net.trunk_pins():
            c = net.solve(2.0 ** lo_exp, pins)
            n += 1
            if frozenset(c.saved) not in seen:
                seen.add(frozenset(c.saved))
                tried.append((peak_of(c), c.saved_bytes, len(tried), c, 2.0 ** lo_exp))
        _peak, _bytes, _k, best, sc = min(tried, key=lambda t: t[:3])
        return best, sc, True, n
    best, best_scale = least, 2.0 ** lo_exp
    hi = net.solve(2.0 ** hi_exp)
    n += 1
    if hi.saved_bytes <= target:
        return hi, 2.0 ** hi_exp, False, n
    for _ in range(8):
        mid = (lo_exp + hi_exp) / 2
        c = net.solve(2.0 ** mid)
        n += 1
        if c.saved_bytes <= target:
            lo_exp, best, best_scale = mid, c, 2.0 ** mid
        else:
            hi_exp = mid
    return best, best_scale, False, n


def write_report(rep: PartitionReport, debug_dir: Optional[str]) -> None:
    """The report beside the graphs' debug output (partition_<graph>.txt)."""
    if not debug_dir:
        return
    os.makedirs(debug_dir, exist_ok=True)
    with open(os.path.join(debug_dir, f"partition_{rep.graph}.txt"), "w") as f:
        f.write(rep.format())
