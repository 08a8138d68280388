"""Tensor.repeat lowered: the argument read through a broadcast view and copied by a kernel
(no ATen call), its copy seen with the repeated shape. Values bit for bit and gradients (the
sum over the copies) against eager; the schedules hold no ATen repeat; a symbolic repeat count
stays ATen's."""
from __future__ import annotations

import pytest
import torch

import bessemer
from bessemer.compiler.capture.backend import make_backend


def _compile(f, dynamic=False):
    torch._dynamo.reset()
    be = make_backend(bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))
    return torch.compile(f, backend=be, dynamic=dynamic), be.bessemer


def _aten_repeats(compiler) -> int:
    return sum(line.startswith("extern") and "aten.repeat" in line
               for cg in compiler.compiled for line in cg.schedule_text.splitlines())


CASES = {
    # DeBERTa's relative-position keys over the batch, then a matmul
    "batch-of-heads": (lambda x: x.repeat(3, 1, 1), (4, 5, 6)),
    "every-dim": (lambda x: (x * 2).repeat(2, 3, 2), (3, 4, 5)),
    "new-leading-dims": (lambda x: x.repeat(2, 1, 3, 1), (3, 5)),
    "ones": (lambda x: x.repeat(1, 1), (4, 7)),
    "transposed": (lambda x: x.t().repeat(2, 2), (6, 3)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_repeat_is_a_copy_in_a_kernel(case):
    f, shape = CASES[case]
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(*shape, generator=gen, requires_grad=True)
    compiled, compiler = _compile(f)
    out_c, out_e = compiled(x), f(x)
    assert out_c.shape == out_e.shape and torch.equal(out_c, out_e)
    w = torch.randn(out_e.shape, generator=gen)
    g_c, = torch.autograd.grad((out_c * w).sum(), x)
    g_e, = torch.autograd.grad((out_e * w).sum(), x)
    torch.testing.assert_close(g_c, g_e, rtol=1e-6, atol=1e-6)
    assert compiler.compiled and _aten_repeats(compiler) == 0


def test_repeat_before_a_matmul_trains_as_eager():
    """A repeated parameter read by a batched matmul (DeBERTa's shape of it): three SGD steps,
    parameters as eager's."""
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.pos = torch.nn.Parameter(torch.randn(2, 8, 4))

        def forward(self, q):
            return torch.bmm(q, self.pos.repeat(q.shape[0] // 2, 1, 1).transpose(1, 2)).tanh().sum()

    torch.manual_seed(1)
    ref, model = M(), M()
    model.load_state_dict(ref.state_dict())
    torch._dynamo.reset()
    bessemer.compile(model, config=bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))
    opts = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (ref, model)]
    for step in range(3):
        q = torch.randn(6, 5, 4, generator=torch.Generator().manual_seed(step))
        for m, opt in zip((ref, model), opts):
            opt.zero_grad()
            m(q).backward()
            opt.step()
    torch.testing.assert_close(model.pos, ref.pos, rtol=1e-5, atol=1e-6)
    assert sum(line.startswith("extern") and "aten.repeat" in line
               for cg in model.forward._bessemer_backend.compiled for line in cg.schedule_text.splitlines()) == 0


def test_a_symbolic_repeat_count_stays_atens():
    f = lambda x: x.repeat(x.shape[0], 1) + 1  # noqa: E731
    compiled, compiler = _compile(f, dynamic=True)
    for n in (3, 5):
        x = torch.randn(n, 4)
        torch.testing.assert_close(compiled(x), f(x), rtol=0, atol=0)
    assert compiler.compiled and _aten_repeats(compiler) >= 1
