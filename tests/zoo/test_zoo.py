"""The zoo: every model builds at tiny scale and trains a step; full scale is the published size."""
import math

import pytest
import torch

from bessemer import zoo

ALL = zoo.names()

# Published parameter counts (millions) of the architectures at scale `full`.
PUBLISHED_M = {
    "gpt2": 124.4, "distilgpt2": 81.9, "llama": 134.5,  # llama: the SmolLM-135M shape
    "bert-base-uncased": 109.5, "roberta-base": 124.6, "distilbert-base-uncased": 67.0,
    "albert-base-v2": 11.7, "deberta-v3-base": 184.4, "t5-small": 60.5, "bart-base": 139.4,
    "vit-base-patch16-224": 86.6, "resnet50": 25.6,
}


SMALL = ["rope-decoder", "small-unet", "topk-moe", "bn-cnn", "dropout-mlp"]


def test_the_zoo_has_every_tested_model():
    assert set(zoo.names("tested")) == set(PUBLISHED_M) | {"mlp", "cnn", "unet"}
    assert zoo.names("small") == SMALL
    # the conv nets beyond ResNet-50 (zoo/convnets.py): tests/zoo/test_convnets.py
    assert set(ALL) == set(zoo.names("tested")) | set(SMALL) | set(zoo.names("conv"))


@pytest.mark.parametrize("name", ALL)
def test_tiny_model_builds_and_trains_one_eager_step(name):
    w = zoo.build(name, "tiny", seed=0)
    opt = torch.optim.AdamW(w.model.parameters(), lr=1e-3)
    before = [p.detach().clone() for p in w.model.parameters()]
    loss = w.loss_fn(w.model, w.make_batch(0))
    assert loss.dim() == 0 and math.isfinite(loss.item())
    loss.backward()
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in w.model.parameters())
    opt.step()
    assert any(not torch.equal(a, b) for a, b in zip(before, w.model.parameters()))
    assert w.n_params() < 200_000, "tiny must stay tiny"


@pytest.mark.parametrize("name", ALL)
def test_full_scale_is_the_published_architecture(name):
    w = zoo.build(name, "full", device="meta")  # shapes only, nothing allocated
    if name in PUBLISHED_M:
        assert w.n_params() / 1e6 == pytest.approx(PUBLISHED_M[name], rel=0.01)
    batch = w.make_batch(0)
    assert all(t.device.type == "meta" for t in batch.values())


def test_same_seed_same_weights_and_data():
    a, b = zoo.build("gpt2", "tiny", seed=3), zoo.build("gpt2", "tiny", seed=3)
    for p, q in zip(a.model.parameters(), b.model.parameters()):
        assert torch.equal(p, q)
    assert torch.equal(a.make_batch(5)["input_ids"], b.make_batch(5)["input_ids"])
    assert not torch.equal(a.make_batch(0)["input_ids"], a.make_batch(1)["input_ids"])
    c = zoo.build("gpt2", "tiny", seed=4)
    assert not torch.equal(a.make_batch(5)["input_ids"], c.make_batch(5)["input_ids"])


def test_sizes_are_parameters_with_defaults():
    w = zoo.build("bert-base-uncased", "tiny", batch=3, seq=8)
    assert w.make_batch(0)["input_ids"].shape == (3, 8)
    assert w.tokens_per_sample == 8
    v = zoo.build("vit-base-patch16-224", "tiny", image=48)
    assert v.make_batch(0)["pixel_values"].shape[-1] == 48
    assert math.isfinite(v.loss_fn(v.model, v.make_batch(0)).item())
    d = zoo.build("mlp", "tiny")
    assert d.batch == zoo.spec("mlp").sizes["tiny"].batch and d.seq is None and d.image is None


def test_dropout_is_off_so_runs_are_comparable():
    w = zoo.build("bert-base-uncased", "tiny")
    for m in w.model.modules():
        if isinstance(m, torch.nn.Dropout):
            assert m.p == 0.0


@pytest.mark.parametrize("kwargs, words", [
    (dict(name="resnet1000", scale="tiny"), "unknown model 'resnet1000'"),
    (dict(name="gpt2", scale="huge"), "unknown scale 'huge'"),
    (dict(name="gpt2", scale="tiny", seq=100_000), "at most 64 tokens"),
    (dict(name="vit-base-patch16-224", scale="tiny", image=33), "multiple of 8"),
    (dict(name="gpt2", scale="tiny", batch=0), "positive integer"),
])
def test_what_the_zoo_cannot_build_is_one_clear_line(kwargs, words):
    with pytest.raises(zoo.ZooError) as e:
        zoo.resolve(kwargs.pop("name"), **kwargs)
    assert words in str(e.value) and "\n" not in str(e.value)
