"""Model families from transformers, each at a tiny size with random weights.

Every family is built from its own transformers config (written here, nothing
is downloaded), with its usual training head and loss, and a batch made from a
generator seeded by the step. Dropout, drop-path, layer-drop and wav2vec2's
time masking are off: the float64 reference run and the compiled run must see
the same function (their random draws would differ). Sizes are one or two
layers, hidden 32, sequences of 8-16 tokens and images of 32 pixels, so that a
family compiles and trains in seconds on two cores.

timm's models are not among them: timm imports torchvision (timm.layers needs
torchvision.ops), and the registry's torchvision wheel for this torch does not
load beside the CPU build of torch (its operator library fails to register
torchvision::nms).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import torch
import torch.nn as nn

from bessemer.zoo import hf

VOCAB = 96
BATCH = 2
SEQ = 12


@dataclass(frozen=True)
class Family:
    name: str
    group: str                                   # decoder / encoder / seq2seq / speech / vision
    config_cls: str
    model_cls: str
    arch: Mapping[str, Any]
    batch: Callable[[torch.Generator], dict]     # one batch from a seeded generator

    def build(self) -> nn.Module:
        return hf.make_model(self.model_cls, hf.make_config(self.config_cls, dict(self.arch)))

    def make_batch(self, step: int) -> dict:
        g = torch.Generator().manual_seed(1000 + step)
        return self.batch(g)


def loss_of(model: nn.Module, batch: dict) -> torch.Tensor:
    return model(**batch).loss


# -- batches --------------------------------------------------------------------
def _ids(g, batch=BATCH, seq=SEQ, vocab=VOCAB):
    return torch.randint(4, vocab, (batch, seq), generator=g)


def _causal(g):
    ids = _ids(g)
    mask = torch.ones_like(ids)
    mask[1, SEQ - 3:] = 0                # the second sequence is padded
    labels = ids.masked_fill(mask == 0, -100)
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


def _masked_lm(g):
    ids = _ids(g)
    mask = torch.ones_like(ids)
    mask[1, SEQ - 4:] = 0                # the second sequence is right-padded
    picked = (torch.rand(ids.shape, generator=g) < 0.3) & mask.bool()
    picked[0, 1] = True
    labels = torch.where(picked, ids, torch.full_like(ids, -100))
    ids = torch.where(picked, torch.full_like(ids, 3), ids)         # id 3 plays [MASK]
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


def _replaced_tokens(g):
    ids = _ids(g)
    mask = torch.ones_like(ids)
    mask[1, SEQ - 4:] = 0
    return {"input_ids": ids, "attention_mask": mask,
            "labels": (torch.rand(ids.shape, generator=g) < 0.2).long()}


def _seq2seq(g):
    ids = _ids(g)
    mask = torch.ones_like(ids)
    mask[1, SEQ - 3:] = 0
    labels = _ids(g, seq=SEQ - 2)
    labels[1, -2:] = -100
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


def _images(classes, side=32):
    def make(g):
        return {"pixel_values": torch.randn(BATCH, 3, side, side, generator=g),
                "labels": torch.randint(0, classes, (BATCH,), generator=g)}
    return make


def _segmentation(classes, side=32):
    def make(g):
        return {"pixel_values": torch.randn(BATCH, 3, side, side, generator=g),
                "labels": torch.randint(0, classes, (BATCH, side, side), generator=g)}
    return make


def _ctc(g):
    # 1600 samples: two conv layers of stride 5 and 4 (kernel 10, 8) leave 78 frames
    values = torch.randn(BATCH, 1600, generator=g)
    labels = torch.randint(1, VOCAB, (BATCH, 10), generator=g)
    labels[1, 7:] = -100
    return {"input_values": values, "labels": labels}


def _whisper(g):
    # log-mel features: num_mel_bins x (2 * max_source_positions) frames
    feats = torch.randn(BATCH, 16, 32, generator=g)
    labels = _ids(g, seq=8)
    return {"input_features": feats, "labels": labels}


def _clip(g):
    ids = _ids(g, batch=4, seq=SEQ)
    mask = torch.ones_like(ids)
    mask[1, SEQ - 4:] = 0
    return {"input_ids": ids, "attention_mask": mask,
            "pixel_values": torch.randn(4, 3, 32, 32, generator=g), "return_loss": True}


# -- the families ---------------------------------------------------------------
_DEC = {"vocab_size": VOCAB, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
        "intermediate_size": 64, "max_position_embeddings": 64}
_ENC = {"vocab_size": VOCAB, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
        "intermediate_size": 64, "max_position_embeddings": 64}
_S2S = {"vocab_size": VOCAB, "d_model": 32, "encoder_layers": 1, "decoder_layers": 1,
        "encoder_attention_heads": 4, "decoder_attention_heads": 4, "encoder_ffn_dim": 64,
        "decoder_ffn_dim": 64, "max_position_embeddings": 64, "pad_token_id": 1,
        "decoder_start_token_id": 2}

FAMILIES: list[Family] = [
    # decoder LMs
    Family("llama", "decoder", "LlamaConfig", "LlamaForCausalLM", {**_DEC, "num_key_value_heads": 2}, _causal),
    Family("mistral", "decoder", "MistralConfig", "MistralForCausalLM",
           {**_DEC, "num_key_value_heads": 2, "sliding_window": 8}, _causal),
    Family("qwen2", "decoder", "Qwen2Config", "Qwen2ForCausalLM", {**_DEC, "num_key_value_heads": 2}, _causal),
    Family("phi", "decoder", "PhiConfig", "PhiForCausalLM", {**_DEC, "partial_rotary_factor": 0.5}, _causal),
    Family("gemma", "decoder", "GemmaConfig", "GemmaForCausalLM",
           {**_DEC, "num_key_value_heads": 1, "head_dim": 8}, _causal),
    Family("gpt-neox", "decoder", "GPTNeoXConfig", "GPTNeoXForCausalLM", {**_DEC, "rotary_pct": 0.5}, _causal),
    Family("opt", "decoder", "OPTConfig", "OPTForCausalLM",
           {"vocab_size": VOCAB, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
            "ffn_dim": 64, "word_embed_proj_dim": 32, "max_position_embeddings": 64, "pad_token_id": 1},
           _causal),
    Family("bloom", "decoder", "BloomConfig", "BloomForCausalLM",
           {"vocab_size": VOCAB, "hidden_size": 32, "n_layer": 2, "n_head": 4}, _causal),
    Family("falcon", "decoder", "FalconConfig", "FalconForCausalLM",
           {"vocab_size": VOCAB, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
            "new_decoder_architecture": True, "num_kv_heads": 2}, _causal),
    # encoders
    Family("electra", "encoder", "ElectraConfig", "ElectraForPreTraining",
           {**_ENC, "embedding_size": 16}, _replaced_tokens),
    Family("xlm-roberta", "encoder", "XLMRobertaConfig", "XLMRobertaForMaskedLM",
           {**_ENC, "max_position_embeddings": 66, "pad_token_id": 1}, _masked_lm),
    Family("mpnet", "encoder", "MPNetConfig", "MPNetForMaskedLM",
           {**_ENC, "max_position_embeddings": 66, "pad_token_id": 1}, _masked_lm),
    # sequence to sequence
    Family("t5", "seq2seq", "T5Config", "T5ForConditionalGeneration",
           {"vocab_size": VOCAB, "d_model": 32, "d_kv": 8, "d_ff": 64, "num_layers": 1,
            "num_decoder_layers": 1, "num_heads": 4, "relative_attention_num_buckets": 8,
            "decoder_start_token_id": 0, "pad_token_id": 0}, _seq2seq),
    Family("bart", "seq2seq", "BartConfig", "BartForConditionalGeneration", _S2S, _seq2seq),
    Family("marian", "seq2seq", "MarianConfig", "MarianMTModel", _S2S, _seq2seq),
    Family("pegasus", "seq2seq", "PegasusConfig", "PegasusForConditionalGeneration", _S2S, _seq2seq),
    # speech
    Family("wav2vec2", "speech", "Wav2Vec2Config", "Wav2Vec2ForCTC",
           {"vocab_size": VOCAB, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
            "intermediate_size": 64, "conv_dim": (16, 16), "conv_stride": (5, 4), "conv_kernel": (10, 8),
            "num_conv_pos_embeddings": 16, "num_conv_pos_embedding_groups": 4, "mask_time_prob": 0.0,
            "ctc_loss_reduction": "mean", "pad_token_id": 0}, _ctc),
    Family("whisper", "speech", "WhisperConfig", "WhisperForConditionalGeneration",
           {"vocab_size": VOCAB, "num_mel_bins": 16, "d_model": 32, "encoder_layers": 1, "decoder_layers": 1,
            "encoder_attention_heads": 4, "decoder_attention_heads": 4, "encoder_ffn_dim": 64,
            "decoder_ffn_dim": 64, "max_source_positions": 16, "max_target_positions": 32,
            "pad_token_id": 1, "decoder_start_token_id": 2, "bos_token_id": 2, "eos_token_id": 3,
            "begin_suppress_tokens": None, "suppress_tokens": None}, _whisper),
    # vision
    Family("vit", "vision", "ViTConfig", "ViTForImageClassification",
           {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 64,
            "image_size": 32, "patch_size": 8, "num_labels": 10}, _images(10)),
    Family("swin", "vision", "SwinConfig", "SwinForImageClassification",
           {"image_size": 32, "patch_size": 4, "embed_dim": 16, "depths": [1, 1], "num_heads": [2, 4],
            "window_size": 4, "drop_path_rate": 0.0, "num_labels": 10}, _images(10)),
    Family("convnext", "vision", "ConvNextConfig", "ConvNextForImageClassification",
           {"num_stages": 2, "hidden_sizes": [16, 32], "depths": [1, 1], "patch_size": 4, "drop_path_rate": 0.0,
            "num_labels": 10}, _images(10)),
    Family("resnet", "vision", "ResNetConfig", "ResNetForImageClassification",
           {"embedding_size": 8, "hidden_sizes": [16, 32], "depths": [1, 1], "layer_type": "bottleneck",
            "num_labels": 10}, _images(10)),
    Family("mobilevit", "vision", "MobileViTConfig", "MobileViTForImageClassification",
           {"image_size": 32, "patch_size": 2, "hidden_sizes": [16, 24, 32], "neck_hidden_sizes":
            [8, 8, 16, 16, 24, 24, 32], "num_attention_heads": 2, "num_labels": 10}, _images(10)),
    Family("segformer", "vision", "SegformerConfig", "SegformerForSemanticSegmentation",
           {"num_encoder_blocks": 2, "depths": [1, 1], "sr_ratios": [2, 1], "hidden_sizes": [16, 32],
            "patch_sizes": [7, 3], "strides": [4, 2], "num_attention_heads": [1, 2], "mlp_ratios": [2, 2],
            "decoder_hidden_size": 32, "drop_path_rate": 0.0, "num_labels": 5}, _segmentation(5)),
    Family("clip", "vision", "CLIPConfig", "CLIPModel",
           {"text_config": {"vocab_size": VOCAB, "hidden_size": 32, "num_hidden_layers": 1,
                            "num_attention_heads": 4, "intermediate_size": 64, "max_position_embeddings": 32,
                            "projection_dim": 16, "eos_token_id": VOCAB - 1},
            "vision_config": {"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 4,
                              "intermediate_size": 64, "image_size": 32, "patch_size": 8,
                              "projection_dim": 16},
            "projection_dim": 16}, _clip),
]

BY_NAME = {f.name: f for f in FAMILIES}
