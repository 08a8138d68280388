"""The end of a job, the same for every engine: pack the model, take the last metrics and
the compile summary from the log, write the failure file, and record the final status."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from ..fsutil import atomic_write_text
from .engines.base import JobSpec
from .errors import ScriptContext, failure_reason
from .layout import JobDir, pack_model
from .metrics import validate_definitions
from .store import COMPLETED, FAILED, JobStore
from .tail import LogTail, MetricSinks, summary_line


def read_log_lines(path: Path, offset: int = 0) -> list[str]:
    """The log's lines from byte `offset` on."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            return f.read().decode("utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return []


def script_context(spec: JobSpec) -> ScriptContext:
    return ScriptContext(code_dir=str(JobDir(Path(spec.job_dir)).code), source_dir=spec.source_dir,
                         channels=tuple(spec.channels))


def script_failure(spec: JobSpec, exit_code: Optional[int], log_offset: int = 0) -> str:
    """Why the script failed, from what it printed since `log_offset`."""
    lines = read_log_lines(JobDir(Path(spec.job_dir)).log, log_offset)
    return failure_reason(exit_code, lines, script_context(spec))


def log_tail(spec: JobSpec, store: Optional[JobStore] = None, note=lambda _: None) -> LogTail:
    """A reader of the job's log that records its metrics (store, TensorBoard, CSV) and
    what the compiler did."""
    job = JobDir(Path(spec.job_dir))
    store = store or JobStore(spec.output_path)
    sinks = MetricSinks(store, spec.name, job.tensorboard, job.metrics_csv if spec.metrics_csv else None, note)
    return LogTail(job.log, validate_definitions(spec.metric_definitions), sinks)


def finish_job(spec: JobSpec, status: str, exit_code: Optional[int], reason: Optional[str] = None,
               tail: Optional[LogTail] = None, log_offset: int = 0, **fields: Any) -> str:
    """Record the end of `spec`'s job; a non-zero exit without a reason becomes Failed with
    the script's error as the reason (from the log after `log_offset`, the last attempt's).
    `tail` is the reader that followed the log while the job ran, if one did. Returns the
    final status."""
    job = JobDir(Path(spec.job_dir))
    store = JobStore(spec.output_path)
    if status == COMPLETED and exit_code not in (0, None):
        status, reason = FAILED, script_failure(spec, exit_code, log_offset)
    notes: list[str] = []
    model_data = None
    try:
        model_data = str(pack_model(job))
    except OSError as e:  # a model folder that cannot be read must not hide the job's outcome
        notes.append(f"could not pack model/: {e}")
        if status == COMPLETED:
            status, reason = FAILED, f"could not pack model/ into {job.model_tar}: {e}"
    summary: dict = {}
    try:
        tail = tail or log_tail(spec, store, notes.append)
        tail.finish()
        summary = tail.compile.summary()
    except Exception as e:  # noqa: BLE001 - metrics are extra; the job's status comes first
        notes.append(f"could not read metrics from the log: {e}")
    if reason:
        atomic_write_text(job.failure_file, reason + "\n")
    with open(job.log, "a", encoding="utf-8") as log:
        for note in notes:
            log.write(note if note.startswith("bessemer: ") else f"bessemer: {note}")
            log.write("\n")
        line = summary_line(summary, spec.compiler_enabled)
        if line:
            log.write(line + "\n")
        log.write(f"bessemer: training job {spec.name} {status}"
                  + (f" (exit code {exit_code})" if exit_code is not None else "") + "\n")
    store.finish(spec.name, status, exit_code=exit_code, failure_reason=reason, model_data=model_data,
                 compile_summary=summary, **fields)
    return store.get(spec.name).status
