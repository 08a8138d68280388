"""The Ray engine: a job's processes as Ray actors across the machines of a Ray cluster.

    est = bessemer.PyTorch(..., instance_count=2, processes_per_instance=2,
                           engine="ray", cluster_address=None)   # None: a Ray on this machine
                                                                 # "auto", "ray://host:10001": a cluster

Ray tasks and actors in a placement group, not Ray Train's TorchTrainer. TorchTrainer
would run the script as a function in its workers, with its own run folder, its
own checkpoint and report API (ray.train.report) and its own retry policy
(FailureConfig), and it needs ray[train] (pandas, pyarrow) on every node. The job
contract is already bessemer's: a script that reads SM_* variables and RANK /
WORLD_SIZE / MASTER_ADDR and calls init_process_group(), the job's folder,
checkpoint_path, max_retries, max_run and the record. With a placement group and
one actor per process, the same script runs unchanged under both engines, and
everything around it is the local engine's own code:

    supervisor   the local engine's Supervisor (supervisor.py), unchanged: restore
                 checkpoints, attempts and retries, checkpoint sync, max_run, stop
                 requests, the outcome. What it starts, instead of the script, is the
                 driver of one attempt (ray_driver.py); only where it reads the open
                 files and memory of the job's processes differs (the workers report them)
    driver       connects to Ray, places the workers, starts them, collects their output
    workers      one Ray actor per process, running the script (ray_worker.py)

So a retry is a new driver: a new placement group and new workers, started from the
checkpoints synced so far; a stop or max_run is SIGTERM to the driver, which stops
every worker and removes the placement group.

Data: on one machine, and wherever output_path and the channels are on storage every
node mounts at the same path, the workers use the job's folder directly. Elsewhere
the driver sends the job's inputs (code/, the channels, the restored checkpoints) as
one object through Ray's object store, at most ray_driver.STAGE_MAX_BYTES (2 GiB; a
node's object store must also hold it), and rank 0 sends back its checkpoints (as
they are completed) and model/ and output/data/ (at the end). Not runtime_env's
working_dir: it is meant for code, capped at 512 MiB by default, and channels are data.
"""
from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import Optional

from ..checkpoints import in_process_only
from ..job import TrainingJob
from ..layout import write_input_config
from ..store import JobStore
from .base import Engine, JobSpec
from .launch import launcher_env
from .local import follow, run_detached, start_detached
from .supervisor import Supervisor

INSTALL_HINT = "engine='ray' needs Ray, which is not installed: pip install 'bessemer[ray]'"
_STATUS_STALE_S = 5.0   # older samples from the driver are not taken as the workers' state


def require_ray() -> None:
    """ValueError (bad input, as the estimator's others) saying how to install Ray, when it is not."""
    try:
        import ray  # noqa: F401
    except ImportError as e:
        raise ValueError(f"{INSTALL_HINT} ({e})") from None


def check_cluster_address(address: object) -> Optional[str]:
    if address is None:
        return None
    if not isinstance(address, str) or not address.strip() or any(c.isspace() for c in address):
        raise ValueError(f"cluster_address must be None (a Ray on this machine), 'auto' or a Ray address such "
                         f"as 'ray://host:10001' or 'host:6379', got {address!r}")
    return address


class RaySupervisor(Supervisor):
    """The local supervisor, running the Ray driver of each attempt in place of the script."""

    def __init__(self, spec: JobSpec, address: Optional[str], **kw):
        super().__init__(spec, **kw)
        self.address = address

    def _prepare(self) -> None:
        super()._prepare()
        self.environment = launcher_env()
        self.environment.pop("RAY_ADDRESS", None)   # the driver connects where it is told, only
        self.command = [sys.executable, "-m", "bessemer.jobs.engines.ray_driver", str(self.job.spec_file)]
        if self.address is not None:
            self.command += ["--address", self.address]
        hosts = [f"algo-{i + 1}" for i in range(self.spec.instance_count)]
        write_input_config(self.job, self.spec.hyperparameters, self.spec.channels, hosts, hosts[0])

    def _worker_status(self) -> dict:
        from .ray_driver import workers_dir

        try:
            status = json.loads((workers_dir(self.job) / "status.json").read_text())
        except (OSError, ValueError):
            return {}
        return status if time.time() - status.get("time", 0) < _STATUS_STALE_S else {}

    def _open_files(self) -> list[str]:
        return super()._open_files() + self._worker_status().get("open_files", [])

    def _memory(self) -> int:
        return super()._memory() + int(self._worker_status().get("memory", 0))


class RayEngine(Engine):
    name = "ray"

    def __init__(self, cluster_address: Optional[str] = None):
        require_ray()
        self.cluster_address = check_cluster_address(cluster_address)

    def run(self, spec: JobSpec, logs: bool = True) -> str:
        """As the local engine's: the supervisor (and with it the Ray driver) runs detached, and
        the caller only follows the log, so a closed terminal leaves the job running; Ctrl-C
        stops the job. A job whose checkpoints or outputs live in the caller's memory runs its
        supervisor in the caller."""
        if in_process_only(spec.checkpoint_path) or in_process_only(spec.output_url):
            _record(spec, os.getpid(), self.cluster_address)
            return RaySupervisor(spec, self.cluster_address, stream=sys.stdout if logs else None).run()
        self.submit(spec)
        return follow(TrainingJob(spec.name, spec.output_path, create=False), sys.stdout if logs else None)

    def submit(self, spec: JobSpec) -> None:
        extra = ("--address", self.cluster_address) if self.cluster_address is not None else ()
        _record(spec, start_detached(spec, "bessemer.jobs.engines.ray", extra), self.cluster_address)


def _record(spec: JobSpec, pid: int, address: Optional[str]) -> None:  # noqa: ARG001
    JobStore(spec.output_path).update(spec.name, supervisor_pid=pid, host=socket.gethostname())


def main(argv: list[str]) -> int:
    """Entry of a detached supervisor: `python -m bessemer.jobs.engines.ray JOB.json [--address A]`."""
    spec = JobSpec.load(Path(argv[0]))
    address = argv[argv.index("--address") + 1] if "--address" in argv else None
    return run_detached(spec, RaySupervisor(spec, address))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
