"""`bessemer bench memory`: what rematerialization and the memory plan buy, measured.

    bessemer bench memory gpt2 bert-base-uncased llama --scale small
    bessemer bench memory gpt2 --budgets 1.0,0.5,0.2,0.0 --tune-limit 400MiB --page docs/tested-models.md

For each model, in fresh processes (the benchmark's own worker, bench/worker.py: the
same steps, the same step timing, the same peak-memory measurement), it trains:

  eager                    the reference
  bessemer, no remat       partitioner="default": every value the backward needs is saved
  bessemer, budget B       partitioner="bessemer" at each memory_budget B (1.0 is the default)
  whole step               bessemer.compile_step: the step as one program, each parameter and its
                           state updated in place as soon as its gradient is complete

and reports peak step memory and step time side by side: the default budget against
eager (memory) and against no rematerialization (time), and the budget sweep as a
table and a chart (peak memory against step time). With --tune-limit it also finds,
for each model and mode, the largest batch whose step stays under that limit
(`bessemer tune`'s search) and its samples/s. --page and --readme write the tables
into a marked section of those files, which `bessemer bench --page` keeps when it
renders the rest of the page.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Optional

from .. import zoo
from ..cliargs import OneLineParser
from ..config import TrainingCompilerConfig
from . import runner
from .measure import cpu_name

PROG = "bessemer bench memory"
DEFAULT_MODELS = ("gpt2", "bert-base-uncased", "llama")
DEFAULT_BUDGETS = (1.0, 0.5, 0.2, 0.0)
START = "<!-- bessemer-memory:start -->"
END = "<!-- bessemer-memory:end -->"


class UsageError(ValueError):
    pass


def _budgets(text: str) -> list[float]:
    out = []
    for part in text.split(","):
        try:
            b = float(part)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be fractions like 1.0,0.5, got {text!r}") from None
        try:
            TrainingCompilerConfig(memory_budget=b)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
        out.append(b)
    return out


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(error=UsageError, prog=PROG, formatter_class=argparse.RawDescriptionHelpFormatter,
                      description=__doc__.split("\n\n")[0])
    p.add_argument("models", nargs="*", metavar="MODEL", help=f"zoo models (default: {' '.join(DEFAULT_MODELS)})")
    p.add_argument("--scale", default="small")
    p.add_argument("--budgets", type=_budgets, default=list(DEFAULT_BUDGETS), help="memory budgets to sweep")
    p.add_argument("--steps", type=int, default=5, help="measured steps per variant (default 5)")
    p.add_argument("--warmup", type=int, default=2, help="steps before the measured ones (default 2)")
    p.add_argument("--tune-limit", metavar="BYTES", help="also find the largest batch under this limit")
    p.add_argument("--tune-modes", default="eager,inductor,bessemer,bessemer-step",
                   help="modes for --tune-limit; a bessemer mode with :auto (bessemer-step:auto) searches "
                        "the memory budget as well (`bessemer tune --memory-budget auto`)")
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    p.add_argument("--out", default="bench-out/memory", help="results.json, results.md, chart.png go here")
    p.add_argument("--page", metavar="FILE", help="write the tables into FILE's memory section")
    p.add_argument("--readme", metavar="FILE", help="write the default-budget table into FILE's memory section")
    p.add_argument("--timeout", type=float, default=3600.0, help="seconds one worker may take")
    return p


def variants(budgets: list[float]) -> list[tuple[str, str, Optional[dict]]]:
    """(label, mode, compiler config fields)."""
    out = [("eager", "eager", None), ("no remat", "bessemer", {"partitioner": "default"})]
    out += [(f"budget {b:g}", "bessemer", {"memory_budget": b}) for b in budgets]
    # bessemer.compile_step: gradients live inside the one program and each is freed after
    # its parameter's update, with no .grad kept between backward and the optimizer step
    out.append(("whole step", "bessemer-step", None))
    return out


def _worker(model: str, scale: str, mode: str, phase: str, config: Optional[dict], args, work: str,
            tag: str) -> dict:
    stem = os.path.join(work, f"{model}-{tag}-{phase}".replace(" ", "_"))
    job = {"model": model, "scale": scale, "batch": None, "seq": None, "image": None, "mode": mode,
           "phase": phase, "dtype": "fp32", "device": args.device, "seed": 0, "steps": args.steps,
           "warmup": args.warmup, "result_path": stem + ".result.json", "params_path": None}
    runner.write_json(stem + ".job.json", job)
    env = dict(os.environ)
    caches = os.path.join(work, f"{model}-{tag}".replace(" ", "_"))
    env.update(BESSEMER_CACHE_DIR=os.path.join(caches, "bessemer"),
               TORCHINDUCTOR_CACHE_DIR=os.path.join(caches, "inductor"),
               TRITON_CACHE_DIR=os.path.join(caches, "triton"))
    env.pop("BESSEMER_COMPILER_CONFIG", None)
    if config is not None:
        env["BESSEMER_COMPILER_CONFIG"] = TrainingCompilerConfig(**config).to_json()
    with open(stem + ".log", "w") as log:
        try:
            subprocess.run([sys.executable, "-m", "bessemer.bench.worker", stem + ".job.json"], env=env,
                           stdout=log, stderr=subprocess.STDOUT, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            return {"ok": False, "error": f"timed out after {args.timeout:.0f} s"}
    try:
        with open(job["result_path"]) as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError):
        return {"ok": False, "error": f"the worker left no result (log: {stem}.log)"}


def run(args, models: list[str]) -> dict:
    import statistics
    rows = []
    with tempfile.TemporaryDirectory(prefix="bessemer-memory-") as work:
        for model in models:
            for label, mode, config in variants(args.budgets):
                print(f"{PROG}: {model} · {label}", file=sys.stderr, flush=True)
                r_run = _worker(model, args.scale, mode, "run", config, args, work, label)
                r_mem = _worker(model, args.scale, mode, "memory", config, args, work, label)
                row = {"model": model, "variant": label, "mode": mode, "config": config}
                if r_run.get("ok") and r_mem.get("ok"):
                    row.update(step_s=statistics.median(r_run["step_times"]), peak_bytes=r_mem["peak_bytes"],
                               foreign_cpu_share=r_run.get("foreign_cpu_share"), batch=r_run.get("batch"))
                else:
                    row["error"] = (r_run.get("error") if not r_run.get("ok") else r_mem.get("error"))
                rows.append(row)
    tune = {}
    if args.tune_limit:
        tune = _tune(args, models)
    return {"meta": {"date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "scale": args.scale,
                     "device": args.device, "steps": args.steps, "warmup": args.warmup,
                     "command": "bessemer bench memory " + " ".join(sys.argv[3:] if sys.argv[1:3] == ["bench", "memory"]
                                                                   else sys.argv[1:]),
                     "cpu": cpu_name(), "cores": os.cpu_count()},
            "rows": rows, "tune": tune}


def _tune(args, models: list[str]) -> dict:
    import torch

    from .search import AUTO_BUDGETS, TuneError, Workload, find_batch, find_batch_and_budget, parse_limit, resolve_limit
    device = torch.device(args.device)
    limit = resolve_limit(parse_limit(args.tune_limit, "--tune-limit"), device)
    out = {"limit_bytes": limit, "models": {}}
    for model in models:
        per = out["models"].setdefault(model, {})
        for mode in [m.strip() for m in args.tune_modes.split(",") if m.strip()]:
            print(f"{PROG}: {model} · largest batch in {mode}", file=sys.stderr, flush=True)
            with tempfile.TemporaryDirectory(prefix="bessemer-tune-") as cache:
                env = dict(os.environ, BESSEMER_CACHE_DIR=os.path.join(cache, "b"),
                           TORCHINDUCTOR_CACHE_DIR=os.path.join(cache, "i"), TRITON_CACHE_DIR=os.path.join(cache, "t"))
                env.pop("BESSEMER_COMPILER_CONFIG", None)
                try:
                    name, _, budget = mode.partition(":")
                    if budget:
                        r = find_batch_and_budget(Workload(model=model, scale=args.scale), name, limit,
                                                  TrainingCompilerConfig(), AUTO_BUDGETS, 1, device, env,
                                                  args.timeout)
                    else:
                        r = find_batch(Workload(model=model, scale=args.scale), mode, limit, 1, device, env,
                                       args.timeout)
                    per[mode] = r.to_dict()
                except TuneError as e:
                    per[mode] = {"error": str(e)}
    return out




# -- tables -----------------------------------------------------------------------------------
def _mib(b) -> str:
    return "—" if b is None else f"{b / 2 ** 20:.1f}"


def _get(rows, model, variant):
    return next((r for r in rows if r["model"] == model and r["variant"] == variant and "error" not in r), None)


def markdown(results: dict, level: str = "##") -> str:
    rows, meta = results["rows"], results["meta"]
    models = list(dict.fromkeys(r["model"] for r in rows))
    budgets = [r["variant"] for r in rows if r["variant"].startswith("budget")]
    budgets = list(dict.fromkeys(budgets))
    out = [f"{level} Memory: rematerialization and the memory plan", "",
           f"Generated by `{meta['command']}` on {meta['date']} ({meta['cpu']}, {meta['cores']} cores; "
           f"scale `{meta['scale']}`, {meta['device']}, {meta['warmup']} warm-up and {meta['steps']} measured "
           f"steps). Peak step memory is the benchmark's (parameters, gradients, optimizer state and "
           f"activations); step time the median of the measured steps.", ""]
    out += [f"{level}# At the default budget", "",
            "| model | eager peak MiB | bessemer, no remat: peak MiB | bessemer (budget 1.0): peak MiB | "
            "vs eager | step ms, no remat | step ms, budget 1.0 | vs no remat |", "|---|---|---|---|---|---|---|---|"]
    for m in models:
        e, n, d = _get(rows, m, "eager"), _get(rows, m, "no remat"), _get(rows, m, "budget 1")
        ratio = f"{d['peak_bytes'] / e['peak_bytes']:.2f}x" if d and e else "—"
        slow = f"{d['step_s'] / n['step_s']:.2f}x" if d and n else "—"
        out.append(f"| {m} | {_mib(e and e['peak_bytes'])} | {_mib(n and n['peak_bytes'])} | "
                   f"{_mib(d and d['peak_bytes'])} | {ratio} | {_ms(n)} | {_ms(d)} | {slow} |")
    out += ["", f"{level}# memory_budget sweep", "",
            "| model | memory_budget | peak MiB | vs eager | step ms | vs no remat |", "|---|---|---|---|---|---|"]
    for m in models:
        e, n = _get(rows, m, "eager"), _get(rows, m, "no remat")
        whole = [v for v in ("whole step",) if any(x["variant"] == v and x["model"] == m for x in rows)]
        for v in ["no remat", *budgets, *whole]:
            r = _get(rows, m, v)
            if r is None:
                err = next((x.get("error") for x in rows if x["model"] == m and x["variant"] == v), "")
                out.append(f"| {m} | {v} | error: {err} | | | |")
                continue
            vs_eager = f"{r['peak_bytes'] / e['peak_bytes']:.2f}x" if e else "—"
            vs_none = f"{r['step_s'] / n['step_s']:.2f}x" if n else "—"
            out.append(f"| {m} | {v.replace('budget ', '')} | {_mib(r['peak_bytes'])} | {vs_eager} | {_ms(r)} | "
                       f"{vs_none} |")
    busy = [r for r in rows if (r.get("foreign_cpu_share") or 0) > 0.10]
    if busy:
        out += ["", f"Other work used more than 10% of the cores while {len(busy)} of these variants were timed: "
                    "their step times are noisy."]
    tune = results.get("tune") or {}
    if tune.get("models"):
        modes = list(dict.fromkeys(k for per in tune["models"].values() for k in per))
        out += ["", f"{level}# Largest batch under {_mib(tune['limit_bytes'])} MiB", "",
                "Found by `bessemer tune`'s search: real training steps, the peak measured as above.", "",
                "| model | " + " | ".join(f"{m}: largest batch | {m}: samples/s" for m in modes) + " |",
                "|---|" + "---|---|" * len(modes)]
        for model, per in tune["models"].items():
            cells = []
            for mode in modes:
                r = per.get(mode, {})
                if "batch_size" in r:
                    budget = f" (budget {r['memory_budget']:g})" if r.get("memory_budget") is not None else ""
                    cells += [f"{r['batch_size']}{'' if r.get('largest_confirmed', True) else '+'}{budget}",
                              f"{r['samples_per_s']:.1f}"]
                else:
                    cells += [f"error: {r.get('error', '—')}", ""]
            out.append(f"| {model} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def _ms(r) -> str:
    return "—" if not r else f"{r['step_s'] * 1e3:.1f}"


def chart(results: dict, path: str) -> None:
    """Peak memory against step time, one panel per model, a point per variant."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = [r for r in results["rows"] if "error" not in r]
    models = list(dict.fromkeys(r["model"] for r in rows))
    fig, axes = plt.subplots(1, max(len(models), 1), figsize=(4.2 * max(len(models), 1), 3.6), squeeze=False)
    for ax, m in zip(axes[0], models):
        for r in (r for r in rows if r["model"] == m):
            ax.scatter(r["step_s"] * 1e3, r["peak_bytes"] / 2 ** 20, marker="s" if r["mode"] == "eager" else "o")
            ax.annotate(r["variant"].replace("budget ", "b="), (r["step_s"] * 1e3, r["peak_bytes"] / 2 ** 20),
                        fontsize=7, xytext=(3, 3), textcoords="offset points")
        ax.set_title(m)
        ax.set_xlabel("step time (ms)")
        ax.set_ylabel("peak step memory (MiB)")
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# -- files ------------------------------------------------------------------------------------
def replace_section(text: str, body: str) -> str:
    """text with its memory section replaced by body (appended when it has none)."""
    block = f"{START}\n{body.rstrip()}\n{END}"
    i = text.find(START)
    j = text.find(END, i) if i >= 0 else -1
    if i >= 0 and j > i:
        return text[:i] + block + text[j + len(END):]
    return text.rstrip("\n") + "\n\n" + block + "\n"


def keep_section(path: str, new_text: str) -> str:
    """new_text (a page being rendered again) with the memory section `path` has now."""
    try:
        with open(path) as f:
            old = f.read()
    except OSError:
        return new_text
    i = old.find(START)
    j = old.find(END, i) if i >= 0 else -1
    if i < 0 or j < i:
        return new_text
    return replace_section(new_text, old[i + len(START):j].strip("\n"))


def _write_section(path: str, body: str) -> None:
    from ..fsutil import atomic_write_text
    text = open(path).read() if os.path.exists(path) else ""
    atomic_write_text(path, replace_section(text, body))


def main(argv: Optional[list[str]] = None) -> int:
    from ..fsutil import atomic_write_text
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(argv)
        models = args.models or list(DEFAULT_MODELS)
        for m in models:
            zoo.resolve(m, args.scale)
        if args.tune_limit:
            from .search import parse_limit
            parse_limit(args.tune_limit, "--tune-limit")
            for spec in [m.strip() for m in args.tune_modes.split(",") if m.strip()]:
                name, colon, budget = spec.partition(":")
                if name not in runner.MODES:
                    raise UsageError(f"--tune-modes: unknown mode {name!r}; modes are {', '.join(runner.MODES)}")
                if colon and (budget != "auto" or not name.startswith("bessemer")):
                    raise UsageError(f"--tune-modes: {spec!r}: only a bessemer mode takes a suffix, and only "
                                     f":auto (search the memory budget too)")
    except (UsageError, ValueError) as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    except SystemExit as e:
        return int(e.code or 0)
    results = run(args, models)
    os.makedirs(args.out, exist_ok=True)
    runner.write_json(os.path.join(args.out, "results.json"), results)
    md = markdown(results)
    atomic_write_text(os.path.join(args.out, "results.md"), md)
    chart(results, os.path.join(args.out, "chart.png"))
    print(md)
    if args.page:
        # the chart beside the page, so the page shows it wherever it is read
        png = os.path.join(os.path.dirname(os.path.abspath(args.page)), "memory-chart.png")
        chart(results, png)
        _write_section(args.page, markdown(results) + "\n![peak step memory against step time, per memory_budget]"
                                                      "(memory-chart.png)\n")
    if args.readme:
        _write_section(args.readme, markdown(results, "###"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
