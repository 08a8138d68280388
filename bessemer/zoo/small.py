"""Small custom models, the kind a user writes: a tiny RoPE decoder, a small UNet, a top-k
mixture of experts, a BatchNorm CNN and a dropout MLP.

Their steps take a few to a few tens of milliseconds at scale `small`, so what a compiled
call costs besides its kernels shows. They train with SGD with momentum and
`clip_grad_norm_` (TRAINING below), as such models often are. Like the other zoo models
each computes its loss inside forward.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from .registry import IMAGE, TOKENS, VECTOR, ModelSpec, Size, register

# How the bench trains these models (registry.ModelSpec.training).
TRAINING = {"optimizer": "sgd", "lr": 0.01, "momentum": 0.9, "max_grad_norm": 1.0}
GROUP = "small"


# -- a tiny decoder with rotary position embeddings ------------------------------------
class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def _rotate(x, cos, sin):
    """Rotary embedding on the last dim (halves rotated, as LLaMA's rotate_half)."""
    a, b = x.chunk(2, dim=-1)
    return x * cos + torch.cat([-b, a], dim=-1) * sin


class RopeBlock(nn.Module):
    def __init__(self, dim: int, heads: int, hidden: int):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = RMSNorm(dim), RMSNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)
        self.gate = nn.Linear(dim, hidden, bias=False)
        self.up = nn.Linear(dim, hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x, cos, sin):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        q, k = _rotate(q, cos, sin), _rotate(k, cos, sin)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.out(a.transpose(1, 2).reshape(b, t, d))
        h = self.norm2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class RopeDecoder(nn.Module):
    """Token embedding, blocks of RMSNorm + causal attention with rotary positions + SwiGLU,
    a head tied to the embedding, next-token cross-entropy."""

    def __init__(self, vocab: int, dim: int, heads: int, layers: int, hidden: int, max_seq: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        nn.init.normal_(self.embed.weight, std=0.02)     # tied head: unit-variance rows would give huge logits
        self.blocks = nn.ModuleList(RopeBlock(dim, heads, hidden) for _ in range(layers))
        self.norm = RMSNorm(dim)
        hd = dim // heads
        inv = 1.0 / (10000 ** (torch.arange(0, hd // 2, dtype=torch.float32) / (hd // 2)))
        ang = torch.outer(torch.arange(max_seq, dtype=torch.float32), inv)
        ang = torch.cat([ang, ang], dim=-1)
        self.register_buffer("cos", ang.cos(), persistent=False)
        self.register_buffer("sin", ang.sin(), persistent=False)

    def forward(self, input_ids, labels):
        t = input_ids.shape[1]
        cos, sin = self.cos[:t], self.sin[:t]
        x = self.embed(input_ids)
        for block in self.blocks:
            x = block(x, cos, sin)
        logits = self.norm(x) @ self.embed.weight.t()
        return F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1))


def _token_inputs(arch, batch, seq, image, g):
    ids = torch.randint(0, arch["vocab"], (batch, seq), generator=g)
    return {"input_ids": ids, "labels": ids}


# -- a small UNet (transposed-convolution decoder, GroupNorm + SiLU) --------------------
def _block(c_in: int, c_out: int, groups: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1), nn.GroupNorm(groups, c_out), nn.SiLU(),
                         nn.Conv2d(c_out, c_out, 3, padding=1), nn.GroupNorm(groups, c_out), nn.SiLU())


class SmallUNet(nn.Module):
    """Encoder stages joined by stride-2 convolutions, a decoder of 2x2 transposed convolutions
    that adds the encoder's skip, GroupNorm + SiLU blocks (a diffusion model's UNet in
    miniature), regressed onto a target image (MSE)."""

    def __init__(self, channels: tuple[int, ...], groups: int):
        super().__init__()
        self.stem = nn.Conv2d(3, channels[0], 3, padding=1)
        self.enc = nn.ModuleList(_block(c, c, groups) for c in channels)
        self.downs = nn.ModuleList(nn.Conv2d(a, b, 3, stride=2, padding=1) for a, b in zip(channels, channels[1:]))
        self.ups = nn.ModuleList(nn.ConvTranspose2d(b, a, 2, stride=2) for a, b in zip(channels, channels[1:]))
        self.dec = nn.ModuleList(_block(c, c, groups) for c in channels[:-1])
        self.head = nn.Conv2d(channels[0], 3, 1)

    def forward(self, pixel_values, target):
        h = self.stem(pixel_values)
        skips = []
        for i, stage in enumerate(self.enc):
            h = stage(h)
            if i < len(self.downs):
                skips.append(h)
                h = self.downs[i](h)
        for up, stage, skip in zip(reversed(self.ups), reversed(self.dec), reversed(skips)):
            h = stage(up(h) + skip)
        return F.mse_loss(self.head(h), target)


def _denoise_inputs(arch, batch, seq, image, g):
    return {"pixel_values": torch.randn(batch, 3, image, image, generator=g),
            "target": torch.randn(batch, 3, image, image, generator=g)}


# -- a top-k mixture of experts -------------------------------------------------------
class TopKMoE(nn.Module):
    """A router picks the top k of E experts (each a two-layer GELU MLP) per token; experts
    are batched matmuls over all tokens and combined with the router's renormalized top-k
    weights (zero elsewhere): static shapes, no gather of tokens. Plus the usual
    load-balancing term. Classification of vectors (cross-entropy)."""

    def __init__(self, dim: int, hidden: int, experts: int, k: int, layers: int, classes: int):
        super().__init__()
        self.k = k
        self.routers = nn.ModuleList(nn.Linear(dim, experts, bias=False) for _ in range(layers))
        self.w1 = nn.ParameterList(nn.Parameter(torch.randn(experts, dim, hidden) / math.sqrt(dim))
                                   for _ in range(layers))
        self.w2 = nn.ParameterList(nn.Parameter(torch.randn(experts, hidden, dim) / math.sqrt(hidden))
                                   for _ in range(layers))
        self.norms = nn.ModuleList(nn.LayerNorm(dim) for _ in range(layers))
        self.head = nn.Linear(dim, classes)

    def forward(self, x, labels):
        aux = x.new_zeros(())
        for router, w1, w2, norm in zip(self.routers, self.w1, self.w2, self.norms):
            h = norm(x)
            probs = router(h).softmax(-1)                                   # [T, E]
            kth = probs.topk(self.k, dim=-1).values[:, -1:]                  # the k-th largest
            gate = torch.where(probs >= kth, probs, torch.zeros_like(probs))
            gate = gate / gate.sum(-1, keepdim=True)
            y = F.gelu(torch.einsum("td,edh->eth", h, w1))
            y = torch.einsum("eth,ehd->etd", y, w2)                          # [E, T, D]
            x = x + torch.einsum("etd,te->td", y, gate)
            aux = aux + probs.mean(0).pow(2).sum() * probs.shape[-1]
        return F.cross_entropy(self.head(x), labels) + 0.01 * aux


def _vector_inputs(arch, batch, seq, image, g):
    return {"x": torch.randn(batch, arch["dim"], generator=g),
            "labels": torch.randint(0, arch["classes"], (batch,), generator=g)}


# -- a BatchNorm CNN with residual blocks ----------------------------------------------
class ResBlock(nn.Module):
    def __init__(self, c_in: int, c_out: int, stride: int):
        super().__init__()
        self.c1 = nn.Conv2d(c_in, c_out, 3, stride=stride, padding=1, bias=False)
        self.b1 = nn.BatchNorm2d(c_out)
        self.c2 = nn.Conv2d(c_out, c_out, 3, padding=1, bias=False)
        self.b2 = nn.BatchNorm2d(c_out)
        self.skip = (nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride=stride, bias=False), nn.BatchNorm2d(c_out))
                     if stride != 1 or c_in != c_out else nn.Identity())

    def forward(self, x):
        return F.relu(self.b2(self.c2(F.relu(self.b1(self.c1(x))))) + self.skip(x))


class BNCNN(nn.Module):
    """A stem convolution, residual blocks of Conv3x3 + BatchNorm + ReLU (stride 2 between
    widths), global average pool, linear classifier: a CIFAR ResNet in miniature."""

    def __init__(self, channels: tuple[int, ...], classes: int):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, channels[0], 3, padding=1, bias=False),
                                  nn.BatchNorm2d(channels[0]), nn.ReLU())
        blocks, c_in = [], channels[0]
        for i, c in enumerate(channels):
            blocks.append(ResBlock(c_in, c, 1 if i == 0 else 2))
            c_in = c
        self.blocks = nn.Sequential(*blocks)
        self.head = nn.Linear(c_in, classes)

    def forward(self, pixel_values, labels):
        h = self.blocks(self.stem(pixel_values)).mean(dim=(2, 3))
        return F.cross_entropy(self.head(h), labels)


def _image_inputs(arch, batch, seq, image, g):
    return {"pixel_values": torch.randn(batch, 3, image, image, generator=g),
            "labels": torch.randint(0, arch["classes"], (batch,), generator=g)}


# -- a dropout MLP -------------------------------------------------------------------
class DropoutMLP(nn.Module):
    """Blocks of Linear + ReLU + Dropout, a linear classifier, cross-entropy. Dropout stays on
    (p = arch["p"]): a compiled step must draw eager's masks."""

    def __init__(self, dim: int, hidden: int, layers: int, classes: int, p: float):
        super().__init__()
        dims = [dim] + [hidden] * layers
        self.layers = nn.Sequential(*(m for a, b in zip(dims, dims[1:])
                                      for m in (nn.Linear(a, b), nn.ReLU(), nn.Dropout(p))))
        self.head = nn.Linear(hidden, classes)

    def forward(self, x, labels):
        return F.cross_entropy(self.head(self.layers(x)), labels)


def _spec(name, kind, summary, sizes, make_model, make_inputs, **kw) -> ModelSpec:
    return register(ModelSpec(name=name, kind=kind, summary=summary, sizes=sizes, make_model=make_model,
                              make_inputs=make_inputs, loss=lambda model, inputs: model(**inputs),
                              group=GROUP, training=TRAINING, **kw))


_spec("rope-decoder", TOKENS, "tiny decoder: RMSNorm, causal attention with rotary positions, SwiGLU, tied head", {
    "tiny": Size(arch={"vocab": 64, "dim": 32, "heads": 2, "layers": 2, "hidden": 64, "max_seq": 32}, batch=2, seq=16),
    "small": Size(arch={"vocab": 512, "dim": 128, "heads": 4, "layers": 2, "hidden": 256, "max_seq": 128},
                  batch=8, seq=64),
    "full": Size(arch={"vocab": 8192, "dim": 512, "heads": 8, "layers": 8, "hidden": 1376, "max_seq": 512},
                 batch=8, seq=256),
}, lambda arch, seq, image: RopeDecoder(**arch), _token_inputs, max_seq=lambda arch: arch["max_seq"])

_spec("small-unet", IMAGE, "small UNet: stride-2 encoder, transposed-conv decoder with skips, GroupNorm + SiLU", {
    "tiny": Size(arch={"channels": (8, 16), "groups": 4}, batch=2, image=8),
    "small": Size(arch={"channels": (16, 32, 64), "groups": 8}, batch=4, image=32),
    "full": Size(arch={"channels": (64, 128, 256, 512), "groups": 32}, batch=8, image=64),
}, lambda arch, seq, image: SmallUNet(tuple(arch["channels"]), arch["groups"]), _denoise_inputs,
    min_image=lambda arch: 2 ** (len(arch["channels"]) - 1),
    image_multiple=lambda arch: 2 ** (len(arch["channels"]) - 1))

_spec("topk-moe", VECTOR, "mixture of experts: top-2 of E GELU experts per token, load-balancing loss", {
    "tiny": Size(arch={"dim": 16, "hidden": 32, "experts": 4, "k": 2, "layers": 1, "classes": 5}, batch=8),
    "small": Size(arch={"dim": 128, "hidden": 256, "experts": 8, "k": 2, "layers": 2, "classes": 10}, batch=128),
    "full": Size(arch={"dim": 512, "hidden": 2048, "experts": 8, "k": 2, "layers": 4, "classes": 100}, batch=512),
}, lambda arch, seq, image: TopKMoE(**arch), _vector_inputs)

_spec("bn-cnn", IMAGE, "BatchNorm CNN: residual Conv3x3 + BatchNorm + ReLU blocks, global pool, classifier", {
    "tiny": Size(arch={"channels": (4, 8), "classes": 10}, batch=2, image=8),
    "small": Size(arch={"channels": (16, 32, 64), "classes": 10}, batch=32, image=32),
    "full": Size(arch={"channels": (64, 128, 256, 512), "classes": 100}, batch=128, image=32),
}, lambda arch, seq, image: BNCNN(tuple(arch["channels"]), arch["classes"]), _image_inputs,
    min_image=lambda arch: 2 ** (len(arch["channels"]) - 1))

_spec("dropout-mlp", VECTOR, "MLP with dropout: Linear + ReLU + Dropout(0.1) blocks, cross-entropy", {
    "tiny": Size(arch={"dim": 16, "hidden": 32, "layers": 2, "classes": 5, "p": 0.1}, batch=8),
    "small": Size(arch={"dim": 256, "hidden": 512, "layers": 3, "classes": 10, "p": 0.1}, batch=64),
    "full": Size(arch={"dim": 1024, "hidden": 4096, "layers": 4, "classes": 1000, "p": 0.1}, batch=256),
}, lambda arch, seq, image: DropoutMLP(**arch), _vector_inputs)
