"""The whole step's vocabulary-sized region run a block of rows at a time
(partition/step_chunks.py).

A language model's lm head, cross-entropy and their gradient run in blocks of
CHUNK_ROWS rows inside `bessemer.compile_step`: the step trains as eager (losses,
clipped norms, gradients, parameters, optimizer state), the region was cut (a test
that could pass with nothing cut asserts it was), and the program's planned peak
is below the same step with the region whole. What is not row by row is left whole.
"""
import copy

import pytest
import torch
from torch import nn

import bessemer
from bessemer.compiler.partition import step_chunks
from step_testing import steps_as_eager, trained_as_eager

CFG = dict(fallback="error", graph_cache=False)
VOCAB, D = 1024, 32


class TinyLM(nn.Module):
    def __init__(self, tied=False, bias=False):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.ln = nn.LayerNorm(D)
        self.fc = nn.Linear(D, D)
        self.head = nn.Linear(D, VOCAB, bias=bias)
        if tied:
            self.head.weight = self.emb.weight

    def forward(self, ids):
        h = self.emb(ids)
        h = h + nn.functional.gelu(self.fc(self.ln(h)))
        return self.head(h)


def causal_lm_loss(model, ids, labels):
    """transformers' ForCausalLMLoss: labels padded with the ignore index and shifted, the
    logits' rows kept as they are."""
    logits = model(ids)
    labels = nn.functional.pad(labels, (0, 1), value=-100)[..., 1:].contiguous()
    return nn.functional.cross_entropy(logits.view(-1, VOCAB), labels.view(-1), ignore_index=-100)


def shifted_loss(model, ids, labels):
    """The logits' last position dropped (a copy of [B, T - 1, V]): blocks of whole sequences."""
    logits = model(ids)
    return nn.functional.cross_entropy(logits[:, :-1].reshape(-1, VOCAB), labels[:, 1:].reshape(-1))


def smoothed_loss(model, ids, labels):
    logits = model(ids)
    return nn.functional.cross_entropy(logits.flatten(0, 1), labels.flatten(), label_smoothing=0.1)


def summed_loss(model, ids, labels):
    logits = model(ids).flatten(0, 1)
    return nn.functional.cross_entropy(logits, labels.flatten(), reduction="sum") / 1000.0


def _data(n, batch=8, seq=75):
    g = torch.Generator().manual_seed(5)
    out = []
    for _ in range(n):
        ids = torch.randint(0, VOCAB, (batch, seq), generator=g)
        labels = torch.randint(0, VOCAB, (batch, seq), generator=g)
        labels[:, :3] = -100
        out.append((ids, labels))
    return out


def _counting(monkeypatch):
    cuts = []
    real = step_chunks.chunk_rows

    def counting(gm):
        cuts.append(real(gm))
        return cuts[-1]
    monkeypatch.setattr(step_chunks, "chunk_rows", counting)
    return cuts


def _train_both(model, loss_fn, steps=3, seeded=False, **data):
    ref = copy.deepcopy(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9, weight_decay=1e-2)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.5, momentum=0.9, weight_decay=1e-2)
    step = bessemer.compile_step(model, opt, loss_fn, max_grad_norm=1.0, set_grads=True,
                                 config=bessemer.TrainingCompilerConfig(**CFG))
    steps_as_eager(step, model, ref, ref_opt, loss_fn, _data(steps, **data), 1.0, seed=100 if seeded else None)
    assert step.compiled_steps == steps and step.eager_steps == 0
    trained_as_eager(model, opt, ref, ref_opt)
    return step


@pytest.mark.parametrize("loss_fn", [causal_lm_loss, shifted_loss, smoothed_loss, summed_loss],
                         ids=["causal-lm", "shifted", "label-smoothing", "sum"])
@pytest.mark.parametrize("tied,bias", [(False, False), (True, False), (False, True)],
                         ids=["untied", "tied", "bias"])
def test_the_loss_in_blocks_of_rows_trains_as_eager(monkeypatch, loss_fn, tied, bias):
    # 8 x 75 = 600 rows: blocks of 256, 256 and 88 (shifted: 3 sequences, 3 and 2)
    cuts = _counting(monkeypatch)
    torch.manual_seed(0)
    _train_both(TinyLM(tied=tied, bias=bias), loss_fn)
    assert cuts == [1], cuts


def _planned_peak(model, loss_fn):
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    step = bessemer.compile_step(model, opt, loss_fn, max_grad_norm=1.0,
                                 config=bessemer.TrainingCompilerConfig(**CFG))
    step(*_data(1, batch=16, seq=128)[0])
    (cg,) = step.backend.compiled
    return cg.memory.peak_bytes


@pytest.mark.parametrize("loss_fn", [causal_lm_loss, shifted_loss], ids=["causal-lm", "shifted"])
def test_blocks_lower_the_planned_peak(monkeypatch, loss_fn):
    """16 x 128 rows of 1024 logits: 8 MiB a [rows, vocabulary] tensor whole, 1 MiB a block."""
    torch.manual_seed(0)
    model = TinyLM()
    blocked = _planned_peak(copy.deepcopy(model), loss_fn)
    monkeypatch.setattr(step_chunks, "CHUNK_ROWS", 1 << 30)     # never cut
    whole = _planned_peak(copy.deepcopy(model), loss_fn)
    assert blocked < 0.5 * whole, (blocked, whole)


def across_rows_loss(model, ids, labels):
    """A softmax over the rows (dim 0) is not row by row: the region stays whole."""
    logits = model(ids).flatten(0, 1)
    return -torch.log_softmax(logits, 0).mean()


def test_work_across_rows_is_left_whole(monkeypatch):
    cuts = _counting(monkeypatch)
    torch.manual_seed(0)
    _train_both(TinyLM(), across_rows_loss, steps=2)
    assert cuts == [0], cuts


def test_few_rows_are_left_whole(monkeypatch):
    cuts = _counting(monkeypatch)
    torch.manual_seed(0)
    _train_both(TinyLM(), causal_lm_loss, steps=2, batch=2, seq=100)    # 200 rows: one block
    assert cuts == [0], cuts


def randomly_weighted_loss(model, ids, labels):
    """Row weights drawn after the logits: the blocks would have to draw them earlier, out
    of eager's order, so the region stays whole (and the draws are eager's)."""
    logits = model(ids).flatten(0, 1)
    offset = torch.rand(())                 # drawn first, read outside the region
    weights = torch.rand(logits.shape[0])
    per_row = nn.functional.cross_entropy(logits, labels.flatten().clamp(min=0), reduction="none")
    return (per_row * weights).mean() + offset


def test_a_draw_after_the_logits_keeps_the_region_whole(monkeypatch):
    cuts = _counting(monkeypatch)
    torch.manual_seed(0)
    _train_both(TinyLM(), randomly_weighted_loss, steps=2, seeded=True)
    assert cuts == [0], cuts


def _hf_lm(kind):
    import transformers
    from bessemer.zoo import hf
    hf.quiet()
    if kind == "gpt2":       # tied head, dropout on (its draws are eager's, in eager's order)
        cfg = transformers.GPT2Config(n_layer=1, n_embd=32, n_head=2, vocab_size=2048, n_positions=128,
                                      bos_token_id=0, eos_token_id=0)
        return transformers.GPT2LMHeadModel(cfg)
    cfg = transformers.LlamaConfig(num_hidden_layers=1, hidden_size=32, intermediate_size=64,
                                   num_attention_heads=2, num_key_value_heads=1, vocab_size=2048,
                                   max_position_embeddings=128, tie_word_embeddings=False)
    return transformers.LlamaForCausalLM(cfg)


def hf_loss(model, ids, labels):
    return model(input_ids=ids, labels=labels).loss


@pytest.mark.parametrize("kind", ["gpt2", "llama"])
def test_transformers_language_models_train_as_eager_in_blocks(monkeypatch, kind):
    """transformers' own lm head and ForCausalLMLoss: 4 x 128 rows of 2048 words, two blocks."""
    cuts = _counting(monkeypatch)
    torch.manual_seed(0)
    _train_both(_hf_lm(kind), hf_loss, steps=2, seeded=True, batch=4, seq=128)
    assert cuts == [1], cuts


def test_one_long_sequence_is_cut_into_blocks_of_rows(monkeypatch):
    """Batch 1: the logits' [1, T, V] view has one group; the [T, V] round trip through it is
    the product itself, so the rows are blocked."""
    cuts = _counting(monkeypatch)
    torch.manual_seed(0)
    _train_both(TinyLM(), causal_lm_loss, steps=2, batch=1, seq=600)
    assert cuts == [1], cuts
