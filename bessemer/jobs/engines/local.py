"""The local engine: runs a job's processes on this machine.

One supervisor per job starts the script (plain `python`, or torchrun for
several processes) in a process group of its own, with everything it prints
going to the job's log. It then watches: the processes ending, max_run running
out, a stop request in the job store, or Ctrl-C. To stop, it sends SIGTERM to
the whole group, SIGKILL to what is left after a grace period, and records the
job Stopped. fit(wait=True) runs the supervisor in the caller; fit(wait=False)
runs it as a detached process (`python -m bessemer.jobs.engines.local JOB.json`)
that outlives the caller.
"""
from __future__ import annotations

import contextlib
import os
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Optional, TextIO

from ..contract import HostInfo, hyperparameters_to_args, training_environment
from ..hooks import STARTUP_DIR
from ..layout import JobDir, write_input_config
from ..logs import LogFollower
from ..outcome import finish_job
from ..processes import group_alive, signal_group
from ..store import COMPLETED, FAILED, STOPPED, JobStore
from .base import Engine, JobSpec

HOST_NAME = "algo-1"         # the name SageMaker gives the first host; scripts compare against it
STOP_GRACE_S = 10.0          # SIGTERM -> SIGKILL
POLL_S = 0.1                 # how often the supervisor looks at its processes
STOP_CHECK_S = 0.5           # how often it reads the job store for a stop request

# Inherited variables that would tell a job's script it is part of some other job.
_FOREIGN_PREFIXES = ("SM_", "BESSEMER_", "TORCHELASTIC_")
_FOREIGN_NAMES = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK",
                  "ROLE_RANK", "ROLE_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "TRAINING_JOB_NAME")
_KEEP = ("BESSEMER_CACHE_DIR",)


class _Stop(Exception):
    """Raised in a detached supervisor by SIGTERM: stop the job, then exit."""


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
                                    start_new_session=True, env=_launcher_env())
        _record_supervisor(spec, proc.pid)


def _record_supervisor(spec: JobSpec, pid: int) -> None:
    """Which process watches the job: if it dies without recording the job's end,
    readers of the record can tell (see job.reconcile)."""
    JobStore(spec.output_path).update(spec.name, supervisor_pid=pid, host=socket.gethostname())


_BESSEMER_ROOT = Path(__file__).resolve().parents[3]
# The folder bessemer was imported from, when it is a source tree: the job's processes, which
# run in another folder, import bessemer from there too. An installed bessemer (in
# site-packages) they find by themselves, and site-packages must not go before the stdlib.
_SOURCE_ROOT = [] if _BESSEMER_ROOT.name in ("site-packages", "dist-packages") else [str(_BESSEMER_ROOT)]


def _with_python_path(env: dict[str, str], first: list[str]) -> dict[str, str]:
    parts = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join([*first, *[p for p in parts if p not in first]])
    return env


def _launcher_env() -> dict[str, str]:
    """This environment with bessemer's own folder on PYTHONPATH, so that the job's
    processes import the same bessemer as the process that started the job."""
    return _with_python_path(dict(os.environ), _SOURCE_ROOT)


def host_info() -> HostInfo:
    import torch
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    return HostInfo(current_host=HOST_NAME, hosts=[HOST_NAME], num_cpus=os.cpu_count() or 1, num_gpus=gpus)


def job_environment(spec: JobSpec, host: HostInfo) -> dict[str, str]:
    """The full environment of the job's processes: this process's, less variables of
    other jobs, plus the estimator's `environment`, plus the contract."""
    env = {k: v for k, v in os.environ.items()
           if k in _KEEP or not (k.startswith(_FOREIGN_PREFIXES) or k in _FOREIGN_NAMES)}
    env.update(spec.environment)
    paths = JobDir(Path(spec.job_dir)).contract_paths(spec.channels)
    env.update(training_environment(spec.name, paths, spec.entry_point, spec.hyperparameters, host))
    env["PYTHONUNBUFFERED"] = "1"
    first = [str(STARTUP_DIR)] if spec.startup_hooks else []
    return _with_python_path(env, [*first, *_SOURCE_ROOT])


def job_command(spec: JobSpec, user_args: list[str]) -> list[str]:
    if spec.processes_per_instance == 1:
        return [sys.executable, spec.entry_point, *user_args]
    return [sys.executable, "-m", "torch.distributed.run", "--nnodes=1",
            f"--nproc-per-node={spec.processes_per_instance}",
            "--master-addr=127.0.0.1", f"--master-port={_free_port()}",
            spec.entry_point, *user_args]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Supervisor:
    """Runs one job's processes to their end and records the outcome."""

    def __init__(self, spec: JobSpec, stream: Optional[TextIO] = None, grace: float = STOP_GRACE_S):
        self.spec = spec
        self.job = JobDir(Path(spec.job_dir))
        self.store = JobStore(spec.output_path)
        self.follower = LogFollower(self.job.log, stream)
        self.grace = grace
        self.proc: Optional[subprocess.Popen] = None

    def run(self) -> str:
        try:
            try:
                self._start()
            except Exception as e:  # noqa: BLE001 - a job that cannot start is a failed job
                self._log(f"bessemer: could not start the job: {e!r}")
                self.follower.pump()
                return finish_job(self.spec, FAILED, None, f"could not start the job: {e}")
            status, reason = self._watch()
        except (KeyboardInterrupt, _Stop) as e:
            why = "interrupted (Ctrl-C)" if isinstance(e, KeyboardInterrupt) else "supervisor got SIGTERM"
            with _interrupts_held():  # a second Ctrl-C must not leave processes or the record behind
                self._terminate()
                finish_job(self.spec, STOPPED, self.proc.returncode if self.proc else None, f"Stopped: {why}")
                self.follower.pump()
            raise
        if status == STOPPED:
            self._terminate()
        else:
            self._end_group(self.proc.pid)
        status = finish_job(self.spec, status, self.proc.returncode, reason)
        self.follower.pump()
        return status

    def _log(self, line: str) -> None:
        with open(self.job.log, "a", encoding="utf-8") as f:
            f.write(line + "\n")

    def _start(self) -> None:
        host = host_info()
        env = job_environment(self.spec, host)
        write_input_config(self.job, self.spec.hyperparameters, self.spec.channels, list(host.hosts),
                           host.current_host)
        command = job_command(self.spec, hyperparameters_to_args(self.spec.hyperparameters))
        for line in self.spec.banner:
            self._log(line)
        self._log(f"bessemer: running {shlex.join(command)}  (in {self.job.code})")
        with open(self.job.log, "ab") as log:
            self.proc = subprocess.Popen(command, cwd=self.job.code, env=env, stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.store.update(self.spec.name, start_time=time.time(), pgid=self.proc.pid)

    def _watch(self) -> tuple[str, Optional[str]]:
        """Wait for the processes to end, max_run to pass, or a stop request."""
        assert self.proc is not None
        started = time.monotonic()
        next_stop_check = started
        while True:
            self.follower.pump()
            if self.proc.poll() is not None:
                return COMPLETED, None  # finish_job turns a non-zero exit into Failed
            now = time.monotonic()
            if self.spec.max_run is not None and now - started >= self.spec.max_run:
                return STOPPED, (f"MaxRuntimeExceeded: the job ran longer than max_run="
                                 f"{self.spec.max_run}s and was stopped")
            if now >= next_stop_check:
                next_stop_check = now + STOP_CHECK_S
                if self.store.stop_requested(self.spec.name):
                    return STOPPED, "Stopped: stop requested"
            time.sleep(POLL_S)

    def _terminate(self) -> None:
        """SIGTERM to every process of the job, SIGKILL to those still there after the grace."""
        if self.proc is None:
            return
        self._log("bessemer: stopping the job's processes")
        signal_group(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=self.grace)
        except subprocess.TimeoutExpired:
            signal_group(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self._end_group(self.proc.pid)

    def _end_group(self, pgid: int) -> None:
        """Processes of the job that outlived its main process get the same treatment."""
        if not group_alive(pgid):
            return
        signal_group(pgid, signal.SIGTERM)
        deadline = time.monotonic() + self.grace
        while group_alive(pgid) and time.monotonic() < deadline:
            time.sleep(POLL_S)
        if group_alive(pgid):
            signal_group(pgid, signal.SIGKILL)


@contextlib.contextmanager
def _interrupts_held():
    """Hold Ctrl-C back while a stop is cleaned up (only the main thread has signal handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _raise_stop(signum, frame):  # noqa: ARG001
    raise _Stop()


def main(argv: list[str]) -> int:
    """Entry of a detached supervisor: `python -m bessemer.jobs.engines.local JOB.json`."""
    spec = JobSpec.load(Path(argv[0]))
    signal.signal(signal.SIGTERM, _raise_stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # detached: only stop requests and SIGTERM end it
    try:
        Supervisor(spec).run()
    except _Stop:
        return 143
    except Exception as e:  # noqa: BLE001 - never leave a record InProgress behind
        finish_job(spec, FAILED, None, f"the job's supervisor failed: {e!r}")
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
