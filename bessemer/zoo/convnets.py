"""Convolutional image classifiers beyond ResNet-50: the conv-net group of the zoo.

Each is its published architecture at scale `full` (the parameter counts of the
torchvision / timm / transformers checkpoints) and a narrower, shallower copy of
the same block structure at `tiny` and `small`:

- resnet18         basic blocks (two 3x3 convs, BatchNorm, projection shortcut)  transformers ResNet
- mobilenet-v2     inverted residuals: 1x1 expand, depthwise 3x3, linear 1x1,
                   ReLU6, TF "same" padding                                      transformers MobileNetV2
- efficientnet-b0  MBConv: depthwise 3x3/5x5, squeeze-excitation, SiLU           transformers EfficientNet
- densenet121      dense blocks (BN-ReLU-1x1-BN-ReLU-3x3, concatenated),
                   transitions with average pooling                              written here
- regnet-y-040     group convs of fixed group width with squeeze-excitation      transformers RegNet
- convnext-tiny    depthwise 7x7, channels-last LayerNorm, inverted MLP,
                   layer scale                                                   transformers ConvNeXt

transformers has no DenseNet, and torchvision (which has) is not installed: its
wheel is built against CUDA and does not import beside the CPU torch. Every
dropout and stochastic depth is off (runs are compared against eager).
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from . import hf
from .registry import IMAGE, ModelSpec, Size, register

GROUP = "conv"


def _image_inputs(arch, batch, seq, image, g):
    return {"pixel_values": torch.randn(batch, 3, image, image, generator=g),
            "labels": torch.randint(0, arch["num_labels"], (batch,), generator=g)}


def _conv_spec(name, summary, sizes, make_model, min_image, loss=hf.hf_loss):
    return register(ModelSpec(name=name, kind=IMAGE, summary=summary, sizes=sizes, make_model=make_model,
                              make_inputs=_image_inputs, loss=loss, min_image=min_image, group=GROUP))


# -- ResNet-18 ---------------------------------------------------------------------------------
_conv_spec(
    "resnet18", "ResNet-18 (basic blocks, BatchNorm), image classification",
    {
        "tiny": Size({"embedding_size": 8, "hidden_sizes": [8, 16], "depths": [1, 1],
                      "layer_type": "basic", "num_labels": 10}, batch=2, image=32),
        "small": Size({"embedding_size": 32, "hidden_sizes": [32, 64, 128, 256], "depths": [2, 2, 2, 2],
                       "layer_type": "basic", "num_labels": 100}, batch=8, image=128),
        "full": Size({"embedding_size": 64, "hidden_sizes": [64, 128, 256, 512], "depths": [2, 2, 2, 2],
                      "layer_type": "basic", "num_labels": 1000}, batch=32, image=224),
    },
    lambda arch, seq, image: hf.make_model("ResNetForImageClassification",
                                           hf.make_config("ResNetConfig", arch)),
    # the stem downsamples by 4 and every stage after the first by 2
    lambda arch: 4 * 2 ** (len(arch["depths"]) - 1))


# -- MobileNetV2 -------------------------------------------------------------------------------
# The block table (expansions, strides, repeats) is fixed by the architecture; the width
# follows depth_multiplier. The image is downsampled 32 times (tiny: 64 pixels and a batch of 8,
# so the last BatchNorms normalize 32 values, not 2: at batch 2 a few SGD steps of the tiny net
# amplify float32 rounding until eager and float64 disagree in the second digit).
def _mobilenet_v2(arch, image):
    model = hf.make_model("MobileNetV2ForImageClassification",
                          hf.make_config("MobileNetV2Config", arch, image_size=image))
    # transformers draws conv weights from N(0, 0.02): every BatchNorm then divides by a tiny
    # spread, so the gradients are ~1000x the weights and a few SGD steps at the bench's rate
    # are chaotic (eager's float32 run leaves float64's within 3 steps). torchvision's
    # initialisation (He normal over the fan-out) keeps the weights and gradients of one size.
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out")
    return model


_conv_spec(
    "mobilenet-v2", "MobileNetV2 (inverted residuals, depthwise convs, ReLU6), image classification",
    {
        "tiny": Size({"depth_multiplier": 0.25, "min_depth": 4, "depth_divisible_by": 4,
                      "finegrained_output": False, "num_labels": 10}, batch=8, image=64),
        "small": Size({"depth_multiplier": 0.5, "num_labels": 100}, batch=8, image=128),
        "full": Size({"depth_multiplier": 1.0, "num_labels": 1000}, batch=32, image=224),
    },
    lambda arch, seq, image: _mobilenet_v2(arch, image),
    lambda arch: 32)


# -- EfficientNet-B0 ---------------------------------------------------------------------------
def _efficientnet(arch, seq, image):
    from transformers.models.efficientnet.modeling_efficientnet import round_filters
    cfg = hf.make_config("EfficientNetConfig", arch, image_size=image, drop_connect_rate=0.0)
    cfg.hidden_dim = round_filters(cfg, 1280)   # the head's width, scaled as the blocks' are
    model = hf.make_model("EfficientNetForImageClassification", cfg)
    # transformers draws BatchNorm scales from N(0, 0.02); through 30 of them the logits come out
    # ~1e-36 and every gradient below the head vanishes. Scales of 1 (PyTorch's and torchvision's
    # initialisation) keep the signal, so a training run exercises the whole network.
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            nn.init.ones_(m.weight)
    return model


_B0_BLOCKS = {"kernel_sizes": [3, 3, 5, 3, 5, 5, 3], "strides": [1, 2, 2, 2, 1, 2, 1],
              "num_block_repeats": [1, 2, 2, 3, 3, 4, 1], "expand_ratios": [1, 6, 6, 6, 6, 6, 6]}
_conv_spec(
    "efficientnet-b0", "EfficientNet-B0 (MBConv, depthwise convs, squeeze-excitation, SiLU), image classification",
    {
        "tiny": Size({**_B0_BLOCKS, "width_coefficient": 0.25, "depth_coefficient": 0.34, "depth_divisor": 4,
                      "num_labels": 10}, batch=8, image=64),
        "small": Size({**_B0_BLOCKS, "width_coefficient": 0.5, "depth_coefficient": 0.5, "num_labels": 100},
                      batch=8, image=128),
        "full": Size({**_B0_BLOCKS, "width_coefficient": 1.0, "depth_coefficient": 1.0, "num_labels": 1000},
                     batch=32, image=224),
    },
    _efficientnet,
    lambda arch: 32)


# -- DenseNet-121 ------------------------------------------------------------------------------
class _DenseLayer(nn.Module):
    """BN-ReLU-Conv1x1 (bn_size * growth) - BN-ReLU-Conv3x3 (growth) over the concatenation of
    every earlier feature map of the block (the memory-hungry concat is the point)."""

    def __init__(self, c_in: int, growth: int, bn_size: int):
        super().__init__()
        self.norm1, self.conv1 = nn.BatchNorm2d(c_in), nn.Conv2d(c_in, bn_size * growth, 1, bias=False)
        self.norm2 = nn.BatchNorm2d(bn_size * growth)
        self.conv2 = nn.Conv2d(bn_size * growth, growth, 3, padding=1, bias=False)

    def forward(self, features: list[torch.Tensor]) -> torch.Tensor:
        h = self.conv1(F.relu(self.norm1(torch.cat(features, 1))))
        return self.conv2(F.relu(self.norm2(h)))


class _DenseBlock(nn.Module):
    def __init__(self, layers: int, c_in: int, growth: int, bn_size: int):
        super().__init__()
        self.layers = nn.ModuleList(_DenseLayer(c_in + i * growth, growth, bn_size) for i in range(layers))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        features = [x]
        for layer in self.layers:
            features.append(layer(features))
        return torch.cat(features, 1)


class _Transition(nn.Sequential):
    def __init__(self, c_in: int, c_out: int):
        super().__init__(nn.BatchNorm2d(c_in), nn.ReLU(), nn.Conv2d(c_in, c_out, 1, bias=False),
                         nn.AvgPool2d(2, stride=2))


class DenseNet(nn.Module):
    """DenseNet-BC (Huang et al. 2017): a 7x7 stride-2 stem and 3x3 max pool, dense blocks joined
    by transitions that halve the channels and the image, a final BatchNorm, global average pool
    and a linear classifier; cross-entropy loss computed inside forward."""

    def __init__(self, growth_rate: int, block_config: tuple[int, ...], num_init_features: int,
                 bn_size: int, num_labels: int):
        super().__init__()
        layers = [nn.Conv2d(3, num_init_features, 7, stride=2, padding=3, bias=False),
                  nn.BatchNorm2d(num_init_features), nn.ReLU(), nn.MaxPool2d(3, stride=2, padding=1)]
        c = num_init_features
        for i, n in enumerate(block_config):
            layers.append(_DenseBlock(n, c, growth_rate, bn_size))
            c += n * growth_rate
            if i != len(block_config) - 1:
                layers.append(_Transition(c, c // 2))
                c //= 2
        layers += [nn.BatchNorm2d(c), nn.ReLU()]
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Linear(c, num_labels)
        for m in self.modules():   # torchvision's initialisation
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight)
            elif isinstance(m, nn.Linear):
                nn.init.zeros_(m.bias)

    def forward(self, pixel_values: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        h = self.features(pixel_values).mean(dim=(2, 3))
        return F.cross_entropy(self.classifier(h), labels)


_conv_spec(
    "densenet121", "DenseNet-121 (dense blocks with concatenation, BatchNorm), image classification",
    {
        "tiny": Size({"growth_rate": 4, "block_config": (2, 2), "num_init_features": 8, "bn_size": 2,
                      "num_labels": 10}, batch=2, image=32),
        "small": Size({"growth_rate": 16, "block_config": (3, 4, 6, 4), "num_init_features": 32, "bn_size": 4,
                       "num_labels": 100}, batch=8, image=128),
        "full": Size({"growth_rate": 32, "block_config": (6, 12, 24, 16), "num_init_features": 64, "bn_size": 4,
                      "num_labels": 1000}, batch=32, image=224),
    },
    lambda arch, seq, image: DenseNet(**arch),
    # the stem downsamples by 4 and every transition by 2
    lambda arch: 4 * 2 ** (len(arch["block_config"]) - 1),
    loss=lambda model, inputs: model(**inputs))


# -- RegNetY-4.0GF -----------------------------------------------------------------------------
_conv_spec(
    "regnet-y-040", "RegNetY-4.0GF (group convs of fixed group width, squeeze-excitation), image classification",
    {
        "tiny": Size({"embedding_size": 8, "hidden_sizes": [8, 16], "depths": [1, 1], "groups_width": 4,
                      "layer_type": "y", "num_labels": 10}, batch=2, image=32),
        "small": Size({"embedding_size": 32, "hidden_sizes": [32, 64, 128, 256], "depths": [1, 2, 3, 1],
                       "groups_width": 16, "layer_type": "y", "num_labels": 100}, batch=8, image=128),
        "full": Size({"embedding_size": 32, "hidden_sizes": [128, 192, 512, 1088], "depths": [2, 6, 12, 2],
                      "groups_width": 64, "layer_type": "y", "num_labels": 1000}, batch=32, image=224),
    },
    lambda arch, seq, image: hf.make_model("RegNetForImageClassification", hf.make_config("RegNetConfig", arch)),
    # the stem and every stage downsample by 2
    lambda arch: 2 ** (len(arch["depths"]) + 1))


# -- ConvNeXt-T --------------------------------------------------------------------------------
_conv_spec(
    "convnext-tiny", "ConvNeXt-T (depthwise 7x7, LayerNorm, inverted MLP, layer scale), image classification",
    {
        # a larger layer scale than the published 1e-6 at tiny: the residual branches' gradients
        # stay well above float32 rounding, so the tests see them
        "tiny": Size({"hidden_sizes": [8, 16], "depths": [1, 1], "num_stages": 2, "layer_scale_init_value": 0.1,
                      "num_labels": 10}, batch=2, image=32),
        "small": Size({"hidden_sizes": [32, 64, 128, 256], "depths": [1, 1, 3, 1], "num_labels": 100},
                      batch=8, image=128),
        "full": Size({"hidden_sizes": [96, 192, 384, 768], "depths": [3, 3, 9, 3], "num_labels": 1000},
                     batch=32, image=224),
    },
    lambda arch, seq, image: hf.make_model("ConvNextForImageClassification",
                                           hf.make_config("ConvNextConfig", arch)),
    # the 4x4 patch stem, then every stage after the first downsamples by 2
    lambda arch: 4 * 2 ** (len(arch["depths"]) - 1))
