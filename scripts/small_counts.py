"""Load-independent counts of one training step of a zoo model, per mode.

    .venv/bin/python scripts/small_counts.py MODEL MODE [--scale small] [--batch N] [--warmup 3] [--steps 2]
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=OUT \\
        .venv/bin/python scripts/small_counts.py MODEL MODE --callgrind

MODE is one of the bench's modes (eager, inductor, bessemer, bessemer-step), set up as
`bessemer bench` sets them up (bench/runner.py): SGD with momentum and clip_grad_norm_ from
the model's recipe; Inductor compiles the model, the clipping and the update, bessemer the
model and the update (the clipping eager), bessemer-step the whole step. After the warm-up
steps it prints, per step: Python function calls and C calls (sys.setprofile), ATen ops the
profiler records (every `aten::` event, nested ones too), Dynamo's graphs, graph breaks and
recompiles, and bessemer's compiled graphs. With --callgrind (under valgrind's callgrind,
instrumentation off at the start) only the measured steps are instrumented, so the
instruction count callgrind reports is theirs alone. Run it with OMP_NUM_THREADS=1: callgrind
counts every thread, and OpenMP workers spinning while they wait make the count swing with
timing (a tiny GPT-2's step read 13M instructions in one run and 68M in another; 10M on
one thread).
"""
from __future__ import annotations

import argparse
import collections
import ctypes
import os
import subprocess
import sys
import tempfile

import torch


def _callgrind_toggle():
    """start()/stop() of callgrind's instrumentation, through its client requests."""
    src = ('#include <valgrind/callgrind.h>\n'
           'void start(void){CALLGRIND_ZERO_STATS; CALLGRIND_START_INSTRUMENTATION;}\n'
           'void stop(void){CALLGRIND_STOP_INSTRUMENTATION; CALLGRIND_DUMP_STATS_AT("steps");}\n')
    d = tempfile.mkdtemp()
    c, so = os.path.join(d, "cg.c"), os.path.join(d, "cg.so")
    with open(c, "w") as f:
        f.write(src)
    subprocess.run(["gcc", "-O1", "-shared", "-fPIC", c, "-o", so], check=True)
    lib = ctypes.CDLL(so)
    return lib.start, lib.stop


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("mode", choices=("eager", "inductor", "bessemer", "bessemer-step"))
    ap.add_argument("--scale", default="small")
    ap.add_argument("--batch", type=int, default=None, help="batch size (default: the model's, per scale)")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--cpu-steps", type=int, default=20,
                    help="steps timed by this thread's CPU time (less load-dependent than wall time)")
    ap.add_argument("--calls", type=int, default=0, help="print the N most frequent Python calls")
    a = ap.parse_args()

    from bessemer import zoo
    from bessemer.bench.runner import make_optimizer
    torch.manual_seed(0)
    w = zoo.build(a.model, a.scale, batch=a.batch, seed=0)
    model, training = w.model, zoo.spec(a.model).training
    opt = make_optimizer(training, model)
    clip = training.get("max_grad_norm")
    params = list(model.parameters())
    batches = [w.make_batch(i) for i in range(4)]

    def clip_step():
        torch.nn.utils.clip_grad_norm_(params, clip)

    opt_step = opt.step
    whole = None
    if a.mode == "inductor":
        model.compile()
        opt_step = torch.compile(lambda: opt.step(), fullgraph=False)
        clip_step = torch.compile(clip_step)
    elif a.mode == "bessemer":
        import bessemer
        bessemer.compile(model, optimizer=opt)
        opt_step = opt.step      # the compiled step replaces opt.step on the instance
    elif a.mode == "bessemer-step":
        import bessemer
        whole = bessemer.compile_step(model, opt, w.loss_fn, max_grad_norm=clip)

    def step(i):
        b = batches[i % len(batches)]
        if whole is not None:
            return whole(b)
        opt.zero_grad(set_to_none=True)
        loss = w.loss_fn(model, b)
        loss.backward()
        if clip is not None:
            clip_step()
        opt_step()
        return loss.detach()

    for i in range(a.warmup):
        step(i)
    from torch._dynamo.utils import counters
    frames_before = dict(counters["frames"])

    if a.callgrind:
        start, stop = _callgrind_toggle()
        start()
        for i in range(a.steps):
            step(a.warmup + i)
        stop()
        print(f"{a.model} {a.mode}: {a.steps} steps instrumented")
        return

    calls = collections.Counter()
    n = {"call": 0, "c_call": 0}

    def prof(frame, event, arg):
        if event == "call":
            n["call"] += 1
            if a.calls:
                co = frame.f_code
                calls[f"{co.co_filename.split('site-packages/')[-1]}:{co.co_firstlineno} {co.co_name}"] += 1
        elif event == "c_call":
            n["c_call"] += 1
            if a.calls:
                calls[f"C {getattr(arg, '__qualname__', arg)}"] += 1

    import time
    t0 = time.thread_time()
    for i in range(a.cpu_steps):
        step(a.warmup + i)
    cpu_ms = (time.thread_time() - t0) / max(a.cpu_steps, 1) * 1e3
    sys.setprofile(prof)
    for i in range(a.steps):
        step(a.warmup + i)
    sys.setprofile(None)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as p:
        step(a.warmup + a.steps)
    aten = sum(1 for e in p.events() if e.name.startswith("aten::"))
    top = collections.Counter(e.name for e in p.events() if e.name.startswith("aten::"))

    print(f"{a.model} {a.mode} per step: python calls {n['call'] // a.steps}, C calls "
          f"{n['c_call'] // a.steps}, aten events {aten}, thread CPU ms {cpu_ms:.2f}")
    print("  dynamo: unique graphs", counters["stats"].get("unique_graphs", 0),
          "graph breaks", sum(counters["graph_break"].values()),
          "frames", dict(counters["frames"]), "recompiles since warm-up",
          counters["frames"].get("total", 0) - frames_before.get("total", 0))
    for k, v in counters["graph_break"].items():
        print("   break:", v, k[:200])
    be = getattr(model.forward, "_bessemer_backend", None)
    if be is not None:
        print("  bessemer graphs:", len(be.compiled))
    print("  aten ops:", ", ".join(f"{k[6:]} {v}" for k, v in top.most_common(25)))
    for k, v in calls.most_common(a.calls):
        print(f"   {v // a.steps:6d} {k}")


if __name__ == "__main__":
    main()
