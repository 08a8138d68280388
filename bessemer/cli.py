"""The `bessemer` command.

    bessemer train train.py --source-dir src --hp epochs=2 --channel train=data/train --processes 2
    bessemer jobs list | describe NAME | logs NAME [--follow] | stop NAME
    bessemer bench ...                 (the benchmark runner)
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import datetime
from typing import Optional, Sequence

from .config import TrainingCompilerConfig


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "bench":
        from .bench.cli import main as bench_main
        return bench_main(argv[1:])
    args = _parser().parse_args(argv)
    if not getattr(args, "run", None):
        _parser().print_help()
        return 2
    try:
        return args.run(args)
    except ValueError as e:
        print(f"bessemer: error: {e}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="bessemer", description="bessemer: an open training compiler for "
                                "PyTorch, and training jobs that run your script with it.")
    sub = p.add_subparsers(metavar="COMMAND")

    t = sub.add_parser("train", help="run a training script as a job (the compiler on by default)",
                       description="Run a training script as a job on this machine, as an estimator's "
                       "fit() does. Hyperparameters reach the script as --key value arguments and "
                       "SM_HP_* variables, channels as SM_CHANNEL_* folders.")
    t.add_argument("entry_point", help="the training script (relative to --source-dir when given)")
    t.add_argument("--source-dir", help="folder copied into the job; the script runs in the copy")
    t.add_argument("--hp", action="append", default=[], metavar="KEY=VALUE",
                   help="a hyperparameter; VALUE is read as JSON when it parses (2, 3e-4, true), else a string")
    t.add_argument("--channel", action="append", default=[], metavar="NAME=PATH", help="an input channel")
    t.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                   help="an environment variable for the script")
    t.add_argument("--metric", action="append", default=[], metavar="NAME=REGEX",
                   help="a metric to parse from the log (the regex's first group is the value)")
    t.add_argument("--processes", type=int, default=1, help="processes (torchrun) on this machine")
    t.add_argument("--no-compiler", action="store_true", help="run eagerly (TrainingCompilerConfig(enabled=False))")
    t.add_argument("--debug", action="store_true",
                   help="write the compiler's artifacts to the job's output/data/compiler/")
    t.add_argument("--precision", choices=("fp32", "bf16", "fp16"), default="fp32",
                   help="mixed precision: the model's forward under torch.autocast to bf16 or fp16 (default fp32)")
    t.add_argument("--cuda-graphs", action="store_true", help="replay compiled GPU graphs as CUDA graphs")
    t.add_argument("--framework", choices=("pytorch", "huggingface"), default="pytorch")
    t.add_argument("--output-path", default="runs", help="where jobs and their records go (default: runs)")
    t.add_argument("--job-name", help="the job's name (default: <base-job-name>-<timestamp>)")
    t.add_argument("--base-job-name")
    t.add_argument("--max-run", type=float, default=None, metavar="SECONDS",
                   help="stop the job after this long (default: 24 h)")
    t.add_argument("--no-wait", action="store_true", help="start the job and return")
    t.add_argument("--quiet", action="store_true", help="do not stream the job's log")
    t.set_defaults(run=_train)

    j = sub.add_parser("jobs", help="list, describe, follow or stop training jobs")
    js = j.add_subparsers(metavar="ACTION")
    for name, fn, helptext in (("list", _jobs_list, "list jobs, newest first"),
                               ("describe", _jobs_describe, "a job's record, as JSON"),
                               ("logs", _jobs_logs, "print a job's log"),
                               ("stop", _jobs_stop, "stop a running job (every process of it)")):
        a = js.add_parser(name, help=helptext)
        if name != "list":
            a.add_argument("name", help="the job's name")
        a.add_argument("--output-path", default="runs", help="where the jobs are (default: runs)")
        a.set_defaults(run=fn)
        if name == "list":
            a.add_argument("--status", choices=("InProgress", "Completed", "Failed", "Stopped"))
            a.add_argument("--limit", type=int, default=None)
        if name == "logs":
            a.add_argument("--follow", "-f", action="store_true", help="keep printing until the job ends")
        if name == "stop":
            a.add_argument("--wait", action="store_true", help="return once the job is recorded Stopped")
    j.set_defaults(run=lambda args: (j.print_help(), 2)[1])

    sub.add_parser("bench", help="benchmark models (see `bessemer bench --help`)", add_help=False)
    return p


def _pairs(field: str, items: list[str], parse_json: bool = False) -> dict:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"{field} expects KEY=VALUE, got {item!r}")
        if parse_json:
            try:
                value = json.loads(value)
            except json.JSONDecodeError:
                pass
        out[key] = value
    return out


def _train(args: argparse.Namespace) -> int:
    from .jobs import HuggingFace, JobFailedError, PyTorch

    cls = HuggingFace if args.framework == "huggingface" else PyTorch
    metrics = [{"Name": k, "Regex": v} for k, v in _pairs("--metric", args.metric).items()]
    options = {} if args.max_run is None else {"max_run": args.max_run}
    est = cls(entry_point=args.entry_point, source_dir=args.source_dir,
              hyperparameters=_pairs("--hp", args.hp, parse_json=True),
              processes_per_instance=args.processes, environment=_pairs("--env", args.env),
              compiler_config=TrainingCompilerConfig(enabled=not args.no_compiler, debug=args.debug,
                                                     precision=args.precision, cuda_graphs=args.cuda_graphs),
              metric_definitions=metrics or None, output_path=args.output_path,
              base_job_name=args.base_job_name, **options)
    try:
        est.fit(_pairs("--channel", args.channel) or None, wait=not args.no_wait, logs=not args.quiet,
                job_name=args.job_name)
    except JobFailedError as e:
        print(f"bessemer: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        job = est.latest_training_job
        print(f"\nbessemer: training job {job.name if job else ''} stopped", file=sys.stderr)
        return 130
    job = est.latest_training_job
    if args.no_wait:
        print(f"bessemer: training job {job.name} started; follow it with "
              f"`bessemer jobs logs {job.name} --follow --output-path {job.output_path}`")
    else:
        print(f"bessemer: training job {job.name} completed\n  model: {job.model_data}\n  log:   {job.log_path}")
    return 0


def _jobs_list(args: argparse.Namespace) -> int:
    from .jobs.job import reconcile
    from .jobs.store import JobStore

    store = JobStore(args.output_path)
    records = [reconcile(store, r) for r in store.list(status=args.status, limit=args.limit)]
    rows = [("NAME", "STATUS", "CREATED", "SECONDS", "FRAMEWORK", "COMPILER")]
    for r in records:
        created = datetime.fromtimestamp(r.creation_time).strftime("%Y-%m-%d %H:%M:%S")
        end = r.end_time if r.end_time is not None else time.time()
        seconds = f"{end - r.start_time:.1f}" if r.start_time is not None else "-"
        compiler = "on" if r.compiler_config.get("enabled", True) else "off"
        if compiler == "on" and r.compiler_config.get("debug"):
            compiler += " (debug)"
        rows.append((r.name, r.status, created, seconds, r.framework, compiler))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    return 0


def _jobs_describe(args: argparse.Namespace) -> int:
    from .jobs import TrainingJob

    print(json.dumps(TrainingJob.attach(args.name, args.output_path).describe(), indent=2, default=str))
    return 0


def _jobs_logs(args: argparse.Namespace) -> int:
    from .jobs import JobFailedError, TrainingJob

    job = TrainingJob.attach(args.name, args.output_path)
    if not args.follow:
        job.logs()
        return 0
    try:
        job.wait(logs=True)
    except JobFailedError:
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


def _jobs_stop(args: argparse.Namespace) -> int:
    from .jobs import JobFailedError, TrainingJob

    job = TrainingJob.attach(args.name, args.output_path)
    if not job.stop():
        print(f"bessemer: training job {job.name} already ended ({job.status})")
        return 0
    print(f"bessemer: stopping training job {job.name}")
    if args.wait:
        try:
            job.wait(logs=False)
        except JobFailedError as e:
            print(f"bessemer: training job {job.name} {e.status}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
