"""Plain PyTorch models: the MLP and the small CNN.

Both compute their loss inside forward, as the transformers models do when given
labels, so a compiler that compiles the module compiles the loss with it.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .registry import IMAGE, VECTOR, ModelSpec, Size, register


class MLP(nn.Module):
    """Blocks of Linear(width, width) + GELU + LayerNorm, regressed onto a target (MSE)."""

    def __init__(self, width: int, blocks: int):
        super().__init__()
        self.blocks = nn.ModuleList(
            nn.ModuleDict({"linear": nn.Linear(width, width), "norm": nn.LayerNorm(width)})
            for _ in range(blocks))

    def forward(self, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block["norm"](F.gelu(block["linear"](x)))
        return F.mse_loss(x, target)


def _mlp_inputs(arch, batch, seq, image, g):
    w = arch["width"]
    return {"x": torch.randn(batch, w, generator=g), "target": torch.randn(batch, w, generator=g)}


register(ModelSpec(
    name="mlp",
    kind=VECTOR,
    summary="MLP: blocks of Linear + GELU + LayerNorm, MSE loss",
    sizes={
        "tiny": Size(arch={"width": 32, "blocks": 2}, batch=4),
        # The core benchmark's MLP: 6 blocks of Linear(1024) + GELU + LayerNorm at batch 256.
        "small": Size(arch={"width": 1024, "blocks": 6}, batch=256),
        "full": Size(arch={"width": 4096, "blocks": 6}, batch=512),
    },
    make_model=lambda arch, seq, image: MLP(arch["width"], arch["blocks"]),
    make_inputs=_mlp_inputs,
    loss=lambda model, inputs: model(**inputs),
))


class SmallCNN(nn.Module):
    """Stages of Conv3x3 + BatchNorm + ReLU + MaxPool(2), global average pool, linear classifier."""

    def __init__(self, channels: tuple[int, ...], num_classes: int):
        super().__init__()
        layers, c_in = [], 3
        for c in channels:
            layers += [nn.Conv2d(c_in, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU(),
                       nn.MaxPool2d(2)]
            c_in = c
        self.features = nn.Sequential(*layers)
        self.head = nn.Linear(c_in, num_classes)

    def forward(self, pixel_values: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        h = self.features(pixel_values).mean(dim=(2, 3))
        return F.cross_entropy(self.head(h), labels)


def _image_inputs(arch, batch, seq, image, g):
    return {"pixel_values": torch.randn(batch, 3, image, image, generator=g),
            "labels": torch.randint(0, arch["num_classes"], (batch,), generator=g)}


register(ModelSpec(
    name="cnn",
    kind=IMAGE,
    summary="small CNN: Conv3x3 + BatchNorm + ReLU + MaxPool stages, cross-entropy",
    sizes={
        "tiny": Size(arch={"channels": (4, 8), "num_classes": 10}, batch=2, image=16),
        "small": Size(arch={"channels": (32, 64, 128, 256), "num_classes": 10}, batch=64, image=32),
        "full": Size(arch={"channels": (64, 128, 256, 512), "num_classes": 10}, batch=256, image=32),
    },
    make_model=lambda arch, seq, image: SmallCNN(tuple(arch["channels"]), arch["num_classes"]),
    make_inputs=_image_inputs,
    loss=lambda model, inputs: model(**inputs),
    min_image=lambda arch: 2 ** len(arch["channels"]),
))
