"""`batch_size="auto"`: a job finds its batch size before it trains.

    est = bessemer.PyTorch(entry_point="train.py", source_dir="src", hyperparameters={
        "batch_size": "auto",               # the largest batch that fits (bessemer tune's search)
        "reference_batch_size": 32,         # optional: scale the learning rate from these two ...
        "reference_learning_rate": 3e-4,
        "lr_rule": "sqrt",                  # ... by this rule (default linear)
        "warmup_steps": 500,                # optional: warm-up steps at the reference batch
        "memory_limit": "12GiB",            # optional: default auto (the device's free memory)
        "batch_multiple": 8,                # optional: batch sizes are multiples of this
        "workload": "workload",             # optional: the script's workload function
    })

The script defines the workload function `bessemer tune --entry-point` uses
(batch_size -> (model, batch, loss_fn)), with its training under
`if __name__ == "__main__":`. The search is the job's first phase: fit() creates the
job and returns (wait=False) or follows its log as for any job; the job's supervisor
runs `python -m bessemer.jobs.autobatch` (main below) in the job's process group, so
`stop()`, max_run and Ctrl-C end a search as they end a script. It searches with real
steps, in the mode the job trains in: bessemer with the job's compiler config when
the compiler is on and the script hands its model to it (script_mode), else eager.
Each probe is a line of the job's log ("batch 64: 212.0 MiB, fits"). The script then
gets `batch_size` (and `learning_rate`, `warmup_steps` when scaling was asked for) as
ordinary hyperparameters, without the search's own keys; the job's log says the old
and new values, and its record keeps the search (`batch_search`, "BatchSearch" in
`bessemer jobs describe`) and the hyperparameters the script got.

Bad input is a ValueError naming the hyperparameter at construction where it can be
known then (scaling without its reference batch or rate, a limit that is no size);
what only the search finds (a model that does not fit at the smallest batch, a limit
below what its step needs) fails the job, with the reason in its record, before the
script starts.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Optional

from ..config import ENV_CONFIG, TrainingCompilerConfig

AUTO = "auto"
# the search's own hyperparameters: recorded, not passed to the script
SEARCH_KEYS = ("reference_batch_size", "reference_learning_rate", "lr_rule", "memory_limit", "batch_multiple",
               "workload")
_NAMES = tuple(f"hyperparameters[{k!r}]" for k in ("lr_rule", "reference_batch_size",
                                                    "reference_learning_rate", "warmup_steps"))


# How a script hands its model to the compiler: bessemer.compile(...), `from bessemer import
# compile`, or torch.compile(..., backend="bessemer"); a Hugging Face job's Trainer is compiled
# by the job's start-up hook.
_COMPILES = re.compile(r"\bbessemer\s*\.\s*compile\s*\(|\bbackend\s*=\s*['\"]bessemer['\"]"
                       r"|\bfrom\s+bessemer\s+import\b[^\n]*\bcompile\b")
_TRAINER = re.compile(r"\bTrainer\b")
_SKIP_DIRS = {".git", ".venv", "venv", "__pycache__", "node_modules", ".mypy_cache", ".pytest_cache"}
_MAX_FILES = 500


def script_mode(entry_point: str, source_dir: Optional[str], framework: str, enabled: bool) -> tuple[str, str]:
    """(mode, why): the mode a job's script trains in, for the batch search.

    A heuristic on the script's own source files (comments left out): a script that calls
    the compiler only through code outside them (an installed helper package) is taken to
    train eagerly. That errs towards the safe side: an eager step holds more memory than a
    compiled one, so the batch found fits either way, at worst smaller than bessemer allows.
    The opposite mistake (a call that is there but never runs) would size the batch by
    bessemer's smaller memory; the job's log then says the script compiled nothing."""
    if not enabled:
        return "eager", "the compiler is off"
    pattern = _TRAINER if framework == "huggingface" else None
    root = Path(source_dir) if source_dir else None
    files = [Path(entry_point)] if root is None else \
        [p for p in sorted(root.rglob("*.py")) if not _SKIP_DIRS & set(p.relative_to(root).parts)][:_MAX_FILES]
    for path in files:
        try:
            text = "\n".join(ln for ln in path.read_text(errors="replace").splitlines()
                             if not ln.lstrip().startswith("#"))
        except OSError:
            continue
        if _COMPILES.search(text) or (pattern is not None and pattern.search(text)):
            return "bessemer", f"{path.name} hands its model to the compiler"
    return "eager", ("the script never calls bessemer.compile (nor torch.compile with backend=\"bessemer\"), "
                     "so it trains eagerly")


def _hp(key: str) -> str:
    return f"hyperparameters[{key!r}]"


def check(hps: Mapping[str, Any]) -> None:
    """What can be checked before anything runs (ValueError naming the hyperparameter)."""
    from ..bench.search import parse_limit
    auto = hps.get("batch_size") == AUTO
    given = [k for k in SEARCH_KEYS if k in hps]
    if not auto:
        if given:
            raise ValueError(f"{_hp(given[0])} belongs to the batch search: it needs batch_size='auto'")
        return
    _scaling(hps)
    parse_limit(hps.get("memory_limit", AUTO), flag=_hp("memory_limit"))
    m = hps.get("batch_multiple", 1)
    if isinstance(m, bool) or not isinstance(m, int) or m < 1:
        raise ValueError(f"{_hp('batch_multiple')} must be a positive integer, got {m!r}")
    w = hps.get("workload", "workload")
    if not isinstance(w, str) or not w.isidentifier():
        raise ValueError(f"{_hp('workload')} must name a function of the entry point, got {w!r}")


def _scaling(hps: Mapping[str, Any]) -> Optional[str]:
    """The learning-rate rule, when scaling is asked for (a warm-up alone is the script's own)."""
    from ..tune.lr import check_scaling
    if not any(k in hps for k in ("lr_rule", "reference_batch_size", "reference_learning_rate")):
        return None
    return check_scaling(hps.get("lr_rule"), hps.get("reference_batch_size"), hps.get("reference_learning_rate"),
                         hps.get("warmup_steps"), names=_NAMES)


@dataclass
class Chosen:
    hyperparameters: dict                       # what the script gets
    record: dict                                # what the job's record keeps
    banner: list = field(default_factory=list)  # log lines saying what was chosen (after `say`'s progress)


def _search_key(script: str, source_dir: Optional[str], function: str, limit: int, mode: str, multiple: int,
                device: str, config: TrainingCompilerConfig) -> str:
    """What a search's result depends on: the script's source files, its workload function,
    the limit, the mode and its config, the device, and the versions of torch and bessemer."""
    import hashlib

    import torch

    from .. import __version__
    h = hashlib.sha256(json.dumps([function, limit, mode, multiple, device, config.to_json(), torch.__version__,
                                   __version__]).encode())
    root = Path(source_dir) if source_dir else None
    files = [Path(script)] if root is None else \
        [p for p in sorted(root.rglob("*.py")) if not _SKIP_DIRS & set(p.relative_to(root).parts)][:_MAX_FILES]
    for path in files:
        h.update(str(path.relative_to(root) if root else path.name).encode())
        try:
            h.update(path.read_bytes())
        except OSError:
            pass
    return h.hexdigest()[:24]


def _kept(path: Optional[Path]):
    """The search result kept at `path`, or None."""
    from ..bench.search import ModeResult, Probe
    try:
        d = json.loads(path.read_text()) if path is not None else None
        return ModeResult(d["mode"], d["batch_size"], d["peak_bytes"], d["step_s"],
                          [Probe(**p) for p in d["probes"]], d["bracketed"]) if d else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _keep(path: Optional[Path], result) -> None:
    if path is None:
        return
    from dataclasses import asdict

    from ..fsutil import atomic_write_text
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps({**asdict(result), "probes": [asdict(p) for p in result.probes]}))


def resolve(hps: Mapping[str, Any], entry_point: str, source_dir: Optional[str],
            config: TrainingCompilerConfig, environment: Mapping[str, str],
            framework: str = "pytorch", kept_dir: Optional[Path] = None,
            say: Callable[[str], None] = lambda _: None) -> Optional[Chosen]:
    """The batch search a job's hyperparameters ask for (None when they do not). A result is
    kept in `kept_dir` per (script, workload, limit, mode, config, device): a job with the
    same inputs takes it without probing. `say` gets a line per probe as it is measured."""
    if hps.get("batch_size") != AUTO:
        return None
    import torch

    from ..tune.lr import scaled_learning_rate, scaled_warmup_steps
    from ..bench.search import Workload, find_batch, mib, parse_limit, resolve_limit
    check(hps)
    rule = _scaling(hps)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    limit = resolve_limit(parse_limit(hps.get("memory_limit", AUTO), flag=_hp("memory_limit")), device)
    script = os.path.join(source_dir, entry_point) if source_dir else entry_point
    mode, why = script_mode(script, source_dir, framework, config.enabled)
    workload = Workload(entry_point=entry_point, function=hps.get("workload", "workload"), source_dir=source_dir)
    env = {**os.environ, **environment, ENV_CONFIG: config.to_json()}
    multiple = hps.get("batch_multiple", 1)
    key = _search_key(script, source_dir, workload.function, limit, mode, multiple, device.type, config)
    kept_at = kept_dir / f"{key}.json" if kept_dir is not None else None
    result = _kept(kept_at)
    reused = result is not None
    if result is None:
        def told(_mode: str, p) -> None:
            what = "out of memory" if p.oom else mib(p.peak_bytes)
            say(f"bessemer: batch search ({mode}): batch {p.batch}: {what}, {'fits' if p.fits else 'over the limit'}")

        say(f"bessemer: batch search: the largest batch under {mib(limit)} in {mode} mode, by real steps ...")
        result = find_batch(workload, mode, limit, multiple, device, env, on_probe=told)
        _keep(kept_at, result)
    else:
        say(f"bessemer: batch search: the result of an earlier search with the same script, limit and mode "
            f"({kept_at}); no probes run")
    b = result.batch_size
    out = {k: v for k, v in hps.items() if k not in SEARCH_KEYS}
    out["batch_size"] = b
    old_b = hps.get("reference_batch_size", AUTO)
    banner = [f"bessemer: batch_size {old_b} -> {b}: the largest under {mib(limit)} in {mode} mode "
                         f"(its step peaks at {mib(result.peak_bytes)}; {len(result.probes)} probes of real steps)"]
    if config.enabled and mode == "eager":
        banner.append(f"bessemer: the batch search ran in eager mode: {why}")
    record: dict = {"mode": mode, "mode_reason": why, "limit_bytes": limit, "device": device.type,
                    "peak_bytes": result.peak_bytes, "reused": reused,
                    "step_ms": round(result.step_s * 1e3, 3), "largest_confirmed": result.bracketed,
                    "probes": [{"batch": p.batch, "peak_bytes": p.peak_bytes, "fits": p.fits} for p in result.probes],
                    "batch_size": {"old": old_b, "new": b}}
    if rule:
        ref_b, ref_lr = hps["reference_batch_size"], hps["reference_learning_rate"]
        lr = scaled_learning_rate(b, ref_b, ref_lr, rule)
        out["learning_rate"] = lr
        banner.append(f"bessemer: learning_rate {ref_lr:g} at batch {ref_b} -> {lr:.6g} at batch {b} ({rule} rule)")
        record.update(lr_rule=rule, learning_rate={"old": ref_lr, "new": lr})
        if hps.get("warmup_steps") is not None:
            w = scaled_warmup_steps(b, ref_b, hps["warmup_steps"])
            out["warmup_steps"] = w
            banner.append(f"bessemer: warmup_steps {hps['warmup_steps']} -> {w} (as many samples)")
            record["warmup_steps"] = {"old": hps["warmup_steps"], "new": w}
    return Chosen(out, record, banner)


# -- the job's first phase --------------------------------------------------------------
def phase_spec(hps: Mapping[str, Any], config: TrainingCompilerConfig, framework: str,
               kept_dir: Path) -> Optional[dict]:
    """What the job's search phase needs beyond its JobSpec (None: no search)."""
    if hps.get("batch_size") != AUTO:
        return None
    return {"config": config.to_json(), "framework": framework, "kept_dir": str(kept_dir)}


def main(argv: Optional[list[str]] = None) -> int:
    """`python -m bessemer.jobs.autobatch JOB_JSON RESULT_JSON`, run by the job's supervisor in
    the job's code folder: the search, its progress on stdout (the job's log), and what it
    chose (or why it could not) in RESULT_JSON."""
    import sys

    from ..fsutil import atomic_write_text
    from .engines.base import JobSpec
    spec_file, result_file = argv if argv is not None else sys.argv[1:]
    spec = JobSpec.load(Path(spec_file))
    phase = spec.batch_search or {}
    try:
        chosen = resolve(spec.hyperparameters, spec.entry_point, ".", TrainingCompilerConfig.from_json(phase["config"]),
                         spec.environment, phase.get("framework", "pytorch"), kept_dir=Path(phase["kept_dir"]),
                         say=lambda line: print(line, flush=True))
    except ValueError as e:  # the model does not fit, a limit below its step: the job's failure reason
        atomic_write_text(Path(result_file), json.dumps({"error": str(e)}))
        print(f"bessemer: batch search: {e}", flush=True)
        return 1
    atomic_write_text(Path(result_file), json.dumps({"hyperparameters": chosen.hyperparameters,
                                                     "record": chosen.record, "banner": chosen.banner}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
