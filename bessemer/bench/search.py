"""The search: the largest batch size whose training step stays under a memory limit.

Every answer comes from real steps (probe.py, one fresh process per probe): a
step's peak memory is measured, never only predicted. A line through the probes made
so far (peak memory grows about linearly with the batch: a fixed part, parameters,
gradients and optimizer state, plus activations per sample) only chooses the next
batch to try; the search ends when a batch fits and the next multiple up was measured
not to (or the probe budget is spent, which the result says).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from typing import Callable, Optional, Union

import torch

# `--memory-limit auto` on a CPU: this share of the memory available now (the rest is
# left to the process's own Python objects, libraries and the other work on the machine).
AUTO_RAM_SHARE = 0.8
# `auto` on a GPU: this share of the device's free memory (the caching allocator's
# fragmentation and the CUDA context's own allocations take the rest).
AUTO_GPU_SHARE = 0.95
MAX_PROBES = 8
# Never try a batch the line predicts to need more than this much over the limit, nor
# more than GROWTH times the largest batch that fit: a wild guess could exhaust the
# machine's memory before the step is even measured.
OVERSHOOT = 1.25
GROWTH = 8

_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6, "g": 10**9, "gb": 10**9,
          "t": 10**12, "tb": 10**12, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


class TuneError(ValueError):
    """Bad input or a search that cannot succeed; the message is the one line the user sees."""


@dataclass(frozen=True)
class Workload:
    """What to train: a zoo model (`model`, `scale`, ...) or a script's workload function
    (`entry_point`, `function`: batch_size -> (model, batch, loss_fn[, optimizer factory]))."""

    model: Optional[str] = None
    scale: str = "small"
    seq: Optional[int] = None
    image: Optional[int] = None
    entry_point: Optional[str] = None
    function: str = "workload"
    source_dir: Optional[str] = None

    @property
    def label(self) -> str:
        return self.model if self.model else f"{self.entry_point}:{self.function}"


@dataclass
class Probe:
    batch: int
    fits: bool
    peak_bytes: Optional[int] = None
    step_s: Optional[float] = None
    fixed_bytes: Optional[int] = None
    oom: bool = False


@dataclass
class ModeResult:
    mode: str
    batch_size: int
    peak_bytes: int
    step_s: float
    probes: list = field(default_factory=list)
    bracketed: bool = True          # the next multiple up was measured not to fit
    memory_budget: Optional[float] = None   # the budget a budget search chose (find_batch_and_budget)
    budgets: dict = field(default_factory=dict)   # that search's findings: budget -> what it showed

    @property
    def samples_per_s(self) -> float:
        return self.batch_size / self.step_s if self.step_s else 0.0

    def to_dict(self) -> dict:
        out = {"batch_size": self.batch_size, "step_ms": round(self.step_s * 1e3, 3),
               "samples_per_s": round(self.samples_per_s, 3), "peak_bytes": self.peak_bytes,
               "largest_confirmed": self.bracketed, "probes": [asdict(p) for p in self.probes]}
        if self.memory_budget is not None:
            out["memory_budget"] = self.memory_budget
            out["budgets"] = self.budgets
        return out


# -- limits ---------------------------------------------------------------------------------
def parse_limit(text: Union[str, int], flag: str = "--memory-limit") -> Union[int, str]:
    """"auto", or bytes from "1500000000", "512MiB", "2GiB", "1.5GB"."""
    if isinstance(text, int) and not isinstance(text, bool):
        if text < 1:
            raise TuneError(f"{flag} must be a positive number of bytes, got {text}")
        return text
    if not isinstance(text, str):
        raise TuneError(f"{flag} must be a number of bytes (512MiB, 2GB, ...) or auto, got {text!r}")
    t = text.strip().lower()
    if t == "auto":
        return "auto"
    m = re.fullmatch(r"([0-9]*\.?[0-9]+(?:e[0-9]+)?)\s*([a-z]*)", t)
    if not m or m.group(2) not in _UNITS:
        raise TuneError(f"{flag} must be a number of bytes (512MiB, 2GB, 1500000000) or auto, got {text!r}")
    v = float(m.group(1)) * _UNITS[m.group(2)]
    if not v >= 1:
        raise TuneError(f"{flag} must be a positive number of bytes, got {text!r}")
    return int(v)


def resolve_limit(limit: Union[int, str], device: torch.device) -> int:
    if limit != "auto":
        return int(limit)
    from .fit import available_bytes
    free = available_bytes(device)
    if free is None:
        raise TuneError("--memory-limit auto: the free memory of this machine cannot be read; give bytes")
    return int(free * (AUTO_GPU_SHARE if device.type == "cuda" else AUTO_RAM_SHARE))


def mib(n: Optional[float]) -> str:
    return "-" if n is None else f"{n / 2**20:.1f} MiB"


# -- probes ---------------------------------------------------------------------------------
def probe(workload: Workload, mode: str, batch: int, device: torch.device, env: dict,
          timeout_s: float, log_path: Optional[str] = None) -> Probe:
    """Real steps at `batch` in a fresh process."""
    with tempfile.TemporaryDirectory(prefix="bessemer-tune-") as tmp:
        job = {"workload": asdict(workload), "mode": mode, "batch": batch, "device": str(device),
               "result_path": os.path.join(tmp, "result.json")}
        path = os.path.join(tmp, "job.json")
        with open(path, "w") as f:
            json.dump(job, f)
        out = open(log_path, "a") if log_path else subprocess.DEVNULL
        try:
            proc = subprocess.run([sys.executable, "-m", "bessemer.bench.probe", path], env=env, stdout=out,
                                  stderr=subprocess.STDOUT, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise TuneError(f"{mode} at batch {batch}: no result within {timeout_s:.0f} s") from None
        finally:
            if log_path:
                out.close()
        try:
            with open(job["result_path"]) as f:
                res = json.load(f)
        except (OSError, json.JSONDecodeError):
            if proc.returncode < 0 or proc.returncode == 137:   # killed: the machine ran out of memory
                return Probe(batch, False, oom=True)
            raise TuneError(f"{mode} at batch {batch}: the probe process failed (exit code {proc.returncode})"
                            + (f"; its log: {log_path}" if log_path else "")) from None
    if not res.get("ok"):
        raise TuneError(f"{mode} at batch {batch}: {res.get('error')}")
    if res.get("oom"):
        return Probe(batch, False, oom=True)
    return Probe(batch, True, res["peak_bytes"], res["step_s"], res.get("fixed_bytes"))


def _line(probes: list[Probe], lo: Probe, hi: Optional[Probe]) -> Optional[tuple[float, float]]:
    """(fixed bytes, bytes per sample) of the line through the two most telling probes: the
    largest batch that fit and the smallest that did not, else the two largest measured
    (at small batches the step's peak can sit in the optimizer update, flat in the batch;
    a fit through those points would miss the slope)."""
    measured = sorted({p.batch: p for p in probes if p.peak_bytes is not None}.values(), key=lambda p: p.batch)
    if hi is not None and hi.peak_bytes is not None:
        a, b = lo, hi
    elif len(measured) >= 2:
        a, b = measured[-2], measured[-1]
    elif measured and measured[0].fixed_bytes is not None:
        p = measured[0]
        return float(p.fixed_bytes), max((p.peak_bytes - p.fixed_bytes) / p.batch, 1.0)
    else:
        return None
    slope = max((b.peak_bytes - a.peak_bytes) / (b.batch - a.batch), 1.0)
    return a.peak_bytes - slope * a.batch, slope


def _judged(p: Probe, limit_bytes: int) -> Probe:
    p.fits = not p.oom and p.peak_bytes is not None and p.peak_bytes <= limit_bytes
    return p


def find_batch(workload: Workload, mode: str, limit_bytes: int, multiple_of: int = 1,
               device: Union[str, torch.device] = "cpu", env: Optional[dict] = None, timeout_s: float = 1800.0,
               max_probes: int = MAX_PROBES, on_probe: Callable[[str, Probe], None] = lambda mode, p: None,
               log_path: Optional[str] = None, run_probe: Callable = probe,
               start: Optional[int] = None) -> ModeResult:
    """The largest multiple of `multiple_of` whose training step in `mode` peaks under
    `limit_bytes`. TuneError when even the smallest does not fit. `start`: a batch to probe
    first (a multiple of `multiple_of` that likely fits, from an earlier search)."""
    device = torch.device(device)
    env = dict(os.environ if env is None else env)
    probes: list[Probe] = []

    def measure(b: int) -> Probe:
        p = _judged(run_probe(workload, mode, b, device, env, timeout_s, log_path), limit_bytes)
        probes.append(p)
        on_probe(mode, p)
        return p

    hi = None
    if start is not None and start > multiple_of:
        first = measure((start // multiple_of) * multiple_of)
        if not first.fits:
            hi = first
            first = measure(multiple_of)
    else:
        first = measure(multiple_of)
    if not first.fits:
        need = f"peaks at {mib(first.peak_bytes)}" if first.peak_bytes is not None else "runs out of memory"
        raise TuneError(f"{workload.label} does not fit at batch {multiple_of} in {mode} mode under the limit "
                        f"of {mib(limit_bytes)}: its training step {need}")
    lo = first
    while len(probes) < max_probes:
        if hi is not None and hi.batch - lo.batch <= multiple_of:
            break
        line = _line(probes, lo, hi)
        if line is None:
            guess = lo.batch * 2
        else:
            fixed, per = line
            guess = int((limit_bytes - fixed) // per)
            # the largest batch the line allows, if it stays under the limit by OVERSHOOT
            guess = min(guess, int((limit_bytes * OVERSHOOT - fixed) // per))
        guess = min(guess, lo.batch * GROWTH)
        cand = (guess // multiple_of) * multiple_of
        if hi is not None:
            top = hi.batch - multiple_of
            if cand >= top and (hi.batch - lo.batch) // multiple_of > 4:
                # the line points past a wide bracket: halve the bracket instead
                cand = ((lo.batch + hi.batch) // 2 // multiple_of) * multiple_of
            cand = min(cand, top)
        if cand <= lo.batch:
            cand = lo.batch + multiple_of          # confirm the next one up does not fit
        p = measure(cand)
        if p.fits:
            lo = p
        elif hi is None or p.batch < hi.batch:
            hi = p
    return ModeResult(mode, lo.batch, lo.peak_bytes, lo.step_s, probes,
                      bracketed=hi is not None and hi.batch - lo.batch <= multiple_of)


# -- the memory budget too ------------------------------------------------------------------
# The budgets a search over budgets tries, from the default plan (1.0: save what the backward
# reads, rematerializing only what costs no time) down to recomputing all that can be.
AUTO_BUDGETS = (1.0, 0.5, 0.2, 0.0)


def find_batch_and_budget(workload: Workload, mode: str, limit_bytes: int, config, budgets=AUTO_BUDGETS,
                          multiple_of: int = 1, device: Union[str, torch.device] = "cpu",
                          env: Optional[dict] = None, timeout_s: float = 1800.0, max_probes: int = MAX_PROBES,
                          on_probe: Callable[[str, Probe], None] = lambda mode, p: None,
                          log_path: Optional[str] = None, run_probe: Callable = probe) -> ModeResult:
    """The largest batch any of `budgets` (bessemer's `memory_budget`) reaches under the limit,
    at the largest budget that reaches it: recomputation trades step time for memory, so no
    more of it than the batch needs. Searches at the first budget (the default plan) and at
    the last (the least memory); if the last reaches further, the budgets between are probed
    at that batch, largest first, and the first that fits is chosen.

    The trade it makes: the batch first, then the step time at that batch. A smaller batch
    with less recomputation can have the higher samples/s; the result's `budgets` keeps what
    each budget showed, so that is visible."""
    from ..config import ENV_CONFIG
    budgets = sorted(dict.fromkeys(budgets), reverse=True)
    base = dict(os.environ if env is None else env)

    def env_for(b: float) -> dict:
        return dict(base, **{ENV_CONFIG: config.replace(memory_budget=b).to_json()})

    def search(b: float, start: Optional[int] = None) -> ModeResult:
        return find_batch(workload, mode, limit_bytes, multiple_of, device, env_for(b), timeout_s, max_probes,
                          lambda m, p: on_probe(f"{m} (memory_budget {b:g})", p), log_path, run_probe, start)

    top = search(budgets[0])
    found = {budgets[0]: top}
    chosen, chosen_budget = top, budgets[0]
    if len(budgets) > 1:
        least = search(budgets[-1], start=top.batch_size)
        found[budgets[-1]] = least
        if least.batch_size > top.batch_size:
            chosen, chosen_budget = least, budgets[-1]
            for b in budgets[1:-1]:
                p = _judged(run_probe(workload, mode, least.batch_size, torch.device(device), env_for(b),
                                      timeout_s, log_path), limit_bytes)
                on_probe(f"{mode} (memory_budget {b:g})", p)
                found[b] = p
                if p.fits:
                    chosen = ModeResult(mode, p.batch, p.peak_bytes, p.step_s, [p], least.bracketed)
                    chosen_budget = b
                    break
    probes = [p for b in budgets if b in found
              for p in (found[b].probes if isinstance(found[b], ModeResult) else [found[b]])]
    summary = {}
    for b in budgets:
        r = found.get(b)
        if isinstance(r, ModeResult):
            summary[f"{b:g}"] = {"largest_batch": r.batch_size, "step_ms": round(r.step_s * 1e3, 3),
                                 "samples_per_s": round(r.samples_per_s, 3), "largest_confirmed": r.bracketed}
        elif isinstance(r, Probe):
            summary[f"{b:g}"] = {"batch": r.batch, "fits": r.fits, "peak_bytes": r.peak_bytes}
    return ModeResult(mode, chosen.batch_size, chosen.peak_bytes, chosen.step_s, probes,
                      chosen.bracketed, memory_budget=chosen_budget, budgets=summary)
