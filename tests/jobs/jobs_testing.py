"""Helpers shared by the training-job tests."""
from __future__ import annotations

import io
import tarfile
import textwrap
import time
from pathlib import Path

import psutil
import torch

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
PYTORCH_EXAMPLE = EXAMPLES / "pytorch"
HF_EXAMPLE = EXAMPLES / "huggingface"

LOSS_METRIC = [{"Name": "loss", "Regex": r"loss=([0-9.]+)"}]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def process_running(pid: int) -> bool:
    """True while `pid` exists and is not a zombie (a zombie has ended; it only waits to be reaped)."""
    try:
        return psutil.Process(pid).status() not in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
    except psutil.NoSuchProcess:
        return False


def wait_for(predicate, timeout: float = 60.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.05)


def job_ended(estimator) -> bool:
    job = estimator.latest_training_job
    return job is not None and job.record().done


def read_pids(folder: Path) -> list[int]:
    return [int(p.read_text()) for p in sorted(folder.glob("*.pid")) if p.read_text().strip()]


def model_tar_members(path: str | Path) -> list[str]:
    with tarfile.open(path) as tar:
        return sorted(tar.getnames())


def load_state_dict_from_tar(path: str | Path, member: str = "model.pt") -> dict:
    with tarfile.open(path) as tar:
        data = tar.extractfile(member).read()
    return torch.load(io.BytesIO(data), weights_only=True)


# A script that records its pid (and those of a child it starts) and then sleeps, for
# the tests that stop jobs. PID_DIR is where the pids go.
SLEEPER = """
import os, subprocess, sys, time
pid_dir = os.environ["PID_DIR"]
rank = os.environ.get("RANK", "0")
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
with open(os.path.join(pid_dir, f"child-{rank}.pid"), "w") as f:
    f.write(str(child.pid))
with open(os.path.join(pid_dir, f"main-{rank}.pid"), "w") as f:
    f.write(str(os.getpid()))
print(f"rank {rank} sleeping", flush=True)
time.sleep(300)
"""
