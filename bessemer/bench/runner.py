"""The benchmark's phases: one (model, mode, phase), run by the worker process
(worker.py: `python -m bessemer.bench.worker JOB.json`).

JOB.json names the model, scale, sizes, mode, phase and where to write the
result. Phases:

  run     count the model's FLOPs, then set the mode up and time the first step
          (compile included, cold when the cache folders are empty), the warm-up
          steps and the measured steps; record every step's loss; save the final
          parameters for the fidelity comparison. A bessemer run then profiles
          apart: kernel bandwidth and graph-call overhead (forward and backward
          passes), and one more whole step split into its parts (step_split).
  warm    the same set-up and first step in a second process that finds the
          caches the `run` process filled: the warm start.
  memory  peak memory of a training step, recorded from before the first step
          (see measure.py for what it counts).

`bessemer bench --dynamic` has two phases of its own, `shapes` and `static`
(dynamic.py: the steps over varying input shapes, and at one shape).

Every phase runs the same steps up to its measurement, so the processes differ
only in what they record. A failure is written into the result as one line; the
worker's output (and the full traceback) goes to its log.
"""
from __future__ import annotations

import contextlib
import itertools
import json
import sys
import time
from typing import Callable

import torch

from .. import zoo
from ..fsutil import atomic_write_text
from bessemer.compiler.runtime import profile, step_split
from . import fallbacks, measure, turns

PHASES = ("run", "warm", "memory")
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}
LEARNING_RATE = 1e-4
# Steps cycle through this many distinct synthetic batches.
DISTINCT_BATCHES = 4
# forward and backward passes timed for the graph-call overhead table (profile.overhead_profile)
OVERHEAD_PASSES = 3
# profiled whole steps for "where a step's time goes": the page shows the one of median wall
# time (one step alone was as noisy as a timed step: on a shared 2-core machine a profiled
# step read up to 1.3x the timed median)
SPLIT_STEPS = 5


def make_optimizer(training, model: torch.nn.Module) -> torch.optim.Optimizer:
    """The optimizer of a zoo model's training recipe (registry.ModelSpec.training)."""
    lr = training.get("lr", LEARNING_RATE)
    if training["optimizer"] == "sgd":
        return torch.optim.SGD(model.parameters(), lr=lr, momentum=training.get("momentum", 0.0))
    return torch.optim.AdamW(model.parameters(), lr=lr)


# -- the modes: each one's own documented set-up, from (model, optimizer) to the optimizer-step callable
def setup_eager(model: torch.nn.Module, opt: torch.optim.Optimizer) -> Callable[[], None]:
    """Plain PyTorch: the model as it is and torch's default AdamW."""
    return opt.step


def setup_inductor(model: torch.nn.Module, opt: torch.optim.Optimizer) -> Callable[[], None]:
    """torch.compile with Inductor: the model compiled in place, and opt.step wrapped in
    torch.compile as PyTorch's "compiling the optimizer" tutorial recommends."""
    model.compile()

    @torch.compile(fullgraph=False)
    def opt_step():
        opt.step()

    return opt_step


def setup_bessemer(model: torch.nn.Module, opt: torch.optim.Optimizer) -> Callable[[], None]:
    """bessemer: the one line, model and optimizer together."""
    import bessemer
    bessemer.compile(model, optimizer=opt)
    return opt.step


def setup_bessemer_step(model: torch.nn.Module, opt: torch.optim.Optimizer) -> Callable[[], None]:
    """bessemer.compile_step: forward, loss, backward, clipping and the update as one program.
    The worker calls that program in place of its whole train step (WHOLE_STEP_MODES); this
    set-up only checks that nothing else compiled the model."""
    return opt.step


MODES: dict[str, Callable[[torch.nn.Module, torch.optim.Optimizer], Callable[[], None]]] = {
    "eager": setup_eager,
    "inductor": setup_inductor,
    "bessemer": setup_bessemer,
    "bessemer-step": setup_bessemer_step,
}
# the modes `bessemer bench` runs unless --modes says otherwise
DEFAULT_MODES = ("eager", "inductor", "bessemer")
# the modes whose compiled program is the whole training step (bessemer.compile_step)
WHOLE_STEP_MODES = ("bessemer-step",)


def _compile_split() -> dict:
    """Of the compile work so far (the first step's): seconds in Dynamo's own tracing, guards and
    bytecode (`dynamo_s`) and seconds in the backend it calls (`backend_s`: AOTAutograd, the
    partitioner and the mode's compiler, or the graph cache's loads), from Dynamo's own timers;
    for bessemer also the seconds spent loading stored frames (`frames_s`, with no Dynamo trace)."""
    from torch._dynamo.utils import compilation_time_metrics as m
    total = sum(m.get("_compile.compile_inner", []))
    backend = sum(m.get("OutputGraph.call_user_compiler", []))
    out = {"dynamo_s": max(0.0, total - backend), "backend_s": backend}
    precompile = sys.modules.get("bessemer.compiler.capture.precompile")
    if precompile is not None and precompile.stats["loaded"]:
        out["frames_s"] = precompile.stats["load_seconds"]
    return out


# -- one worker ---------------------------------------------------------------------
class Stage:
    """Names the part of the job that is running, for the error line."""

    def __init__(self):
        self.name = "start"

    def __call__(self, name: str) -> "Stage":
        self.name = name
        return self


def run_phase(job: dict, stage: Stage) -> dict:
    """Run one job of the PHASES; the result's fields (worker.py adds ok / error)."""
    from ..zoo import hf
    hf.quiet()
    torch.manual_seed(job["seed"])
    device = torch.device(job["device"])
    phase, mode = job["phase"], job["mode"]
    amp = _autocast(device, job["dtype"])

    stage("build")
    w = zoo.build(job["model"], job["scale"], job.get("batch"), job.get("seq"), job.get("image"),
                  seed=job["seed"], device=device, dropout=job.get("dropout", False))
    model = w.model
    training = zoo.spec(job["model"]).training
    opt = make_optimizer(training, model)
    clip = training.get("max_grad_norm")
    total_steps = 1 + job["warmup"] + job["steps"] if phase == "run" else 3
    batches = [w.make_batch(i) for i in range(min(total_steps, DISTINCT_BATCHES))]

    def forward_backward(batch):
        with amp():
            loss = w.loss_fn(model, batch)
        loss.backward()
        return loss

    opt_step = None  # the mode's optimizer step, set by its set-up below

    whole = None   # the compiled whole step of a WHOLE_STEP_MODES mode, made at its set-up

    def train_step(i: int, update_region: Callable = contextlib.nullcontext) -> torch.Tensor:
        """One training step; `update_region` is a context around its optimizer update
        (clipping included), for the profiled step."""
        nonlocal whole
        if mode in WHOLE_STEP_MODES:
            if whole is None:
                if job["dtype"] != "fp32":
                    raise ValueError(f"mode {mode} runs fp32 only (bessemer.compile_step has no autocast)")
                import bessemer
                whole = bessemer.compile_step(model, opt, w.loss_fn, max_grad_norm=clip)
            return whole(batches[i % len(batches)])
        opt.zero_grad(set_to_none=True)
        loss = forward_backward(batches[i % len(batches)])
        with update_region():
            if clip is not None:
                clip_step()
            opt_step()
        return loss.detach()

    # clip_grad_norm_ between backward and the update, where the model's recipe asks for it:
    # compiled with the optimizer step under Inductor, eager otherwise
    params = list(model.parameters())
    clip_step = (lambda: torch.nn.utils.clip_grad_norm_(params, clip)) if clip is not None else None
    if clip is not None and mode == "inductor":
        clip_step = torch.compile(clip_step)

    # The same eager forward and backward in every phase and mode, before the mode is
    # set up: it counts the model's FLOPs and warms the runtime up alike for all.
    stage("count flops")
    flops = measure.count_flops(lambda: forward_backward(batches[0]))
    model.zero_grad(set_to_none=True)
    torch.manual_seed(job["seed"])

    out = {"flops_per_step": flops, "n_params": w.n_params(), "batch": w.batch, "seq": w.seq,
           "image": w.image, "tokens_per_sample": w.tokens_per_sample}

    def measure_phase() -> dict:
        nonlocal opt_step
        if phase == "memory":
            existing = [*model.parameters(), *model.buffers(), *(t for b in batches for t in b.values())]
            tracker = measure.PeakMemory(device, existing)
            with tracker:
                stage(f"{mode} set-up")
                opt_step = MODES[mode](model, opt)
                stage("steps")
                train_step(0)
                train_step(1)
                with tracker.measured_step():
                    train_step(2)
            out.update(peak_bytes=tracker.peak_bytes, memory_method=tracker.method)
            return out

        stage(f"{mode} set-up and first step")
        t0 = time.perf_counter()
        opt_step = MODES[mode](model, opt)
        losses = [train_step(0)]
        measure.sync(device)
        out["first_step_s"] = time.perf_counter() - t0
        out["first_step_compile"] = _compile_split()
        if phase == "warm":
            return out

        stage("warm-up steps")
        for i in range(1, 1 + job["warmup"]):
            losses.append(train_step(i))
        stage("measured steps")
        times = []
        contention = measure.Contention()
        next_step = iter(range(1 + job["warmup"], total_steps))

        def measured_steps(n: int) -> None:
            if job.get("turns"):
                # A process that waited through the other modes' turns starts cold (its
                # threads asleep, its data out of the caches): one untimed forward and
                # backward, without an update, warms it up again. Every mode takes the
                # same turns, so every mode runs the same extra passes.
                forward_backward(batches[0])
                opt.zero_grad(set_to_none=True)
            with contention:
                for i in itertools.islice(next_step, n):
                    loss, dt = measure.timed(lambda: train_step(i), device)
                    losses.append(loss)
                    times.append(dt)

        if job.get("turns"):
            # the suite hands the measured steps out in turns, interleaved with the other
            # modes of this model (turns.py)
            turns.WorkerTurns(tuple(job["turns"])).serve(measured_steps)
        else:
            measured_steps(job["steps"])
        out["step_times"] = times
        out["foreign_cpu_share"] = contention.share
        if mode == "bessemer":
            # one more forward and backward (no update: the trained parameters stay those
            # of the measured steps) with every fused kernel timed on its own
            stage("kernel bandwidth")
            graphs = getattr(getattr(model.forward, "_bessemer_backend", None), "compiled", [])
            opt.zero_grad(set_to_none=True)
            with profile.kernel_profile(graphs) as prof:
                forward_backward(batches[0])
            opt.zero_grad(set_to_none=True)
            out["kernel_bandwidth"] = prof.summary()
            out["copy_gbps"] = profile.copy_bandwidth(device)
            # the fixed cost of the graph calls: three more forward and backward passes
            stage("graph-call overhead")
            with profile.overhead_profile(graphs) as ovh:
                for _ in range(OVERHEAD_PASSES):
                    forward_backward(batches[0])
            opt.zero_grad(set_to_none=True)
            out["overhead"] = ovh.summary(OVERHEAD_PASSES)
        elif mode == "eager":
            # eager's cost per ATen op on the same forward and backward, for the overhead table
            stage("eager cost per op")
            out["eager_ops"] = profile.eager_op_cost(lambda: forward_backward(batches[0]), device,
                                                     OVERHEAD_PASSES)
            opt.zero_grad(set_to_none=True)
        out["losses"] = [float(x) for x in losses]
        if job.get("params_path"):
            stage("save parameters")
            torch.save({n: p.detach().to("cpu", torch.float32) for n, p in model.named_parameters()},
                       job["params_path"])
        if mode == "bessemer":
            # where a step's time goes: one more whole training step (update included, so it
            # comes after the parameters were saved), every graph call, kernel and ATen call in
            # it timed, and the update as a whole
            stage("step time split")
            graphs = getattr(getattr(model.forward, "_bessemer_backend", None), "compiled", [])
            splits = []
            for k in range(SPLIT_STEPS):
                with step_split.step_profile(graphs, device) as split:
                    with split.step():
                        train_step(total_steps + k, split.update)
                splits.append(split.summary())
            out["step_split"] = step_split.median_step(splits)
        return out

    # What the mode left eager (graphs, optimizer updates) is read from the compiler's
    # warnings during its set-up and steps.
    with fallbacks.Recorder() as recorded:
        measure_phase()
    out["compile_report"] = recorded.report().as_dict()
    if phase == "run" and out.get("step_times"):
        # after everything timed: its Dynamo traces touch no measured step or compile
        stage("count needed flops")
        fresh = zoo.build(job["model"], job["scale"], job.get("batch"), job.get("seq"), job.get("image"),
                          seed=job["seed"], device=device, dropout=job.get("dropout", False))

        def loss_of(m):
            with amp():
                return fresh.loss_fn(m, batches[0])
        try:
            out["needed_flops_per_step"] = measure.count_needed_flops(fresh.model, loss_of, flops)
        except Exception as e:   # the MFU then counts eager's FLOPs; results.json says why
            out["needed_flops_error"] = f"{type(e).__name__}: {e}"[:500]
    return out


def _autocast(device: torch.device, dtype: str):
    if dtype == "fp32":
        return contextlib.nullcontext
    return lambda: torch.autocast(device_type=device.type, dtype=DTYPES[dtype])


def write_json(path: str, data: dict) -> None:
    """Write JSON so that a reader sees the whole file or none of it."""
    atomic_write_text(path, json.dumps(data, indent=1))
