"""The local engine: runs a job's processes on this machine.

One supervisor per job (supervisor.py) starts the script (plain `python`, or
torchrun for several processes) in a process group of its own, with everything
it prints going to the job's log, and watches it to its end. The supervisor runs
as a detached process (`python -m bessemer.jobs.engines.local JOB.json`, in a
session of its own) that outlives its caller: fit(wait=False) returns once it has
started; fit(wait=True) (and a foreground `bessemer train`) only follows the job's
log, so a closed terminal (SIGHUP) or a killed caller leaves the job running, and
`bessemer jobs logs -f NAME` picks it up again. Ctrl-C in the follower stops the
job, as `stop()` does. A job whose checkpoint_path lives in the caller's memory
(memory://), or an engine made with `LocalEngine(in_process=True)`, has its
supervisor run in the caller instead.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from ..checkpoints import in_process_only
from ..job import TrainingJob, reconcile_all
from ..layout import JobDir
from ..logs import LogFollower
from ..outcome import finish_job
from ..store import FAILED, JobStore
from .base import Engine, JobSpec
from .launch import launcher_env
from .supervisor import Stop, Supervisor


FOLLOW_POLL_S = 0.2       # how often a follower reads the log and the record


class LocalEngine(Engine):
    name = "local"

    def __init__(self, in_process: bool = False):
        self.in_process = in_process   # run the supervisor in the caller (it ends with the caller)

    def check(self, instance_count: int, processes_per_instance: int) -> None:
        if instance_count != 1:
            raise ValueError(f"instance_count must be 1 for the local engine (it runs one instance, "
                             f"this machine), got {instance_count}; use processes_per_instance for "
                             "several processes")

    def run(self, spec: JobSpec, logs: bool = True) -> str:
        if self.in_process or in_process_only(spec.checkpoint_path) or in_process_only(spec.output_url):
            _record_supervisor(spec, os.getpid())
            return Supervisor(spec, stream=sys.stdout if logs else None).run()
        self.submit(spec)
        return follow(TrainingJob(spec.name, spec.output_path, create=False), sys.stdout if logs else None)

    def submit(self, spec: JobSpec) -> None:
        _record_supervisor(spec, start_detached(spec, "bessemer.jobs.engines.local"))


def start_detached(spec: JobSpec, module: str, extra_args: tuple = ()) -> int:
    """Start `python -m module JOB.json *extra_args` as the job's supervisor in a session of its
    own (a closed terminal does not end it), its output appended to the job's log; returns its
    pid. Jobs whose supervisor died are ended first."""
    reconcile_all(JobStore(spec.output_path))
    job = JobDir(Path(spec.job_dir))
    spec.save(job.spec_file)
    with open(job.log, "ab") as log:
        proc = subprocess.Popen([sys.executable, "-m", module, str(job.spec_file), *extra_args],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                start_new_session=True, env=launcher_env())
    return proc.pid


def follow(job: TrainingJob, stream) -> str:
    """Stream the job's log (to `stream`, when not None) until the job ends; returns its final
    status. Ctrl-C stops the job, as `stop()` does (its processes are ended, its checkpoints
    synced, the record says Stopped), waits for that, and raises KeyboardInterrupt; a second
    Ctrl-C leaves the job stopping on its own."""
    follower = LogFollower(job.job_dir.log, stream)

    def to_end() -> str:
        while not (record := job.record()).done:
            follower.pump()
            time.sleep(FOLLOW_POLL_S)
        follower.pump()
        return record.status

    try:
        return to_end()
    except KeyboardInterrupt:
        job.store.request_stop(job.name, reason="interrupted (Ctrl-C)")
        try:
            to_end()
        except KeyboardInterrupt:
            print(f"\nbessemer: training job {job.name} is stopping; `bessemer jobs logs {job.name} -f "
                  f"--output-path {job.output_path}` follows it", file=sys.stderr)
        raise


def _record_supervisor(spec: JobSpec, pid: int) -> None:
    """Which process watches the job: if it dies without recording the job's end,
    readers of the record can tell (see job.reconcile)."""
    JobStore(spec.output_path).update(spec.name, supervisor_pid=pid, host=socket.gethostname())


def _raise_stop(signum, frame):  # noqa: ARG001
    raise Stop()


def run_detached(spec: JobSpec, supervisor: Supervisor) -> int:
    """The body of a detached supervisor's process (any engine's): record this process as the
    job's supervisor, end the job on SIGTERM (Ctrl-C reaches only the follower), and never
    leave the record InProgress."""
    _record_supervisor(spec, os.getpid())  # as the caller does: the caller may be killed before it can
    signal.signal(signal.SIGTERM, _raise_stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # detached: only stop requests and SIGTERM end it
    try:
        supervisor.run()
    except Stop:
        return 143
    except Exception as e:  # noqa: BLE001 - never leave a record InProgress behind
        finish_job(spec, FAILED, None, f"the job's supervisor failed: {e!r}")
        raise
    return 0


def main(argv: list[str]) -> int:
    """Entry of a detached supervisor: `python -m bessemer.jobs.engines.local JOB.json`."""
    spec = JobSpec.load(Path(argv[0]))
    return run_detached(spec, Supervisor(spec))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
