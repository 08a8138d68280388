"""One probe of the batch search: a few real training steps of one workload, at one batch
size, in one mode, in a fresh process.

    python -m bessemer.bench.probe JOB.json

It builds the workload at the batch size, sets the mode up as the benchmark does
(runner.py), runs two steps, measures the peak memory of the third the way the
benchmark does (measure.py: everything live, parameters, gradients and optimizer
state included), then times three more. Running out of memory is a result ("oom"), not
an error. The result is written to the job's result_path as JSON.
"""
from __future__ import annotations

import importlib.util
import json
import os
import statistics
import sys
import traceback
from typing import Any, Callable

import torch

STEPS_BEFORE = 2     # steps before the measured one: compilation and first-step allocations
TIMED_STEPS = 3


def load_function(entry_point: str, function: str, source_dir: str | None = None) -> Callable:
    """`function` of the script `entry_point` (run as a module, so its training under
    `if __name__ == "__main__":` does not start)."""
    path = os.path.join(source_dir, entry_point) if source_dir else entry_point
    folder = os.path.dirname(os.path.abspath(path))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location("bessemer_tuned_script", path)
    if spec is None or spec.loader is None:
        raise ValueError(f"cannot import {path}")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fn = getattr(mod, function, None)
    if not callable(fn):
        raise ValueError(f"{path} has no function {function!r} (the workload: batch_size -> "
                         f"(model, batch, loss_fn))")
    return fn


def _to(x: Any, device: torch.device) -> Any:
    if isinstance(x, torch.Tensor):
        return x.to(device)
    if isinstance(x, dict):
        return {k: _to(v, device) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_to(v, device) for v in x)
    return x


def _tensors(x: Any) -> list:
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, dict):
        return [t for v in x.values() for t in _tensors(v)]
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in _tensors(v)]
    return []


def build(job: dict, device: torch.device):
    """(model, batches, loss_fn, optimizer) for the job's workload at its batch size."""
    w, b = job["workload"], job["batch"]
    if w.get("model"):
        from .. import zoo
        from ..zoo import hf
        hf.quiet()
        wl = zoo.build(w["model"], w.get("scale", "small"), b, w.get("seq"), w.get("image"), seed=0,
                       device=device)
        batches = [wl.make_batch(i) for i in range(2)]
        return wl.model, batches, wl.loss_fn, torch.optim.AdamW(wl.model.parameters(), lr=1e-4)
    fn = load_function(w["entry_point"], w.get("function", "workload"), w.get("source_dir"))
    torch.manual_seed(0)
    out = fn(b)
    if isinstance(out, dict):
        model, batch, loss_fn, make_opt = out["model"], out["batch"], out["loss_fn"], out.get("optimizer")
    else:
        model, batch, loss_fn = out[:3]
        make_opt = out[3] if len(out) > 3 else None
    model = model.to(device)
    opt = make_opt(model.parameters()) if make_opt else torch.optim.AdamW(model.parameters(), lr=1e-4)
    return model, [_to(batch, device)], loss_fn, opt


def _is_oom(e: BaseException) -> bool:
    if isinstance(e, MemoryError):
        return True
    oom = getattr(torch, "OutOfMemoryError", None) or getattr(torch.cuda, "OutOfMemoryError", None)
    if oom is not None and isinstance(e, oom):
        return True
    return isinstance(e, RuntimeError) and ("out of memory" in str(e) or "can't allocate memory" in str(e))


def run(job: dict) -> dict:
    from . import measure
    from .runner import MODES, WHOLE_STEP_MODES
    device = torch.device(job["device"])
    torch.manual_seed(0)
    model, batches, loss_fn, opt = build(job, device)
    existing = [*model.parameters(), *model.buffers(), *(t for b in batches for t in _tensors(b))]
    whole = None     # bessemer.compile_step's program, for a mode whose program is the whole step

    def step(i: int) -> None:
        nonlocal whole
        if job["mode"] in WHOLE_STEP_MODES:
            if whole is None:
                import bessemer
                whole = bessemer.compile_step(model, opt, loss_fn)
            whole(batches[i % len(batches)])
            return
        opt.zero_grad(set_to_none=True)
        loss_fn(model, batches[i % len(batches)]).backward()
        opt_step()

    tracker = measure.PeakMemory(device, existing)
    try:
        with tracker:
            opt_step = MODES[job["mode"]](model, opt)
            for i in range(STEPS_BEFORE):
                step(i)
            with tracker.measured_step():
                step(STEPS_BEFORE)
        times = [measure.timed(lambda i=i: step(i), device)[1] for i in range(TIMED_STEPS)]
    except BaseException as e:  # noqa: BLE001
        if _is_oom(e):
            return {"ok": True, "oom": True}
        raise
    state = [t for s in opt.state.values() for t in s.values() if isinstance(t, torch.Tensor)]
    fixed = measure.storage_bytes([*model.parameters(), *(p.grad for p in model.parameters() if p.grad is not None),
                                   *state])
    return {"ok": True, "oom": False, "peak_bytes": int(tracker.peak_bytes), "step_s": statistics.median(times),
            "fixed_bytes": int(fixed)}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m bessemer.bench.probe JOB.json", file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        job = json.load(f)
    try:
        result = run(job)
    except BaseException as e:  # noqa: BLE001 - the failure is the result
        traceback.print_exc()
        msg = " ".join(str(e).split()) or "(no message)"
        result = {"ok": False, "error": f"{type(e).__name__}: {msg[:300]}"}
    with open(job["result_path"], "w") as f:
        json.dump(result, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
