"""An embedding's backward runs as eager's ATen op (capture._KEEP), not as its
decomposition (an index_put with accumulate, which takes ATen's serial CPU path): the
gradients and the trained weights match eager's, padding row included."""
import copy

import pytest
import torch

import bessemer


class Embed(torch.nn.Module):
    def __init__(self, padding_idx):
        super().__init__()
        self.tok = torch.nn.Embedding(1000, 32, padding_idx=padding_idx)
        self.pos = torch.nn.Embedding(16, 32)
        self.out = torch.nn.Linear(32, 8)

    def forward(self, ids):
        pos = torch.arange(ids.shape[1]).expand_as(ids)
        return self.out(torch.tanh(self.tok(ids) + self.pos(pos))).square().mean()


@pytest.mark.parametrize("padding_idx", [None, 0])
def test_embedding_backward_is_eagers_op(padding_idx):
    torch.manual_seed(0)
    ref = Embed(padding_idx)
    model = copy.deepcopy(ref)
    bessemer.compile(model, config=bessemer.TrainingCompilerConfig(fallback="error", graph_cache=False))
    opts = [torch.optim.SGD(m.parameters(), lr=0.5) for m in (ref, model)]
    g = torch.Generator().manual_seed(1)
    for _ in range(3):
        ids = torch.randint(0, 40, (4, 16), generator=g)
        ids[:, :3] = 0                      # repeated rows, and the padding row when there is one
        for m, opt in zip((ref, model), opts):
            opt.zero_grad(set_to_none=True)
            m(ids).backward()
        for a, b in zip(ref.parameters(), model.parameters()):
            torch.testing.assert_close(b.grad, a.grad)
        for opt in opts:
            opt.step()
    for a, b in zip(ref.parameters(), model.parameters()):
        torch.testing.assert_close(b, a)
    if padding_idx is not None:
        assert not model.tok.weight.grad[padding_idx].any()
    (bw,) = [cg for cg in model.forward._bessemer_backend.compiled if cg.name.startswith("backward")]
    assert "embedding_dense_backward" in bw.schedule_text
    assert "index_put" not in bw.schedule_text
