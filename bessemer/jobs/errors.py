"""What fit() raises when a job does not complete, and how a failure is summarised."""
from __future__ import annotations

from typing import Optional, Sequence

# Lines of a failure reason kept in the record and the exception (the full log stays on disk).
REASON_LINES = 20
REASON_CHARS = 4000
_TRACEBACK = "Traceback (most recent call last):"
# Launcher tracebacks that only repeat that a worker failed; the worker's own is the one to show.
_LAUNCHER_ERRORS = ("ChildFailedError",)


class JobFailedError(RuntimeError):
    """A training job ended Failed (or Stopped: see JobStoppedError)."""

    def __init__(self, job_name: str, status: str, reason: Optional[str], log_path: Optional[str]):
        self.job_name = job_name
        self.status = status
        self.reason = reason
        self.log_path = log_path
        msg = f"training job {job_name} {status.lower()}"
        if reason:
            msg += f": {reason}"
        if log_path:
            msg += f"\n(full log: {log_path})"
        super().__init__(msg)


class JobStoppedError(JobFailedError):
    """A training job was stopped (by request, or for running past max_run) before it completed."""


def error_tail(lines: Sequence[str]) -> str:
    """The part of a log that says why a script failed: its last Python traceback (the
    worker's, not a launcher's summary of it), else its last lines."""
    lines = [ln.rstrip("\n") for ln in lines]
    blocks: list[list[str]] = []
    i = 0
    while i < len(lines):
        if lines[i].lstrip().startswith(_TRACEBACK):
            indent = len(lines[i]) - len(lines[i].lstrip())
            j = i + 1
            # Frames are indented; the exception line is the first line back at the header's indent.
            while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent
                                      or lines[j].lstrip().startswith(("File ", "^", "~"))):
                j += 1
            blocks.append(lines[i:j + 1])
            i = j + 1
        else:
            i += 1
    chosen = [b for b in blocks if not any(e in b[-1] for e in _LAUNCHER_ERRORS)]
    if chosen:
        tail = chosen[-1][-REASON_LINES:]
    else:
        tail = [ln for ln in lines if ln.strip()][-REASON_LINES // 2:]
    text = "\n".join(tail)
    return text[-REASON_CHARS:]
