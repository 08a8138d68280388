"""One worker of a Ray job: a Ray actor that runs one process of the training script.

The actor does not train itself: it starts the script as a child process (as the
local engine's torchrun does) with the job's environment contract plus the rank
variables the driver gives it, and keeps what the script prints until the driver
asks for it (`poll`). A child process rather than the script run inside the
actor: the script gets a fresh interpreter (its own sys.exit, signals, process
group of torch.distributed) on every attempt, and stopping it is one signal.
The child dies with the actor (PR_SET_PDEATHSIG), so a lost actor leaves no
training process behind.

Where the node sees the job's folder (one machine, or a folder every node mounts
at the same path), the script runs in it. Where it does not, the driver sends the
job's inputs (code/, input/, checkpoints/) as one tar through Ray's object store;
the worker unpacks them into a folder of its own, and rank 0 sends back what the
script writes: checkpoint files as they are completed, model/ and output/data/
at the end.
"""
from __future__ import annotations

import dataclasses
import io
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
from pathlib import Path
from typing import Any, Optional

from ..contract import HostInfo, hyperparameters_to_args
from ..layout import JobDir
from .base import JobSpec
from .launch import job_environment

LINES_KEPT = 20000            # lines buffered between two polls before the oldest are dropped
ERROR_LINES = 80              # the last stderr lines kept to report a failure
_PR_SET_PDEATHSIG = 1


def host_name(node_rank: int) -> str:
    """SageMaker's host names: algo-1, algo-2, ... (one per instance)."""
    return f"algo-{node_rank + 1}"


def free_port() -> int:
    """A port free now on this node. Another process could take it before rank 0's
    torch.distributed store binds it; the window is a few milliseconds, and a job
    that loses the race fails at start-up (and is retried under max_retries)."""
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def _libc_prctl():
    try:
        import ctypes

        return ctypes.CDLL("libc.so.6", use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux: a lost actor may leave its script running until it exits
        return None


# Looked up here, in the actor, so that the child only makes the call: between fork and exec
# in a process with threads (the actor has Ray's), nothing that may take a lock should run.
_PRCTL = _libc_prctl()


def _die_with_parent() -> None:
    """In the script's process, before exec: SIGKILL when the actor's process dies."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL)


class Worker:
    """A Ray actor (made with ray.remote in ray_driver.py) running one process of the job."""

    def __init__(self, spec_json: str, rank: int, local_rank: int, node_rank: int):
        self.spec = JobSpec.from_json(spec_json)
        self.rank, self.local_rank, self.node_rank = rank, local_rank, node_rank
        self.proc: Optional[subprocess.Popen] = None
        self.lines: list[tuple[str, str]] = []       # (stream, line) since the last poll
        self.errors: list[str] = []                  # the last stderr lines (for a failure's reason)
        self.lock = threading.Lock()
        self.readers: list[threading.Thread] = []
        self.staged: Optional[Path] = None           # this node's copy of the job folder, if any
        self.sent: dict[str, tuple[int, int]] = {}   # checkpoint file -> (size, mtime) sent back

    # -- where it runs -----------------------------------------------------------------
    def node(self, force_stage: bool = False) -> dict[str, Any]:
        """What the driver needs to know of this worker's node."""
        import ray

        spec_file = JobDir(Path(self.spec.job_dir)).spec_file
        try:
            sees = spec_file.read_text() == self.spec.to_json() and not force_stage
        except OSError:
            sees = False
        gpus = [str(g) for g in ray.get_gpu_ids()]
        return {"ip": ray.util.get_node_ip_address(), "hostname": socket.gethostname(),
                "node_id": ray.get_runtime_context().get_node_id(), "pid": os.getpid(),
                "sees_job_dir": sees, "gpus": gpus, "port": free_port() if self.rank == 0 else None}

    def stage(self, bundle: bytes) -> str:
        """Unpack the job's inputs into a folder of this node's own; the script runs there."""
        root = Path(tempfile.mkdtemp(prefix=f"bessemer-{self.spec.name}-rank{self.rank}-"))
        with tarfile.open(fileobj=io.BytesIO(bundle)) as tar:
            tar.extractall(root, filter="data")
        job = JobDir(root)
        for d in (job.input_data, job.input_config, job.model, job.output_data, job.checkpoints, job.code):
            d.mkdir(parents=True, exist_ok=True)
        self.staged = root
        self.spec = dataclasses.replace(self.spec, job_dir=str(root))
        return str(root)

    # -- the script ----------------------------------------------------------------------
    def start(self, contract: dict[str, str], hosts: list[str], visible_gpus: list[str]) -> int:
        """Start the script with the job's environment plus `contract` (ranks, master)."""
        gpus = len(visible_gpus)
        host = HostInfo(current_host=host_name(self.node_rank), hosts=hosts, num_cpus=os.cpu_count() or 1,
                        num_gpus=gpus)
        env = job_environment(self.spec, host)
        env.update(contract)
        if gpus:  # the node's GPUs of this job, so that cuda:LOCAL_RANK is this worker's, as under torchrun
            env["CUDA_VISIBLE_DEVICES"] = ",".join(visible_gpus)
        job = JobDir(Path(self.spec.job_dir))
        command = [sys.executable, self.spec.entry_point, *hyperparameters_to_args(self.spec.hyperparameters)]
        # Rank 0's output is the job's log, in order: one pipe. Other ranks' stderr is kept apart
        # (their errors go to the log with a prefix, the rest to the worker's own log).
        self.proc = subprocess.Popen(command, cwd=job.code, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT if self.rank == 0 else subprocess.PIPE,
                                     preexec_fn=_die_with_parent)
        self._read(self.proc.stdout, "out")
        if self.proc.stderr is not None:
            self._read(self.proc.stderr, "err")
        return self.proc.pid

    def _read(self, pipe, stream: str) -> None:
        def pump():
            for raw in iter(pipe.readline, b""):
                line = raw.decode("utf-8", errors="replace").rstrip("\n")
                with self.lock:
                    self.lines.append((stream, line))
                    if len(self.lines) > LINES_KEPT:
                        del self.lines[: len(self.lines) - LINES_KEPT]
                    if stream == "err" or self.rank == 0:
                        self.errors.append(line)
                        del self.errors[:-ERROR_LINES]
            pipe.close()

        t = threading.Thread(target=pump, daemon=True)
        t.start()
        self.readers.append(t)

    def poll(self) -> dict[str, Any]:
        """The lines printed since the last poll, the exit code (None while it runs), and
        what the supervisor samples: the files the script has open, its memory."""
        code = self.proc.poll() if self.proc is not None else None
        if code is not None:
            for t in self.readers:   # everything it printed, before its end is reported
                t.join(timeout=5)
        with self.lock:
            lines, self.lines = self.lines, []
        open_files, memory = self._sample()
        out: dict[str, Any] = {"lines": lines, "code": code, "open_files": open_files, "memory": memory}
        if self.staged is not None and self.rank == 0:
            out["checkpoints"] = self._changed_checkpoints(set(open_files), final=code is not None)
        if code is not None:
            out["error_lines"] = list(self.errors)
        return out

    def _sample(self) -> tuple[list[str], int]:
        if self.proc is None or self.proc.poll() is not None:
            return [], 0
        import psutil

        files, memory = [], 0
        try:
            root = psutil.Process(self.proc.pid)
            for p in [root, *root.children(recursive=True)]:
                try:
                    files += [f.path for f in p.open_files()]
                    memory += p.memory_info().rss
                except psutil.Error:
                    continue
        except psutil.Error:
            pass
        return files, memory

    def _changed_checkpoints(self, busy: set[str], final: bool) -> dict[str, bytes]:
        """Rank 0's checkpoint files that changed and are complete (not open), as bytes."""
        folder = JobDir(self.staged).checkpoints
        changed: dict[str, bytes] = {}
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            try:
                st = path.stat()
            except FileNotFoundError:
                continue
            rel = path.relative_to(folder).as_posix()
            seen = (st.st_size, st.st_mtime_ns)
            if self.sent.get(rel) == seen or (not final and str(path) in busy):
                continue
            changed[rel] = path.read_bytes()
            self.sent[rel] = seen
        return changed

    def results(self) -> Optional[bytes]:
        """Rank 0 on a staged node: model/ and output/data/ as one tar (None elsewhere)."""
        if self.staged is None or self.rank != 0:
            return None
        job = JobDir(self.staged)
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            for folder in (job.model, job.output_data):
                tar.add(folder, arcname=folder.relative_to(job.root).as_posix())
        return buf.getvalue()

    def stop(self, grace: float) -> Optional[int]:
        """SIGTERM to the script (and its children), SIGKILL after `grace` seconds."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._kill_children()
        return self.proc.returncode

    def _kill_children(self) -> None:
        import psutil

        try:
            me = psutil.Process(os.getpid())
            for child in me.children(recursive=True):
                child.kill()
        except psutil.Error:
            pass

    def cleanup(self) -> None:
        if self.staged is not None:
            shutil.rmtree(self.staged, ignore_errors=True)
