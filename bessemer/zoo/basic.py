"""Plain PyTorch models: the MLP, the small CNN and the UNet.

All compute their loss inside forward, as the transformers models do when given
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


def _double_conv(c_in: int, c_out: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU(),
                         nn.Conv2d(c_out, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU())


class UNet(nn.Module):
    """A UNet for segmentation: an encoder of (Conv3x3 + BatchNorm + ReLU) x 2 stages joined by
    MaxPool(2), a decoder that upsamples 2x (bilinear), concatenates the encoder's output of
    the same size and applies the same double conv, a 1x1 conv to class scores and a per-pixel
    cross-entropy."""

    def __init__(self, channels: tuple[int, ...], num_classes: int):
        super().__init__()
        self.down = nn.ModuleList()
        c_in = 3
        for c in channels:
            self.down.append(_double_conv(c_in, c))
            c_in = c
        self.up = nn.ModuleList(_double_conv(channels[i + 1] + channels[i], channels[i])
                                for i in reversed(range(len(channels) - 1)))
        self.head = nn.Conv2d(channels[0], num_classes, 1)

    def forward(self, pixel_values: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        skips, h = [], pixel_values
        for i, stage in enumerate(self.down):
            h = stage(F.max_pool2d(h, 2) if i else h)
            skips.append(h)
        for stage, skip in zip(self.up, reversed(skips[:-1])):
            h = F.interpolate(h, scale_factor=2, mode="bilinear")
            h = stage(torch.cat([h, skip], dim=1))
        return F.cross_entropy(self.head(h), labels)


def _segmentation_inputs(arch, batch, seq, image, g):
    return {"pixel_values": torch.randn(batch, 3, image, image, generator=g),
            "labels": torch.randint(0, arch["num_classes"], (batch, image, image), generator=g)}


register(ModelSpec(
    name="unet",
    kind=IMAGE,
    summary="UNet: conv encoder, bilinear upsampling decoder with skip concatenation, per-pixel cross-entropy",
    sizes={
        "tiny": Size(arch={"channels": (4, 8, 16), "num_classes": 3}, batch=2, image=16),
        "small": Size(arch={"channels": (16, 32, 64, 128), "num_classes": 4}, batch=8, image=64),
        # the original UNet's widths
        "full": Size(arch={"channels": (64, 128, 256, 512, 1024), "num_classes": 2}, batch=8, image=256),
    },
    make_model=lambda arch, seq, image: UNet(tuple(arch["channels"]), arch["num_classes"]),
    make_inputs=_segmentation_inputs,
    loss=lambda model, inputs: model(**inputs),
    # every stage after the first halves the image, and the decoder doubles it back
    min_image=lambda arch: 2 ** (len(arch["channels"]) - 1),
    image_multiple=lambda arch: 2 ** (len(arch["channels"]) - 1),
))
