"""Looking at and signalling the processes of a job on this machine (through psutil)."""
from __future__ import annotations

import os
from typing import Iterator

import psutil

_ENDED = (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)


def process_running(pid: int) -> bool:
    """Whether `pid` runs (a zombie, which has ended and only waits to be reaped, does not)."""
    try:
        return psutil.Process(pid).status() not in _ENDED
    except psutil.NoSuchProcess:
        return False
    except psutil.AccessDenied:
        return True


def group_processes(pgid: int) -> Iterator[psutil.Process]:
    """The running processes of the process group `pgid` (zombies excluded)."""
    for proc in psutil.process_iter(["status"]):
        try:
            if proc.info["status"] not in _ENDED and os.getpgid(proc.pid) == pgid:
                yield proc
        except (ProcessLookupError, psutil.Error):
            continue


def group_alive(pgid: int) -> bool:
    """Whether any process of the process group `pgid` still runs."""
    return next(group_processes(pgid), None) is not None


def group_memory(pgid: int) -> int:
    """Bytes resident in memory over the processes of the group `pgid` now (shared pages
    count once per process, as `ps` shows them)."""
    total = 0
    for proc in group_processes(pgid):
        try:
            total += proc.memory_info().rss
        except psutil.Error:
            continue
    return total


def signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def group_open_files(pgid: int) -> list[str]:
    """Paths of the regular files the processes of the group `pgid` have open."""
    paths: list[str] = []
    for proc in group_processes(pgid):
        try:
            paths += [f.path for f in proc.open_files()]
        except psutil.Error:
            continue
    return paths
