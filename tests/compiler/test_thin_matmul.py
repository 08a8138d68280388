"""Batched matmuls with a size of 1 as products and sums (lowering/thin_matmul.py), and matmul
operands written by the kernels in the layout the GEMM reads (partition/joint.py): a top-k
mixture of experts' combine ("etd,te->td") trains as eager's, with no thin bmm left and no
operand ATen would copy first."""
import copy

import torch

import bessemer
from bessemer.compiler.partition.joint import _gemm_ready


class _Combine(torch.nn.Module):
    """Experts over all tokens, combined with per-token gates (zoo/small.py's TopKMoE, small)."""

    def __init__(self, d=16, h=24, e=4):
        super().__init__()
        self.router = torch.nn.Linear(d, e, bias=False)
        self.w1 = torch.nn.Parameter(torch.randn(e, d, h) / d ** 0.5)
        self.w2 = torch.nn.Parameter(torch.randn(e, h, d) / h ** 0.5)

    def forward(self, x):
        gate = self.router(x).softmax(-1)                                  # [T, E]
        y = torch.nn.functional.gelu(torch.einsum("td,edh->eth", x, self.w1))
        y = torch.einsum("eth,ehd->etd", y, self.w2)
        return (x + torch.einsum("etd,te->td", y, gate)).square().mean()


def _record_gemms(graphs, calls: list) -> None:
    """Wrap the compiled programs' matmul calls to record their operands' shapes and layouts."""
    for cg in graphs:
        env = cg.fn.__globals__
        for name, op in cg.consts.items():
            if name.startswith("_op") and op in (torch.ops.aten.bmm.default, torch.ops.aten.mm.default):
                def recorded(a, b, *rest, _op=op):
                    calls.append((tuple(a.shape), tuple(b.shape), _gemm_ready(a), _gemm_ready(b)))
                    return _op(a, b, *rest)
                env[name] = recorded


def test_experts_combine_trains_as_eager_without_thin_or_copied_gemms():
    torch.manual_seed(0)
    ref = _Combine()
    model = bessemer.compile(copy.deepcopy(ref), config=bessemer.TrainingCompilerConfig(fallback="error",
                                                                                       graph_cache=False))
    opts = [torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9) for m in (ref, model)]
    gen = torch.Generator().manual_seed(1)
    seen: list = []
    for step in range(3):
        x = torch.randn(32, 16, generator=gen)
        for m, opt in zip((ref, model), opts):
            opt.zero_grad(set_to_none=True)
            if m is model and step == 2:
                _record_gemms(model.forward._bessemer_backend.compiled, seen)
            m(x).backward()
        for a, b in zip(ref.parameters(), model.parameters()):
            torch.testing.assert_close(b.grad, a.grad, rtol=1e-5, atol=1e-6)
        for opt in opts:
            opt.step()
    for a, b in zip(ref.parameters(), model.parameters()):
        torch.testing.assert_close(b, a, rtol=1e-5, atol=1e-6)
    assert seen, "the experts' matmuls run as GEMM calls"
    # no batched matmul with a size of 1 reaches ATen, and every operand is one GEMM reads in place
    for a, b, ready_a, ready_b in seen:
        assert len(a) == 2 or 1 not in (a[-2], a[-1], b[-1]), seen
        assert ready_a and ready_b, seen
