"""The benchmark run: plan the worker processes, run them one at a time, assemble the results.

For each model the modes run in order, eager first (the reference). For each
(model, mode) there is one folder of caches (bessemer's, Inductor's and
Triton's), empty at the start, and up to three worker processes:

  run     cold first step, then the timed steps, losses and final parameters
  warm    a fresh process on the same, now filled, caches (compiling modes only)
  memory  peak step memory

Workers run one after the other, never side by side, so they do not compete for
the cores they are timed on. The `run` workers of one model are alive together: each
is started once the one before is set up, and their measured steps are handed out in
turns, interleaved, so every mode is timed across the same stretches of the machine's
drift (turns.py; `interleave=False` runs each in one block).
"""
from __future__ import annotations

import json
import math
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Optional

import torch

from .. import zoo
from . import runner, turns
from .measure import cpu_name, matmul_peak, summarize

# Modes that compile, and so have a warm start to measure.
COMPILING = ("inductor", "bessemer")
# Turns the measured steps are split into when the modes are interleaved (turns.py). More
# turns follow the machine's drift more closely; each switch of process costs the next
# step a refill of the caches, which every mode pays alike but which is noise on short
# steps. Five turns (two steps each at the default ten) keep both small.
TURNS = 5


@dataclass
class Plan:
    models: list[str]
    modes: list[str]
    scale: str = "small"
    steps: int = 10
    warmup: int = 3
    batch: Optional[int] = None
    seq: Optional[int] = None
    image: Optional[int] = None
    dtype: str = "fp32"
    device: str = "cpu"
    seed: int = 0
    timeout_s: float = 1800.0
    memory: bool = True
    warm: bool = True
    interleave: bool = True
    dropout: bool = False      # transformers models keep their published dropout (zoo.build)
    command: str = ""

    def phases(self, mode: str) -> list[str]:
        out = ["run"]
        if self.warm and mode in COMPILING:
            out.append("warm")
        if self.memory:
            out.append("memory")
        return out

    def n_processes(self) -> int:
        return len(self.models) * sum(len(self.phases(m)) for m in self.modes)


@dataclass
class Progress:
    """What the suite tells its caller as it goes (a progress bar, a log)."""

    start: Callable[[str], None] = field(default=lambda label: None)
    advance: Callable[[], None] = field(default=lambda: None)
    row_done: Callable[[dict], None] = field(default=lambda row: None)


def run(plan: Plan, progress: Progress = Progress()) -> dict:
    """Run every worker of `plan` and return the results (the content of results.json)."""
    t0 = time.perf_counter()
    load_start = load_average()
    device = torch.device(plan.device)
    # The matmul peak is probed before and after the workers and the better probe is
    # kept: other work on the machine can only make a probe slower.
    probes = [_matmul_peak(device, plan.dtype)]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bessemer-bench-") as work:
        for model in plan.models:
            model_rows = []
            if plan.interleave:
                runs = _runs_in_turns(plan, model, work, progress)
            else:
                runs = {}
            for mode in plan.modes:
                results = {}
                for phase in plan.phases(mode):
                    if phase == "run" and mode in runs:
                        results[phase] = runs[mode]
                    else:
                        progress.start(f"{model} · {mode} · {phase}")
                        results[phase] = _run_worker(plan, model, mode, phase, work)
                        progress.advance()
                    if phase == "run" and not results[phase].get("ok"):
                        for _ in plan.phases(mode)[1:]:
                            progress.advance()
                        break
                model_rows.append(_row(plan, model, mode, results))
            _fidelity(model_rows, work, model)
            for row in model_rows:
                progress.row_done(row)
            rows.extend(model_rows)
    probes.append(_matmul_peak(device, plan.dtype))
    peak = max(probes, key=lambda p: p["flops_per_s"])
    for row in rows:
        med = row.get("step_s", {}).get("median")
        flops = row.get("needed_flops_per_step") or row.get("flops_per_step")
        row["mfu"] = flops / med / peak["flops_per_s"] if med and flops else None
    meta = _meta(plan, peak, time.perf_counter() - t0)
    meta["matmul_probes_flops_per_s"] = [p["flops_per_s"] for p in probes]
    meta["host"]["load_average"] = {"start": load_start, "end": load_average()}
    return {"meta": meta, "rows": rows}


def load_average() -> Optional[float]:
    """The 1-minute load average: other work competing for the cores the workers are timed on."""
    try:
        return round(os.getloadavg()[0], 2)
    except (OSError, AttributeError):
        return None


# -- workers ---------------------------------------------------------------------------
def _worker_env(caches: str) -> dict:
    env = dict(os.environ)
    env["BESSEMER_CACHE_DIR"] = os.path.join(caches, "bessemer")
    env["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(caches, "inductor")
    env["TRITON_CACHE_DIR"] = os.path.join(caches, "triton")
    # The worker imports this checkout of bessemer, wherever the benchmark is started from.
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    env.pop("BESSEMER_COMPILER_CONFIG", None)
    return env


def _job(plan: Plan, model: str, mode: str, phase: str, work: str) -> tuple[dict, str, str]:
    """(the job, the stem of its files, its cache folder)."""
    stem = os.path.join(work, f"{_safe(model)}-{mode}-{phase}")
    job = {"model": model, "scale": plan.scale, "batch": plan.batch, "seq": plan.seq, "image": plan.image,
           "mode": mode, "phase": phase, "dtype": plan.dtype, "device": plan.device, "seed": plan.seed,
           "steps": plan.steps, "warmup": plan.warmup, "dropout": plan.dropout,
           "params_path": os.path.join(work, f"{_safe(model)}-{mode}.params.pt") if phase == "run" else None}
    return job, stem, os.path.join(work, f"{_safe(model)}-{mode}")


def _run_worker(plan: Plan, model: str, mode: str, phase: str, work: str) -> dict:
    job, stem, caches = _job(plan, model, mode, phase, work)
    return spawn(job, stem, caches, plan.timeout_s)


def spawn(job: dict, stem: str, caches: str, timeout_s: float) -> dict:
    """Run one worker process on `job` (written to STEM.job.json, its output to STEM.log) with
    the cache folders under `caches`, and return its result (a failure is a result too)."""
    return _collect(_start(job, stem, caches), job, stem, timeout_s)


def _start(job: dict, stem: str, caches: str, pass_fds: tuple = ()) -> subprocess.Popen:
    os.makedirs(caches, exist_ok=True)
    job["result_path"] = stem + ".result.json"
    runner.write_json(stem + ".job.json", job)
    with open(stem + ".log", "w") as log:
        return subprocess.Popen([sys.executable, "-m", "bessemer.bench.worker", stem + ".job.json"],
                                stdout=log, stderr=subprocess.STDOUT, env=_worker_env(caches),
                                start_new_session=True, pass_fds=pass_fds)


def _collect(proc: subprocess.Popen, job: dict, stem: str, timeout_s: float, timed_out: bool = False) -> dict:
    """Wait for the worker (up to timeout_s; not at all if it already ran out of time) and
    read its result."""
    phase = job["phase"]
    try:
        if timed_out:
            raise subprocess.TimeoutExpired(proc.args, timeout_s)
        code = proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill(proc)
        return {"ok": False, "stage": phase, "error": f"timed out after {timeout_s:.0f} s"}
    except BaseException:
        _kill(proc)
        raise
    try:
        with open(job["result_path"]) as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError):
        return {"ok": False, "stage": phase,
                "error": f"worker exited with code {code}: {_last_line(stem + '.log')}"}


def _runs_in_turns(plan: Plan, model: str, work: str, progress: Progress) -> dict:
    """The `run` workers of every mode of `model`, their measured steps interleaved
    (turns.py). The workers start one at a time, each once the one before is set up and
    warmed up, so no compile runs beside anything. {mode: result}."""
    live: dict = {}    # mode -> (process, turns, job, stem), set up and waiting for turns
    out: dict = {}

    def drop(mode: str, timed_out: bool) -> None:
        proc, t, job, stem = live.pop(mode)
        t.close()
        out[mode] = _collect(proc, job, stem, plan.timeout_s, timed_out)
        progress.advance()

    try:
        for mode in plan.modes:
            progress.start(f"{model} · {mode} · run: set-up")
            t = turns.Turns()
            job, stem, caches = _job(plan, model, mode, "run", work)
            job["turns"] = list(t.child_fds)
            try:
                proc = _start(job, stem, caches, pass_fds=t.child_fds)
            finally:
                t.started()
            live[mode] = (proc, t, job, stem)
            try:
                t.wait_ready(plan.timeout_s)
            except (turns.Closed, turns.TurnTimeout) as e:
                drop(mode, isinstance(e, turns.TurnTimeout))
        if live:
            progress.start(f"{model} · measured steps in turns: {', '.join(live)}")
        for n in turns.split_steps(plan.steps, TURNS):
            for mode in list(live):
                try:
                    live[mode][1].turn(n, plan.timeout_s)
                except (turns.Closed, turns.TurnTimeout) as e:
                    drop(mode, isinstance(e, turns.TurnTimeout))
        for mode in list(live):
            progress.start(f"{model} · {mode} · run: finish")
            proc, t, job, stem = live.pop(mode)
            t.finish()
            out[mode] = _collect(proc, job, stem, plan.timeout_s)
            progress.advance()
    finally:
        for proc, t, _, _ in live.values():
            t.close()
            _kill(proc)
    return out


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _last_line(path: str) -> str:
    try:
        with open(path, errors="replace") as f:
            lines = [ln.strip() for ln in f if ln.strip()]
        return lines[-1][:300] if lines else "(no output)"
    except OSError:
        return "(no log)"


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


# -- assembling rows -----------------------------------------------------------------
def _row(plan: Plan, model: str, mode: str, results: dict) -> dict:
    run_r = results.get("run", {})
    size = zoo.resolve(model, plan.scale, plan.batch, plan.seq, plan.image)[1]
    row = {"model": model, "mode": mode, "scale": plan.scale, "dtype": plan.dtype, "device": plan.device,
           "batch": size.batch, "seq": size.seq, "image": size.image,
           "status": "ok" if run_r.get("ok") else "error", "error": None, "phase_errors": {}}
    if not run_r.get("ok"):
        row["error"] = f"{run_r.get('stage', 'run')}: {run_r.get('error', 'failed')}"
        return row
    step = summarize(run_r["step_times"])
    batch, tokens = run_r["batch"], run_r.get("tokens_per_sample")
    row.update(batch=batch, seq=run_r.get("seq"), image=run_r.get("image"), n_params=run_r["n_params"],
               step_s=step, first_step_cold_s=run_r["first_step_s"], losses=run_r["losses"],
               first_step_cold_compile=run_r.get("first_step_compile"),
               final_loss=run_r["losses"][-1], flops_per_step=run_r["flops_per_step"],
               needed_flops_per_step=run_r.get("needed_flops_per_step"),
               foreign_cpu_share=run_r.get("foreign_cpu_share"))
    cr = run_r.get("compile_report") or {}
    # A row with any fallback ran partly eagerly: it is not counted as compiled
    # (report.py leaves it out of the speed-ups' geometric mean and the targets).
    row.update(fallbacks=len(cr.get("fallbacks", [])), fallback_notes=cr.get("fallbacks", []),
               unlowered_ops=cr.get("unlowered_ops", []), graph_breaks=cr.get("graph_breaks", 0),
               recompiles=cr.get("recompiles", 0))
    if "kernel_bandwidth" in run_r:
        row["kernel_bandwidth"] = run_r["kernel_bandwidth"]
        row["copy_gbps"] = run_r.get("copy_gbps")
    for key in ("overhead", "eager_ops", "step_split"):
        if key in run_r:
            row[key] = run_r[key]
    med = step.get("median")
    row["samples_per_s"] = batch / med if med else None
    row["tokens_per_s"] = batch * tokens / med if med and tokens else None
    if mode == "eager":  # eager compiles nothing: its first step is the same cold or warm
        row["first_step_warm_s"] = None
    for phase in ("warm", "memory"):
        r = results.get(phase)
        if r is None:
            continue
        if not r.get("ok"):
            row["phase_errors"][phase] = f"{r.get('stage', phase)}: {r.get('error', 'failed')}"
        elif phase == "warm":
            row["first_step_warm_s"] = r["first_step_s"]
            row["first_step_warm_compile"] = r.get("first_step_compile")
        else:
            row["peak_mem_bytes"] = r["peak_bytes"]
            row["memory_method"] = r.get("memory_method")
    return row


def _fidelity(rows: list[dict], work: str, model: str) -> None:
    """Against eager: the loss curve and the parameters after the last step."""
    ref = next((r for r in rows if r["mode"] == "eager" and r["status"] == "ok"), None)
    ref_path = os.path.join(work, f"{_safe(model)}-eager.params.pt")
    ref_params = torch.load(ref_path) if ref is not None and os.path.exists(ref_path) else None
    for r in rows:
        path = os.path.join(work, f"{_safe(model)}-{r['mode']}.params.pt")
        if r["status"] == "ok" and ref is not None:
            r["loss_max_rel_diff"] = _curve_diff(r["losses"], ref["losses"])
            if ref_params is not None and os.path.exists(path):
                d = _param_diff(torch.load(path), ref_params)
                r["param_max_rel_diff"], r["param_worst"] = d["max_rel"], d["worst"]
        if os.path.exists(path) and path != ref_path:
            os.unlink(path)
    if os.path.exists(ref_path):
        os.unlink(ref_path)


def _curve_diff(losses: list[float], ref: list[float]) -> Optional[float]:
    pairs = list(zip(losses, ref))
    if not pairs:
        return None
    if any(not (math.isfinite(a) and math.isfinite(b)) for a, b in pairs):
        return math.inf
    return max(abs(a - b) / max(abs(b), 1e-12) for a, b in pairs)


def _param_diff(params: dict, ref: dict) -> dict:
    """How far the parameters are from eager's after the last step.

    `max_rel`: the largest |p - p_eager| over all parameters, relative to the largest
    |p_eager|. Differences are not taken relative to each tensor's own scale: a
    parameter whose gradient is zero up to rounding (a key projection's bias, which
    softmax cancels) moves by rounding noise that AdamW scales up to about lr per step,
    so its per-tensor relative difference is of order 1 between any two correct
    implementations. `worst` names the tensor with the largest difference and gives
    its per-tensor relative difference too.
    """
    worst_name, worst_diff, worst_rel, scale = None, 0.0, 0.0, 0.0
    for name, p_ref in ref.items():
        p = params.get(name)
        if p is None or p.shape != p_ref.shape:
            return {"max_rel": math.inf, "worst": {"name": name, "max_abs": math.inf, "rel": math.inf}}
        diff = (p - p_ref).abs().max().item() if p.numel() else 0.0
        own = p_ref.abs().max().item() if p.numel() else 0.0
        if not math.isfinite(diff):
            return {"max_rel": math.inf, "worst": {"name": name, "max_abs": math.inf, "rel": math.inf}}
        scale = max(scale, own)
        if diff > worst_diff:
            worst_name, worst_diff = name, diff
            worst_rel = diff / own if own > 0 else math.inf
    max_rel = worst_diff / scale if scale > 0 else worst_diff
    return {"max_rel": max_rel, "worst": {"name": worst_name, "max_abs": worst_diff, "rel": worst_rel}}


# -- the run's facts ---------------------------------------------------------------------
def _matmul_peak(device: torch.device, dtype: str) -> dict:
    return matmul_peak(device, runner.DTYPES[dtype])


def _meta(plan: Plan, peak: dict, wall_s: float) -> dict:
    import bessemer
    try:
        import transformers
        tf_version = transformers.__version__
    except ImportError:  # pragma: no cover
        tf_version = None
    host = {"cpu": cpu_name(), "cores": os.cpu_count(), "torch_threads": torch.get_num_threads(),
            "platform": platform.platform(), "python": platform.python_version()}
    if plan.device == "cuda":
        host["gpu"] = torch.cuda.get_device_name(0)
    return {"command": plan.command, "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
            "versions": {"bessemer": bessemer.__version__, "torch": torch.__version__,
                         "transformers": tf_version},
            "host": host, "plan": asdict(plan), "matmul_peak": peak, "wall_s": wall_s,
            "learning_rate": runner.LEARNING_RATE}


