"""The tested-model zoo: published architectures with random weights, synthetic data and a loss.

    from bessemer import zoo
    w = zoo.build("gpt2", scale="tiny")          # a Workload
    loss = w.loss_fn(w.model, w.make_batch(0))
"""
from .registry import (IMAGE, SCALES, TOKENS, VECTOR, ModelSpec, Size, Workload, ZooError, build,
                       names, resolve, spec)
# the family modules register their models with the registry, in this order (the registry
# imports none of them)
from . import basic, text, vision, small  # noqa: E402,F401

__all__ = ["SCALES", "TOKENS", "IMAGE", "VECTOR", "ModelSpec", "Size", "Workload", "ZooError",
           "build", "names", "resolve", "spec"]
