"""Dynamo's graph before tracing: an unbind of which only some slices are read becomes one
select per slice read.

`x.unbind(0)[i]` makes as many views as x has rows, and AOTAutograd traces each of them
(and its share of the backward): an unbind of a [37888, 64] tensor of which one row is read
took 300 s to compile (fuzz seed 69704), AOTAutograd's own trace 110 s of it. A select is
the same view of the same memory, with the same gradient (zeros but the slice), so the
rewrite changes no value. An unbind every slice of which is read (`q, k, v = qkv.unbind(0)`),
or whose tuple is used otherwise than indexed, is left as it is.
"""
from __future__ import annotations

import operator

import torch


def _is_unbind(n: torch.fx.Node) -> bool:
    return (n.op == "call_method" and n.target == "unbind") or \
        (n.op == "call_function" and n.target in (torch.unbind, torch.ops.aten.unbind.int))


def select_unbound(gm: torch.fx.GraphModule) -> int:
    """Rewrite gm in place; the number of unbinds rewritten."""
    done = 0
    for n in list(gm.graph.nodes):
        if not _is_unbind(n) or not n.users:
            continue
        users = list(n.users)
        if not all(u.op == "call_function" and u.target is operator.getitem and len(u.args) == 2
                   and isinstance(u.args[1], int) and not u.kwargs for u in users):
            continue
        x = n.args[0]
        dim = n.args[1] if len(n.args) > 1 else n.kwargs.get("dim", 0)
        if not isinstance(dim, int):
            continue
        example = x.meta.get("example_value") if isinstance(x, torch.fx.Node) else None
        size = example.shape[dim] if isinstance(example, torch.Tensor) else None
        if isinstance(size, int) and len({u.args[1] % size for u in users}) == size:
            continue   # every slice read: the unbind is what the program needs
        for u in users:
            with gm.graph.inserting_before(u):
                s = gm.graph.call_function(torch.select, (x, dim, u.args[1]))
            s.meta.update(u.meta)
            u.replace_all_uses_with(s)
            gm.graph.erase_node(u)
        gm.graph.erase_node(n)
        done += 1
    if done:
        gm.recompile()
    return done
