"""Compile a Hugging Face Trainer's model with bessemer, with no change to the script.

The job's start-up hook calls `patch_trainer_module` once transformers.trainer is
imported. From then on every Trainer (and subclass) compiles its model in place
with bessemer.compile at construction, under the job's config
(BESSEMER_COMPILER_CONFIG), and says so in the log. A model that comes from
`model_init` is compiled when the Trainer creates it.
"""
from __future__ import annotations

import functools
import os
import sys
from typing import Any

_MARK = "_bessemer_compiled"


def _say(message: str) -> None:
    rank = os.environ.get("RANK")
    prefix = f"bessemer[rank {rank}]" if rank is not None else "bessemer"
    print(f"{prefix}: {message}", file=sys.stderr, flush=True)


def compile_model(model: Any, trainer: Any) -> Any:
    """Compile `model` (in place) unless the config turns the compiler off, the script
    asked the Trainer for torch.compile itself, or it is compiled already."""
    from bessemer.config import TrainingCompilerConfig

    config = TrainingCompilerConfig.from_env()
    if not config.enabled or model is None or getattr(model, _MARK, False):
        return model
    if getattr(getattr(trainer, "args", None), "torch_compile", False):
        _say("the script set TrainingArguments(torch_compile=True); the Trainer's model is left to it")
        return model
    import bessemer

    _say(f"compiling the Trainer's model ({type(model).__name__}) with the bessemer training "
         f"compiler (debug={config.debug})")
    model = bessemer.compile(model, config=config)
    try:
        setattr(model, _MARK, True)
    except AttributeError:
        pass
    return model


def patch_trainer_module(module: Any) -> None:
    trainer_cls = getattr(module, "Trainer", None)
    if trainer_cls is None or getattr(trainer_cls, "_bessemer_hooked", False):
        return
    original_init = trainer_cls.__init__
    original_model_init = trainer_cls.call_model_init

    @functools.wraps(original_init)
    def __init__(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        if getattr(self, "model", None) is not None:
            self.model = compile_model(self.model, self)

    @functools.wraps(original_model_init)
    def call_model_init(self, *args, **kwargs):
        return compile_model(original_model_init(self, *args, **kwargs), self)

    trainer_cls.__init__ = __init__
    trainer_cls.call_model_init = call_model_init
    trainer_cls._bessemer_hooked = True
