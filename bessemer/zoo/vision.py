"""Image models from transformers: ViT and ResNet-50, image classification (the other conv nets:
convnets.py, registered after these)."""
from __future__ import annotations

import torch

from . import hf
from .registry import IMAGE, ModelSpec, Size, register


def _image_inputs(arch, batch, seq, image, g):
    return {"pixel_values": torch.randn(batch, 3, image, image, generator=g),
            "labels": torch.randint(0, arch["num_labels"], (batch,), generator=g)}


def _vit(arch, seq, image):
    # The config's image size sets the position table; it follows the requested image.
    return hf.make_model("ViTForImageClassification", hf.make_config("ViTConfig", arch, image_size=image))


register(ModelSpec(
    name="vit-base-patch16-224",
    kind=IMAGE,
    summary="ViT base, patch 16 (224x224 at full), image classification",
    sizes={
        "tiny": Size({"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
                      "intermediate_size": 64, "patch_size": 8, "num_labels": 10}, batch=2, image=32),
        "small": Size({"hidden_size": 256, "num_hidden_layers": 4, "num_attention_heads": 4,
                       "intermediate_size": 1024, "patch_size": 16, "num_labels": 100}, batch=8, image=224),
        "full": Size({"hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
                      "intermediate_size": 3072, "patch_size": 16, "num_labels": 1000}, batch=32, image=224),
    },
    make_model=_vit,
    make_inputs=_image_inputs,
    loss=hf.hf_loss,
    min_image=lambda arch: arch["patch_size"],
    image_multiple=lambda arch: arch["patch_size"],
))


def _resnet(arch, seq, image):
    return hf.make_model("ResNetForImageClassification", hf.make_config("ResNetConfig", arch))


register(ModelSpec(
    name="resnet50",
    kind=IMAGE,
    summary="ResNet-50 (bottleneck blocks, BatchNorm), image classification",
    sizes={
        "tiny": Size({"embedding_size": 8, "hidden_sizes": [16, 32], "depths": [1, 1],
                      "layer_type": "bottleneck", "num_labels": 10}, batch=2, image=32),
        "small": Size({"embedding_size": 32, "hidden_sizes": [64, 128, 256, 512], "depths": [1, 1, 1, 1],
                       "layer_type": "bottleneck", "num_labels": 100}, batch=8, image=128),
        "full": Size({"embedding_size": 64, "hidden_sizes": [256, 512, 1024, 2048], "depths": [3, 4, 6, 3],
                      "layer_type": "bottleneck", "num_labels": 1000}, batch=32, image=224),
    },
    make_model=_resnet,
    make_inputs=_image_inputs,
    loss=hf.hf_loss,
    # The stem downsamples by 4 and every stage after the first by 2.
    min_image=lambda arch: 4 * 2 ** (len(arch["depths"]) - 1),
))


from . import convnets  # noqa: E402,F401  (registers the conv-net group after ResNet-50)
