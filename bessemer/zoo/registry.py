"""The zoo's registry: one entry per model, each a builder of a training workload.

A workload is what a benchmark or a test needs to train a model for a few steps:
the model (random weights, built from its architecture config, nothing
downloaded), a function that makes the input batch of a given step (synthetic,
deterministic in the seed and the step), and the loss function. Every model has
three sizes, `tiny`, `small` and `full` (the published size); the batch, the
sequence length (token models) and the image size (image models) default per
size and can be overridden.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional

import torch

SCALES = ("tiny", "small", "full")

# What a model consumes, which decides which of seq / image applies.
TOKENS, IMAGE, VECTOR = "tokens", "image", "vector"


class ZooError(ValueError):
    """A model, scale or input size the zoo cannot build; the message is one line."""


@dataclass(frozen=True)
class Size:
    """One scale of a model: its architecture numbers and default input sizes."""

    arch: Mapping[str, Any]
    batch: int
    seq: Optional[int] = None
    image: Optional[int] = None


@dataclass(frozen=True)
class ModelSpec:
    """How to build one zoo model.

    make_model(arch, seq, image)            -> nn.Module (random weights, train mode)
    make_inputs(arch, batch, seq, image, g) -> dict of input tensors drawn from generator g
                                               (CPU; g is None when building on the meta device)
    loss(model, inputs)                     -> scalar loss tensor
    max_seq(arch)                           -> the longest sequence the architecture takes (or None)
    min_image(arch)                         -> the smallest image side it takes (or None)
    image_multiple(arch)                    -> the image side must be a multiple of this
    group                                   -> "tested" (the published architectures and the
                                               MLP, CNN and UNet: `bench all`) or "small" (the
                                               small custom models: `bench small`) or "conv"
                                               (the conv nets of zoo/convnets.py)
    training                                -> how the bench trains it: {"optimizer": "adamw"} or
                                               {"optimizer": "sgd", "momentum": m, "max_grad_norm": c}
                                               (with "lr" overriding the bench's)
    """

    name: str
    kind: str
    summary: str
    sizes: Mapping[str, Size]
    make_model: Callable[..., torch.nn.Module]
    make_inputs: Callable[..., dict]
    loss: Callable[[torch.nn.Module, dict], torch.Tensor]
    max_seq: Optional[Callable[[Mapping[str, Any]], Optional[int]]] = None
    min_image: Optional[Callable[[Mapping[str, Any]], int]] = None
    image_multiple: Optional[Callable[[Mapping[str, Any]], int]] = None
    group: str = "tested"
    training: Mapping[str, Any] = field(default_factory=lambda: {"optimizer": "adamw"})


@dataclass
class Workload:
    """A built model with its data and loss, ready to train."""

    name: str
    scale: str
    kind: str
    model: torch.nn.Module
    batch: int
    seq: Optional[int]
    image: Optional[int]
    loss_fn: Callable[[torch.nn.Module, dict], torch.Tensor]
    arch: Mapping[str, Any]
    seed: int
    device: torch.device
    _make_inputs: Callable[..., dict] = field(repr=False, default=None)

    def make_batch(self, step: int) -> dict:
        """The inputs of training step `step`: the same for every process given the seed."""
        if self.device.type == "meta":  # shapes only: nothing is allocated
            with torch.device("meta"):
                return self._make_inputs(self.arch, self.batch, self.seq, self.image, None)
        g = torch.Generator(device="cpu")
        g.manual_seed(self.seed * 1_000_003 + step)
        inputs = self._make_inputs(self.arch, self.batch, self.seq, self.image, g)
        return {k: v.to(self.device) for k, v in inputs.items()}

    @property
    def tokens_per_sample(self) -> Optional[int]:
        return self.seq if self.kind == TOKENS else None

    def n_params(self) -> int:
        return sum(p.numel() for p in self.model.parameters())


_REGISTRY: dict[str, ModelSpec] = {}


def register(spec: ModelSpec) -> ModelSpec:
    if spec.name in _REGISTRY:
        raise ValueError(f"zoo model {spec.name!r} registered twice")
    if set(spec.sizes) != set(SCALES):
        raise ValueError(f"zoo model {spec.name!r} must define the scales {SCALES}")
    _REGISTRY[spec.name] = spec
    return spec


GROUPS = ("tested", "small", "conv")


def names(group: Optional[str] = None) -> list[str]:
    """Every zoo model (or those of `group`), in registration order."""
    if group is not None and group not in GROUPS:
        raise ZooError(f"unknown group {group!r}; groups are: {', '.join(GROUPS)}")
    return [n for n, s in _REGISTRY.items() if group is None or s.group == group]


def spec(name: str) -> ModelSpec:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ZooError(f"unknown model {name!r}; the zoo has: {', '.join(_REGISTRY)}") from None


def resolve(name: str, scale: str, batch: Optional[int] = None, seq: Optional[int] = None,
            image: Optional[int] = None) -> tuple[ModelSpec, Size]:
    """Check a request and fill in the defaults; raises ZooError (one line) when it cannot be built."""
    s = spec(name)
    if scale not in SCALES:
        raise ZooError(f"unknown scale {scale!r}; scales are: {', '.join(SCALES)}")
    size = s.sizes[scale]
    batch = size.batch if batch is None else batch
    if not isinstance(batch, int) or isinstance(batch, bool) or batch < 1:
        raise ZooError(f"batch must be a positive integer, got {batch!r}")
    if s.kind == TOKENS:
        seq = size.seq if seq is None else seq
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 2:
            raise ZooError(f"sequence length must be an integer >= 2, got {seq!r}")
        limit = s.max_seq(size.arch) if s.max_seq else None
        if limit is not None and seq > limit:
            raise ZooError(f"{name} at scale {scale} takes at most {limit} tokens per sample, got {seq}")
        image = None
    elif s.kind == IMAGE:
        image = size.image if image is None else image
        if not isinstance(image, int) or isinstance(image, bool) or image < 1:
            raise ZooError(f"image size must be a positive integer, got {image!r}")
        lo = s.min_image(size.arch) if s.min_image else 1
        if image < lo:
            raise ZooError(f"{name} at scale {scale} needs images of at least {lo}x{lo} pixels, got {image}")
        mult = s.image_multiple(size.arch) if s.image_multiple else 1
        if image % mult:
            raise ZooError(f"{name} at scale {scale} needs an image side that is a multiple of {mult}, "
                           f"got {image}")
        seq = None
    else:
        seq = image = None
    return s, Size(arch=size.arch, batch=batch, seq=seq, image=image)


def build(name: str, scale: str = "tiny", batch: Optional[int] = None, seq: Optional[int] = None,
          image: Optional[int] = None, seed: int = 0, device: str | torch.device = "cpu",
          dropout: bool = False) -> Workload:
    """Build the workload of zoo model `name` at `scale`, seeded: same seed, same weights and data.
    `dropout`: a transformers model keeps its config's published dropout (off otherwise)."""
    s, size = resolve(name, scale, batch, seq, image)
    device = torch.device(device)
    torch.manual_seed(seed)
    from . import hf
    with hf.published_dropout(dropout):
        if device.type == "meta":
            with torch.device("meta"):
                model = s.make_model(size.arch, size.seq, size.image)
        else:
            model = s.make_model(size.arch, size.seq, size.image).to(device)
    model.train()
    return Workload(name=name, scale=scale, kind=s.kind, model=model, batch=size.batch, seq=size.seq,
                    image=size.image, loss_fn=s.loss, arch=size.arch, seed=seed, device=device,
                    _make_inputs=s.make_inputs)
