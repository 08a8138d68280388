"""The end of a job, the same for every engine: pack the model, take the last metrics and
the compile summary from the log, write the failure file, and record the final status."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from ..fsutil import atomic_write_text
from .engines.base import JobSpec
from .errors import ScriptContext, failure_reason
from .layout import JobDir, pack_model, pack_output_data
from .metrics import validate_definitions
from .staging import job_output_url, upload
from .store import COMPLETED, FAILED, JobStore
from .tail import LogTail, MetricSinks, summary_line

# What a job whose compiler was on, and which compiled no graph, records and says: the script
# never handed its model to the compiler, so it trained eagerly.
NOTHING_COMPILED = "compiler on, nothing compiled"
NOTHING_COMPILED_LINE = (f"bessemer: {NOTHING_COMPILED}: the script trained eagerly; add "
                         "`model = bessemer.compile(model)` after the model is built (or "
                         "`model = torch.compile(model, backend=\"bessemer\")`)")


def nothing_compiled_summary() -> dict[str, Any]:
    """The compile summary of a job with the compiler on that compiled no graph."""
    return {"graphs": 0, "seconds": 0.0, "fallbacks": 0, "fallback_names": [], "cache_hits": 0, "kernels": 0,
            "externs": 0, "ranks": 0, "rank": 0, "per_graph": [], "note": NOTHING_COMPILED_LINE[len("bessemer: "):]}


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
    try:
        pack_output_data(job)
    except OSError as e:
        notes.append(f"could not pack output/data/: {e}")
    if spec.output_url and model_data is not None:
        status, reason, model_data = _upload_outputs(spec, job, status, reason, model_data, notes)
    summary: dict = {}
    try:
        tail = tail or log_tail(spec, store, notes.append)
        tail.finish()
        summary = tail.compile.summary()
    except Exception as e:  # noqa: BLE001 - metrics are extra; the job's status comes first
        notes.append(f"could not read metrics from the log: {e}")
    else:
        if spec.compiler_enabled and not summary and status == COMPLETED:
            summary = nothing_compiled_summary()
            notes.append(NOTHING_COMPILED_LINE)
    if reason:
        atomic_write_text(job.failure_file, reason + "\n")
    with open(job.log, "a", encoding="utf-8") as log:
        for note in notes:
            log.write(note if note.startswith("bessemer: ") else f"bessemer: {note}")
            log.write("\n")
        line = None if summary.get("note") else summary_line(summary, spec.compiler_enabled)
        if line:
            log.write(line + "\n")
        log.write(f"bessemer: training job {spec.name} {status}"
                  + (f" (exit code {exit_code})" if exit_code is not None else "") + "\n")
    store.finish(spec.name, status, exit_code=exit_code, failure_reason=reason, model_data=model_data,
                 compile_summary=summary, **fields)
    return store.get(spec.name).status


def _upload_outputs(spec: JobSpec, job: JobDir, status: str, reason: Optional[str], model_data: str,
                    notes: list[str]) -> tuple[str, Optional[str], str]:
    """Copy output/model.tar.gz and output/output.tar.gz to the job's folder under the
    output_path URL. (status, reason, model_data) after it: a job whose outputs could not
    be uploaded is Failed, and its files stay in the job's folder on this machine."""
    url = job_output_url(spec.output_url, spec.name)
    files = {p.name: p for p in (job.model_tar, job.output_tar) if p.is_file()}
    try:
        done = upload(files, url)
    except Exception as e:  # noqa: BLE001 - one line saying where the outputs are instead
        why = f"could not upload the outputs to {url} ({type(e).__name__}: {e}); they are kept in {job.output}"
        notes.append(why)
        if status == COMPLETED:
            return FAILED, why, model_data
        return status, (reason + "\n" + why) if reason else why, model_data
    notes.append(f"outputs uploaded to {url}: {', '.join(sorted(done))}")
    return status, reason, done.get(job.model_tar.name, model_data)
