"""Joint-graph rewrites (compiler/partition/joint.py): a gather through subtracted row statistics reads
the unshifted tensor, and only where that is exact; a linear layer's bias moves into its
elementwise readers; every case trains as eager."""
import copy

import pytest
import torch

import bessemer
from bessemer.compiler.partition import joint

F = torch.nn.functional


def _gm(fn, *args):
    """fn's ATen graph with FakeTensor values, as AOTAutograd hands a joint graph over."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.proxy_tensor import make_fx
    with FakeTensorMode(allow_non_fake_inputs=True):
        return make_fx(fn, tracing_mode="fake")(*args)


def _ops(gm):
    return [n.target for n in gm.graph.nodes if n.op == "call_function"]


def test_gather_moves_onto_the_logits_and_full_like_loses_its_input():
    x, t = torch.randn(8, 64), torch.randint(0, 64, (8, 1))

    def f(x, t):
        ls = x - x.amax(1, keepdim=True)
        ls = ls - ls.exp().sum(1, keepdim=True).log()
        return ls.gather(1, t), torch.full_like(ls, 0.0)
    gm = _gm(f, x, t)
    assert joint.rewrite(gm) == 2
    (g,) = [n for n in gm.graph.nodes if n.target is torch.ops.aten.gather.default]
    assert g.args[0].name == "x_1"                          # reads the input itself
    assert torch.ops.aten.full_like.default not in _ops(gm)
    torch.testing.assert_close(gm(x, t)[0], f(x, t)[0])


@pytest.mark.parametrize("case", ["fewer_rows", "not_row_constant", "dim0"])
def test_the_rewrite_applies_only_where_exact(case):
    x = torch.randn(8, 64)
    if case == "fewer_rows":      # the gather reads 5 of 8 rows: the statistic would not line up
        t = torch.randint(0, 64, (5, 1))
        f = lambda x, t: (x - x.amax(1, keepdim=True)).gather(1, t)   # noqa: E731
        expect = 0
    elif case == "not_row_constant":   # subtracted along the gathered dimension: not constant
        t = torch.randint(0, 8, (8, 1))
        f = lambda x, t: (x - x.amax(1, keepdim=True)).gather(0, t)   # noqa: E731
        expect = 0
    else:                         # a statistic over dim 0, gathered along dim 0: exact
        t = torch.randint(0, 8, (1, 64))
        f = lambda x, t: (x - x.amax(0, keepdim=True)).gather(0, t)   # noqa: E731
        expect = 1
    gm = _gm(f, x, t)
    assert joint.rewrite(gm) == expect
    torch.testing.assert_close(gm(x, t), f(x, t))


@pytest.mark.parametrize("case", ["cross_entropy", "ignore_index", "fewer_rows", "dim0"])
def test_compiled_gathers_train_as_eager(case):
    torch.manual_seed(0)
    w = torch.randn(16, 64, requires_grad=True)
    w_ref = w.detach().clone().requires_grad_()
    x = torch.randn(32, 16)
    y = torch.randint(0, 64, (32,))
    if case == "ignore_index":
        y[::3] = -100

    def loss(w):
        logits = x @ w
        if case in ("cross_entropy", "ignore_index"):
            return F.cross_entropy(logits, y)
        if case == "fewer_rows":
            return logits.log_softmax(1).gather(1, y[:20, None]).sum()
        return logits.log_softmax(0).gather(0, (y % 32)[None, :]).sum()
    f = bessemer.compile(loss, config=bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))
    got, want = f(w), loss(w_ref)
    got.backward()
    want.backward()
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(w.grad, w_ref.grad)


def test_a_bias_moves_into_its_elementwise_uses_only():
    """addmm whose uses are elementwise (through a view) becomes mm + bias; one read by a
    matmul, or returned, keeps ATen's addmm."""
    x, w1, b1, w2, b2 = torch.randn(6, 8), torch.randn(16, 8), torch.randn(16), torch.randn(4, 16), torch.randn(4)

    def f(x, w1, b1, w2, b2):
        h = torch.addmm(b1, x, w1.t()).view(2, 3, 16).relu().view(6, 16)   # elementwise: unfused
        logits = torch.addmm(b2, h, w2.t())                                 # returned: kept
        q = torch.addmm(b1, x, w1.t())                                      # read by a matmul: kept
        return logits, q @ q.t()
    gm = _gm(f, x, w1, b1, w2, b2)
    assert joint.rewrite(gm) == 1
    ops = _ops(gm)
    assert ops.count(torch.ops.aten.addmm.default) == 2 and ops.count(torch.ops.aten.mm.default) == 2
    for got, want in zip(gm(x, w1, b1, w2, b2), f(x, w1, b1, w2, b2)):
        torch.testing.assert_close(got, want)
    # beta, alpha, a 2-d bias or a reduced precision keep addmm
    for g in (lambda x, w, b: torch.addmm(b, x, w.t(), beta=0.5).relu(),
              lambda x, w, b: torch.addmm(b.expand(6, 16).contiguous(), x, w.t()).relu(),
              lambda x, w, b: torch.addmm(b.bfloat16(), x.bfloat16(), w.t().bfloat16()).relu()):
        gm = _gm(g, x, w1, b1)
        assert joint.rewrite(gm) == 0


@pytest.mark.parametrize("act", ["gelu", "residual_layernorm"])
def test_linear_layers_with_their_bias_in_the_next_kernel_train_as_eager(act):
    """A Linear followed by an activation, or by a residual add and a LayerNorm, multiplies with
    mm and adds its bias in the next kernel (forward and backward): trains as eager."""
    torch.manual_seed(0)

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.up, self.down, self.norm = torch.nn.Linear(32, 64), torch.nn.Linear(64, 32), torch.nn.LayerNorm(32)

        def forward(self, x):
            h = self.up(x)
            h = F.gelu(h) if act == "gelu" else h.relu()
            return self.norm(x + self.down(h)) if act == "residual_layernorm" else self.down(h).sum(-1)

    ref = Block()
    model = bessemer.compile(copy.deepcopy(ref),
                             config=bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))
    opts = [torch.optim.AdamW(m.parameters(), lr=1e-2) for m in (ref, model)]
    gen = torch.Generator().manual_seed(1)
    for _ in range(3):
        x = torch.randn(4, 10, 32, generator=gen)
        target = torch.randn(ref(x).shape, generator=gen)
        for m, opt in zip((ref, model), opts):
            opt.zero_grad(set_to_none=True)
            F.mse_loss(m(x), target).backward()
            opt.step()
        torch.testing.assert_close(model(x), ref(x), rtol=1e-4, atol=1e-5)
    for (name, a), b in zip(ref.named_parameters(), model.parameters()):
        torch.testing.assert_close(b, a, rtol=1e-4, atol=1e-5, msg=name)
    fw = [cg for cg in model.forward._bessemer_backend.compiled if cg.name.startswith("forward")][0]
    text = fw.schedule_text
    # up's bias is added inside the kernel that applies the activation: no kernel writes the
    # biased product alone, and the backward reads the saved product, not a copy with the bias
    assert "aten.mm.default" in text and "[40, 64] pointwise" not in text, text
    assert text.count("aten.addmm") == (1 if act == "gelu" else 0), text      # down(h).sum(): kept
    assert "mm" in [s.op for s in fw.partition.saved], fw.partition


class _CachedAttention(torch.nn.Module):
    """GPT-2's attention with an empty key/value cache: key and value are concatenated to the
    cache's empty tensors before the attention reads them."""

    def __init__(self, d=32, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv, self.proj = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3 * self.heads, d // self.heads).split(self.heads, dim=2)
        q, k, v = (z.transpose(1, 2) for z in (q, k, v))
        empty = x.new_zeros(b, self.heads, 0, d // self.heads)
        k, v = torch.cat([empty, k], dim=-2), torch.cat([empty, v], dim=-2)
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(o.transpose(1, 2).reshape(b, t, d))


def test_a_cat_with_an_empty_cache_read_by_attention_is_its_one_part():
    x = torch.randn(2, 8, 32)
    m = _CachedAttention()

    def f(x):
        return torch.autograd.grad(m(x).square().sum(), [x] + list(m.parameters()))
    gm = _gm(lambda x: m(x), x)
    assert joint.rewrite(gm) >= 2
    assert torch.ops.aten.cat.default not in _ops(gm)
    torch.testing.assert_close(gm(x), m(x), rtol=0, atol=0)     # the same kernel, the same bits
    # read by anything else than attention, or with two non-empty parts: kept
    for g in (lambda x: torch.cat([x.new_zeros(2, 0, 32), x], 1) * 2,
              lambda x: torch.cat([x, x], 1)):
        gm = _gm(g, x)
        assert joint.rewrite(gm) == 0 and torch.ops.aten.cat.default in _ops(gm)


@pytest.mark.parametrize("whole_step", [False, True], ids=["compile", "compile_step"])
def test_attention_over_an_empty_cache_trains_as_eager_without_the_copies(whole_step):
    torch.manual_seed(0)
    ref = torch.nn.Sequential(_CachedAttention(), torch.nn.LayerNorm(32), _CachedAttention())
    model = copy.deepcopy(ref)
    cfg = bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False)
    opts = [torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9) for m in (ref, model)]
    loss_fn = lambda m, x, y: F.mse_loss(m(x), y)                  # noqa: E731
    if whole_step:
        step = bessemer.compile_step(model, opts[1], loss_fn, config=cfg)
    else:
        compiled = bessemer.compile(model, config=cfg)

        def step(x, y):
            opts[1].zero_grad(set_to_none=True)
            loss = loss_fn(compiled, x, y)
            loss.backward()
            opts[1].step()
            return loss.detach()
    gen = torch.Generator().manual_seed(1)
    for _ in range(3):
        x, y = torch.randn(4, 16, 32, generator=gen), torch.randn(4, 16, 32, generator=gen)
        opts[0].zero_grad(set_to_none=True)
        ref_loss = loss_fn(ref, x, y)
        ref_loss.backward()
        opts[0].step()
        torch.testing.assert_close(step(x, y), ref_loss.detach(), rtol=1e-5, atol=1e-6)
    for (name, a), b in zip(ref.named_parameters(), model.parameters()):
        torch.testing.assert_close(b, a, rtol=1e-4, atol=1e-6, msg=name)
    backend = step.backend if whole_step else model.forward._bessemer_backend
    # no copy of a key or value ([batch, heads, tokens, head dim]); the backward's cat of the
    # query, key and value gradients (the split's gradient) stays
    texts = [cg.schedule_text for cg in backend.compiled]
    assert texts and not any("float32[4, 4, 16, 8] = extern aten.cat" in t for t in texts), texts
