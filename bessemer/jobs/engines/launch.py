"""How the local engine starts a job's processes: the command, and the environment they
get (this process's, less other jobs' variables, plus the job's contract)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from ..contract import HostInfo, training_environment
from ..hooks import STARTUP_DIR
from ..layout import JobDir
from .base import JobSpec

HOST_NAME = "algo-1"         # the name SageMaker gives the first host; scripts compare against it

# Inherited variables that would tell a job's script it is part of some other job.
_FOREIGN_PREFIXES = ("SM_", "BESSEMER_", "TORCHELASTIC_")
_FOREIGN_NAMES = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK",
                  "ROLE_RANK", "ROLE_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "TRAINING_JOB_NAME")
_KEEP = ("BESSEMER_CACHE_DIR",)

_BESSEMER_ROOT = Path(__file__).resolve().parents[3]
# The folder bessemer was imported from, when it is a source tree: the job's processes, which
# run in another folder, import bessemer from there too. An installed bessemer (in
# site-packages) they find by themselves, and site-packages must not go before the stdlib.
_SOURCE_ROOT = [] if _BESSEMER_ROOT.name in ("site-packages", "dist-packages") else [str(_BESSEMER_ROOT)]


def with_python_path(env: dict[str, str], first: list[str]) -> dict[str, str]:
    parts = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join([*first, *[p for p in parts if p not in first]])
    return env


def launcher_env() -> dict[str, str]:
    """This environment with bessemer's own folder on PYTHONPATH, so that the job's
    processes import the same bessemer as the process that started the job."""
    return with_python_path(dict(os.environ), _SOURCE_ROOT)


def gpu_count() -> int:
    """The CUDA devices this process may use (CUDA_VISIBLE_DEVICES applies). A process that
    has torch loaded asks torch; one that has not (a job's supervisor) asks the CUDA driver
    directly, which is what torch's count comes from, instead of paying seconds to import
    torch for one number. No driver library means no GPU."""
    if "torch" in sys.modules:
        import torch
        return torch.cuda.device_count() if torch.cuda.is_available() else 0
    import ctypes
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return 0
    return count.value


def host_info() -> HostInfo:
    return HostInfo(current_host=HOST_NAME, hosts=[HOST_NAME], num_cpus=os.cpu_count() or 1, num_gpus=gpu_count())


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
    return with_python_path(env, [*first, *_SOURCE_ROOT])


def job_command(spec: JobSpec, user_args: list[str]) -> list[str]:
    """`python SCRIPT ARGS`, or torchrun for several processes (or a distributed job of one).
    torchrun's standalone rendezvous picks a free port itself: nothing can take it between
    choosing and binding it."""
    if spec.processes_per_instance == 1 and not spec.distributed:
        return [sys.executable, spec.entry_point, *user_args]
    return [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nnodes=1",
            f"--nproc-per-node={spec.processes_per_instance}", spec.entry_point, *user_args]
