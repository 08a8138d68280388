"""`bessemer bench`: argument parsing, validation, and the files a run writes.

    bessemer bench                                  the core benchmark: mlp and gpt2 at scale small,
                                                    eager vs inductor vs bessemer
    bessemer bench gpt2 bert-base-uncased --scale tiny --modes eager,bessemer --steps 3
    bessemer bench all --scale small --page docs/tested-models.md
    bessemer bench --report bench-out/results.json --page docs/tested-models.md
    bessemer bench --list
    bessemer bench --dynamic [MODEL ...] [--lengths 64,80,96,112,128] [--batches 4,8]
                                                    varying shapes against a static run (dynamic.py)
    bessemer bench memory [MODEL ...]               rematerialization and the memory plan, measured (memory.py)
    bessemer bench optim [MODEL ...]                opt.step() eager, template, IR, torch.compile (optim.py)

Bad input (an unknown model, mode or scale, a size the model does not take, a
batch that does not fit in memory) is reported in one line, with exit code 2,
before anything runs or is written. Results go to the output folder only when
the run is complete: results.json, results.md and chart.png.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
import tempfile
from typing import Optional

from .. import zoo
from ..cliargs import OneLineParser, non_negative, positive
from . import dynamic, report, runner, suite

DEFAULT_MODELS = ("mlp", "gpt2")  # the core benchmark
DEFAULT_OUT = "bench-out"
PROG = "bessemer bench"


class UsageError(Exception):
    """Bad input; the message is the one line the user sees."""


def _seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if not v > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return v


def _int_list(minimum: int):
    def parse(text: str) -> list[int]:
        try:
            values = [int(x) for x in text.split(",") if x.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be comma-separated integers, got {text!r}") from None
        if not values or min(values) < minimum:
            raise argparse.ArgumentTypeError(f"must be comma-separated integers >= {minimum}, got {text!r}")
        return list(dict.fromkeys(values))
    return parse


def _passes(text: str) -> int:
    v = positive(text)
    if v < 2:
        raise argparse.ArgumentTypeError(f"must be at least 2 (the first pass compiles), got {text!r}")
    return v


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(error=UsageError, prog=PROG,
                      description="Benchmark eager, Inductor and bessemer training on the model zoo.",
                      formatter_class=argparse.RawDescriptionHelpFormatter,
                      epilog="With no models: the core benchmark (mlp and gpt2, scale small, all modes).")
    p.add_argument("models", nargs="*", metavar="MODEL",
                   help="zoo models to run ('all' for the tested models, 'small' for the small custom models; see --list)")
    p.add_argument("--scale", default="small", help=f"model size: {', '.join(zoo.SCALES)} (default small)")
    p.add_argument("--modes", default=",".join(runner.DEFAULT_MODES),
                   help=f"comma-separated modes among {', '.join(runner.MODES)} "
                        f"(default: {','.join(runner.DEFAULT_MODES)})")
    p.add_argument("--steps", type=positive, default=10, help="measured steps (default 10)")
    p.add_argument("--warmup", type=non_negative, default=3,
                   help="steps after the first and before the measured ones (default 3)")
    p.add_argument("--batch", type=positive, help="batch size (default: the model's, per scale)")
    p.add_argument("--seq", type=positive, help="tokens per sample for token models (default: per scale)")
    p.add_argument("--image", type=positive, help="image side in pixels for image models (default: per scale)")
    p.add_argument("--dtype", default="fp32", help="fp32 or bf16 (autocast) (default fp32)")
    p.add_argument("--dropout", action="store_true",
                   help="transformers models keep their published dropout (default: off, as Inductor's "
                        "random draws are not eager's; bessemer draws eager's masks)")
    p.add_argument("--device", default="auto", help="cpu, cuda or auto (default: cuda when available)")
    p.add_argument("--seed", type=non_negative, default=0, help="seed of weights and data (default 0)")
    p.add_argument("--out", default=DEFAULT_OUT, metavar="DIR",
                   help=f"folder for results.json, results.md, chart.png (default {DEFAULT_OUT})")
    p.add_argument("--page", metavar="FILE", help="also render the tested-models page to FILE")
    p.add_argument("--title", default="Tested models", help="the --page's title (default: Tested models)")
    p.add_argument("--readme", metavar="FILE",
                   help="also rewrite the summary block of FILE (between the markers "
                        f"{report.SUMMARY_START} and {report.SUMMARY_END})")
    p.add_argument("--report", metavar="RESULTS_JSON",
                   help="run nothing: render the table, --out files and --page from a saved results.json")
    p.add_argument("--timeout", type=_seconds, default=1800.0, metavar="S",
                   help="seconds one worker process may take (default 1800)")
    p.add_argument("--no-warm", action="store_true", help="skip the warm-start processes")
    p.add_argument("--no-interleave", action="store_true",
                   help="time each mode's measured steps in one block, one model in memory at a time "
                        "(default: the modes of a model take turns, so they share the machine's drift)")
    p.add_argument("--no-memory", action="store_true", help="skip the peak-memory processes")
    p.add_argument("--list", action="store_true", help="list the zoo and exit")
    d = p.add_argument_group("varying shapes (--dynamic)")
    d.add_argument("--dynamic", action="store_true",
                   help="train token models over varying sequence lengths (and batches) and compare with a "
                        f"static run at the largest shape (default model: {', '.join(dynamic.DEFAULT_MODELS)})")
    d.add_argument("--lengths", type=_int_list(2), metavar="L,L,...",
                   help="sequence lengths, visited in this order (default: half the scale's length to all "
                        "of it in eighths: 64,80,96,112,128 at scale small)")
    d.add_argument("--batches", type=_int_list(1), metavar="B,B,...",
                   help="batch sizes, each with every length (default: --batch, or the scale's batch)")
    d.add_argument("--passes", type=_passes, default=dynamic.DEFAULT_PASSES,
                   help=f"times the shapes are cycled through; the first visits each shape for the first "
                        f"time (default {dynamic.DEFAULT_PASSES})")
    return p


def main(argv: Optional[list[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["memory"]:
        from . import memory
        return memory.main(argv[1:])
    if argv[:1] == ["optim"]:
        from . import optim
        return optim.main(argv[1:])
    try:
        args = build_parser().parse_args(argv)
        if args.list:
            print(_zoo_listing())
            return 0
        if args.report:
            results = _load_report(args)
            _check_outputs(args)
        elif args.dynamic:
            plan = _dynamic_plan(args, argv)
            _check_outputs(args)
            _check_fit(plan)
        else:
            _not_dynamic(args)
            plan = _plan(args, argv)
            _check_outputs(args)
            _check_fit(plan)
    except UsageError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    except SystemExit as e:  # --help
        return int(e.code or 0)

    if not args.report:
        load, cores = suite.load_average(), os.cpu_count() or 1
        if load is not None and load > cores / 2:
            print(f"{PROG}: warning: the machine is busy (load average {load:.1f} on {cores} cores); "
                  f"step times will be noisy", file=sys.stderr)
        try:
            results = (dynamic.run if args.dynamic else suite.run)(plan, _progress(plan))
        except KeyboardInterrupt:
            print(f"\n{PROG}: interrupted; nothing was written", file=sys.stderr)
            return 130
    if dynamic.is_dynamic(results):
        print(dynamic.table(results))
    else:
        report.speedups(results)
        print(report.table(results))
    written = _write_outputs(results, args.out, args.page, args.readme, args.title)
    print("\nwrote " + ", ".join(written))
    return 0


# -- validation ------------------------------------------------------------------------------
def _common(args, default_models, known: list[str]) -> tuple[list[str], list[str], str]:
    """The models, the modes (eager first) and the device, checked."""
    models = list(args.models) or list(default_models)
    # `all`: the tested models; `small`: the small custom models (zoo/small.py)
    expand = {"all": [m for m in known if zoo.spec(m).group == "tested"],
              "small": [m for m in known if zoo.spec(m).group == "small"]}
    models = [n for m in models for n in expand.get(m, [m])]
    for m in models:
        if m not in known:
            raise UsageError(f"unknown model {m!r}; the zoo has: {', '.join(known)} (or 'all', 'small')")
    models = list(dict.fromkeys(models))
    if args.scale not in zoo.SCALES:
        raise UsageError(f"unknown scale {args.scale!r}; scales are: {', '.join(zoo.SCALES)}")
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not modes:
        raise UsageError("--modes names no mode")
    for m in modes:
        if m not in runner.MODES:
            raise UsageError(f"unknown mode {m!r}; modes are: {', '.join(runner.MODES)}")
    modes = [m for m in runner.MODES if m in modes]  # eager first: it is the reference
    if args.dtype not in runner.DTYPES:
        raise UsageError(f"unknown dtype {args.dtype!r}; dtypes are: {', '.join(runner.DTYPES)}")
    return models, modes, _device(args.device)


def _plan(args, argv: list[str]) -> suite.Plan:
    models, modes, device = _common(args, DEFAULT_MODELS, zoo.names())
    for m in models:
        try:
            zoo.resolve(m, args.scale, args.batch, args.seq, args.image)
        except zoo.ZooError as e:
            raise UsageError(str(e)) from None
    return suite.Plan(models=models, modes=modes, scale=args.scale, steps=args.steps, warmup=args.warmup,
                      batch=args.batch, seq=args.seq, image=args.image, dtype=args.dtype, device=device,
                      seed=args.seed, timeout_s=args.timeout, memory=not args.no_memory, dropout=args.dropout,
                      warm=not args.no_warm, interleave=not args.no_interleave, command=f"{PROG} {shlex.join(argv)}".strip())


def _not_dynamic(args) -> None:
    for flag in ("lengths", "batches"):
        if getattr(args, flag) is not None:
            raise UsageError(f"--{flag} is an option of --dynamic")
    if args.passes != dynamic.DEFAULT_PASSES:
        raise UsageError("--passes is an option of --dynamic")


def _dynamic_plan(args, argv: list[str]) -> dynamic.DynamicPlan:
    token_models = [m for m in zoo.names() if zoo.spec(m).kind == zoo.TOKENS]
    known = zoo.names()
    if "all" in args.models:  # the whole zoo's token models: --dynamic varies the sequence length
        args.models = token_models
    models, modes, device = _common(args, dynamic.DEFAULT_MODELS, known)
    for m in models:
        if m not in token_models:
            raise UsageError(f"--dynamic varies the sequence length, and {m} takes no tokens; token models: "
                             f"{', '.join(token_models)}")
    if args.dropout:
        raise UsageError("--dropout does not go with --dynamic")
    for flag in ("seq", "image", "page", "readme"):
        if getattr(args, flag) is not None:
            raise UsageError(f"--{flag} does not go with --dynamic"
                             + (" (give --lengths)" if flag == "seq" else ""))
    if args.batch is not None and args.batches is not None:
        raise UsageError("give --batch or --batches, not both")
    size = zoo.resolve(models[0], args.scale)[1]
    lengths = args.lengths or dynamic.default_lengths(size.seq)
    batches = args.batches or [args.batch or size.batch]
    shapes = [(b, s) for b in batches for s in lengths]
    if len(shapes) < 2:
        raise UsageError("--dynamic needs at least two shapes: give two or more --lengths or --batches")
    for m in models:
        for b, s in shapes:
            try:
                zoo.resolve(m, args.scale, b, s)
            except zoo.ZooError as e:
                raise UsageError(f"--lengths/--batches: {e}") from None
    return dynamic.DynamicPlan(models=models, modes=modes, shapes=shapes, scale=args.scale, passes=args.passes,
                               steps=args.steps, warmup=args.warmup, dtype=args.dtype, device=device,
                               seed=args.seed, timeout_s=args.timeout,
                               command=f"{PROG} {shlex.join(argv)}".strip())


def _device(name: str) -> str:
    import torch
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cpu":
        return name
    if name == "cuda":
        if not torch.cuda.is_available():
            raise UsageError("--device cuda: no CUDA device is available")
        return name
    raise UsageError(f"unknown device {name!r}; devices are: cpu, cuda, auto")


def _check_fit(plan) -> None:
    """Refuse a batch whose eager training step would not fit in the device's free memory."""
    import torch

    from ..zoo import hf
    from . import fit
    hf.quiet()
    avail = fit.available_bytes(torch.device(plan.device))
    if avail is None:
        return
    for m in plan.models:
        need = fit.estimate_step_bytes(m, plan.scale, plan.batch, plan.seq, plan.image)
        if need is not None and need > avail:
            batch = zoo.resolve(m, plan.scale, plan.batch, plan.seq, plan.image)[1].batch
            raise UsageError(f"batch {batch} does not fit: {m} at scale {plan.scale} needs about "
                             f"{need / 2 ** 30:,.1f} GiB for an eager AdamW step, {avail / 2 ** 30:,.1f} GiB "
                             f"is free on {plan.device}")


def _check_outputs(args) -> None:
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise UsageError(f"--out {args.out!r} exists and is not a folder")
    if args.page:
        parent = os.path.dirname(os.path.abspath(args.page))
        if os.path.isdir(args.page):
            raise UsageError(f"--page {args.page!r} is a folder; give a file name")
        if not os.path.isdir(parent):
            raise UsageError(f"--page {args.page!r}: the folder {parent!r} does not exist")
    if args.readme:
        try:
            with open(args.readme) as f:
                text = f.read()
        except OSError as e:
            raise UsageError(f"--readme {args.readme!r}: {e.strerror}") from None
        if not report.has_summary_block(text):
            raise UsageError(f"--readme {args.readme!r} has no summary block: add the lines "
                             f"{report.SUMMARY_START} and {report.SUMMARY_END} where it goes")


def _load_report(args) -> dict:
    if args.models:
        raise UsageError("--report renders a saved run; it takes no models")
    try:
        with open(args.report) as f:
            results = json.load(f)
    except OSError as e:
        raise UsageError(f"--report {args.report!r}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise UsageError(f"--report {args.report!r} is not JSON: {e}") from None
    if not isinstance(results, dict) or "rows" not in results or "meta" not in results:
        raise UsageError(f"--report {args.report!r} is not a results.json of bessemer bench")
    if dynamic.is_dynamic(results) and (args.page or args.readme):
        raise UsageError(f"--report {args.report!r} is a run of --dynamic, which has no page or README block")
    return results


# -- output -------------------------------------------------------------------------------------
def _write_outputs(results: dict, out: str, page: Optional[str], readme: Optional[str],
                   title: str = "Tested models") -> list[str]:
    """Write every file to a staging folder first, then move them into `out` together."""
    parent = os.path.dirname(os.path.abspath(out))
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".bench-staging-", dir=parent)
    files = {"results.json": lambda path: runner.write_json(path, results)}
    if dynamic.is_dynamic(results):
        files["results.md"] = lambda path: report.write_text(path, dynamic.markdown(results))
    else:
        files["results.md"] = lambda path: report.write_text(path, report.markdown(results))
        files["chart.png"] = lambda path: report.chart(results, path)
    try:
        for name, write in files.items():
            write(os.path.join(staging, name))
        os.makedirs(out, exist_ok=True)
        written = []
        for name in files:
            os.replace(os.path.join(staging, name), os.path.join(out, name))
            written.append(os.path.join(out, name))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if page:
        from .memory import keep_section  # the page's memory section (`bessemer bench memory`) stays
        report.write_text(page, keep_section(page, report.markdown(results, title=title)))
        written.append(page)
    if readme:
        with open(readme) as f:
            text = f.read()
        link = (os.path.relpath(os.path.abspath(page), os.path.dirname(os.path.abspath(readme)))
                if page else None)
        report.write_text(readme, report.replace_summary_block(text, report.summary_block(results, link)))
        written.append(readme)
    return written


def _progress(plan: suite.Plan) -> suite.Progress:
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency of the bench
        return suite.Progress(start=lambda label: print(f"… {label}", file=sys.stderr, flush=True))
    bar = tqdm(total=plan.n_processes(), file=sys.stderr, unit="proc", dynamic_ncols=True,
               bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}]")

    def row_done(row: dict) -> None:
        if row["status"] == "ok" and "static_s" in row:  # --dynamic
            msg = (f"{row['dynamo_graphs']} Dynamo graphs, steady {(row['later_s'] or 0) * 1e3:,.1f} ms/step, "
                   f"{row['ratio'] or 0:.2f}x static at the reference shape")
        elif row["status"] == "ok":
            msg = f"{row['step_s']['median'] * 1e3:,.1f} ms/step, first step {row['first_step_cold_s']:.2f} s"
        else:
            msg = f"error: {row['error']}"
        bar.write(f"{row['model']} · {row['mode']}: {msg}", file=sys.stderr)

    def advance() -> None:
        bar.update(1)
        if bar.n >= bar.total:
            bar.close()

    return suite.Progress(start=bar.set_description_str, advance=advance, row_done=row_done)


def _zoo_listing() -> str:
    lines = []
    for name in zoo.names():
        s = zoo.spec(name)
        sizes = []
        for scale in zoo.SCALES:
            z = s.sizes[scale]
            extra = f" x {z.seq} tokens" if z.seq else (f" x {z.image}px" if z.image else "")
            sizes.append(f"{scale}: batch {z.batch}{extra}")
        lines.append(f"{name:26s} {s.summary}\n{'':26s} {'; '.join(sizes)}")
    return "\n".join(lines)
