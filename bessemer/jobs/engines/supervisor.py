"""The supervisor of one job on this machine: it runs the job's processes to their end.

    restore   copy checkpoint_path into checkpoints/ (when the job has one)
    attempt   start the script (python, or torchrun) in a process group of its own, its
              output going to the job's log; then watch, every POLL_S:
                - the log: streamed to the terminal, metrics and compile lines recorded
                - checkpoints/: complete files copied to checkpoint_path
                - the processes' memory (the peak is recorded)
                - max_run, a stop request in the job store, Ctrl-C
    retry     processes that fail are started again, up to max_retries times, each
              attempt from the checkpoints synced so far; every attempt is recorded
    end       SIGTERM to the group (SIGKILL after the grace), every checkpoint copied,
              the outcome recorded (outcome.finish_job)

A supervisor killed outright (kill -9) records nothing; the next command that reads
the job (job.reconcile) finds its process gone and calls `recover`, which does the
`end` step in its place and records the job Failed.
"""
from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Optional, TextIO

from ..checkpoints import CheckpointSync, in_process_only
from ..contract import hyperparameters_to_args
from ..layout import JobDir, write_input_config
from ..logs import LogFollower
from ..metrics import validate_definitions
from ..outcome import finish_job, log_tail, script_failure
from ..processes import group_alive, group_memory, group_open_files, signal_group
from ..store import COMPLETED, FAILED, IN_PROGRESS, STOPPED, JobRecord, JobStore
from ..tail import LogTail, MetricSinks
from .base import JobSpec
from .launch import host_info, job_command, job_environment, launcher_env

STOP_GRACE_S = 10.0          # SIGTERM -> SIGKILL
POLL_S = 0.1                 # how often the supervisor looks at its processes and the log
STOP_CHECK_S = 0.5           # how often it reads the job store for a stop request
SYNC_S = 1.0                 # how often it looks for complete checkpoint files to copy
MEMORY_S = 1.0               # how often it samples the processes' memory


class Stop(Exception):
    """Raised in a detached supervisor by SIGTERM: stop the job, then exit."""


class _SearchEnded(Exception):
    """A stop request or max_run ended the job during its batch search."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class _SearchFailed(_SearchEnded):
    """The batch search found no batch: the job fails with its reason, before the script starts."""


class Supervisor:
    """Runs one job's processes to their end and records the outcome."""

    def __init__(self, spec: JobSpec, stream: Optional[TextIO] = None, grace: float = STOP_GRACE_S):
        self.spec = spec
        self.environment: dict[str, str] = {}
        self.command: list[str] = []
        self.job = JobDir(Path(spec.job_dir))
        self.store = JobStore(spec.output_path)
        self.follower = LogFollower(self.job.log, stream)
        self.tail = log_tail(spec, self.store, self._log)
        self.grace = grace
        self.proc: Optional[subprocess.Popen] = None
        self.checkpoints: Optional[CheckpointSync] = None
        self.attempt = 0
        self.attempt_offset = 0     # where the current attempt's output starts in the log
        self.started: Optional[float] = None
        self.peak_memory = 0
        self.tail_error: Optional[Exception] = None

    # -- the job ------------------------------------------------------------------
    def run(self) -> str:
        try:
            try:
                self._prepare()
            except _SearchFailed as e:  # the model does not fit, a limit below its step, ...
                self._log(f"bessemer: {e.reason}")
                self._pump()
                return finish_job(self.spec, FAILED, None, e.reason, tail=self.tail)
            except _SearchEnded as e:  # stopped (or max_run) during the batch search
                self._pump()
                return finish_job(self.spec, STOPPED, self._returncode(), e.reason, tail=self.tail)
            except Exception as e:  # noqa: BLE001 - a job that cannot start is a failed job
                self._log(f"bessemer: could not start the job: {e!r}")
                self._pump()
                return finish_job(self.spec, FAILED, None, f"could not start the job: {e}", tail=self.tail)
            status, reason = self._attempts()
        except (KeyboardInterrupt, Stop) as e:
            why = "interrupted (Ctrl-C)" if isinstance(e, KeyboardInterrupt) else "supervisor got SIGTERM"
            with _interrupts_held():  # a second Ctrl-C must not leave processes or the record behind
                self._terminate()
                self._end_attempt(STOPPED, f"Stopped: {why}")
                self._final_sync()
                self._pump()
                finish_job(self.spec, STOPPED, self._returncode(), f"Stopped: {why}", tail=self._live_tail(),
                           log_offset=self.attempt_offset, **self._fields())
                self.follower.pump()
            raise
        except Exception as e:  # a failing supervisor must leave neither processes nor an InProgress record
            with _interrupts_held():
                self._terminate()
                self._end_attempt(FAILED, f"the job's supervisor failed: {e!r}")
                finish_job(self.spec, FAILED, self._returncode(), f"the job's supervisor failed: {e!r}",
                           tail=self._live_tail(), **self._fields())
            raise
        self._final_sync()
        self._pump()
        status = finish_job(self.spec, status, self._returncode(), reason, tail=self._live_tail(),
                            log_offset=self.attempt_offset, **self._fields())
        self.follower.pump()
        return status

    def _prepare(self) -> None:
        if self.spec.batch_search is not None:
            self._search_batch()
        host = host_info()
        self.environment = job_environment(self.spec, host)
        self.command = job_command(self.spec, hyperparameters_to_args(self.spec.hyperparameters))
        write_input_config(self.job, self.spec.hyperparameters, self.spec.channels, list(host.hosts),
                           host.current_host)
        for line in self.spec.banner:
            self._log(line)
        if self.spec.checkpoint_path:
            self.checkpoints = CheckpointSync(self.spec.checkpoint_path, self.job.checkpoints)
            n = self.checkpoints.restore()
            self._log(f"bessemer: checkpoints: {n} file{'' if n == 1 else 's'} restored from "
                      f"{self.spec.checkpoint_path} into {self.job.checkpoints}" if n else
                      f"bessemer: checkpoints: none at {self.spec.checkpoint_path} yet; the job starts afresh")

    def _search_batch(self) -> None:
        """batch_size="auto": the job's first phase (autobatch.main), watched as an attempt is
        (a stop request, max_run, Ctrl-C end it), in the job's code folder. The script then
        gets what it chose: the spec and the record are updated before anything else reads them."""
        result = self.job.root / "batch-search.json"
        result.unlink(missing_ok=True)
        for line in self.spec.banner:  # the job's own lines first, then the search's progress
            self._log(line)
        self.spec = dataclasses.replace(self.spec, banner=[])
        with open(self.job.log, "ab") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "bessemer.jobs.autobatch", str(self.job.spec_file),
                                          str(result)], cwd=self.job.code, env=launcher_env(),
                                         stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        self.started = time.monotonic()  # max_run counts the search: it is part of the job
        self.store.update(self.spec.name, start_time=time.time(), pgid=self.proc.pid)
        status, reason = self._watch()
        if status == STOPPED:
            self._terminate()
            raise _SearchEnded(reason or "Stopped during the batch search")
        self._end_group(self.proc.pid)
        self.peak_memory = 0  # the probes' memory is not the training's
        try:
            chosen = json.loads(result.read_text())
        except (OSError, ValueError):
            chosen = {"error": f"the batch search ended (exit code {self.proc.returncode}) without a result; "
                               f"see the log: {self.job.log}"}
        if "error" in chosen:
            raise _SearchFailed(f"batch_size='auto': {chosen['error']}")
        self.spec = dataclasses.replace(self.spec, hyperparameters=chosen["hyperparameters"],
                                        banner=chosen["banner"], batch_search=None)
        self.spec.save(self.job.spec_file)
        self.store.update(self.spec.name, hyperparameters=chosen["hyperparameters"], batch_search=chosen["record"])
        self.proc = None

    def _attempts(self) -> tuple[str, Optional[str]]:
        """Run attempts until one does not fail or max_retries is spent."""
        attempts = 1 + self.spec.max_retries
        while True:
            self._start()
            status, reason = self._watch()
            if status == STOPPED:
                self._terminate()
            else:
                self._end_group(self.proc.pid)
            code = self._returncode()
            if status == COMPLETED and code != 0:
                why = script_failure(self.spec, code, self.attempt_offset)
                self._end_attempt(FAILED, why)
                if self.attempt < attempts:
                    self._final_sync()
                    self._log(f"bessemer: attempt {self.attempt} of {attempts} failed ({why.splitlines()[0]}); "
                              f"starting attempt {self.attempt + 1} (max_retries={self.spec.max_retries})")
                    if self.checkpoints is not None:
                        n = self.checkpoints.restore()
                        self._log(f"bessemer: checkpoints: {n} file{'' if n == 1 else 's'} restored from "
                                  f"{self.spec.checkpoint_path}")
                    continue
                return status, None  # finish_job words the failure
            self._end_attempt(status, reason)
            return status, reason

    def _start(self) -> None:
        self.attempt += 1
        self.attempt_offset = self.job.log.stat().st_size if self.job.log.exists() else 0
        if self.attempt == 1:
            self._log(f"bessemer: running {shlex.join(self.command)}  (in {self.job.code})")
        with open(self.job.log, "ab") as log:
            self.proc = subprocess.Popen(self.command, cwd=self.job.code, env=self.environment,
                                         stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        now = time.time()
        if self.started is None:
            self.started = time.monotonic()
            self.store.update(self.spec.name, start_time=now, pgid=self.proc.pid)
        else:
            self.store.update(self.spec.name, pgid=self.proc.pid)
        self.store.start_attempt(self.spec.name, self.attempt)

    def _end_attempt(self, status: str, reason: Optional[str]) -> None:
        if self.attempt:
            self.store.end_attempt(self.spec.name, self.attempt, status, self._returncode(), reason)

    def _watch(self) -> tuple[str, Optional[str]]:
        """Wait for the processes to end, max_run to pass, or a stop request."""
        assert self.proc is not None and self.started is not None
        next_stop_check = next_sync = next_memory = time.monotonic()
        while True:
            self._pump()
            if self._reaped():
                return COMPLETED, None  # a non-zero exit is worded by the caller
            now = time.monotonic()
            if self.spec.max_run is not None and now - self.started >= self.spec.max_run:
                return STOPPED, (f"MaxRuntimeExceeded: the job ran longer than max_run="
                                 f"{self.spec.max_run}s and was stopped")
            if now >= next_stop_check:
                next_stop_check = now + STOP_CHECK_S
                if self.store.stop_requested(self.spec.name):
                    why = self.store.get(self.spec.name).stop_reason or "stop requested"
                    return STOPPED, f"Stopped: {why}"
            if self.checkpoints is not None and now >= next_sync:
                next_sync = now + SYNC_S
                self.checkpoints.sync(busy=self._open_files())
            if now >= next_memory:
                next_memory = now + MEMORY_S
                self.peak_memory = max(self.peak_memory, self._memory())
            time.sleep(POLL_S)

    # -- helpers --------------------------------------------------------------------
    def _open_files(self) -> list[str]:
        """Paths the job's processes have open (their checkpoint files are not complete yet)."""
        return group_open_files(self.proc.pid)

    def _memory(self) -> int:
        """Bytes resident over the job's processes now."""
        return group_memory(self.proc.pid)

    def _reaped(self) -> bool:
        """Whether the job's main process has ended. Reaped here rather than by Popen, so
        that its peak resident memory as the kernel kept it (its own and that of the
        processes it waited for) joins the samples: a job shorter than one sampling
        interval would otherwise have none."""
        assert self.proc is not None
        if self.proc.returncode is not None:
            return True
        try:
            pid, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
        except ChildProcessError:            # reaped elsewhere already
            return self.proc.poll() is not None
        if pid == 0:
            return False
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        self.peak_memory = max(self.peak_memory, usage.ru_maxrss * 1024)   # KiB on Linux
        return True

    def _live_tail(self):
        """The reader that followed the log, or None (read it afresh at the end) if it failed."""
        return self.tail if self.tail_error is None else None

    def _pump(self) -> None:
        self.follower.pump()
        if self.tail_error is None:
            try:
                self.tail.poll()
            except Exception as e:  # noqa: BLE001 - metrics are extra: the job runs on without them
                self.tail_error = e
                self._log(f"bessemer: could not record metrics while the job runs ({e!r}); "
                          "they are read from the log at its end")

    def _log(self, line: str) -> None:
        with open(self.job.log, "a", encoding="utf-8") as f:
            f.write(line + "\n")

    def _returncode(self) -> Optional[int]:
        return self.proc.returncode if self.proc is not None else None

    def _fields(self) -> dict[str, Any]:
        return {"peak_memory_bytes": self.peak_memory or None}

    def _final_sync(self) -> None:
        """Every checkpoint file, complete or not: the processes have ended."""
        if self.checkpoints is None:
            return
        try:
            self.checkpoints.sync(final=True)
            n = self.checkpoints.uploads
            self._log(f"bessemer: checkpoints: {n} file cop{'y' if n == 1 else 'ies'} made to "
                      f"{self.spec.checkpoint_path} so far")
        except Exception as e:  # noqa: BLE001 - the job's outcome must still be recorded
            self._log(f"bessemer: checkpoints: could not copy to {self.spec.checkpoint_path}: {e!r}")

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


def recover(store: JobStore, record: JobRecord, grace: float = STOP_GRACE_S) -> None:
    """End a job whose supervisor died without recording its end: claim it (one process
    does this, however many read the record at once), stop its processes as a stop would
    (SIGTERM, SIGKILL after `grace`), copy its checkpoints to checkpoint_path, and record
    the job and its attempt Failed with the reason."""
    dead = record.supervisor_pid
    if not dead or not store.claim_supervision(record.name, dead, os.getpid(), socket.gethostname()):
        return
    print(f"bessemer: the supervisor of training job {record.name} (pid {dead}) has gone; stopping the job's "
          "processes and syncing its checkpoints", file=sys.stderr)
    reason = f"the job's supervisor (pid {dead}) ended without recording the job's end"
    if record.pgid and group_alive(record.pgid):  # nothing watches them any more
        signal_group(record.pgid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while group_alive(record.pgid) and time.monotonic() < deadline:
            time.sleep(POLL_S)
        if group_alive(record.pgid):
            signal_group(record.pgid, signal.SIGKILL)
        reason += ", so the job's processes were stopped"
    job = JobDir(Path(record.job_dir)) if record.job_dir else None
    notes = []
    if record.checkpoint_path and job is not None and not in_process_only(record.checkpoint_path):
        try:
            n = CheckpointSync(record.checkpoint_path, job.checkpoints).sync(final=True)
            notes.append(f"bessemer: checkpoints: {n} file cop{'y' if n == 1 else 'ies'} made to "
                         f"{record.checkpoint_path} after the supervisor had gone")
        except Exception as e:  # noqa: BLE001 - the job's end must still be recorded
            notes.append(f"bessemer: checkpoints: could not copy to {record.checkpoint_path}: {e!r}")
    reason += f"; see the log: {record.log_path}"
    for attempt in store.attempts(record.name):
        if attempt.status == IN_PROGRESS:
            store.end_attempt(record.name, attempt.attempt, FAILED, None, reason)
    try:
        spec = JobSpec.load(job.spec_file) if job is not None else None
    except (OSError, ValueError, TypeError):
        spec = None
    if spec is None:
        store.finish(record.name, FAILED, failure_reason=reason)
        return
    if notes:
        with open(job.log, "a", encoding="utf-8") as log:
            log.write("\n".join(notes) + "\n")
    # The metrics the log holds go to the record only: the live TensorBoard and CSV files
    # already have those the supervisor read, and appending them again would repeat them.
    tail = LogTail(job.log, validate_definitions(spec.metric_definitions), MetricSinks(store, spec.name, None, None))
    finish_job(spec, FAILED, None, reason, tail=tail)
