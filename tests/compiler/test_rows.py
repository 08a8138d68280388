"""Rows nothing reads are not computed (capture/rows.py): a classifier's one token narrows its
last layer. Values, gradients and trained parameters as eager's; what is read in full stays
whole; a drawing dropout, in-place ops and unknown ops stop the narrowing."""
import copy

import pytest
import torch
import torch.nn.functional as F

import bessemer
from bessemer.compiler.capture import rows
from bessemer.compiler.capture.rows import prune_rows


def _pruned(fn, *args):
    """fn compiled by a backend that narrows Dynamo's graph and runs it eagerly: (the shapes of
    the graph's linear layers before and after, the number of ops narrowed, the compiled fn)."""
    seen = []

    def grab(gm, example_inputs):
        before = _rows_of(gm, torch._C._nn.linear)
        seen.append((before, prune_rows(gm), _rows_of(gm, torch._C._nn.linear)))
        return gm.forward
    torch._dynamo.reset()
    compiled = torch.compile(fn, backend=grab)
    compiled(*args)
    assert len(seen) == 1
    before, n, after = seen[0]
    return before, after, n, compiled


def _rows_of(gm, target):
    """The sizes of the values the graph computes with `target`."""
    return [tuple(n.meta["example_value"].shape) for n in gm.graph.nodes
            if n.op == "call_function" and n.target is target]


class Encoder(torch.nn.Module):
    """Post-norm encoder layers, attention by SDPA with an optional mask, a classifier on
    token 0 (BERT's pooler)."""

    def __init__(self, d=32, heads=4, layers=2, classes=3, p=0.0, keep_hidden=False):
        super().__init__()
        self.heads, self.p, self.keep_hidden = heads, p, keep_hidden
        self.qkv = torch.nn.ModuleList(torch.nn.ModuleList(torch.nn.Linear(d, d) for _ in range(4))
                                       for _ in range(layers))
        self.ffn = torch.nn.ModuleList(torch.nn.Sequential(torch.nn.Linear(d, 2 * d), torch.nn.GELU(),
                                                           torch.nn.Linear(2 * d, d)) for _ in range(layers))
        self.ln1 = torch.nn.ModuleList(torch.nn.LayerNorm(d) for _ in range(layers))
        self.ln2 = torch.nn.ModuleList(torch.nn.LayerNorm(d) for _ in range(layers))
        self.head = torch.nn.Linear(d, classes)

    def forward(self, x, mask=None):
        b, s, d = x.shape
        for (q, k, v, o), ffn, ln1, ln2 in zip(self.qkv, self.ffn, self.ln1, self.ln2):
            split = [t(x).view(b, s, self.heads, -1).transpose(1, 2) for t in (q, k, v)]
            a = F.scaled_dot_product_attention(*split, attn_mask=mask)
            a = o(a.transpose(1, 2).reshape(b, s, d))
            x = ln1(x + F.dropout(a, self.p, self.training))
            x = ln2(x + F.dropout(ffn(x), self.p, self.training))
        logits = self.head(torch.tanh(x[:, 0]))
        return (logits, x) if self.keep_hidden else logits


def _train(model, batches, compiled):
    torch._dynamo.reset()   # a frame compiled again for other shapes gets symbolic sizes
    model = copy.deepcopy(model)
    # SGD: a key's bias has a gradient of rounding noise only (softmax ignores a shift of every
    # score of a row), which Adam's normalization would make a full step of either sign
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    run = bessemer.compile(model, optimizer=opt, fallback="error", graph_cache=False) if compiled else model
    losses = []
    for x, y, mask in batches:
        opt.zero_grad(set_to_none=True)
        out = run(x, mask)
        logits = out[0] if isinstance(out, tuple) else out
        loss = F.cross_entropy(logits, y)
        if isinstance(out, tuple):
            loss = loss + out[1].square().mean()
        loss.backward()
        grads = [p.grad.clone() for p in model.parameters()]
        opt.step()
        losses.append(loss.detach())
    return losses, grads, list(model.parameters()), run


def _batches(mask_kind, n=3, b=4, s=12, d=32):
    g = torch.Generator().manual_seed(0)
    out = []
    for _ in range(n):
        x = torch.randn(b, s, d, generator=g)
        y = torch.randint(0, 3, (b,), generator=g)
        mask = None
        if mask_kind == "keys":       # padding: [B, 1, 1, S]
            mask = torch.ones(b, 1, 1, s, dtype=torch.bool)
            mask[1, ..., 9:] = False
        elif mask_kind == "square":   # [B, 1, S, S]
            mask = torch.rand(b, 1, s, s, generator=g) > 0.2
            mask[..., 0] = True
        out.append((x, y, mask))
    return out


@pytest.fixture
def counted(monkeypatch):
    seen = []

    def spy(gm):
        seen.append(prune_rows(gm))
        return seen[-1]
    monkeypatch.setattr(rows, "prune_rows", spy)
    return seen


@pytest.mark.parametrize("mask_kind", [None, "keys", "square"])
def test_a_classifier_trains_as_eager_with_its_last_layer_narrowed(counted, mask_kind):
    torch.manual_seed(0)
    model = Encoder()
    batches = _batches(mask_kind)
    (got, got_grads, got_params, run), (want, want_grads, want_params, _) = \
        _train(model, batches, True), _train(model, batches, False)
    assert run.forward._bessemer_backend.compiled
    # the last layer's query, attention rows, output projection, norms and feed-forward
    assert counted and max(counted) >= 12
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
    for a, b in zip(got_grads, want_grads):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6)
    for a, b in zip(got_params, want_params):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6)


def test_the_last_layer_computes_one_row_and_the_keys_all():
    model = Encoder(d=16, heads=2)
    x = torch.randn(2, 10, 16)
    before, after, n, compiled = _pruned(model, x)
    assert n > 0
    # layer 0: 4 + 2 products over 10 rows; layer 1: k and v over 10 rows, q, o and the
    # feed-forward over 1; the head over the batch
    assert sum(1 for s in before if s[:2] == (2, 10)) == 12
    assert sum(1 for s in after if s[:2] == (2, 10)) == 8
    assert sum(1 for s in after if s[:2] == (2, 1)) == 4
    torch.testing.assert_close(compiled(x), model(x))


def test_a_value_read_in_full_stays_whole():
    """The hidden state is returned too: nothing of the last layer can be narrowed."""
    model = Encoder(d=16, heads=2, keep_hidden=True)
    x = torch.randn(2, 10, 16)
    _, after, n, _ = _pruned(model, x)
    assert n == 0
    assert all(s[:2] == (2, 10) for s in after if len(s) == 3)


def test_a_dropout_that_draws_stops_the_narrowing_and_draws_eagers_masks(counted):
    torch.manual_seed(0)
    model = Encoder(p=0.3)
    batches = _batches("keys")
    torch.manual_seed(5)
    got, got_grads, got_params, run = _train(model, batches, True)
    state_got = torch.get_rng_state()
    torch.manual_seed(5)
    want, want_grads, want_params, _ = _train(model, batches, False)
    assert torch.equal(state_got, torch.get_rng_state())
    assert run.forward._bessemer_backend.compiled
    # the narrowing reaches the last norm and stops at the feed-forward's dropout
    assert counted and 0 < max(counted) < 6
    for a, b in zip(got + got_grads + got_params, want + want_grads + want_params):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6)


def _views_and_gathers(x, w, idx, pos):
    """DeBERTa's shapes: heads merged into the batch, scores gathered by relative position
    (c2p along the kept dim, p2c along the narrowed one), softmax, a product with the values."""
    b, s, d = x.shape
    h = 2
    q = (x @ w).view(b, s, h, -1).permute(0, 2, 1, 3).contiguous().view(b * h, s, -1)
    k = x.view(b, s, h, -1).permute(0, 2, 1, 3).contiguous().view(b * h, s, -1)
    scores = torch.bmm(q, k.transpose(-1, -2))
    c2p = torch.gather(torch.bmm(q, pos.transpose(-1, -2)), -1, idx.expand(b * h, s, s))
    p2c = torch.gather(torch.bmm(k, pos.transpose(-1, -2)), -1, idx.expand(b * h, s, s)).transpose(-1, -2)
    probs = torch.softmax((scores + c2p + p2c).view(b, h, s, s) / 4, dim=-1)
    ctx = torch.bmm(probs.view(b * h, s, s), k).view(b, h, s, -1).permute(0, 2, 1, 3).contiguous().view(b, s, d)
    y = torch.nn.functional.layer_norm(ctx + x, (d,))
    return y[:, 2:4].sum(-1)


def test_views_permutes_gathers_and_products_narrow_as_eager_computes_them():
    torch.manual_seed(0)
    x, w = torch.randn(3, 9, 8), torch.randn(8, 8)
    pos = torch.randn(6, 12, 4)
    idx = torch.randint(0, 12, (1, 9, 9))
    _, _, n, compiled = _pruned(_views_and_gathers, x, w, idx, pos)
    assert n >= 12
    ins = [t.clone().requires_grad_(True) for t in (x, w, pos)]
    got = compiled(ins[0], ins[1], idx, ins[2])
    got.square().sum().backward()
    want_ins = [t.detach().clone().requires_grad_(True) for t in (x, w, pos)]
    want = _views_and_gathers(want_ins[0], want_ins[1], idx, want_ins[2])
    want.square().sum().backward()
    torch.testing.assert_close(got, want)
    for a, b in zip(ins, want_ins):
        torch.testing.assert_close(a.grad, b.grad)


def _in_place(x, w):
    y = torch.relu(x @ w)
    y.add_(1)
    return y[:, 0]


def _in_place_flag(x, w):
    y = F.leaky_relu(x @ w, 0.2, True)   # inplace as the third positional argument
    return y[:, 0]


def test_a_graph_with_in_place_ops_is_left_alone():
    for fn in (_in_place, _in_place_flag):
        assert _pruned(fn, torch.randn(2, 5, 4), torch.randn(4, 4))[2] == 0


def _unknown(x):
    return torch.cumsum(x * 2, dim=2)[:, 0]


def test_an_op_it_does_not_know_stops_the_narrowing():
    x = torch.randn(2, 5, 4)
    _, _, n, compiled = _pruned(_unknown, x)
    assert n == 0
    torch.testing.assert_close(compiled(x), _unknown(x))
