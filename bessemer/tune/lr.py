"""The learning rate (and warm-up) for a new batch size, from a reference batch and rate.

linear  lr = reference_lr * batch / reference_batch (Goyal et al.: the summed gradient
        grows with the batch, so the step keeps its size)
sqrt    lr = reference_lr * sqrt(batch / reference_batch) (the gradient's noise shrinks
        as the square root of the batch; the usual rule for Adam-type optimizers)

A warm-up given in steps at the reference batch covers the same number of samples at
the new batch: reference_steps * reference_batch / batch, rounded up.
"""
from __future__ import annotations

import math
from typing import Optional

LR_RULES = ("linear", "sqrt")


def check_scaling(rule: Optional[str], reference_batch, reference_lr, warmup_steps=None,
                  names=("--lr-rule", "--reference-batch", "--reference-lr", "--warmup-steps")) -> Optional[str]:
    """The rule to use (None: no scaling asked for); ValueError naming the missing or bad field."""
    r_name, b_name, lr_name, w_name = names
    asked = rule is not None or reference_batch is not None or reference_lr is not None \
        or warmup_steps is not None
    if not asked:
        return None
    if rule is not None and rule not in LR_RULES:
        raise ValueError(f"{r_name} must be one of {', '.join(LR_RULES)}, got {rule!r}")
    missing = [n for n, v in ((b_name, reference_batch), (lr_name, reference_lr)) if v is None]
    if missing:
        raise ValueError(f"scaling the learning rate needs {' and '.join(missing)} (the batch size and the "
                         f"learning rate it was tuned at)")
    if isinstance(reference_batch, bool) or not isinstance(reference_batch, int) or reference_batch < 1:
        raise ValueError(f"{b_name} must be a positive integer, got {reference_batch!r}")
    if isinstance(reference_lr, bool) or not isinstance(reference_lr, (int, float)) or not reference_lr > 0 \
            or not math.isfinite(reference_lr):
        raise ValueError(f"{lr_name} must be a positive number, got {reference_lr!r}")
    if warmup_steps is not None and (isinstance(warmup_steps, bool) or not isinstance(warmup_steps, int)
                                     or warmup_steps < 0):
        raise ValueError(f"{w_name} must be an integer >= 0, got {warmup_steps!r}")
    return rule or "linear"


def scaled_learning_rate(batch: int, reference_batch: int, reference_lr: float, rule: str = "linear") -> float:
    ratio = batch / reference_batch
    if rule == "linear":
        return reference_lr * ratio
    if rule == "sqrt":
        return reference_lr * math.sqrt(ratio)
    raise ValueError(f"lr rule must be one of {', '.join(LR_RULES)}, got {rule!r}")


def scaled_warmup_steps(batch: int, reference_batch: int, reference_steps: int) -> int:
    return math.ceil(reference_steps * reference_batch / batch)
