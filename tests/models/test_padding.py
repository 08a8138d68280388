"""`pad_to_multiple_of`: varying sequence lengths padded into buckets (bessemer/padding.py).

Each model trains eagerly on unpadded batches of varying length, and compiled with
`pad_to_multiple_of=8` on the same batches: the losses, the outputs (cut back to the
real length), the gradients and the trained parameters equal eager's, and the compiled
graphs grow only when a batch falls in a bucket not seen before.
"""
from __future__ import annotations

import copy

import pytest
import torch

from fidelity import assert_losses_equal, assert_tensor_equal

transformers = pytest.importorskip("transformers")

import bessemer  # noqa: E402

VOCAB, BATCH = 40, 3
LENGTHS = [5, 7, 3, 12, 9, 16, 8]        # buckets of 8: 8, 8, 8, 16, 16, 16, 8
MULTIPLE = 8


def _gpt2():
    cfg = transformers.GPT2Config(vocab_size=VOCAB, n_positions=32, n_embd=32, n_layer=1, n_head=2,
                                  resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, use_cache=False)
    return transformers.GPT2LMHeadModel(cfg)


def _bert():
    cfg = transformers.BertConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                                  intermediate_size=64, max_position_embeddings=32, num_labels=3,
                                  hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, pad_token_id=0,
                                  problem_type="single_label_classification")  # set, not guessed at the first call
    return transformers.BertForSequenceClassification(cfg)


def _t5():
    cfg = transformers.T5Config(vocab_size=VOCAB, d_model=32, d_kv=16, d_ff=64, num_layers=1, num_heads=2,
                                dropout_rate=0.0, pad_token_id=0, decoder_start_token_id=0, use_cache=False)
    return transformers.T5ForConditionalGeneration(cfg)


def _batch(kind: str, step: int, length: int) -> dict:
    g = torch.Generator().manual_seed(step)
    ids = torch.randint(1, VOCAB, (BATCH, length), generator=g)
    mask = torch.ones(BATCH, length, dtype=torch.long)
    mask[0, length - 2:] = 0                      # the collator's own padding, inside the batch
    if kind == "gpt2":
        labels = ids.clone()
        labels[mask == 0] = -100
        return {"input_ids": ids, "attention_mask": mask, "labels": labels}
    if kind == "bert":
        return {"input_ids": ids, "attention_mask": mask,
                "labels": torch.randint(0, 3, (BATCH,), generator=g)}
    dec = max(2, length - 2)                       # t5: a decoder length of its own
    return {"input_ids": ids, "attention_mask": mask,
            "labels": torch.randint(1, VOCAB, (BATCH, dec), generator=g)}


def _train(model, kind: str, compiled: bool):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses, logits, grads, graphs = [], [], [], []
    for step, length in enumerate(LENGTHS):
        opt.zero_grad(set_to_none=True)
        out = model(**_batch(kind, step, length))
        out.loss.backward()
        losses.append(out.loss.detach().clone())
        logits.append(out.logits.detach().clone())
        grads.append({n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None})
        opt.step()
        if compiled:
            graphs.append(len(model.forward._bessemer_backend.compiled))
    return losses, logits, grads, graphs


@pytest.mark.parametrize("kind,build", [("gpt2", _gpt2), ("bert", _bert), ("t5", _t5)])
def test_padded_buckets_train_as_eager(kind, build, kernel_cache):
    torch.manual_seed(0)
    eager_model = build()
    compiled_model = copy.deepcopy(eager_model)
    e_losses, e_logits, e_grads, _ = _train(eager_model, kind, compiled=False)
    bessemer.compile(compiled_model, cache_dir=kernel_cache, fallback="error", pad_to_multiple_of=MULTIPLE)
    c_losses, c_logits, c_grads, graphs = _train(compiled_model, kind, compiled=True)

    assert_losses_equal(torch.stack(c_losses), torch.stack(e_losses))
    for step, (c, e) in enumerate(zip(c_logits, e_logits)):
        assert c.shape == e.shape, (step, c.shape, e.shape)           # cut back to the real length
        assert_tensor_equal(c, e, f"logits at step {step}")
    for step, (c, e) in enumerate(zip(c_grads, e_grads)):
        assert set(c) == set(e)
        for name in e:
            assert_tensor_equal(c[name], e[name], f"grad of {name} at step {step}")
    for (name, c), e in zip(compiled_model.state_dict().items(), eager_model.state_dict().values()):
        assert_tensor_equal(c, e, name)
    # New graphs only at a new bucket. Steps 1 and 2 reuse step 0's bucket; step 5 reuses
    # step 3's (t5's decoder lengths make step 4 a new pair of buckets). From step 3 on
    # Dynamo's graph has symbolic sizes (dynamic=None) and specializes each bucket it
    # meets once more, step 0's included: at most a forward and a backward per bucket
    # per Dynamo graph.
    buckets = [_buckets(kind, step, length) for step, length in enumerate(LENGTHS)]
    for step in (1, 2, 5):
        assert buckets[step] in buckets[:step] and graphs[step] == graphs[step - 1], (buckets, graphs)
    assert graphs[0] == 2 and graphs[3] == 4, graphs
    assert graphs[-1] <= 2 * (1 + len(set(buckets))), (buckets, graphs)


def _buckets(kind: str, step: int, length: int) -> tuple:
    up = lambda n: -(-n // MULTIPLE) * MULTIPLE  # noqa: E731
    b = _batch(kind, step, length)
    return (up(length), up(b["labels"].shape[1]) if kind == "t5" else None)


def test_padding_refuses_a_model_without_attention_mask():
    model = torch.nn.Sequential(torch.nn.Linear(4, 4))
    forward = model.forward
    with pytest.raises(ValueError, match="pad_to_multiple_of=8: Sequential.forward takes no attention_mask"):
        bessemer.compile(model, pad_to_multiple_of=8)
    assert model.forward == forward          # nothing was changed


def test_padding_refuses_a_last_token_classifier_without_pad_token():
    cfg = transformers.GPT2Config(vocab_size=VOCAB, n_positions=32, n_embd=32, n_layer=1, n_head=2, num_labels=2)
    model = transformers.GPT2ForSequenceClassification(cfg)
    assert cfg.pad_token_id is None
    with pytest.raises(ValueError, match="finds each sequence's last token by the pad token"):
        bessemer.compile(model, pad_to_multiple_of=8)


def test_padding_refuses_a_function():
    with pytest.raises(ValueError, match="pad_to_multiple_of applies to nn.Module"):
        bessemer.compile(lambda x: x, pad_to_multiple_of=8)


@pytest.mark.parametrize("bad", [0, -8, 2.5, True, "8"])
def test_pad_to_multiple_of_must_be_a_positive_int(bad):
    with pytest.raises(ValueError, match="TrainingCompilerConfig.pad_to_multiple_of must be None or an int >= 1"):
        bessemer.TrainingCompilerConfig(pad_to_multiple_of=bad)
