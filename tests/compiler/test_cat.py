"""Concatenation (aten.cat), slice_scatter and flip computed inside the generated kernels: a cat's
parts each padded out to the result along the joined dim and chosen by position (lowering/rules.py). Values bit for bit (signed
zeros, NaNs, every dtype), gradients, a rotary embedding trained as eager's, and the schedules
hold no ATen cat where the parts are few and joined along the last dim; a cat of many parts, or
along another dim, stays ATen's copy."""
import copy

import pytest
import torch

import bessemer
from bessemer.compiler.lowering.movement import CAT_MAX_PARTS


def _compile(f, backend="cpp", **kw):
    torch._dynamo.reset()
    return bessemer.compile(f, config=bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False,
                                                                      backend=backend, **kw))


def _externs(compiled, name: str) -> int:
    return sum(1 for cg in compiled._bessemer_backend.compiled for line in cg.schedule_text.splitlines()
               if line.startswith("extern") and name in line)


@pytest.mark.parametrize("backend", ["cpp", "triton"])
def test_parts_of_every_dtype_join_bit_for_bit(backend):
    """(Joins along the last dim.) -0.0 and NaN survive the join; ints, bools and halves are their parts'; a part of
    another dtype is promoted as ATen promotes it; the legacy empty part is skipped."""
    def f(x, i, m):
        return (torch.cat([-x, x + 1.5, x / 0], dim=1),
                torch.cat([i, i * 3], dim=-1),
                torch.cat([m, x > 0, ~m], dim=-1),
                torch.cat([x.half(), (x * 2).half()], dim=1),
                torch.cat([x, i], dim=1),
                torch.cat([torch.empty(0), x, x.neg()], dim=1))
    gen = torch.Generator().manual_seed(0)
    x, i = torch.randn(3, 5, generator=gen), torch.randint(-5, 5, (3, 5), generator=gen)
    x[0, 0] = 0.0
    m = torch.rand(3, 5, generator=gen) > 0.5
    compiled = _compile(f, backend)
    for c, e in zip(compiled(x, i, m), f(x, i, m)):
        assert c.dtype == e.dtype and c.shape == e.shape
        torch.testing.assert_close(c, e, rtol=0, atol=0, equal_nan=True)
        if c.is_floating_point():   # the sign of every zero as well
            assert torch.equal(torch.signbit(c), torch.signbit(e))
    assert _externs(compiled, "aten.cat") == 0


def test_rotary_embedding_trains_as_eager_with_no_aten_cat():
    """cat([-b, a]) of a rotary embedding: computed in the kernel that rotates q and k;
    gradients through the join are slices of the result's."""
    class Rope(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.q = torch.nn.Linear(16, 16)
            ang = torch.arange(8)[:, None] * torch.arange(8)[None] * 0.1
            self.register_buffer("cos", torch.cat([ang.cos(), ang.cos()], -1))
            self.register_buffer("sin", torch.cat([ang.sin(), ang.sin()], -1))

        def forward(self, x):
            q = self.q(x)
            a, b = q.chunk(2, dim=-1)
            r = q * self.cos + torch.cat([-b, a], dim=-1) * self.sin
            return (r.softmax(-1) * x).sum()

    torch.manual_seed(0)
    ref = Rope()
    model = _compile(copy.deepcopy(ref))
    opts = [torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9) for m in (ref, model)]
    gen = torch.Generator().manual_seed(1)
    for _ in range(3):
        x = torch.randn(4, 8, 16, generator=gen)
        for m, opt in zip((ref, model), opts):
            opt.zero_grad(set_to_none=True)
            m(x).backward()
        for a, b in zip(ref.parameters(), model.parameters()):
            torch.testing.assert_close(b.grad, a.grad, rtol=1e-5, atol=1e-6)
        for opt in opts:
            opt.step()
    for a, b in zip(ref.parameters(), model.parameters()):
        torch.testing.assert_close(b, a, rtol=1e-5, atol=1e-6)
    assert _externs(model.forward, "aten.cat") == 0
    assert sum(len(cg.kernels) for cg in model.forward._bessemer_backend.compiled) >= 2


def test_a_join_along_the_last_dim_is_reduced_in_its_kernel():
    """Parts joined along the last dim of a 3-d value, read by a reduction and a broadcast; a
    join along an outer dim stays ATen's copy (its readers would each test every part)."""
    def f(x, y):
        c = torch.cat([x.sigmoid(), y, x * y], dim=2)
        d = torch.cat([x, y], dim=0)
        return c.sum(-1), (c * 2).mean(1), d.amax(0)
    gen = torch.Generator().manual_seed(2)
    x = torch.randn(2, 3, 4, generator=gen, requires_grad=True)
    y = torch.randn(2, 3, 4, generator=gen, requires_grad=True)
    compiled = _compile(f)
    outs_c, outs_e = compiled(x, y), f(x, y)
    for c, e in zip(outs_c, outs_e):
        torch.testing.assert_close(c, e)
    ws = [torch.randn_like(o) for o in outs_e]
    loss = lambda outs: sum((o * w).sum() for o, w in zip(outs, ws))  # noqa: E731
    for gc, ge in zip(torch.autograd.grad(loss(outs_c), (x, y)), torch.autograd.grad(loss(outs_e), (x, y))):
        torch.testing.assert_close(gc, ge)
    assert _externs(compiled, "aten.cat") == 1    # the join along dim 0


def test_a_join_of_many_parts_stays_aten_and_symbolic_joins_are_correct():
    parts = CAT_MAX_PARTS + 1
    f = lambda x: torch.cat([x * k for k in range(parts)], dim=1).relu()  # noqa: E731
    x = torch.randn(3, 4)
    compiled = _compile(f)
    torch.testing.assert_close(compiled(x), f(x))
    assert _externs(compiled, "aten.cat") == 1
    g = lambda x, y: torch.cat([x, y.tanh()], dim=-1) * 2  # noqa: E731
    compiled = _compile(g, dynamic=True)
    for n in (3, 5):
        x, y = torch.randn(n, 4), torch.randn(n, 6)
        torch.testing.assert_close(compiled(x, y), g(x, y))


def test_a_negative_zero_constant_is_not_merged_with_zero():
    """0.0 == -0.0 in Python, but x / 0.0 and x / -0.0 are infinities of opposite signs."""
    f = lambda x: (x * -0.0, x / 0)  # noqa: E731
    x = torch.randn(4, 5)
    for c, e in zip(_compile(f)(x), f(x)):
        torch.testing.assert_close(c, e, rtol=0, atol=0)
        assert torch.equal(torch.signbit(c), torch.signbit(e))


def test_slice_scatter_is_computed_in_the_kernels():
    """A slice of x replaced by src (negative and clamped bounds, bools, a promoted source), and
    a shifted language-model loss whose gradient is scattered into zeros: no ATen call."""
    def f(x, s, m):
        return (torch.slice_scatter(x, s * 2, dim=1, start=1, end=4),
                torch.slice_scatter(x.sigmoid(), s, dim=1, start=-4, end=-1),
                torch.slice_scatter(m, s > 0, dim=1, start=2, end=10 ** 9),
                torch.slice_scatter(x.double(), s, dim=1, start=0, end=3))
    gen = torch.Generator().manual_seed(3)
    x, s = torch.randn(4, 5, generator=gen), torch.randn(4, 3, generator=gen)
    m = torch.rand(4, 5, generator=gen) > 0.5
    compiled = _compile(f)
    for c, e in zip(compiled(x, s, m), f(x, s, m)):
        assert c.dtype == e.dtype
        torch.testing.assert_close(c, e, rtol=0, atol=0)
    assert _externs(compiled, "slice_scatter") == 0

    def lm_loss(logits, labels):
        return torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]),
                                                 labels[:, 1:].reshape(-1))
    logits = torch.randn(2, 6, 11, generator=gen, requires_grad=True)
    labels = torch.randint(0, 11, (2, 6), generator=gen)
    compiled = _compile(lm_loss)
    gc = torch.autograd.grad(compiled(logits, labels), logits)[0]
    ge = torch.autograd.grad(lm_loss(logits, labels), logits)[0]
    torch.testing.assert_close(gc, ge)
    assert _externs(compiled, "slice_scatter") == 0


def test_flip_is_read_backwards_inside_the_kernels():
    """flip as a view whose index runs backwards: values, gradients (the gradient's own flip),
    several dims, a flip read by a reduction and by an ATen call; no ATen flip."""
    fs = (lambda x: x.flip(-1) * 2, lambda x: (x.flip(0, 2) + x).sum(1),
          lambda x: (x * 3 + 1).flip(1).cumsum(-1))
    gen = torch.Generator().manual_seed(4)
    for f in fs:
        compiled = _compile(f)
        x = torch.randn(3, 4, 5, generator=gen, requires_grad=True)
        c, e = compiled(x), f(x)
        torch.testing.assert_close(c, e)
        w = torch.randn(e.shape, generator=gen)
        torch.testing.assert_close(torch.autograd.grad((c * w).sum(), x)[0], torch.autograd.grad((e * w).sum(), x)[0])
        assert _externs(compiled, "flip") == 0


def test_a_join_that_stays_aten_is_saved_not_run_again_in_the_backward():
    """The partitioner prices a cat as what it becomes: a channel join (an ATen call) is saved
    for the backward's BatchNorm like any ATen result, not recomputed there by a second call."""
    class Dense(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.Conv2d(3, 4, 1)
            self.bn = torch.nn.BatchNorm2d(8)

        def forward(self, x):
            return self.bn(torch.cat([self.a(x), self.b(x)], 1)).relu().mean()

    torch.manual_seed(0)
    ref = Dense()
    model = _compile(copy.deepcopy(ref))
    x = torch.randn(2, 3, 8, 8)
    model(x).backward()
    ref(x).backward()
    for a, b in zip(ref.parameters(), model.parameters()):
        torch.testing.assert_close(b.grad, a.grad, rtol=1e-4, atol=1e-5)
    assert _externs(model.forward, "aten.cat") == 1


def test_a_cat_of_many_parts_is_not_looked_at_part_by_part():
    """The partitioner asks for a cat's form once per part: a cat of more than CAT_MAX_LISTED
    parts (an unbind's backward joins every piece) is ATen's without a look at its parts, so
    that asking costs nothing; up to CAT_MAX_PARTS non-empty parts among few stay lowered."""
    from bessemer.compiler.lowering import movement
    assert movement.cat_lowered([(2, 3), (2, 0), (2, 5)], -1)
    many = [(2, 0)] * movement.CAT_MAX_LISTED + [(2, 3)]
    assert not movement.cat_lowered(many, -1)

    class Node:   # an FX node as _cat_form reads it: args and each part's meta["val"]
        def __init__(self, parts):
            self.args, self.kwargs = (parts, -1), {}

    class Part:
        meta = {"val": torch.empty(2, 3)}

    assert movement._cat_form(Node([Part(), Part()]))
    assert not movement._cat_form(Node([Part()] * (movement.CAT_MAX_LISTED + 1)))
