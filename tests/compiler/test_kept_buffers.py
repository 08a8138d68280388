"""Large buffers kept between calls (runtime._kept): a graph's next call writes into the
memory its last call wrote, but only when nobody holds it any more. An output the caller
keeps, a view of it, or a value autograd saved is never written over; the trained model
matches eager's whether or not the outputs are kept."""
import copy

import torch

import bessemer
from bessemer.compiler import runtime
from bessemer.compiler.codegen import wrapper

# [1024, 256] @ [256, 4096]: a 16 MiB float32 result, the smallest size kept
ROWS, HIDDEN, VOCAB = 1024, 256, 4096


def _compiled(fn):
    return bessemer.compile(fn, config=bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))


def _kept_memory(t: torch.Tensor) -> bool:
    return any(k.data_ptr() == t.data_ptr() for k in list(runtime._KEPT.values()))


def test_the_size_kept_is_the_threshold():
    assert ROWS * VOCAB * 4 == wrapper.KEEP_MIN_BYTES


def test_a_dropped_output_is_written_again_a_kept_one_is_not():
    torch.manual_seed(0)
    x, w = torch.randn(ROWS, HIDDEN), torch.randn(HIDDEN, VOCAB)
    f = _compiled(lambda a, b: torch.mm(a, b) * 1.0)

    out1 = f(x, w)
    ptr1 = out1.data_ptr()
    expected1 = x @ w
    torch.testing.assert_close(out1, expected1)
    # the caller keeps out1: the next call must not write over it
    out2 = f(x * 2, w)
    assert out2.data_ptr() != ptr1
    torch.testing.assert_close(out1, expected1)
    torch.testing.assert_close(out2, (x * 2) @ w)
    # a view of an output holds its memory too
    view = out2[3:]
    ptr2 = out2.data_ptr()
    del out2
    out3 = f(x * 3, w)
    assert out3.data_ptr() != ptr2
    torch.testing.assert_close(view, ((x * 2) @ w)[3:])
    torch.testing.assert_close(out3, (x * 3) @ w)
    # dropped: the next call takes the same kept memory again
    assert _kept_memory(out3)
    ptr3 = out3.data_ptr()
    del out3
    out4 = f(x * 4, w)
    assert out4.data_ptr() == ptr3 and _kept_memory(out4)
    torch.testing.assert_close(out4, (x * 4) @ w)


def test_the_program_keeps_the_matmul_output():
    from bessemer.compiler.capture import make_backend
    backend = make_backend(bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))
    f = torch.compile(lambda a, b: torch.mm(a, b).relu(), backend=backend)
    f(torch.randn(ROWS, HIDDEN), torch.randn(HIDDEN, VOCAB))
    src = "\n".join(cg.wrapper for cg in backend.bessemer.compiled)
    assert "out=_kept(_slots, 0, (1024, 4096)" in src
    torch._dynamo.reset()


class Head(torch.nn.Module):
    """An LM head and its cross-entropy: the logits are saved for the backward, which
    writes their gradient over them when nobody else holds them. It returns a view of
    the first rows of the logits."""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(HIDDEN, HIDDEN)
        self.head = torch.nn.Linear(HIDDEN, VOCAB, bias=False)

    def forward(self, h, labels):
        logits = self.head(torch.tanh(self.proj(h)))
        return torch.nn.functional.cross_entropy(logits, labels), logits[:8]


def test_training_matches_eager_whether_or_not_the_logits_are_held():
    torch.manual_seed(0)
    ref = Head()
    model = copy.deepcopy(ref)
    bessemer.compile(model, config=bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))
    opts = [torch.optim.SGD(m.parameters(), lr=0.5, momentum=0.9) for m in (ref, model)]
    g = torch.Generator().manual_seed(1)
    kept = []
    for step in range(5):
        h = torch.randn(ROWS, HIDDEN, generator=g)
        labels = torch.randint(0, VOCAB, (ROWS,), generator=g)
        outs = []
        for m, opt in zip((ref, model), opts):
            opt.zero_grad(set_to_none=True)
            loss, rows = m(h, labels)
            if step % 2 == 0:
                outs.append(rows.detach())   # held through the backward and across steps
            del rows
            loss.backward()
            opt.step()
        if outs:
            torch.testing.assert_close(outs[1], outs[0])
            kept.append(outs)
        for a, b in zip(ref.parameters(), model.parameters()):
            torch.testing.assert_close(b, a)
    for ref_logits, logits in kept:        # nothing wrote over the logits kept
        torch.testing.assert_close(logits, ref_logits)


def test_a_slot_lets_go_of_a_buffer_someone_holds():
    slots = [None]
    a = runtime._kept(slots, 0, (4, 4), (4, 1), torch.float32)
    assert runtime._KEPT.get(id(a)) is a
    b = runtime._kept(slots, 0, (4, 4), (4, 1), torch.float32)   # `a` is held here
    assert b is not a and slots[0] is b
    assert runtime._KEPT.get(id(a)) is None
    del b
    c = runtime._kept(slots, 0, (4, 4), (4, 1), torch.float32)
    assert c is slots[0]
