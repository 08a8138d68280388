"""Looking at and signalling the processes of a job on this machine."""
from __future__ import annotations

import os
from pathlib import Path

_PROC = Path("/proc")


def _stat_fields(pid_dir: Path) -> list[str] | None:
    try:
        stat = (pid_dir / "stat").read_text()
    except OSError:
        return None
    # "pid (comm) state ppid pgrp ...": comm may hold spaces, so split after its last ')'.
    return stat[stat.rfind(")") + 2:].split()


def process_running(pid: int) -> bool:
    """Whether `pid` runs (a zombie, which has ended and only waits to be reaped, does not)."""
    if _PROC.is_dir():
        fields = _stat_fields(_PROC / str(pid))
        return bool(fields) and fields[0] not in ("Z", "X")
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def group_alive(pgid: int) -> bool:
    """Whether any process of the process group `pgid` still runs (zombies do not count)."""
    if not _PROC.is_dir():
        try:
            os.killpg(pgid, 0)
            return True
        except (ProcessLookupError, PermissionError):
            return False
    for entry in _PROC.iterdir():
        if entry.name.isdigit():
            fields = _stat_fields(entry)
            if fields and len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
                return True
    return False


def signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass
