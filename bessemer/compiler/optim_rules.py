"""The update rules of torch's SGD, Adam and AdamW written as plain tensor code.

Both compiled optimizer paths trace these functions: `compile_step`
(capture/step.py) inside the whole training step, and the compiled `opt.step()`
(optim.py) as one function per parameter group. AOTAutograd traces them into an
ATen graph (functionalizing the in-place updates) that bessemer's pipeline
compiles like any other graph.

`hyper(kind, group)` is what a program bakes in; `update(hyper, p, g, st, lr)`
is one parameter's update, in place on p (and its state), op for op as torch's
single-tensor step computes it. The compiled code rounds as bessemer's kernels
do (fused expressions, the backend's sqrt), so results agree with eager's to
float rounding, not bit for bit.
"""
from __future__ import annotations

from typing import Optional

import torch


def hyper(kind: str, g: dict) -> tuple:
    """The hyperparameters baked into the program (lr is an input: schedulers change it)."""
    if kind == "sgd":
        return ("sgd", float(g["momentum"]), float(g["dampening"]), float(g["weight_decay"]),
                bool(g["nesterov"]), bool(g["maximize"]))
    b1, b2 = g["betas"]
    return ("adam", float(b1), float(b2), float(g["eps"]), float(g["weight_decay"]),
            bool(g.get("decoupled_weight_decay", False)), bool(g["maximize"]), bool(g.get("amsgrad", False)))


def update(hyper: tuple, p: torch.Tensor, g: torch.Tensor, st: Optional[list], lr: torch.Tensor,
           step: Optional[torch.Tensor] = None) -> list:
    """One parameter's update, in place on p (and st), as torch's single-tensor step computes
    it; returns the state tensors it creates (SGD's first momentum buffer).

    st: SGD [momentum_buffer] (None: the first step makes it), Adam [exp_avg, exp_avg_sq,
    step] plus max_exp_avg_sq with amsgrad. lr: a float64 0-d tensor. step: Adam's step
    count after this update as a float64 0-d tensor, for a caller that counts steps itself
    (torch keeps them on the CPU whatever the parameter's device); None: the update adds 1
    to st's step tensor and reads it."""
    lr64, lr = lr, lr.to(p.dtype)
    if hyper[0] == "sgd":
        _, momentum, dampening, wd, nesterov, maximize = hyper
        d = -g if maximize else g
        if wd != 0:
            d = d + p * wd
        made = []
        if momentum != 0:
            if st is None:
                buf = d.clone()
                made.append(buf)
            else:
                buf = st[0]
                buf.mul_(momentum).add_(d, alpha=1 - dampening)
            d = d + buf * momentum if nesterov else buf
        p.sub_(d * lr)
        return made
    _, beta1, beta2, eps, wd, decoupled, maximize, amsgrad = hyper
    exp_avg, exp_avg_sq = st[0], st[1]
    d = -g if maximize else g
    if step is None:
        st[2].add_(1)
        step = st[2].to(torch.float64)
    if wd != 0:
        if decoupled:
            p.mul_((1 - lr64 * wd).to(p.dtype))
        else:
            d = d + p * wd
    exp_avg.lerp_(d, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(d, d, value=1 - beta2)
    # the bias corrections in float64, as torch computes them from the step's value
    bc1 = 1 - torch.pow(beta1, step)
    bc2 = 1 - torch.pow(beta2, step)
    step_size = (lr64 / bc1).to(p.dtype)
    second = exp_avg_sq
    if amsgrad:
        second = st[3]
        torch.maximum(second, exp_avg_sq, out=second)
    denom = (second.sqrt() / bc2.sqrt().to(p.dtype)).add_(eps)
    p.sub_(exp_avg / denom * step_size)
    return []
