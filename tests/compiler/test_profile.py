"""Timing of compiled graphs (compiler/runtime/profile.py): the graph-call overhead profile splits
each call into kernels, ATen calls and the generated program's own work, and puts the
graphs back as they were."""
import torch

import bessemer
from bessemer.compiler.runtime import profile
from bessemer.compiler.runtime.graph_call import GraphCall


def _model_and_step(tmp_path):
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.LayerNorm(32),
                            torch.nn.Linear(32, 4))
    x = torch.randn(8, 16)
    bessemer.compile(m, cache_dir=str(tmp_path), fallback="error", graph_cache=False)

    def step():
        m(x).square().mean().backward()
    step()
    return m, step


def test_overhead_profile_counts_every_launch_and_restores_the_graphs(tmp_path):
    m, step = _model_and_step(tmp_path)
    graphs = m.forward._bessemer_backend.compiled
    assert len(graphs) == 2 and all(isinstance(cg.fn, GraphCall) for cg in graphs)
    before = [(cg.fn.fn, dict(cg.fn.__globals__)) for cg in graphs]
    with profile.overhead_profile(graphs) as prof:
        step()
        step()
    s = prof.summary(passes=2)
    assert s["graph_calls"] == 2
    assert s["kernels"] == sum(cg.n_kernels for cg in graphs)
    # each ATen call of the programs ran once per pass (the linear layers' matmuls, forward and backward)
    assert s["externs"] == sum(cg.n_externs for cg in graphs) >= 4
    assert s["own_us"] >= 0 and s["own_us_per_launch"] is not None
    assert s["graph_us"] >= s["kernel_us"] + s["extern_us"]
    assert [(cg.fn.fn, dict(cg.fn.__globals__)) for cg in graphs] == before
    step()      # still runs, untimed


def test_eager_op_cost_counts_the_dispatched_ops():
    x = torch.randn(4, 4, requires_grad=True)
    cost = profile.eager_op_cost(lambda: (x.sin() * 2).sum().backward(), torch.device("cpu"))
    # forward: sin, mul, sum; backward: at least the three gradients
    assert cost["aten_ops"] >= 6 and cost["us_per_op"] > 0 and cost["fwd_bwd_us"] > 0
