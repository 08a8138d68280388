"""The local engine: runs a job's processes on this machine.

One supervisor per job (supervisor.py) starts the script (plain `python`, or
torchrun for several processes) in a process group of its own, with everything
it prints going to the job's log, and watches it to its end. fit(wait=True)
runs the supervisor in the caller; fit(wait=False) runs it as a detached process
(`python -m bessemer.jobs.engines.local JOB.json`) that outlives the caller.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

from ..layout import JobDir
from ..outcome import finish_job
from ..store import FAILED, JobStore
from .base import Engine, JobSpec
from .launch import launcher_env
from .supervisor import Stop, Supervisor


class LocalEngine(Engine):
    name = "local"

    def check(self, instance_count: int, processes_per_instance: int) -> None:
        if instance_count != 1:
            raise ValueError(f"instance_count must be 1 for the local engine (it runs one instance, "
                             f"this machine), got {instance_count}; use processes_per_instance for "
                             "several processes")

    def run(self, spec: JobSpec, logs: bool = True) -> str:
        _record_supervisor(spec, os.getpid())
        return Supervisor(spec, stream=sys.stdout if logs else None).run()

    def submit(self, spec: JobSpec) -> None:
        job = JobDir(Path(spec.job_dir))
        spec.save(job.spec_file)
        with open(job.log, "ab") as log:
            proc = subprocess.Popen([sys.executable, "-m", "bessemer.jobs.engines.local", str(job.spec_file)],
                                    stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                    start_new_session=True, env=launcher_env())
        _record_supervisor(spec, proc.pid)


def _record_supervisor(spec: JobSpec, pid: int) -> None:
    """Which process watches the job: if it dies without recording the job's end,
    readers of the record can tell (see job.reconcile)."""
    JobStore(spec.output_path).update(spec.name, supervisor_pid=pid, host=socket.gethostname())


def _raise_stop(signum, frame):  # noqa: ARG001
    raise Stop()


def main(argv: list[str]) -> int:
    """Entry of a detached supervisor: `python -m bessemer.jobs.engines.local JOB.json`."""
    spec = JobSpec.load(Path(argv[0]))
    signal.signal(signal.SIGTERM, _raise_stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # detached: only stop requests and SIGTERM end it
    try:
        Supervisor(spec).run()
    except Stop:
        return 143
    except Exception as e:  # noqa: BLE001 - never leave a record InProgress behind
        finish_job(spec, FAILED, None, f"the job's supervisor failed: {e!r}")
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
