"""The models of the fidelity tests, with their data, loss and optimizers.

Each case builds a tiny model with random weights (nothing is downloaded) and
makes the batch of any step from a generator seeded by the step, so an eager
and a compiled run see exactly the same data. `shape` selects one of two input
shapes (0 is the default) for the recompilation tests.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass(frozen=True)
class ModelCase:
    name: str
    build: Callable[[], nn.Module]
    batch: Callable[[int, int], dict]                  # (step, shape) -> batch
    loss: Callable[[nn.Module, dict], torch.Tensor]    # training loss of a batch
    output: Callable[[nn.Module, dict], torch.Tensor]  # what inference returns
    sgd_lr: float
    adamw_lr: float


def _gen(step: int, shape: int) -> torch.Generator:
    return torch.Generator().manual_seed(1000 * (shape + 1) + step)


# -- MLP ----------------------------------------------------------------------

def _mlp() -> nn.Module:
    return nn.Sequential(
        nn.Linear(32, 64), nn.GELU(), nn.Dropout(0.1),
        nn.Linear(64, 64), nn.LayerNorm(64), nn.ReLU(),
        nn.Linear(64, 10),
    )


def _mlp_batch(step: int, shape: int) -> dict:
    g = _gen(step, shape)
    n = (16, 8)[shape]
    return {"x": torch.randn(n, 32, generator=g), "y": torch.randint(0, 10, (n,), generator=g)}


# -- CNN: convolution, batch norm with running statistics, max and average pooling

class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.avg_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


def _cnn_batch(step: int, shape: int) -> dict:
    g = _gen(step, shape)
    side = (16, 12)[shape]
    return {"x": torch.randn(8, 3, side, side, generator=g), "y": torch.randint(0, 10, (8,), generator=g)}


def _classifier_loss(model: nn.Module, b: dict) -> torch.Tensor:
    return F.cross_entropy(model(b["x"]), b["y"])


def _classifier_output(model: nn.Module, b: dict) -> torch.Tensor:
    return model(b["x"])


# -- GPT-2 and BERT from transformers configs ------------------------------------

VOCAB = 128


def _gpt2() -> nn.Module:
    from transformers import GPT2Config, GPT2LMHeadModel
    cfg = GPT2Config(n_layer=2, n_embd=64, n_head=4, vocab_size=VOCAB, n_positions=64,
                     bos_token_id=VOCAB - 1, eos_token_id=VOCAB - 1)
    return GPT2LMHeadModel(cfg)   # dropout probabilities stay at the default 0.1


def _gpt2_batch(step: int, shape: int) -> dict:
    g = _gen(step, shape)
    seq = (16, 24)[shape]
    return {"input_ids": torch.randint(0, VOCAB, (2, seq), generator=g)}


def _gpt2_loss(model: nn.Module, b: dict) -> torch.Tensor:
    return model(input_ids=b["input_ids"], labels=b["input_ids"]).loss


def _gpt2_output(model: nn.Module, b: dict) -> torch.Tensor:
    return model(input_ids=b["input_ids"]).logits


def _bert() -> nn.Module:
    from transformers import BertConfig, BertForMaskedLM
    cfg = BertConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, intermediate_size=128,
                     vocab_size=VOCAB, max_position_embeddings=64)
    return BertForMaskedLM(cfg)   # dropout probabilities stay at the default 0.1


def _bert_batch(step: int, shape: int) -> dict:
    g = _gen(step, shape)
    seq = (16, 24)[shape]
    ids = torch.randint(1, VOCAB, (2, seq), generator=g)
    attention_mask = torch.ones(2, seq, dtype=torch.long)
    attention_mask[1, seq - 5:] = 0           # the second sequence is padded
    ids[1, seq - 5:] = 0
    # masked-LM labels: about 15% of the real tokens, the rest ignored (-100)
    picked = (torch.rand(2, seq, generator=g) < 0.15) & attention_mask.bool()
    picked[0, 0] = True                        # at least one label per batch
    labels = torch.where(picked, ids, torch.full_like(ids, -100))
    ids = torch.where(picked, torch.full_like(ids, VOCAB - 1), ids)   # VOCAB-1 plays [MASK]
    return {"input_ids": ids, "attention_mask": attention_mask, "labels": labels}


def _bert_loss(model: nn.Module, b: dict) -> torch.Tensor:
    return model(input_ids=b["input_ids"], attention_mask=b["attention_mask"], labels=b["labels"]).loss


def _bert_output(model: nn.Module, b: dict) -> torch.Tensor:
    return model(input_ids=b["input_ids"], attention_mask=b["attention_mask"]).logits


MLP = ModelCase("mlp", _mlp, _mlp_batch, _classifier_loss, _classifier_output, sgd_lr=0.05, adamw_lr=1e-3)
CNN = ModelCase("cnn", SmallCNN, _cnn_batch, _classifier_loss, _classifier_output, sgd_lr=0.05, adamw_lr=1e-3)
GPT2 = ModelCase("gpt2", _gpt2, _gpt2_batch, _gpt2_loss, _gpt2_output, sgd_lr=0.02, adamw_lr=1e-3)
BERT = ModelCase("bert", _bert, _bert_batch, _bert_loss, _bert_output, sgd_lr=0.02, adamw_lr=1e-3)

def _gpt2_no_dropout() -> nn.Module:
    # Without dropout, causal attention runs ATen's fused CPU attention kernel, a
    # different path (forward and backward) from the dropout case.
    from transformers import GPT2Config, GPT2LMHeadModel
    cfg = GPT2Config(n_layer=2, n_embd=64, n_head=4, vocab_size=VOCAB, n_positions=64,
                     bos_token_id=VOCAB - 1, eos_token_id=VOCAB - 1,
                     resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    return GPT2LMHeadModel(cfg)


GPT2_NO_DROPOUT = ModelCase("gpt2-no-dropout", _gpt2_no_dropout, _gpt2_batch, _gpt2_loss, _gpt2_output,
                            sgd_lr=0.02, adamw_lr=1e-3)

# for pytest.mark.parametrize("case", CASES): the transformer models are the slow ones
CASES = [pytest.param(MLP, id="mlp"), pytest.param(CNN, id="cnn"),
         pytest.param(GPT2, id="gpt2", marks=pytest.mark.slow),
         pytest.param(BERT, id="bert", marks=pytest.mark.slow)]
TRAINING_CASES = CASES + [pytest.param(GPT2_NO_DROPOUT, id="gpt2-no-dropout", marks=pytest.mark.slow)]


# -- optimizers -------------------------------------------------------------------

def sgd_momentum(model: nn.Module, case: ModelCase) -> torch.optim.Optimizer:
    return torch.optim.SGD(model.parameters(), lr=case.sgd_lr, momentum=0.9)


def adamw(model: nn.Module, case: ModelCase) -> torch.optim.Optimizer:
    # The usual transformer set-up: weight decay on matrices only, two groups.
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    return torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                              {"params": no_decay, "weight_decay": 0.0}], lr=case.adamw_lr)


OPTIMIZERS: dict[str, Callable[[nn.Module, ModelCase], Any]] = {"sgd_momentum": sgd_momentum, "adamw": adamw}
