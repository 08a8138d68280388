"""Token models from transformers: decoders, encoders and encoder-decoders.

Tasks: decoders (gpt2, distilgpt2, llama) train as causal language models;
encoders (bert, roberta, distilbert, albert, deberta) as sequence classifiers
(2 labels), the task the published compiler claims were about; encoder-decoders
(t5, bart) as sequence-to-sequence language models. `full` is the published
architecture; `small` shares the core benchmark's GPT-2 shape (hidden 256,
4 heads, vocabulary 8192, 128 tokens, batch 8); `tiny` runs a step in well
under a second on two CPU cores.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Optional

import torch

from . import hf
from .registry import TOKENS, ModelSpec, Size, register

# Ids below this are left out of synthetic inputs: they are the special tokens
# (padding, start, end) of the published vocabularies.
_FIRST_ORDINARY_ID = 4


def _ids(arch, batch, seq, g):
    return torch.randint(_FIRST_ORDINARY_ID, arch["vocab_size"], (batch, seq), generator=g)


def _causal_inputs(arch, batch, seq, image, g):
    ids = _ids(arch, batch, seq, g)
    return {"input_ids": ids, "labels": ids.clone()}


def _classify_inputs(arch, batch, seq, image, g):
    return {"input_ids": _ids(arch, batch, seq, g),
            "labels": torch.randint(0, 2, (batch,), generator=g)}


def _seq2seq_inputs(arch, batch, seq, image, g):
    return {"input_ids": _ids(arch, batch, seq, g), "labels": _ids(arch, batch, seq, g)}


_TASKS = {
    "causal": ("ForCausalLM", _causal_inputs, {}),
    "classify": ("ForSequenceClassification", _classify_inputs, {"num_labels": 2}),
    "seq2seq": ("ForConditionalGeneration", _seq2seq_inputs, {}),
}


def _text(name: str, summary: str, family: str, task: str, sizes: Mapping[str, Size],
          max_seq: Optional[Callable[[Mapping[str, Any]], Optional[int]]],
          model_cls: Optional[str] = None) -> None:
    suffix, make_inputs, extra = _TASKS[task]
    config_cls = f"{family}Config"
    model_cls = model_cls or f"{family}{suffix}"

    def make_model(arch, seq, image):
        return hf.make_model(model_cls, hf.make_config(config_cls, arch, **extra))

    register(ModelSpec(name=name, kind=TOKENS, summary=summary, sizes=sizes, make_model=make_model,
                       make_inputs=make_inputs, loss=hf.hf_loss, max_seq=max_seq))


def _key(name: str, offset: int = 0):
    return lambda arch: arch[name] - offset


# -- decoders ----------------------------------------------------------------
_GPT2_TINY = {"n_layer": 2, "n_embd": 32, "n_head": 2, "vocab_size": 256, "n_positions": 64}
_GPT2_SMALL = {"n_layer": 4, "n_embd": 256, "n_head": 4, "vocab_size": 8192, "n_positions": 256}
_GPT2_FULL = {"n_layer": 12, "n_embd": 768, "n_head": 12, "vocab_size": 50257, "n_positions": 1024}

_text("gpt2", "GPT-2 (124M at full), causal LM", "GPT2", "causal", {
    "tiny": Size(_GPT2_TINY, batch=2, seq=16),
    # The core benchmark's GPT-2: GPT2Config(n_layer=4, n_embd=256, n_head=4,
    # vocab_size=8192, n_positions=256) at batch 8 x 128 tokens.
    "small": Size(_GPT2_SMALL, batch=8, seq=128),
    "full": Size(_GPT2_FULL, batch=6, seq=512),
}, max_seq=_key("n_positions"), model_cls="GPT2LMHeadModel")  # GPT-2's causal LM class

_text("distilgpt2", "DistilGPT-2 (GPT-2 with half the layers), causal LM", "GPT2", "causal", {
    "tiny": Size({**_GPT2_TINY, "n_layer": 1}, batch=2, seq=16),
    "small": Size({**_GPT2_SMALL, "n_layer": 2}, batch=8, seq=128),
    "full": Size({**_GPT2_FULL, "n_layer": 6}, batch=8, seq=512),
}, max_seq=_key("n_positions"), model_cls="GPT2LMHeadModel")

_text("llama", "llama-style decoder (RMSNorm, rotary, SwiGLU, grouped-query attention; "
      "SmolLM-135M shape at full), causal LM", "Llama", "causal", {
    "tiny": Size({"hidden_size": 32, "intermediate_size": 88, "num_hidden_layers": 2,
                  "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 16,
                  "vocab_size": 256, "max_position_embeddings": 64}, batch=2, seq=16),
    "small": Size({"hidden_size": 256, "intermediate_size": 688, "num_hidden_layers": 4,
                   "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64,
                   "vocab_size": 8192, "max_position_embeddings": 256}, batch=8, seq=128),
    "full": Size({"hidden_size": 576, "intermediate_size": 1536, "num_hidden_layers": 30,
                  "num_attention_heads": 9, "num_key_value_heads": 3, "head_dim": 64,
                  "vocab_size": 49152, "max_position_embeddings": 2048,
                  "tie_word_embeddings": True, "rms_norm_eps": 1e-5}, batch=8, seq=512),
}, max_seq=_key("max_position_embeddings"))

# -- encoders ----------------------------------------------------------------
_BERT_TINY = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
              "intermediate_size": 64, "vocab_size": 256, "max_position_embeddings": 64}
_BERT_SMALL = {"hidden_size": 256, "num_hidden_layers": 4, "num_attention_heads": 4,
               "intermediate_size": 1024, "vocab_size": 8192, "max_position_embeddings": 256}
_BERT_FULL = {"hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
              "intermediate_size": 3072, "vocab_size": 30522, "max_position_embeddings": 512}

_text("bert-base-uncased", "BERT base, sequence classification", "Bert", "classify", {
    "tiny": Size(_BERT_TINY, batch=2, seq=16),
    "small": Size(_BERT_SMALL, batch=8, seq=128),
    "full": Size(_BERT_FULL, batch=12, seq=512),
}, max_seq=_key("max_position_embeddings"))

# RoBERTa's positions start after the padding id, so two positions are never used.
_text("roberta-base", "RoBERTa base, sequence classification", "Roberta", "classify", {
    "tiny": Size({**_BERT_TINY, "max_position_embeddings": 66, "type_vocab_size": 1}, batch=2, seq=16),
    "small": Size({**_BERT_SMALL, "max_position_embeddings": 258, "type_vocab_size": 1}, batch=8, seq=128),
    "full": Size({**_BERT_FULL, "vocab_size": 50265, "max_position_embeddings": 514, "type_vocab_size": 1,
                  "layer_norm_eps": 1e-5}, batch=12, seq=512),
}, max_seq=_key("max_position_embeddings", 2))

_text("distilbert-base-uncased", "DistilBERT base, sequence classification", "DistilBert", "classify", {
    "tiny": Size({"dim": 32, "n_layers": 1, "n_heads": 2, "hidden_dim": 64, "vocab_size": 256,
                  "max_position_embeddings": 64}, batch=2, seq=16),
    "small": Size({"dim": 256, "n_layers": 2, "n_heads": 4, "hidden_dim": 1024, "vocab_size": 8192,
                   "max_position_embeddings": 256}, batch=8, seq=128),
    "full": Size({"dim": 768, "n_layers": 6, "n_heads": 12, "hidden_dim": 3072, "vocab_size": 30522,
                  "max_position_embeddings": 512}, batch=24, seq=512),
}, max_seq=_key("max_position_embeddings"))

_text("albert-base-v2", "ALBERT base v2 (shared layers, factorized embeddings), sequence classification",
      "Albert", "classify", {
          "tiny": Size({**_BERT_TINY, "embedding_size": 16, "hidden_act": "gelu_new"}, batch=2, seq=16),
          "small": Size({**_BERT_SMALL, "embedding_size": 128, "hidden_act": "gelu_new"}, batch=8, seq=128),
          "full": Size({**_BERT_FULL, "vocab_size": 30000, "embedding_size": 128, "hidden_act": "gelu_new"},
                       batch=12, seq=512),
      }, max_seq=_key("max_position_embeddings"))

# DeBERTa-v3: disentangled relative attention, no absolute positions in the input.
_DEBERTA_V3 = {"relative_attention": True, "max_relative_positions": -1, "norm_rel_ebd": "layer_norm",
               "share_att_key": True, "pos_att_type": ["p2c", "c2p"], "position_biased_input": False,
               "type_vocab_size": 0, "layer_norm_eps": 1e-7, "hidden_act": "gelu"}

_text("deberta-v3-base", "DeBERTa-v3 base (disentangled relative attention), sequence classification",
      "DebertaV2", "classify", {
          "tiny": Size({**_BERT_TINY, **_DEBERTA_V3, "position_buckets": 32}, batch=2, seq=16),
          "small": Size({**_BERT_SMALL, **_DEBERTA_V3, "position_buckets": 128}, batch=8, seq=128),
          "full": Size({**_BERT_FULL, **_DEBERTA_V3, "vocab_size": 128100, "position_buckets": 256},
                       batch=8, seq=512),
      }, max_seq=_key("max_position_embeddings"))

# -- encoder-decoders ------------------------------------------------------------
_text("t5-small", "T5 small (relative position buckets, RMS layer norm), seq2seq LM", "T5", "seq2seq", {
    "tiny": Size({"d_model": 32, "d_kv": 16, "d_ff": 64, "num_layers": 1, "num_decoder_layers": 1,
                  "num_heads": 2, "vocab_size": 256, "decoder_start_token_id": 0}, batch=2, seq=16),
    "small": Size({"d_model": 256, "d_kv": 64, "d_ff": 1024, "num_layers": 2, "num_decoder_layers": 2,
                   "num_heads": 4, "vocab_size": 8192, "decoder_start_token_id": 0}, batch=8, seq=128),
    "full": Size({"d_model": 512, "d_kv": 64, "d_ff": 2048, "num_layers": 6, "num_decoder_layers": 6,
                  "num_heads": 8, "vocab_size": 32128, "feed_forward_proj": "relu",
                  "decoder_start_token_id": 0}, batch=16, seq=512),
}, max_seq=None)

_text("bart-base", "BART base, seq2seq LM", "Bart", "seq2seq", {
    "tiny": Size({"d_model": 32, "encoder_layers": 1, "decoder_layers": 1, "encoder_attention_heads": 2,
                  "decoder_attention_heads": 2, "encoder_ffn_dim": 64, "decoder_ffn_dim": 64,
                  "vocab_size": 256, "max_position_embeddings": 64}, batch=2, seq=16),
    "small": Size({"d_model": 256, "encoder_layers": 2, "decoder_layers": 2, "encoder_attention_heads": 4,
                   "decoder_attention_heads": 4, "encoder_ffn_dim": 1024, "decoder_ffn_dim": 1024,
                   "vocab_size": 8192, "max_position_embeddings": 256}, batch=8, seq=128),
    "full": Size({"d_model": 768, "encoder_layers": 6, "decoder_layers": 6, "encoder_attention_heads": 12,
                  "decoder_attention_heads": 12, "encoder_ffn_dim": 3072, "decoder_ffn_dim": 3072,
                  "vocab_size": 50265, "max_position_embeddings": 1024}, batch=8, seq=512),
}, max_seq=_key("max_position_embeddings"))
