"""Shared helpers for the zoo's transformers models.

transformers is imported only when a model is built, so listing the zoo or
building the plain PyTorch models does not pay for importing it.
"""
from __future__ import annotations

import contextlib
import functools
import os
import sys
from typing import Any, Iterator, Mapping

import torch

# Token ids a config names; a small vocabulary must still contain them.
_TOKEN_ID_FIELDS = ("bos_token_id", "eos_token_id", "pad_token_id", "sep_token_id",
                    "decoder_start_token_id", "forced_eos_token_id")


@functools.lru_cache(maxsize=None)
def _default_config(config_cls: str) -> Mapping[str, Any]:
    import transformers
    return getattr(transformers, config_cls)().to_dict()


# Whether make_config keeps the published dropout (published_dropout(), below).
_keep_dropout = [False]


@contextlib.contextmanager
def published_dropout(keep: bool = True) -> Iterator[None]:
    """Within the block, make_config keeps the config's published dropout rates."""
    before = _keep_dropout[0]
    _keep_dropout[0] = keep
    try:
        yield
    finally:
        _keep_dropout[0] = before


def make_config(config_cls: str, arch: Mapping[str, Any], **extra: Any):
    """The config `config_cls(**arch, **extra)` with every dropout off (unless within
    published_dropout()).

    Dropout is off by default because fidelity is measured against eager: Inductor's
    random streams differ from eager's, so its runs with dropout are not comparable
    (bessemer draws eager's masks). Token ids of the published config that fall outside
    a smaller vocabulary are moved to its last id.
    """
    import transformers
    kwargs = {**arch, **extra}
    vocab = kwargs.get("vocab_size")
    if vocab is not None:
        defaults = _default_config(config_cls)
        for name in _TOKEN_ID_FIELDS:
            value = kwargs.get(name, defaults.get(name))
            if isinstance(value, int) and value >= vocab:
                kwargs[name] = vocab - 1
    cfg = getattr(transformers, config_cls)(**kwargs)
    if _keep_dropout[0]:
        return cfg
    for name, value in cfg.to_dict().items():
        if ("dropout" in name or name.endswith("pdrop") or "layerdrop" in name) \
                and (value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))):
            setattr(cfg, name, 0.0)
    return cfg


def make_model(model_cls: str, config) -> torch.nn.Module:
    import transformers
    return getattr(transformers, model_cls)(config)


def hf_loss(model: torch.nn.Module, inputs: dict) -> torch.Tensor:
    """The loss a transformers model computes itself when given labels."""
    return model(**inputs).loss


def quiet() -> None:
    """Silence transformers' informational warnings (in benchmark processes), without importing it."""
    if "transformers" not in sys.modules:
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        return
    from transformers.utils import logging as hf_logging
    hf_logging.set_verbosity_error()
