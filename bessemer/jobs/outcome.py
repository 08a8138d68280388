"""The end of a job, the same for every engine: pack the model, parse the metrics
from the log, write the failure file, and record the final status."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from .engines.base import JobSpec
from .errors import error_tail
from .layout import JobDir, pack_model
from .metrics import parse_metrics, validate_definitions
from .store import COMPLETED, FAILED, JobStore


def read_log_lines(path: Path) -> list[str]:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return []


def failure_reason(exit_code: int, lines: list[str]) -> str:
    return f"ExecuteUserScriptError: the script exited with code {exit_code}\n{error_tail(lines)}"


def finish_job(spec: JobSpec, status: str, exit_code: Optional[int],
               reason: Optional[str] = None) -> str:
    """Record the end of `spec`'s job; a non-zero exit without a reason becomes Failed
    with the end of the script's error as the reason. Returns the final status."""
    job = JobDir(Path(spec.job_dir))
    store = JobStore(spec.output_path)
    lines = read_log_lines(job.log)
    if status == COMPLETED and exit_code not in (0, None):
        status, reason = FAILED, failure_reason(exit_code, lines)
    notes: list[str] = []
    model_data = None
    try:
        model_data = str(pack_model(job))
    except OSError as e:  # a model folder that cannot be read must not hide the job's outcome
        notes.append(f"could not pack model/: {e}")
        if status == COMPLETED:
            status, reason = FAILED, f"could not pack model/ into {job.model_tar}: {e}"
    try:
        points = parse_metrics(lines, validate_definitions(spec.metric_definitions))
        store.add_metrics(spec.name, points)
    except Exception as e:  # noqa: BLE001 - metrics are extra; the job's status comes first
        notes.append(f"could not parse metrics: {e}")
    if reason:
        job.failure_file.write_text(reason + "\n")
    with open(job.log, "a", encoding="utf-8") as log:
        for note in notes:
            log.write(f"bessemer: {note}\n")
        log.write(f"bessemer: training job {spec.name} {status}"
                  + (f" (exit code {exit_code})" if exit_code is not None else "") + "\n")
    store.finish(spec.name, status, exit_code=exit_code, failure_reason=reason, model_data=model_data)
    return store.get(spec.name).status
