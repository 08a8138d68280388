"""A Hugging Face model trained through `transformers.Trainer` with per-batch padding
(`DataCollatorWithPadding`: the sequence length changes at nearly every step), compiled
with bessemer as a training job's start-up hook compiles it (bessemer.compile on the
model, then the Trainer): every graph compiled, Dynamo compiles each frame at most twice
(the first shape, then symbolic sizes), and the training equals the eager Trainer's.

Nothing is downloaded: the model is built from a config with random weights and the
tokenizer is a word-level `tokenizers` model built here.
"""
from __future__ import annotations

import collections
import copy
import warnings

import pytest
import torch

from fidelity import assert_losses_equal, assert_tensor_equal

transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

import bessemer  # noqa: E402
from bessemer.compiler.capture import backend as capture  # noqa: E402

WORDS = [f"w{i}" for i in range(30)]
BATCH, STEPS = 4, 6


def _tokenizer():
    from tokenizers import Tokenizer, models, pre_tokenizers
    vocab = {"[PAD]": 0, "[UNK]": 1, **{w: i + 2 for i, w in enumerate(WORDS)}}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return transformers.PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]")


class Texts(torch.utils.data.Dataset):
    """Sentences of 3 to 14 words, tokenized without padding, labelled 1 when "w7" occurs
    more often than "w8"."""

    def __init__(self, tokenizer, size: int):
        g = torch.Generator().manual_seed(0)
        self.items = []
        for _ in range(size):
            n = int(torch.randint(3, 15, (1,), generator=g))
            words = [WORDS[int(i)] for i in torch.randint(0, len(WORDS), (n,), generator=g)]
            enc = tokenizer(" ".join(words))
            self.items.append({**enc, "labels": int(words.count("w7") > words.count("w8"))})

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


class RecordingTrainer(transformers.Trainer):
    """The loss of every step (unrounded) and the padded length of every batch."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.losses, self.lengths = [], []

    def compute_loss(self, model, inputs, *args, **kwargs):
        self.lengths.append(inputs["input_ids"].shape[1])
        out = super().compute_loss(model, inputs, *args, **kwargs)
        loss = out[0] if isinstance(out, tuple) else out
        self.losses.append(loss.detach().clone())
        return out


def _train(model, tokenizer, out_dir) -> RecordingTrainer:
    args = transformers.TrainingArguments(
        output_dir=str(out_dir), max_steps=STEPS, per_device_train_batch_size=BATCH,
        # SGD: Adam would scale the rounding noise of gradients that are zero in exact
        # arithmetic (the attention key bias) up to the learning rate (see fidelity.py)
        optim="sgd", learning_rate=0.1, seed=0, logging_steps=1, save_strategy="no", report_to=[],
        disable_tqdm=True, use_cpu=True, dataloader_num_workers=0)
    trainer = RecordingTrainer(model=model, args=args, train_dataset=Texts(tokenizer, BATCH * STEPS),
                               data_collator=transformers.DataCollatorWithPadding(tokenizer))
    trainer.train()
    return trainer


def test_trainer_with_per_batch_padding_compiles_twice_and_trains_as_eager(tmp_path, monkeypatch, kernel_cache):
    tokenizer = _tokenizer()
    config = transformers.BertConfig(vocab_size=len(WORDS) + 2, hidden_size=32, num_hidden_layers=1,
                                     num_attention_heads=2, intermediate_size=64, max_position_embeddings=32,
                                     num_labels=2, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                                     pad_token_id=0)
    torch.manual_seed(0)
    eager_model = transformers.BertForSequenceClassification(config)
    compiled_model = copy.deepcopy(eager_model)

    eager = _train(eager_model, tokenizer, tmp_path / "eager")
    assert len(set(eager.lengths)) >= 3, eager.lengths   # the padded length changes between steps

    # Which frame each graph bessemer's backend receives comes from: Dynamo compiles per frame.
    graphs_per_frame = collections.Counter()
    make_backend = capture.make_backend

    def counting_backend(cfg=None):
        be = make_backend(cfg)

        def backend(gm, example_inputs, **kwargs):
            graphs_per_frame[torch._guards.CompileContext.current_compile_id().frame_id] += 1
            return be(gm, example_inputs, **kwargs)

        backend.bessemer = be.bessemer
        return backend

    monkeypatch.setattr(capture, "make_backend", counting_backend)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bessemer.compile(compiled_model, config=bessemer.TrainingCompilerConfig(
            cache_dir=kernel_cache, fallback="error"))
        compiled = _train(compiled_model, tokenizer, tmp_path / "compiled")

    assert compiled.lengths == eager.lengths
    # nothing ran eagerly (fallback="error" raises; no warning said otherwise either)
    said = [str(w.message) for w in caught if str(w.message).startswith("bessemer:")]
    assert [m for m in said if "recompiling a graph" not in m] == []
    graphs = compiled_model.forward._bessemer_backend.compiled
    assert any("." in g.name for g in graphs), [g.name for g in graphs]  # symbolic sizes, specialized per shape
    assert graphs_per_frame and max(graphs_per_frame.values()) <= 2, dict(graphs_per_frame)

    assert len(compiled.losses) == len(eager.losses) == STEPS
    assert_losses_equal(torch.stack(compiled.losses), torch.stack(eager.losses))
    es, cs = eager_model.state_dict(), compiled_model.state_dict()
    assert list(cs) == list(es)
    for name, e in es.items():
        assert_tensor_equal(cs[name], e, name)
    moved = max((p - q).abs().max().item() for p, q in zip(eager_model.state_dict().values(),
                                                           _initial(config).values()))
    assert moved > 1e-3, "training did not move the weights"


def _initial(config):
    torch.manual_seed(0)
    return transformers.BertForSequenceClassification(config).state_dict()


def test_trainer_with_per_batch_padding_and_length_buckets(tmp_path, kernel_cache):
    """The same Trainer run with `pad_to_multiple_of=8`: the collator's lengths (many) fall
    into two buckets, so the compiled graphs are those of two shapes, and the training
    still equals the eager Trainer's."""
    tokenizer = _tokenizer()
    config = transformers.BertConfig(vocab_size=len(WORDS) + 2, hidden_size=32, num_hidden_layers=1,
                                     num_attention_heads=2, intermediate_size=64, max_position_embeddings=32,
                                     num_labels=2, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                                     pad_token_id=0, problem_type="single_label_classification")
    torch.manual_seed(0)
    eager_model = transformers.BertForSequenceClassification(config)
    compiled_model = copy.deepcopy(eager_model)
    eager = _train(eager_model, tokenizer, tmp_path / "eager")

    bessemer.compile(compiled_model, config=bessemer.TrainingCompilerConfig(
        cache_dir=kernel_cache, fallback="error", pad_to_multiple_of=8))
    compiled = _train(compiled_model, tokenizer, tmp_path / "compiled")

    assert compiled.lengths == eager.lengths and len(set(eager.lengths)) >= 3   # what the collator made
    buckets = {-(-n // 8) * 8 for n in eager.lengths}
    graphs = compiled_model.forward._bessemer_backend.compiled
    # a forward and a backward per bucket, each at most twice (static, then specialized
    # from the symbolic graph)
    assert len(graphs) <= 4 * len(buckets), ([g.name for g in graphs], buckets)
    assert_losses_equal(torch.stack(compiled.losses), torch.stack(eager.losses))
    es, cs = eager_model.state_dict(), compiled_model.state_dict()
    for name, e in es.items():
        assert_tensor_equal(cs[name], e, name)
