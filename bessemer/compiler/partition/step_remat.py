"""Rematerialization inside the whole-step program (`bessemer.compile_step`).

The whole step is one graph: the forward, the loss, the backward AOTAutograd traced
with autograd at trace time, and the optimizer's update. Nothing is handed from a
forward graph to a backward graph, so every forward value the backward reads stays
alive from where the forward computes it to where the backward reads it, as the
values a partitioned forward saves do. The same choice as between the two graphs of
`bessemer.compile` applies (partition/partitioner.py): which forward values the
backward reads as they are, which it recomputes from others.

The backward here is what depends on the gradient's seed: the `full_like(loss, 1)`
(or `ones_like`) that `torch.autograd.grad` starts from. The forward is what the loss
and the forward's side effects (BatchNorm's running statistics) need. The partitioner's
flow network is built over this split and solved as for a joint graph; the values
it puts on the backward's side are copied into the graph right before the first
backward node reading them, and the backward reads the copies. Where the forward
needs the value too it computes it there as before; where only the backward did,
the forward's computation is dropped. The backward's nodes, copies included, carry
the meta key BACKWARD, which the lowering puts on their IR nodes: common-subexpression
elimination does not merge them into the forward's values (passes/simplify.cse) and
fusion does not place them in a forward kernel (passes/fuse.py), either of which would
compute them in the forward and keep them alive until the backward, as before.

This trades work for memory as the default plan does between two graphs: pointwise
ops (and the pointwise parts of row work) are recomputed by the backward's kernels,
which fusion places the copies in, instead of each being kept from the forward until
the backward reads it; matmuls, convolutions, attention and other ATen calls are not.
Random draws are never recomputed (the draw happens once, in the forward's order).

Below what any cut keeps (memory_budget 0.0), the plan is the one the step holds least
at its fullest point among the cut keeping the fewest bytes and the cuts that keep every
s-th value of the forward's trunk and recompute each segment between, matmuls included
(`_least_held`): bert-base-uncased small's whole step at batch 81 peaks at 295 MiB.
"""
from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Optional

import torch
import torch.fx as fx

from bessemer.compiler.lowering.rules import BACKWARD
from bessemer.compiler.partition.cost import BudgetT, OpClass, lowered_ops, op_name
from bessemer.compiler.partition.partitioner import (LEAST_SCALES, _Cut, _Joint, _must_be_forward,
                                                     _Network, _search, PartitionError, budget_bytes, graph_peak,
                                                     needed_outside)

log = logging.getLogger("bessemer")

_SEEDS = {"full_like", "ones_like"}
_SEED = "bessemer_gradient_seed"     # the fx meta key mark_seed sets


def _through_aliases(n):
    aten = torch.ops.aten
    while isinstance(n, fx.Node) and n.op == "call_function" and n.target in (aten.alias.default,
                                                                                aten.detach.default):
        n = n.args[0]
    return n


def mark_seed(gm: fx.GraphModule) -> int:
    """Mark the gradient's seed (full_like / ones_like of the loss, of value 1) in the traced
    step, before the joint rewrites replace it (a full_like becomes a full of its shape, meta
    kept); returns how many were marked."""
    g = gm.graph
    out_node = next(n for n in g.nodes if n.op == "output")
    outputs = list(torch.utils._pytree.arg_tree_leaves(*out_node.args))
    if not outputs or not isinstance(outputs[0], fx.Node):
        return 0
    loss = _through_aliases(outputs[0])
    marked = 0
    for n in g.nodes:
        if n.op == "call_function" and op_name(n) in _SEEDS and n.args and _through_aliases(n.args[0]) is loss:
            if op_name(n) == "ones_like" or (len(n.args) > 1 and n.args[1] == 1):
                n.meta[_SEED] = True
                marked += 1
    return marked


def _analyze(g: fx.Graph) -> Optional[_Joint]:
    out_node = next(n for n in g.nodes if n.op == "output")
    outputs = list(torch.utils._pytree.arg_tree_leaves(*out_node.args))
    seeds = [n for n in g.nodes if n.meta.get(_SEED)]
    if not outputs or not isinstance(outputs[0], fx.Node) or not seeds:
        return None
    backward: set = set(seeds)
    for n in g.nodes:
        if n.op not in ("output", "placeholder") and any(a in backward for a in n.all_input_nodes):
            backward.add(n)
    # what the loss needs, and the forward's side effects (BatchNorm's running statistics)
    forward = needed_outside([_through_aliases(outputs[0])]
                             + [n for n in g.nodes if n.op == "call_function" and n not in backward
                                and _must_be_forward(n)], backward)
    placeholders = [n for n in g.nodes if n.op == "placeholder"]
    fwd_out = [o for o in outputs if isinstance(o, fx.Node) and o not in backward]
    bwd_out = [o for o in outputs if isinstance(o, fx.Node) and o in backward]
    return _Joint(g, placeholders, [], [], [], [], fwd_out, bwd_out, [None] * len(fwd_out), [None] * len(bwd_out),
                  forward, backward, {n: i for i, n in enumerate(g.nodes)}, set())


def _copy_into_backward(g: fx.Graph, j: _Joint, recompute: set) -> int:
    """Each recomputed value copied right before the first backward node reading it (its own
    inputs first, recursively); backward nodes read the copies. Returns the copies made."""
    copies: dict = {}

    def copy_of(n: fx.Node, before: fx.Node) -> fx.Node:
        stack = [(n, False)]
        while stack:
            x, ready = stack.pop()
            if x in copies:
                continue
            if not ready:
                stack.append((x, True))
                stack.extend((a, False) for a in x.all_input_nodes if a in recompute and a not in copies)
                continue
            with g.inserting_before(before):
                c = g.node_copy(x, lambda a: copies.get(a, a))
            c.meta = dict(x.meta)
            c.meta[BACKWARD] = True
            copies[x] = c
        return copies[n]

    for n in list(g.nodes):
        if n not in j.backward:
            continue
        if any(a in recompute for a in n.all_input_nodes):
            for a in n.all_input_nodes:
                if a in recompute:
                    copy_of(a, n)
            n.args = fx.node.map_arg(n.args, lambda a: copies.get(a, a))
            n.kwargs = fx.node.map_arg(n.kwargs, lambda a: copies.get(a, a))
    return len(copies)


# Two values the backward reads are "apart" when more than this many matmuls, convolutions and
# other ATen calls the default plan never recomputes run between their first reads: a layer's
# backward and the next one's, not the several intermediates of one activation's gradient
# (GELU's tanh form reads five of them in one pointwise expression, after one matmul).
CHAIN_GAP = 3


def _chain_starts(j: _Joint, net: _Network) -> set:
    """Forward values the backward reads that also lead, through ops the default plan would
    recompute, to another value the backward reads apart from it (CHAIN_GAP): the residual
    stream of a transformer (x[k+1] = x[k] + the block's output, each read by its own
    LayerNorm's backward). Recomputed, such a value is a link of a chain the backward would
    rebuild from the first layer on at its start (to reach the last layer's input), all of
    it then alive until each layer's backward reads its own: as much memory as keeping them,
    and the work besides. So they are kept, and what the backward recomputes ends at them:
    the LayerNorm outputs and activations between a kept value and a matmul. The trade: the
    stream's values are kept (one per block and layer), where a cut by bytes alone would
    keep the matmul outputs it rebuilds them from. It matters where a norm's backward reads a
    value computed from the stream for the backward alone (x - mean: a norm written in ops,
    torch's LayerNorm backward on a GPU); nn.LayerNorm's backward on a CPU is ATen's formula,
    which reads the stream itself, and a cut by bytes keeps it anyway (bert-base-uncased at
    scale small, batch 8, whole step: 62.3 MiB planned with the rule or without).
    tests/compiler/test_step_remat.py shows it on a post-norm stack of such norms."""
    nodes = list(j.g.nodes)
    # where the backward reads a value: the count of never-recomputed calls before the
    # backward node reading it, or before the first backward node reading a node computed
    # only for the backward (the part of a gradient formula that does not depend on the
    # gradient, x - mean in LayerNorm's), wherever the trace put that node
    late_index, externs = {}, 0
    for n in nodes:
        if n in j.backward:
            late_index[n] = externs
        k = net.kinds.get(n)
        if n.op == "call_function" and k is not None and (k.banned or k.never) and k.kind != OpClass.VIEW:
            externs += 1
    for n in reversed(nodes):
        if n.op == "call_function" and n not in j.forward and n not in j.backward:
            late = [late_index[u] for u in n.users if u in late_index]
            if late:
                late_index[n] = min(late)
    first_late: dict = {}
    for n in j.forward:
        late = [late_index[u] for u in n.users if u in late_index and u not in j.forward]
        if late:
            first_late[n] = min(late)

    def cheap(n: fx.Node) -> bool:
        k = net.kinds.get(n)
        return k is not None and not k.banned and not k.never and n in j.forward

    out = set()
    for r, at in first_late.items():
        stack, seen = [u for u in r.users if cheap(u)], set()
        while stack:
            x = stack.pop()
            if x in seen:
                continue
            seen.add(x)
            if x in first_late and abs(first_late[x] - at) > CHAIN_GAP:
                out.add(r)
                break
            stack.extend(u for u in x.users if cheap(u))
    # a view is kept as its base (a view itself is never saved); inputs live anyway
    based = set()
    for n in out:
        while net.kinds[n].kind == OpClass.VIEW and n.args and isinstance(n.args[0], fx.Node):
            n = n.args[0]
        if n.op == "call_function" and net.kinds[n].kind != OpClass.VIEW:
            based.add(n)
    return based


HELD_TOLERANCE = 1.15


def _least_held(g: fx.Graph, j: _Joint, net: _Network, kept_least: _Cut) -> _Cut:
    """The least-memory plan: of the cut keeping the fewest bytes (`kept_least`, the chain
    starts kept) and the cuts keeping every s-th value of the forward's trunk and recomputing
    the segments between (`_Network.trunk`, TRUNK_STRIDES: a transformer's layers recomputed
    one at a time from their inputs, matmuls included), the one whose step holds the fewest
    bytes at its fullest point (graph_peak of the step with that cut applied). The trunk
    starts at the inputs the step does not write (the batch; the update writes parameters
    and optimizer state)."""
    written = {n.args[0] for n in g.nodes if n.op == "call_function" and n.target is torch.ops.aten.copy_.default}
    cuts, seen = [kept_least], {frozenset(kept_least.saved)}
    for pins in net.trunk_pins({p for p in j.primals if p not in written}):
        c = net.solve(LEAST_SCALES[0], pins)
        if frozenset(c.saved) not in seen:
            seen.add(frozenset(c.saved))
            cuts.append(c)
    if len(cuts) == 1:
        return kept_least
    held = [_held(g, j, c, net.lowered) for c in cuts]
    # graph_peak walks the graph's order; the memory planner reorders the steps and holds
    # somewhat less, by an amount that varies between plans: of the plans within
    # HELD_TOLERANCE of the least estimate, the one keeping the most (recomputing the least,
    # the faster step). bert-base-uncased small at batch 64, budget 0: estimates 202 / 179
    # MiB for strides 2 / 4, planned 184.5 / 200.5 MiB.
    near = [i for i, h in enumerate(held) if h <= min(held) * HELD_TOLERANCE]
    best = cuts[max(near, key=lambda i: (cuts[i].saved_bytes, -i))]
    log.debug("bessemer: the step's least-memory plan: held %s; keeps %.1f MiB",
              ", ".join(f"{h / 2 ** 20:.1f} MiB" for h in held), best.saved_bytes / 2 ** 20)
    return best


def _held(g: fx.Graph, j: _Joint, cut: _Cut, lowered: dict) -> int:
    """graph_peak of the step with `cut`'s recomputation applied (on a copy of the graph)."""
    copy = fx.Graph()
    vm: dict = {}
    copy.output(copy.graph_copy(g, vm))
    recompute = {vm[n] for n in cut.sink_side if n not in j.backward and n.op == "call_function"}
    _copy_into_backward(copy, SimpleNamespace(backward={vm[n] for n in j.backward}), recompute)
    copy.eliminate_dead_code()
    return graph_peak(copy, {n.name for n in copy.nodes if n.op == "placeholder"}, lowered)


def rematerialize(gm: fx.GraphModule, budget: BudgetT = 1.0) -> int:
    """Recompute in the step's backward what the partitioner's plan for `budget` recomputes
    (memory_budget, as for bessemer.compile: 1.0 the default plan, a fraction of its kept
    bytes, or bytes), the seed marked by mark_seed; returns the number of nodes copied into
    the backward (0: the graph is unchanged)."""
    g = gm.graph
    j = _analyze(g)
    if j is None:
        log.debug("bessemer: the step's graph has no gradient seed of its loss; nothing recomputed")
        return 0
    # every input lives through the whole step (parameters, state, the batch): keeping one
    # alive for the backward costs nothing
    net = _Network(j, set(j.primals), lowered_ops())
    # at every budget: recomputing more does not mean holding less when it rebuilds a chain
    checkpointed = set(net.boundaries)
    starts = _chain_starts(j, net)
    net.boundaries |= starts
    try:
        cut = net.solve(None)
        target = budget_bytes(budget, cut.saved_bytes)
        if target is not None and cut.saved_bytes > target:
            # the largest recompute scale whose cut keeps at most the target; below what any
            # cut keeps, the one the step holds least at its fullest point
            fewest = net.solve(LEAST_SCALES[0])     # recomputing costs next to nothing
            if fewest.saved_bytes > target:
                net.boundaries = checkpointed
                cut = _least_held(g, j, net, fewest)
                net.boundaries = checkpointed | starts
            else:
                cut = _search(net, target, lambda c: c.saved_bytes)[0]
    except PartitionError as e:
        log.debug("bessemer: the step's graph keeps its forward values: %s", e)
        return 0
    for n in j.backward:
        n.meta[BACKWARD] = True
    recompute = {n for n in cut.sink_side if n not in j.backward and n.op == "call_function"}
    if not recompute:
        return 0
    made = _copy_into_backward(g, j, recompute)
    g.eliminate_dead_code()
    g.lint()
    gm.recompile()
    log.info("bessemer: the step's backward recomputes %d forward values; it reads %d kept ones "
             "(%.2f MiB)", made, len(cut.saved), cut.saved_bytes / 2 ** 20)
    return made
