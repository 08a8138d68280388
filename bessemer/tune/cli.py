"""`bessemer tune`: the largest batch under a memory limit, mode by mode, and the learning rate for it.

    bessemer tune gpt2 --scale small --memory-limit 512MiB
    bessemer tune gpt2 --memory-limit auto --modes eager,bessemer --multiple-of 8 --json
    bessemer tune gpt2 --memory-limit 1GiB --reference-batch 8 --reference-lr 3e-4 --lr-rule sqrt
    bessemer tune --entry-point train.py --workload workload --memory-limit 2GiB
    bessemer tune bert-base-uncased --memory-limit 300MiB --modes eager,bessemer --memory-budget auto

With --entry-point, the script's workload function (default `workload`) takes a batch
size and returns (model, batch, loss_fn), or a dict with those keys and optionally
`optimizer` (a function of the parameters; AdamW by default). The script is imported,
so its training must sit under `if __name__ == "__main__":`.

--memory-budget auto searches the bessemer mode's memory budget as well: the largest batch
any budget reaches, at the largest budget that reaches it (bench/search.py,
find_batch_and_budget).

Bad input (an unknown model or mode, a limit that is no size, a memory budget outside
[0, 1], learning-rate scaling without its reference batch or rate, a limit below what
the parameters, gradients and optimizer state alone take, a model that does not fit at
the smallest batch) is one line on stderr and exit code 2.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from typing import Optional

import torch

from ..cliargs import OneLineParser, non_negative, positive
from ..config import TrainingCompilerConfig
from .lr import LR_RULES, check_scaling, scaled_learning_rate, scaled_warmup_steps
from ..bench.search import (AUTO_BUDGETS, ModeResult, Probe, TuneError, Workload, find_batch, find_batch_and_budget,
                            mib, parse_limit, resolve_limit)

PROG = "bessemer tune"
MODES = ("eager", "inductor", "bessemer", "bessemer-step")
DEFAULT_MODES = ("eager", "inductor", "bessemer")
# the modes bessemer compiles, whose memory budget --memory-budget sets (bessemer-step: the
# whole step as one program, bessemer.compile_step)
COMPILED = ("bessemer", "bessemer-step")


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None


def _budget_arg(text: str):
    if text.strip().lower() == "auto":
        return "auto"
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a fraction in [0, 1] or auto, got {text!r}") from None


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(error=TuneError, prog=PROG, formatter_class=argparse.RawDescriptionHelpFormatter,
                description="The largest batch size whose training step stays under a memory limit, found "
                            "by real steps, for each mode; and the learning rate scaled to it.")
    p.add_argument("model", nargs="?", help="a zoo model (see `bessemer bench --list`)")
    p.add_argument("--scale", default="small", help="zoo model size: tiny, small, full (default small)")
    p.add_argument("--seq", type=positive, help="tokens per sample (token models)")
    p.add_argument("--image", type=positive, help="image side in pixels (image models)")
    p.add_argument("--entry-point", help="a training script with a workload function (instead of MODEL)")
    p.add_argument("--workload", default="workload",
                   help="the script's function: batch_size -> (model, batch, loss_fn) (default: workload)")
    p.add_argument("--source-dir", help="folder --entry-point is relative to")
    p.add_argument("--memory-limit", required=True, metavar="BYTES|auto",
                   help="bytes a training step may use (512MiB, 2GB, 1500000000), or auto: the free "
                        "memory of the GPU, or a share of the RAM available on a CPU")
    p.add_argument("--modes", default=",".join(DEFAULT_MODES),
                   help="modes to tune, of eager, inductor, bessemer, bessemer-step (bessemer.compile_step) "
                        "(default: eager,inductor,bessemer)")
    p.add_argument("--multiple-of", type=positive, default=1, metavar="N",
                   help="batch sizes are multiples of N (default 1)")
    p.add_argument("--memory-budget", type=_budget_arg, metavar="F|auto",
                   help="the bessemer mode's TrainingCompilerConfig.memory_budget (a fraction in [0, 1]), or "
                        "auto: the largest batch any budget reaches, at the largest budget that reaches it "
                        f"(of {', '.join(f'{b:g}' for b in AUTO_BUDGETS)})")
    p.add_argument("--reference-batch", type=positive, help="the batch size the learning rate was tuned at")
    p.add_argument("--reference-lr", type=_number, help="the learning rate tuned at --reference-batch")
    p.add_argument("--lr-rule", choices=LR_RULES, help="how the rate scales with the batch (default linear)")
    p.add_argument("--warmup-steps", type=non_negative,
                   help="warm-up steps at the reference batch; scaled to cover as many samples")
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"), help="default: CUDA if present")
    p.add_argument("--max-probes", type=positive, default=8, help="real-step probes per mode (default 8)")
    p.add_argument("--timeout", type=_number, default=1800.0, help="seconds one probe may take (default 1800)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    return p


def main(argv: Optional[list[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args, workload, modes, rule, device, config = _check(argv)
        limit = resolve_limit(parse_limit(args.memory_limit), device)
        _check_fixed_part(workload, limit, args.multiple_of)
        return _run(args, workload, modes, rule, device, config, limit)
    except (TuneError, ValueError) as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2


def _check(argv):
    args = build_parser().parse_args(argv)
    if bool(args.model) == bool(args.entry_point):
        raise TuneError("give a zoo MODEL or --entry-point (a script with a workload function), one of them")
    if args.model:
        from .. import zoo
        from ..zoo import hf
        hf.quiet()
        zoo.resolve(args.model, args.scale, None, args.seq, args.image)     # ZooError: one line
        workload = Workload(model=args.model, scale=args.scale, seq=args.seq, image=args.image)
    else:
        path = os.path.join(args.source_dir, args.entry_point) if args.source_dir else args.entry_point
        if not os.path.isfile(path):
            raise TuneError(f"--entry-point: no file {path}")
        workload = Workload(entry_point=args.entry_point, function=args.workload, source_dir=args.source_dir)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        raise TuneError(f"--modes: unknown mode(s) {', '.join(bad) or '(none)'}; modes are {', '.join(MODES)}")
    parse_limit(args.memory_limit)
    rule = check_scaling(args.lr_rule, args.reference_batch, args.reference_lr, args.warmup_steps)
    config = TrainingCompilerConfig.from_env()
    if args.memory_budget == "auto":
        if not any(m in COMPILED for m in modes):
            raise TuneError("--memory-budget auto: searches a bessemer mode's budget; --modes has neither "
                            "bessemer nor bessemer-step")
        if config.partitioner != "bessemer":
            raise TuneError(f"--memory-budget auto: the memory budget applies to partitioner='bessemer', "
                            f"the config has partitioner={config.partitioner!r}")
    elif args.memory_budget is not None:
        try:
            config = config.replace(memory_budget=args.memory_budget)
        except ValueError as e:
            raise TuneError(f"--memory-budget: {e}") from None
    if args.device == "auto":
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    else:
        device = torch.device(args.device)
        if device.type == "cuda" and not torch.cuda.is_available():
            raise TuneError("--device cuda: no CUDA device here")
    return args, workload, modes, rule, device, config


def _check_fixed_part(workload: Workload, limit: int, multiple_of: int) -> None:
    """Refuse, before any step, a limit below what the parameters, their gradients and AdamW's
    two moments take at any batch (zoo models: measured on the meta device, no memory)."""
    if not workload.model:
        return
    from .. import zoo
    from ..bench.fit import _param_bytes, estimate_step_bytes
    w = zoo.build(workload.model, workload.scale, multiple_of, workload.seq, workload.image, device="meta")
    fixed = 4 * _param_bytes(w.model)
    if limit < fixed:
        one = estimate_step_bytes(workload.model, workload.scale, multiple_of, workload.seq, workload.image)
        need = f"; a step at batch {multiple_of} needs about {mib(one)} in eager mode" if one else ""
        raise TuneError(f"--memory-limit {mib(limit)} is smaller than one sample needs: {workload.model}'s "
                        f"parameters, gradients and optimizer state alone take {mib(fixed)}{need}")


def _run(args, workload: Workload, modes: list, rule: Optional[str], device: torch.device,
         config: TrainingCompilerConfig, limit: int) -> int:
    results: dict[str, ModeResult] = {}
    log = os.path.join(tempfile.gettempdir(), f"bessemer-tune-{os.getpid()}.log")
    quiet = args.json

    def said(mode: str, p: Probe) -> None:
        if not quiet:
            what = "out of memory" if p.oom else f"peak {mib(p.peak_bytes)}"
            print(f"  {mode:9s} batch {p.batch:5d}: {what}{'' if p.fits else ' (over the limit)'}",
                  file=sys.stderr, flush=True)

    if not quiet:
        print(f"{PROG}: {workload.label}, limit {mib(limit)} on {device.type}; worker log {log}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="bessemer-tune-cache-") as cache:
        for mode in modes:
            env = dict(os.environ)
            for var, sub in (("BESSEMER_CACHE_DIR", "bessemer"), ("TORCHINDUCTOR_CACHE_DIR", "inductor"),
                             ("TRITON_CACHE_DIR", "triton")):
                env[var] = os.path.join(cache, mode, sub)
            env["BESSEMER_COMPILER_CONFIG"] = config.to_json()
            if mode in COMPILED and args.memory_budget == "auto":
                results[mode] = find_batch_and_budget(workload, mode, limit, config, AUTO_BUDGETS, args.multiple_of,
                                                      device, env, args.timeout, args.max_probes, said, log)
            else:
                results[mode] = find_batch(workload, mode, limit, args.multiple_of, device, env, args.timeout,
                                           args.max_probes, said, log)
    lead = next((m for m in ("bessemer", "bessemer-step") if m in results), modes[0])
    lr = warmup = None
    if rule:
        lr = scaled_learning_rate(results[lead].batch_size, args.reference_batch, args.reference_lr, rule)
        if args.warmup_steps is not None:
            warmup = scaled_warmup_steps(results[lead].batch_size, args.reference_batch, args.warmup_steps)
    out = {"model": workload.label, "limit_bytes": limit,
           "modes": {m: r.to_dict() for m, r in results.items()}, "learning_rate": lr}
    if rule:
        out.update(lr_rule=rule, reference_batch=args.reference_batch, reference_lr=args.reference_lr,
                   learning_rate_mode=lead)
        for m, r in results.items():
            out["modes"][m]["learning_rate"] = scaled_learning_rate(r.batch_size, args.reference_batch,
                                                                    args.reference_lr, rule)
    if warmup is not None:
        out["warmup_steps"] = warmup
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        print(table(out))
    return 0


def table(out: dict) -> str:
    """The result as a Markdown table, mode by mode."""
    eager = out["modes"].get("eager")
    lines = [f"{out['model']}: largest batch under {mib(out['limit_bytes'])}", "",
             "| mode | largest batch | peak memory | step time | samples/s | vs eager |",
             "|---|---|---|---|---|---|"]
    for m, r in out["modes"].items():
        rel = (f"{r['batch_size'] / eager['batch_size']:.2f}x batch, "
               f"{r['samples_per_s'] / eager['samples_per_s']:.2f}x samples/s") if eager and m != "eager" else ""
        mark = "" if r["largest_confirmed"] else " (probe budget spent)"
        lines.append(f"| {m} | {r['batch_size']}{mark} | {mib(r['peak_bytes'])} | {r['step_ms']:.1f} ms | "
                     f"{r['samples_per_s']:.1f} | {rel} |")
    for m, r in out["modes"].items():
        if r.get("memory_budget") is not None:
            lines += ["", f"{m}: memory_budget {r['memory_budget']:g}, the largest budget that reaches batch "
                          f"{r['batch_size']}; " + budget_findings(r["budgets"])]
    if out.get("learning_rate") is not None:
        lines += ["", f"learning rate for batch {out['modes'][out['learning_rate_mode']]['batch_size']} "
                      f"({out['learning_rate_mode']}): {out['learning_rate']:.4g} ({out['lr_rule']} rule from "
                      f"{out['reference_lr']:g} at batch {out['reference_batch']})"]
        if "warmup_steps" in out:
            lines.append(f"warm-up: {out['warmup_steps']} steps (as many samples as the reference's)")
    return "\n".join(lines)


def budget_findings(budgets: dict) -> str:
    """What a budget search saw at each budget, in one line."""
    parts = []
    for b, f in budgets.items():
        if "largest_batch" in f:
            parts.append(f"at {b}: largest batch {f['largest_batch']}, {f['samples_per_s']:.1f} samples/s")
        else:
            parts.append(f"at {b}: batch {f['batch']} {'fits' if f['fits'] else 'does not fit'}")
    return "; ".join(parts)


if __name__ == "__main__":
    sys.exit(main())
