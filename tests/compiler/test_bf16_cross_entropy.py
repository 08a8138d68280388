"""A bf16 cross-entropy stores no fp32 [rows, vocabulary] tensor.

Under bf16 autocast a language model's loss is `cross_entropy(logits.float(), labels)` on
the bf16 logits of a matmul. The upcast is computed inside the log-softmax's kernel from the
bf16 logits (passes/simplify.py, sink_casts): the reshape of the upcast reads the matmul's
memory, the ATen gather of the target logits (its index, from the labels, is not proved in
range) gathers from the bf16 logits and converts the gathered elements. The backward's
gradient is computed in the kernel of its row sums and stored once, in bf16, for the
matmuls' gradients."""
from __future__ import annotations

import math
import re

import pytest
import torch
import torch.nn.functional as F

import bessemer
from bessemer.compiler.capture.backend import make_backend

ROWS, VOCAB, D = 32, 384, 48


class Head(torch.nn.Module):
    def __init__(self, flat: bool):
        super().__init__()
        self.proj = torch.nn.Linear(D, VOCAB, bias=False)
        self.flat = flat

    def forward(self, x, labels):
        logits = self.proj(x)                      # bf16 under autocast
        if self.flat:
            return F.cross_entropy(logits.float(), labels)
        # a language model's shape: [batch, seq, vocab] logits, flattened after the upcast
        return F.cross_entropy(logits.float().view(-1, VOCAB), labels.view(-1))


def _compile(model, backend):
    torch._dynamo.reset()
    be = make_backend(bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False, backend=backend))
    return torch.compile(model, backend=be, dynamic=False), be.bessemer


def _run(fn, model, x, labels):
    x = x.clone().requires_grad_()
    model.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = fn(x, labels)
    loss.backward()
    return loss.detach(), x.grad, model.proj.weight.grad.clone()


@pytest.mark.parametrize("backend", ["cpp", "triton"])
@pytest.mark.parametrize("flat", [False, True], ids=["reshaped", "flat"])
def test_bf16_cross_entropy_stores_no_fp32_logits(backend, flat):
    torch.manual_seed(0)
    model = Head(flat)
    shape = (ROWS, D) if flat else (4, ROWS // 4, D)
    x = torch.randn(*shape)
    labels = torch.randint(0, VOCAB, shape[:-1])
    labels.view(-1)[::5] = -100                   # ignored positions, as a shifted language-model loss has
    compiled, compiler = _compile(model, backend)
    got = _run(compiled, model, x, labels)
    want = _run(model, model, x, labels)
    torch.testing.assert_close(got[0], want[0], rtol=1e-4, atol=1e-5)
    # the logits' gradient is rounded to bf16 in both; an element whose fp32 value differs in
    # its last bits may round the other way (one bf16 ulp, 2^-8 relative)
    for g, w in zip(got[1:], want[1:]):
        torch.testing.assert_close(g, w, rtol=2e-2, atol=1e-3)

    assert len(compiler.compiled) == 2, "a forward and a backward"
    fwd, bwd = compiler.compiled
    gathers = [line for line in fwd.schedule_text.splitlines() if "aten.gather" in line]
    assert len(gathers) == 1 and f"bfloat16[{ROWS}, 1]" in gathers[0], fwd.schedule_text
    for cg in (fwd, bwd):
        # one kernel over [rows, vocabulary] each way: the forward's log-softmax reductions,
        # the backward's row sums and the gradient they scale
        domains = re.findall(r"^kernel \w+ \[([\d, ]+)\]", cg.schedule_text, re.M)
        full = [d for d in domains if [int(s) for s in d.split(",")] in ([ROWS, VOCAB], [4, ROWS // 4, VOCAB])]
        assert len(full) == 1, cg.schedule_text
        # no fp32 buffer of the logits' size is allocated
        sizes = re.findall(r"_(?:empty|reuse)\((?:\w+, )?\(([\d, ]+)\), torch\.float32", cg.wrapper)
        big = [s for s in sizes if math.prod(int(v) for v in s.split(",") if v.strip()) == ROWS * VOCAB]
        assert big == [], cg.wrapper


def _widened_row_sums(a):
    return (a * 2).view(32, 16).float().sum(-1)


def test_a_widening_cast_of_a_reshaped_value_stays_on_its_reader():
    """cast(reshape(y)) moves to reshape(cast(y)) only when the cast narrows: the reshape of a
    computed y needs memory, and moved, the stored value would be the fp32 one, twice the bf16
    y's bytes, where the cast's reader (a row sum) computes the cast itself."""
    a = torch.randn(4, 8, 16).to(torch.bfloat16)
    compiled, compiler = _compile(_widened_row_sums, "cpp")
    torch.testing.assert_close(compiled(a), _widened_row_sums(a), rtol=1e-5, atol=1e-5)
    (cg,) = compiler.compiled
    assert re.search(r"_empty\(\(4, 8, 16\), torch\.bfloat16", cg.wrapper), cg.wrapper
    assert not re.search(r"\(4, 8, 16\), torch\.float32", cg.wrapper), cg.wrapper


def _two_readers_of_a_reshape(a):
    rows = (a * 2).view(32, 16)
    return rows.sum(-1), rows.to(torch.bfloat16).float().amax(-1)


def test_a_cast_of_a_reshape_read_elsewhere_too_stays():
    """The reshape's value is stored for its other reader in any case: moved, the cast would
    store a second, bf16 copy of it."""
    a = torch.randn(4, 8, 16)
    compiled, compiler = _compile(_two_readers_of_a_reshape, "cpp")
    for g, w in zip(compiled(a), _two_readers_of_a_reshape(a)):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)
    (cg,) = compiler.compiled
    assert not re.search(r"torch\.bfloat16", cg.wrapper), cg.wrapper


def _gather_of_a_narrowed_value(a, index):
    return torch.gather((a * 2).to(torch.bfloat16), 1, index)


def test_a_gather_of_a_narrowing_cast_of_a_computed_value_stays():
    """The ATen gather's source is stored in any case: gathered from the bf16 cast, the stored
    source is the bf16 one, not the fp32 value it was cast from."""
    a = torch.randn(8, 64)
    index = torch.randint(0, 64, (8, 3))
    compiled, compiler = _compile(_gather_of_a_narrowed_value, "cpp")
    torch.testing.assert_close(compiled(a, index), _gather_of_a_narrowed_value(a, index), rtol=0, atol=0)
    (cg,) = compiler.compiled
    assert re.search(r"_empty\(\(8, 64\), torch\.bfloat16", cg.wrapper), cg.wrapper
    assert not re.search(r"\(8, 64\), torch\.float32", cg.wrapper), cg.wrapper
