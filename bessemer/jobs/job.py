"""TrainingJob: a handle on one job's record, folder and log."""
from __future__ import annotations

import socket
import sys
import time
from pathlib import Path
from typing import Any, Optional, TextIO

from .errors import JobFailedError, JobStoppedError
from .layout import JobDir
from .logs import LogFollower
from .processes import process_running
from .store import COMPLETED, IN_PROGRESS, STOPPED, JobRecord, JobStore

WAIT_POLL_S = 0.2


def reconcile(store: JobStore, record: JobRecord) -> JobRecord:
    """A job still recorded InProgress whose supervising process on this machine has gone
    (killed, or it could not start) will never record its end: stop what is left of it, sync
    its checkpoints and record it Failed (engines.supervisor.recover)."""
    if record.done or not record.supervisor_pid or record.host != socket.gethostname() \
            or process_running(record.supervisor_pid):
        return record
    record = store.get(record.name)  # it may have ended just now
    if not record.done:
        from .engines.supervisor import recover

        recover(store, record)
        record = store.get(record.name)
    return record


def reconcile_all(store: JobStore) -> None:
    """Reconcile every job recorded InProgress (see reconcile)."""
    for record in store.list(status=IN_PROGRESS):
        reconcile(store, record)


class TrainingJob:
    """A training job started by an estimator (or found again by name with `attach`)."""

    def __init__(self, name: str, output_path: str | Path, create: bool = True):
        self.name = name
        self.output_path = Path(output_path).resolve()
        self.store = JobStore(self.output_path, create=create)

    @classmethod
    def attach(cls, name: str, output_path: str | Path = "runs") -> "TrainingJob":
        """The job `name` under `output_path`; ValueError (saying where to look) when there is
        none. Creates nothing."""
        job = cls(name, output_path, create=False)
        job.record()  # raises ValueError for an unknown name
        return job

    def __repr__(self) -> str:
        return f"TrainingJob({self.name!r}, output_path={str(self.output_path)!r})"

    @property
    def job_name(self) -> str:
        """The job's name (SageMaker's `latest_training_job.job_name`)."""
        return self.name

    # -- what is recorded -------------------------------------------------------
    def record(self) -> JobRecord:
        return reconcile(self.store, self.store.get(self.name))

    @property
    def status(self) -> str:
        return self.record().status

    @property
    def job_dir(self) -> JobDir:
        return JobDir(self.output_path / self.name)

    @property
    def model_data(self) -> str:
        """Path of the job's model artifact, output/model.tar.gz (there once the job ended)."""
        return str(self.job_dir.model_tar)

    @property
    def log_path(self) -> str:
        return str(self.job_dir.log)

    def describe(self) -> dict[str, Any]:
        return self.record().describe(self.store.metrics(self.name), self.store.attempts(self.name))

    def metrics(self) -> dict[str, list[Optional[float]]]:
        """{metric name: values in step order}, as parsed from the log by metric_definitions."""
        return {name: [v for _, v in points] for name, points in self.store.metrics(self.name).items()}

    # -- acting on it -----------------------------------------------------------
    def stop(self) -> bool:
        """Ask the job to stop: every process of it is terminated and the job recorded
        Stopped. False when the job had already ended."""
        return self.store.request_stop(self.name)

    def logs(self, stream: Optional[TextIO] = None) -> None:
        """Print the job's log so far."""
        LogFollower(self.job_dir.log, stream or sys.stdout).pump()

    def wait(self, logs: bool = True, stream: Optional[TextIO] = None) -> None:
        """Block until the job ends, streaming its log when `logs`; raise when it did not
        complete. Ctrl-C stops the waiting, not the job."""
        follower = LogFollower(self.job_dir.log, (stream or sys.stdout) if logs else None)
        while not self.record().done:
            follower.pump()
            time.sleep(WAIT_POLL_S)
        follower.pump()
        self.raise_for_status()

    def raise_for_status(self) -> None:
        """Raise JobFailedError (JobStoppedError for a stopped job) unless the job completed."""
        rec = self.record()
        if rec.status == COMPLETED or not rec.done:
            return
        error = JobStoppedError if rec.status == STOPPED else JobFailedError
        raise error(self.name, rec.status, rec.failure_reason, rec.log_path)
