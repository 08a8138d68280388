"""`bessemer train` and `bessemer jobs ...`: their arguments and what they do.

Flags check their values as they are parsed (a bad value is one line naming the
flag); what the estimator refuses is reported with the flag in place of the
field's name (FIELD_FLAGS). Commands that only read a job (list, describe, logs,
metrics, compare) never create a job store, nor write anything but the pictures they
are asked for (--plot).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Optional

from ..config import TrainingCompilerConfig

# Estimator fields and the `bessemer train` flag that sets each.
FIELD_FLAGS = {
    "entry_point": "the script", "source_dir": "--source-dir", "hyperparameters": "--hp", "inputs": "--channel",
    "environment": "--env", "metric_definitions": "--metric", "output_path": "--output-path",
    "base_job_name": "--base-job-name", "job_name": "--job-name", "max_run": "--max-run",
    "processes_per_instance": "--processes", "checkpoint_path": "--checkpoint-path", "max_retries": "--max-retries",
    "instance_count": "--instances", "engine": "--engine", "cluster_address": "--cluster-address",
    "TrainingCompilerConfig.precision": "--precision", "TrainingCompilerConfig.debug": "--debug",
}
_FIELD = re.compile(r"^(?P<field>[A-Za-z_][\w.]*)(?P<index>(?:\[[^\]]*\])*)(?P<rest>.*)$", re.S)


def flag_message(message: str) -> str:
    """An estimator's message with the flag in place of the field: "inputs['train']: ..." ->
    "--channel train: ..."."""
    m = _FIELD.match(message)
    if not m or m["field"] not in FIELD_FLAGS:
        return message
    flag = FIELD_FLAGS[m["field"]]
    first = re.match(r"\[(?:'(?P<key>[^']*)'|(?P<pos>\d+))\]", m["index"] or "")
    if first and first["key"] is not None:
        flag += f" {first['key']}"
    elif first:
        flag += f" #{int(first['pos']) + 1}"
    return flag + m["rest"]


# -- value types: each names what it expected ------------------------------------------
def _count(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < minimum:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum}, got {text!r}")
        return value
    return parse


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return value


def _pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key, value


def _hp_value(value: str) -> Any:
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return value


# -- bessemer train -------------------------------------------------------------------------
def add_train(p: argparse.ArgumentParser) -> None:
    p.add_argument("entry_point", metavar="SCRIPT", help="the training script (relative to --source-dir when given)")
    p.add_argument("--source-dir", help="folder copied into the job; the script runs in the copy")
    p.add_argument("--hp", action="append", default=[], type=_pair, metavar="KEY=VALUE",
                   help="a hyperparameter; VALUE is read as JSON when it parses (2, 3e-4, true), else a string")
    p.add_argument("--channel", action="append", default=[], type=_pair, metavar="NAME=PATH",
                   help="an input channel")
    p.add_argument("--env", action="append", default=[], type=_pair, metavar="KEY=VALUE",
                   help="an environment variable for the script")
    p.add_argument("--metric", action="append", default=[], type=_pair, metavar="NAME=REGEX",
                   help="a metric to read from the log while it runs (the regex's first group is the value)")
    p.add_argument("--metrics-csv", action="store_true", help="also write the metrics to output/metrics.csv")
    p.add_argument("--processes", type=_count(1), default=1, metavar="N",
                   help="processes per instance (torchrun on this machine; Ray workers per node)")
    p.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="where the job runs: this machine (local) or a Ray cluster (ray)")
    p.add_argument("--instances", type=_count(1), default=1, metavar="N",
                   help="instances (machines) of the job: more than one needs --engine ray")
    p.add_argument("--cluster-address", metavar="ADDR",
                   help="--engine ray: the cluster ('auto', 'ray://host:10001'); default: a Ray on this machine")
    p.add_argument("--no-compiler", action="store_true", help="run eagerly (TrainingCompilerConfig(enabled=False))")
    p.add_argument("--compare-eager", action="store_true",
                   help="run the job compiled, then again eagerly, and compare the two")
    p.add_argument("--debug", action="store_true",
                   help="write the compiler's artifacts to the job's output/data/compiler/")
    p.add_argument("--precision", choices=("fp32", "bf16", "fp16"), default="fp32",
                   help="mixed precision: the model's forward under torch.autocast to bf16 or fp16 (default fp32)")
    p.add_argument("--cuda-graphs", action="store_true", help="replay compiled GPU graphs as CUDA graphs")
    p.add_argument("--framework", choices=("pytorch", "huggingface"), default="pytorch")
    p.add_argument("--output-path", default="runs", help="where jobs and their records go (default: runs)")
    p.add_argument("--job-name", help="the job's name (default: <base-job-name>-<timestamp>)")
    p.add_argument("--base-job-name")
    p.add_argument("--max-run", type=_seconds, default=None, metavar="SECONDS",
                   help="stop the job after this long (default: 24 h)")
    p.add_argument("--checkpoint-path", metavar="PATH_OR_URL",
                   help="keep the job's checkpoints/ here (a folder, s3://..., gs://...): restored at the start, "
                        "copied while it runs; a new job with the same path resumes")
    p.add_argument("--max-retries", type=_count(0), default=0, metavar="N",
                   help="start processes that fail again, up to N times, from the checkpoints")
    p.add_argument("--no-wait", action="store_true", help="start the job and return")
    p.add_argument("--quiet", action="store_true", help="do not stream the job's log")
    p.set_defaults(run=train)


def _estimator(args: argparse.Namespace, enabled: bool):
    from . import HuggingFace, PyTorch

    cls = HuggingFace if args.framework == "huggingface" else PyTorch
    options = {} if args.max_run is None else {"max_run": args.max_run}
    return cls(entry_point=args.entry_point, source_dir=args.source_dir,
               hyperparameters={k: _hp_value(v) for k, v in args.hp},
               processes_per_instance=args.processes, environment=dict(args.env),
               instance_count=args.instances, engine=args.engine, cluster_address=args.cluster_address,
               compiler_config=TrainingCompilerConfig(enabled=enabled, debug=args.debug,
                                                      precision=args.precision, cuda_graphs=args.cuda_graphs),
               metric_definitions=[{"Name": k, "Regex": v} for k, v in args.metric] or None,
               output_path=args.output_path, base_job_name=args.base_job_name,
               checkpoint_path=args.checkpoint_path, max_retries=args.max_retries,
               metrics_csv=args.metrics_csv, **options)


def train(args: argparse.Namespace) -> int:
    from . import JobFailedError

    if args.compare_eager and (args.no_compiler or args.no_wait):
        raise ValueError("--compare-eager runs the job compiled and then eagerly, to its end: "
                         "it does not go with --no-compiler or --no-wait")
    runs = [(not args.no_compiler, args.job_name)]
    if args.compare_eager:
        runs.append((False, f"{args.job_name}-eager" if args.job_name else None))
    jobs = []
    for enabled, job_name in runs:
        est = _estimator(args, enabled)
        try:
            est.fit(dict(args.channel) or None, wait=not args.no_wait, logs=not args.quiet, job_name=job_name)
        except JobFailedError as e:
            print(f"bessemer: {e}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            job = est.latest_training_job
            print(f"\nbessemer: training job {job.name if job else ''} stopped", file=sys.stderr)
            return 130
        job = est.latest_training_job
        jobs.append(job)
        if args.no_wait:
            print(f"bessemer: training job {job.name} started; follow it with "
                  f"`bessemer jobs logs {job.name} --follow --output-path {job.output_path}`")
        else:
            print(f"bessemer: training job {job.name} completed\n  model: {job.model_data}\n  log:   {job.log_path}")
    if args.compare_eager:  # eager first: speed-ups are against it
        print()
        names = [jobs[1].name, jobs[0].name]
        _print_compare(jobs[0].store, names, None, jobs[0].store.path.parent / f"compare-{'-'.join(names)}.png")
    return 0


# -- bessemer jobs ...
def add_jobs(j: argparse.ArgumentParser) -> None:
    js = j.add_subparsers(metavar="ACTION")
    actions = (
        ("list", jobs_list, "list jobs, newest first"),
        ("describe", jobs_describe, "a job's record, as JSON (metrics so far while it runs)"),
        ("logs", jobs_logs, "print a job's log"),
        ("stop", jobs_stop, "stop a running job (every process of it)"),
        ("metrics", jobs_metrics, "print a job's metrics (--plot DIR: and draw a PNG of each over time)"),
        ("compare", jobs_compare, "put jobs side by side: speed, compile time, memory, final metrics, loss curves"),
        ("repair", jobs_repair, "rebuild the job store (jobs.sqlite) from the job folders, keeping a damaged one aside"),
    )
    for name, fn, helptext in actions:
        a = js.add_parser(name, help=helptext, description=helptext[0].upper() + helptext[1:] + ".")
        if name == "compare":
            a.add_argument("names", nargs="+", metavar="NAME", help="two or more jobs; speed-ups are against the first")
            a.add_argument("--metric", help="the metric whose curves are drawn (default: loss)")
            a.add_argument("--plot", metavar="PNG", help="draw the curves into this PNG (default: no picture)")
        elif name not in ("list", "repair"):
            a.add_argument("name", help="the job's name")
        a.add_argument("--output-path", default="runs", help="where the jobs are (default: runs)")
        a.set_defaults(run=fn)
        if name == "list":
            a.add_argument("--status", choices=("InProgress", "Completed", "Failed", "Stopped"))
            a.add_argument("--limit", type=_count(1), default=None)
        if name == "logs":
            a.add_argument("--follow", "-f", action="store_true", help="keep printing until the job ends")
        if name == "stop":
            a.add_argument("--wait", action="store_true", help="return once the job is recorded Stopped")
        if name == "metrics":
            a.add_argument("--last", type=_count(1), default=None, metavar="N", help="only each metric's last N points")
            a.add_argument("--plot", metavar="DIR", help="draw a PNG of each metric into this folder "
                           "(default: no picture; the command writes nothing)")
    j.set_defaults(run=lambda args: (j.print_help(), 2)[1])


def _reader(output_path: str):
    from .store import JobStore

    return JobStore(output_path, create=False)


def jobs_list(args: argparse.Namespace) -> int:
    from .job import reconcile
    from .store import NoJobStore

    try:
        store = _reader(args.output_path)
    except NoJobStore as e:
        print(f"bessemer: {e}")
        return 0
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


def jobs_describe(args: argparse.Namespace) -> int:
    from . import TrainingJob

    print(json.dumps(TrainingJob.attach(args.name, args.output_path).describe(), indent=2, default=str))
    return 0


def jobs_logs(args: argparse.Namespace) -> int:
    from . import JobFailedError, TrainingJob

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


def jobs_stop(args: argparse.Namespace) -> int:
    from . import JobFailedError, TrainingJob

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


def jobs_metrics(args: argparse.Namespace) -> int:
    from . import report

    store = _reader(args.output_path)
    job = report.load(store, args.name)
    print(f"{job.name} ({job.record.status})")
    for line in report.metrics_table(job, args.last):
        print(line)
    if job.points and args.plot:
        for path in report.plot_metrics(job, Path(args.plot)):
            print(f"plot: {path.resolve()}")
    return 0


def jobs_repair(args: argparse.Namespace) -> int:
    from .repair import repair

    done = repair(args.output_path)
    if done.damage:
        print(f"bessemer: {done.store} was damaged ({done.damage}); it is kept at {done.moved_to}")
    if done.restored:
        print(f"bessemer: {len(done.restored)} job{'' if len(done.restored) == 1 else 's'} rebuilt from "
              f"{'their folders' if len(done.restored) > 1 else 'its folder'} into {done.store}: "
              f"{', '.join(done.restored)}")
    elif not done.damage:
        print(f"bessemer: {done.store} is sound and has every job folder's job; nothing to repair")
    for folder in done.unreadable:
        print(f"bessemer: could not read the record of the job folder {folder}", file=sys.stderr)
    return 1 if done.unreadable else 0


def jobs_compare(args: argparse.Namespace) -> int:
    if len(args.names) < 2:
        raise ValueError("compare needs two or more job names")
    _print_compare(_reader(args.output_path), args.names, args.metric, args.plot)
    return 0


def _print_compare(store, names: list[str], metric: Optional[str], plot: Optional[Path]) -> None:
    """The jobs side by side; their curves go to `plot` when given (a read-only command
    draws only where the user asked it to)."""
    from . import report

    jobs = [report.load(store, n) for n in names]
    for line in report.compare_table(jobs):
        print(line)
    if plot is None:
        return
    written = report.plot_compare(jobs, Path(plot), metric)
    if written:
        print(f"plot: {written.resolve()}")
    else:
        print(f"(no {metric or 'loss'} metric in these jobs: no plot)")
