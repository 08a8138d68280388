"""Capture: the Dynamo backend and the AOTAutograd wiring."""
from __future__ import annotations

from typing import Optional

import torch
from torch._dynamo import register_backend
from torch._dynamo.backends.common import aot_autograd

from ..config import TrainingCompilerConfig


def make_backend(config: Optional[TrainingCompilerConfig] = None):
    config = config or TrainingCompilerConfig.from_env()

    def fw_compiler(gm, example_inputs):
        return gm.forward  # replaced by the bessemer pipeline

    return aot_autograd(fw_compiler=fw_compiler, bw_compiler=fw_compiler)


@register_backend(name="bessemer")
def bessemer_backend(gm, example_inputs, **kwargs):
    return make_backend(TrainingCompilerConfig.from_env())(gm, example_inputs, **kwargs)
