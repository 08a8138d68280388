"""A copy (clone) of memory that only matmuls read is dropped (passes/simplify.py,
matmul_reads_memory): the matmul reads the memory through its views, as ATen's GEMMs take a
transposed operand without a copy. A copy that is returned, or that anything else reads,
stays. Values and gradients against eager."""
from __future__ import annotations

import torch

import bessemer
from bessemer.compiler.capture.backend import make_backend
from bessemer.compiler.passes import simplify


def _compile(f):
    torch._dynamo.reset()
    be = make_backend(bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))
    return torch.compile(f, backend=be), be.bessemer


def _kernels(compiler) -> list[str]:
    return [line for cg in compiler.compiled for line in cg.schedule_text.splitlines() if line.startswith("kernel")]


def test_a_clone_read_transposed_by_a_bmm_is_not_copied():
    def f(p, v):
        return torch.bmm(p.clone().transpose(1, 2), v), torch.mm(p[0].clone().t(), v[1])
    gen = torch.Generator().manual_seed(0)
    p, v = torch.randn(3, 8, 5, generator=gen), torch.randn(3, 8, 4, generator=gen)
    compiled, compiler = _compile(f)
    for c, e in zip(compiled(p, v), f(p, v)):
        torch.testing.assert_close(c, e, rtol=0, atol=0)
    assert compiler.compiled and _kernels(compiler) == [], compiler.compiled[0].schedule_text


class Attn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(16, 48)
        self.drop = torch.nn.Dropout(0.0)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, -1)
        probs = self.drop(torch.softmax(q @ k.transpose(1, 2) / 4, -1))
        return torch.bmm(probs, v).tanh().sum()


def _train(model, steps=3):
    torch._dynamo.reset()
    bessemer.compile(model, config=bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(steps):
        opt.zero_grad()
        model(torch.randn(4, 6, 16, generator=torch.Generator().manual_seed(step))).backward()
        opt.step()
    return sum(len(_kernels_of(cg)) for cg in model.forward._bessemer_backend.compiled)


def _kernels_of(cg) -> list[str]:
    return [line for line in cg.schedule_text.splitlines() if line.startswith("kernel")]


def test_attention_with_a_dropout_of_zero_trains_as_eager_without_copying_its_probabilities(monkeypatch):
    """nn.Dropout(0.0) in training clones the attention probabilities; the backward's matmuls
    read the saved probabilities themselves: one kernel fewer than with the copies kept."""
    torch.manual_seed(1)
    ref, model, kept = Attn(), Attn(), Attn()
    model.load_state_dict(ref.state_dict())
    kept.load_state_dict(ref.state_dict())
    opt = torch.optim.SGD(ref.parameters(), lr=0.1)
    for step in range(3):
        opt.zero_grad()
        ref(torch.randn(4, 6, 16, generator=torch.Generator().manual_seed(step))).backward()
        opt.step()
    n_dropped = _train(model)
    for (name, a), b in zip(ref.named_parameters(), model.parameters()):
        torch.testing.assert_close(b, a, rtol=1e-5, atol=1e-6, msg=name)
    monkeypatch.setattr(simplify, "matmul_reads_memory", lambda g: g)
    n_kept = _train(kept)
    assert n_dropped < n_kept, (n_dropped, n_kept)


def test_a_returned_clone_stays_a_copy_and_one_a_kernel_also_reads_computes_as_eager():
    def f(p, v):
        c = p.clone()
        return torch.bmm(c, v), c

    def g(p, v):
        c = p.clone()
        return torch.bmm(c, v) + c.sum()
    gen = torch.Generator().manual_seed(2)
    p, v = torch.randn(2, 4, 4, generator=gen), torch.randn(2, 4, 4, generator=gen)
    for fn in (f, g):
        compiled, compiler = _compile(fn)
        outs_c, outs_e = compiled(p, v), fn(p, v)
        outs_c = outs_c if isinstance(outs_c, tuple) else (outs_c,)
        outs_e = outs_e if isinstance(outs_e, tuple) else (outs_e,)
        for c, e in zip(outs_c, outs_e):
            torch.testing.assert_close(c, e, rtol=1e-6, atol=1e-6)
        if fn is f:
            assert _kernels(compiler), "the returned copy was dropped"
            c = outs_c[1]
            before = p.clone()
            assert c.data_ptr() != p.data_ptr()
            c.add_(1)                 # the returned copy is the caller's own memory
            assert torch.equal(p, before)
