"""Rematerialization (compiler/partition/partitioner.py): what is saved, what is recomputed, under
each memory budget, and that every budget trains exactly as eager does."""
from __future__ import annotations

import logging

import pytest
import torch
import torch.utils.checkpoint

import bessemer
from bessemer.compiler.capture.backend import make_backend
from bessemer.config import TrainingCompilerConfig

F = torch.nn.functional


class Block(torch.nn.Module):
    """LayerNorm -> Linear -> GELU -> Linear (+ dropout) -> residual, and a loss."""

    def __init__(self, dim=32, hidden=128, p=0.0, checkpoint=False):
        super().__init__()
        self.ln = torch.nn.LayerNorm(dim)
        self.up = torch.nn.Linear(dim, hidden)
        self.down = torch.nn.Linear(hidden, dim)
        self.p, self.checkpoint = p, checkpoint

    def inner(self, x):
        return F.dropout(self.down(F.gelu(self.up(self.ln(x)))), self.p, self.training)

    def forward(self, x):
        h = torch.utils.checkpoint.checkpoint(self.inner, x, use_reentrant=False) if self.checkpoint \
            else self.inner(x)
        return ((h + x) ** 2).mean()


def _compiled(model, tmp_path, **opts):
    # each test compiles the same code objects anew: without a reset they would count
    # towards Dynamo's recompile limit and, past it, run eagerly
    torch._dynamo.reset()
    cfg = TrainingCompilerConfig(cache_dir=str(tmp_path / "cache"), fallback="error", **opts)
    backend = make_backend(cfg)
    return torch.compile(model, backend=backend, dynamic=False), backend.bessemer


def _report(tmp_path, x=None, **opts):
    torch.manual_seed(0)
    m = Block(**{k: opts.pop(k) for k in ("p", "checkpoint") if k in opts})
    f, be = _compiled(m, tmp_path, **opts)
    f(torch.randn(16, 32) if x is None else x).backward()
    (rep,) = be.partitions
    return rep, be


def test_default_plan_saves_matmuls_and_statistics_recomputes_pointwise(tmp_path):
    rep, be = _report(tmp_path)
    saved = set(rep.saved_names)
    # the first matmul's output (GELU's input once its bias is added: joint.py) is saved:
    # never recompute a matmul
    assert "mm_default" in saved
    # the layer norm's row statistics (var_mean's mean and variance: rsqrt over a [16, 1]
    # is recomputed rather than written for the backward) are saved, its normalized output
    # and the GELU's output are recomputed (they fuse into the backward's kernels)
    assert {"getitem", "getitem_1"} <= saved and "rsqrt" in rep.recomputed
    assert {"add_1", "mul_4"}.isdisjoint(saved)
    assert {"add_1", "mul_4", "erf"} <= set(rep.recomputed)
    assert "mm_default" not in rep.recomputed
    assert rep.saved_bytes == rep.default_bytes and rep.target_bytes is None
    # the report reaches the compiled graphs
    assert [cg.partition.graph for cg in be.compiled] == [rep.graph, rep.graph]
    assert be.compiled[1].partition.saved_names == rep.saved_names


def test_small_budget_recomputes_the_matmul(tmp_path):
    # the input (16 x 32 floats) and a little more: the matmul's output cannot be saved
    rep, _ = _report(tmp_path, memory_budget=16 * 32 * 4 + 1024)
    assert "mm_default" in rep.recomputed and "mm_default" not in rep.saved_names
    assert rep.saved_bytes < rep.default_bytes and not rep.least
    # what is left: the input and the layer norm's row statistics (parameters cost
    # nothing, they live anyway)
    assert rep.saved_bytes == 16 * 32 * 4 + 2 * 16 * 4 <= rep.target_bytes


class Deep(torch.nn.Module):
    """A stack of Blocks' inner layers: recomputing all of it in the backward holds every
    layer's values at once, more than saving them."""

    def __init__(self, depth=6, dim=32, hidden=128):
        super().__init__()
        self.blocks = torch.nn.ModuleList(Block(dim, hidden) for _ in range(depth))

    def forward(self, x):
        for b in self.blocks:
            x = x + b.inner(x)
        return (x ** 2).mean()


def _deep_report(tmp_path, **opts):
    torch.manual_seed(0)
    f, be = _compiled(Deep(), tmp_path, **opts)
    f(torch.randn(64, 32)).backward()
    (rep,) = be.partitions
    return rep


@pytest.mark.parametrize("model", ["block", "deep"])
def test_budget_zero_holds_the_least(tmp_path, model):
    """0.0 is the plan whose backward holds the fewest bytes, not the one saving the fewest."""
    rep = (_report(tmp_path / "z", memory_budget=0.0)[0] if model == "block"
           else _deep_report(tmp_path / "z", memory_budget=0.0))
    assert rep.least
    for other in (1.0, 0.5, 0.2):
        o = (_report(tmp_path / str(other), memory_budget=other)[0] if model == "block"
             else _deep_report(tmp_path / str(other), memory_budget=other))
        assert rep.backward_peak_bytes <= o.backward_peak_bytes, (other, rep.summary(), o.summary())


class PostNorm(torch.nn.Module):
    """bert's layers: x = LN(x + down(gelu(up(x)))), LayerNorm's input a matmul's output plus x."""

    def __init__(self, depth=6, dim=32, hidden=128):
        super().__init__()
        self.blocks = torch.nn.ModuleList(Block(dim, hidden) for _ in range(depth))

    def forward(self, x):
        for b in self.blocks:
            x = b.ln(x + b.down(F.gelu(b.up(x))))
        return (x ** 2).mean()


def test_budget_zero_recomputes_post_norm_layers_one_at_a_time(tmp_path, monkeypatch):
    """At 0.0 the cuts that keep values of the forward's trunk and recompute the layers between
    (matmuls included) hold less than any cut by recompute scale alone; and train as eager."""
    from bessemer.compiler.partition import partitioner

    def report(sub):
        torch.manual_seed(0)
        f, be = _compiled(PostNorm(), tmp_path / sub, memory_budget=0.0)
        f(torch.randn(2048, 32)).backward()     # activations, not gradients, at the peak
        (rep,) = be.partitions
        return rep
    with_trunk = report("a")
    monkeypatch.setattr(partitioner._Network, "trunk_pins", lambda self, sources=None: [])
    by_scale = report("b")
    monkeypatch.undo()
    assert with_trunk.least and with_trunk.backward_peak_bytes < 0.9 * by_scale.backward_peak_bytes, \
        (with_trunk.summary(), by_scale.summary())
    assert any(op in with_trunk.recomputed_ops for op in ("mm", "addmm")), with_trunk.format()

    def train(compiled):
        torch.manual_seed(0)
        m = PostNorm()
        opt = torch.optim.SGD(m.parameters(), lr=0.1)
        f = _compiled(m, tmp_path / "t", memory_budget=0.0)[0] if compiled else m
        out = []
        for i in range(3):
            opt.zero_grad()
            loss = f(torch.randn(64, 32, generator=torch.Generator().manual_seed(i)))
            loss.backward()
            out.append((loss.detach(), [p.grad.clone() for p in m.parameters()]))
            opt.step()
        return out, [p.detach() for p in m.parameters()]
    (ce, pe), (cc, pc) = train(False), train(True)
    for (le, ge), (lc, gc) in zip(ce, cc):
        torch.testing.assert_close(lc, le, rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(gc, ge, rtol=1e-4, atol=1e-6)
    torch.testing.assert_close(pc, pe, rtol=1e-5, atol=1e-6)


def test_budget_in_bytes_is_met(tmp_path):
    full, _ = _report(tmp_path / "a")
    rep, _ = _report(tmp_path / "b", memory_budget=full.default_bytes // 2 + 4096)
    assert rep.target_bytes == full.default_bytes // 2 + 4096
    assert rep.saved_bytes <= rep.target_bytes and not rep.least


def test_random_draws_are_never_recomputed(tmp_path):
    rep, _ = _report(tmp_path, p=0.3, memory_budget=0.0)
    assert "native_dropout" not in rep.recomputed_ops, rep.format()
    assert any(s.dtype == "bool" for s in rep.saved), rep.format()     # the drawn mask is kept


def test_checkpoint_region_is_recomputed(tmp_path):
    rep, _ = _report(tmp_path, checkpoint=True)
    assert rep.checkpointed > 0
    # inside the region even the matmul is recomputed, as torch.utils.checkpoint means
    assert "mm_default" in rep.recomputed and "mm_default" not in rep.saved_names


def test_report_is_logged_and_dumped(tmp_path, caplog):
    with caplog.at_level(logging.INFO, logger="bessemer"):
        rep, _ = _report(tmp_path, debug_dir=str(tmp_path / "dbg"))
    assert any("partition joint0: saves" in r.getMessage() for r in caplog.records)
    text = (tmp_path / "dbg" / "partition_joint0.txt").read_text()
    assert "saved:" in text and "mm_default" in text


@pytest.mark.parametrize("budget,checkpoint", [(1.0, False), (0.5, False), (0.0, False), (20_000, False),
                                               (1.0, True)])
def test_every_budget_trains_like_eager(tmp_path, budget, checkpoint):
    """Values, gradients and trained parameters equal to eager's, dropout on (same seed),
    also with the block under torch.utils.checkpoint (eager replays its random draws)."""
    def train(compiled):
        torch.manual_seed(0)
        m = Block(p=0.2, checkpoint=checkpoint)
        opt = torch.optim.SGD(m.parameters(), lr=0.1)
        f = _compiled(m, tmp_path, memory_budget=budget)[0] if compiled else m
        xs = [torch.randn(16, 32, generator=torch.Generator().manual_seed(i)) for i in range(3)]
        torch.manual_seed(1)
        losses, grads = [], []
        for x in xs:
            opt.zero_grad()
            loss = f(x)
            loss.backward()
            losses.append(loss.detach())
            grads.append([p.grad.clone() for p in m.parameters()])
            opt.step()
        return losses, grads, [p.detach() for p in m.parameters()]

    le, ge, pe = train(False)
    lc, gc, pc = train(True)
    torch.testing.assert_close(lc, le, rtol=1e-5, atol=1e-6)
    for a, b in zip(gc, ge):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6)
    torch.testing.assert_close(pc, pe, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), "half", True, 512, None])
def test_bad_budget_is_refused(bad):
    with pytest.raises(ValueError, match="memory_budget"):
        TrainingCompilerConfig(memory_budget=bad)


def test_budget_needs_our_partitioner():
    with pytest.raises(ValueError, match="memory_budget.*partitioner"):
        TrainingCompilerConfig(partitioner="min_cut", memory_budget=0.5)
    assert TrainingCompilerConfig(memory_budget=0).memory_budget == 0.0
    assert TrainingCompilerConfig(memory_budget=2 ** 20).memory_budget == 2 ** 20


@pytest.mark.parametrize("training", [True, False])
def test_inputs_the_forward_mutates_are_not_saved(tmp_path, training):
    """Batch norm's running statistics are written back after the forward (without training
    too, unchanged): the backward must not be handed them (autograd would refuse a saved
    tensor modified in place), and the gradients are eager's."""
    def f(x, w, b, rm, rv):
        out = torch.ops.aten._native_batch_norm_legit(x, w, b, rm, rv, training, 0.1, 1e-5)[0]
        return (out * x).sum()

    torch.manual_seed(0)
    args = [torch.randn(16, 8), torch.randn(8), torch.randn(8), torch.randn(8), torch.rand(8) + 0.5]
    grads = []
    for fn in (f, _compiled(f, tmp_path)[0]):
        a = [t.clone().requires_grad_(i < 3) for i, t in enumerate(args)]
        fn(*a).backward()
        grads.append([t.grad for t in a[:3]])
    for got, want in zip(grads[1], grads[0]):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
