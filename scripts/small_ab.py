"""Modes of one zoo model side by side in one process, their steps interleaved.

    .venv/bin/python scripts/small_ab.py MODEL [--modes eager,bessemer,bessemer-step] [--rounds 40] [--phases]

Each mode trains its own copy of the model (set up as `bessemer bench` sets it up, see
small_counts.py); after the warm-up the steps go round-robin, one step of each mode per
round, and each step's CPU time of this thread is taken. On a loaded machine, load slows every
mode of a round alike, so the medians compare better than separate processes' would; they are
still no benchmark (`bessemer bench` is). With `--threads 1` (the default) kernels run serially.
"""
from __future__ import annotations

import argparse
import copy
import statistics
import time

import torch


def _setup(mode, w, model, opt, clip):
    params = list(model.parameters())

    def clip_step():
        torch.nn.utils.clip_grad_norm_(params, clip)

    whole = None
    if mode == "inductor":
        model.compile()
        opt_step = torch.compile(lambda: opt.step(), fullgraph=False)
        clip_step = torch.compile(clip_step)
    elif mode == "bessemer":
        import bessemer
        bessemer.compile(model, optimizer=opt)
    elif mode == "bessemer-step":
        import bessemer
        whole = bessemer.compile_step(model, opt, w.loss_fn, max_grad_norm=clip)
    if mode != "inductor":
        opt_step = opt.step   # bessemer.compile replaces the instance's step: read it after

    def step(batch, marks=None):
        if whole is not None:
            return whole(batch)
        opt.zero_grad(set_to_none=True)
        loss = w.loss_fn(model, batch)
        if marks is not None:
            marks.append(time.perf_counter())
        loss.backward()
        if marks is not None:
            marks.append(time.perf_counter())
        if clip is not None:
            clip_step()
        opt_step()
        return loss.detach()
    return step


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--modes", default="eager,bessemer,bessemer-step")
    ap.add_argument("--scale", default="small")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--phases", action="store_true",
                    help="also the median wall time of the forward, the backward and the rest "
                         "(clipping and update) of each step")
    ap.add_argument("--clock", choices=("thread", "process"), default="thread",
                    help="process: CPU time of all threads (OpenMP's workers and their waiting too)")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)

    from bessemer import zoo
    from bessemer.bench.runner import make_optimizer
    w = zoo.build(a.model, a.scale, seed=0)
    training = zoo.spec(a.model).training
    batches = [w.make_batch(i) for i in range(4)]
    steps = {}
    for mode in a.modes.split(","):
        model = copy.deepcopy(w.model)
        steps[mode] = _setup(mode, w, model, make_optimizer(training, model), training.get("max_grad_norm"))
        for i in range(a.warmup):
            steps[mode](batches[i % 4])
    clock = time.thread_time if a.clock == "thread" else time.process_time
    cpu = {m: [] for m in steps}
    wall = {m: [] for m in steps}
    parts = {m: [] for m in steps}
    for r in range(a.rounds):
        for mode, step in steps.items():
            marks = [] if a.phases and mode != "bessemer-step" else None
            t0, w0 = clock(), time.perf_counter()
            step(batches[r % 4], marks)
            cpu[mode].append(clock() - t0)
            end = time.perf_counter()
            wall[mode].append(end - w0)
            if marks:
                parts[mode].append((marks[0] - w0, marks[1] - marks[0], end - marks[1]))
    base = statistics.median(cpu[next(iter(steps))])
    for mode in steps:
        c, t = statistics.median(cpu[mode]), statistics.median(wall[mode])
        line = f"{a.model:13s} {mode:14s} cpu ms {c * 1e3:8.2f} ({base / c:4.2f}x)  wall ms {t * 1e3:8.2f}"
        if parts[mode]:
            f, b, u = (statistics.median(p[i] for p in parts[mode]) * 1e3 for i in range(3))
            line += f"  forward {f:7.2f}  backward {b:7.2f}  update {u:6.2f}"
        print(line)


if __name__ == "__main__":
    main()
