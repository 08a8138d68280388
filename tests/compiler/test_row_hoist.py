"""C++ pointwise kernels compute a costly value that stays the same along the inner loop
(the log of each row's sum in a log-softmax backward) once per row, before that loop
(passes/kernel_plan_cpp.py, Walker.worth_hoisting): values and gradients match eager, in
float32 and bfloat16, with two loops and with three whose outer two are collapsed."""
import copy

import pytest
import torch

import bessemer


class RowExp(torch.nn.Module):
    """exp(x - (m + log(s))) per row, times a per-row scale: a softmax from its saved max
    and sum, as a cross-entropy backward recomputes it."""

    def forward(self, x, m, s, g):
        lse = m + torch.log(s)
        return torch.exp(x - lse.unsqueeze(-1)) * (g * 0.5 + 1.0).unsqueeze(-1)


def _run(model, x, m, s, g, w):
    xs = [t.detach().clone().requires_grad_(True) for t in (x, m, s, g)]
    y = model(*xs)
    (y.float() * w).sum().backward()
    return [y] + [t.grad for t in xs]


def _hoists_log(source: str) -> bool:
    """Is the kernel's log computed before its vector loop?"""
    return "logf(" in source and "#pragma omp simd" in source and \
        source.index("logf(") < source.index("#pragma omp simd")


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("shape,transposed", [((24, 200), False), ((2, 4, 4096), True)])
def test_row_values_before_the_inner_loop_match_eager(dtype, shape, transposed):
    torch._dynamo.reset()
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(shape, generator=gen).to(dtype)
    rows = shape[:-1]
    m = torch.randn(rows, generator=gen).to(dtype)
    s = (torch.rand(rows, generator=gen) + 0.5).to(dtype)
    if transposed:
        # stored with its dims swapped: the two outer loops do not merge, and the outer one,
        # of 2 iterations, is collapsed with the second
        s = s.t().contiguous().t()
    g = torch.randn(rows, generator=gen).to(dtype)
    w = torch.randn(shape, generator=gen)
    ref = RowExp()
    model = bessemer.compile(copy.deepcopy(ref), config=bessemer.TrainingCompilerConfig(
        fallback="error", graph_cache=False, backend="cpp"))
    want = _run(ref, x, m, s, g, w)
    got = _run(model, x, m, s, g, w)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype
        torch.testing.assert_close(a, b)
    # the forward's pointwise kernel (the backward's kernels reduce over the rows, and compute
    # their per-row values before the row's loops already)
    sources = [k.code for cg in model.forward._bessemer_backend.compiled for k in cg.kernels
               if k.kind == "pointwise"]
    assert any(_hoists_log(src) for src in sources), "\n\n".join(sources)
    if transposed:
        assert any(_hoists_log(src) and "collapse(2)" in src for src in sources), "\n\n".join(sources)


class ScaledLog(torch.nn.Module):
    def forward(self, x, s):
        return x * torch.log(s) + torch.exp(s)


def _scaled_log(x, s):
    return ScaledLog()(x, s)


@pytest.mark.parametrize("xshape,sshape", [
    ((6, 1, 40), (6, 1, 1)),      # a size-1 dim between: the row is o0
    ((1, 6, 40), (1, 6, 1)),      # a size-1 dim first
    ((6, 40, 1), (6, 1, 1)),      # the last dim of one element: the inner loop is the one before
    ((3, 5, 40), (1, 5, 1)),      # the value varies along the middle dim only
    ((3, 5, 40), (3, 1, 1)),      # the two inner dims merge into the inner loop
    ((3, 5, 40), (3, 5, 1)),
])
def test_row_values_with_size_one_and_broadcast_dims_match_eager(xshape, sshape):
    torch._dynamo.reset()
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(xshape, generator=gen)
    s = torch.rand(sshape, generator=gen) + 0.5
    f = bessemer.compile(ScaledLog(), config=bessemer.TrainingCompilerConfig(
        fallback="error", graph_cache=False, backend="cpp"))
    xs, ss = x.clone().requires_grad_(True), s.clone().requires_grad_(True)
    xr, sr = x.clone().requires_grad_(True), s.clone().requires_grad_(True)
    got, want = f(xs, ss), _scaled_log(xr, sr)
    torch.testing.assert_close(got, want)
    w = torch.randn(got.shape, generator=gen)
    (got * w).sum().backward()
    (want * w).sum().backward()
    torch.testing.assert_close(xs.grad, xr.grad)
    torch.testing.assert_close(ss.grad, sr.grad)
    forward = [k.code for k in f.forward._bessemer_backend.compiled[0].kernels]
    assert len(forward) == 1 and _hoists_log(forward[0]), forward
