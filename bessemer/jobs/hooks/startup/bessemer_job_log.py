"""What the compiler does, in a training job's log (installed by this folder's sitecustomize).

The compiler logs two records per graph on the `bessemer` logger, each with a
`bessemer_compile` dict:

    {"event": "start", "graph": "forward0"}
    {"event": "done", "graph": "forward0", "kernels": 3, "externs": 2, "seconds": 0.84, "cache_hit": False}
    (or {"event": "failed", "graph": "forward0"}: it runs eagerly, and the compiler warns why)

In a job's processes this handler turns them into one line per compiled graph,

    bessemer: compiled graph forward0: 3 kernels, 2 externs, 0.84 s, cache miss

(`bessemer[rank 1]: ...` under torchrun), which the job's supervisor collects into
the compile summary of the job's record; and while one graph takes longer than
PROGRESS_AFTER_S it prints a line every PROGRESS_EVERY_S, so a long compile is
not a silent terminal. The job's `bessemer` logger writes here, not to the
script's own logging set-up: the script's handlers see nothing new. Only the
standard library is imported.
"""
from __future__ import annotations

import logging
import os
import sys
import threading
import time
from typing import Optional, TextIO

PROGRESS_AFTER_S = 5.0
PROGRESS_EVERY_S = 10.0
_MARK = "_bessemer_job_handler"


def prefix() -> str:
    rank = os.environ.get("RANK")
    return f"bessemer[rank {rank}]" if rank is not None else "bessemer"


def graph_line(event: dict) -> str:
    return (f"{prefix()}: compiled graph {event['graph']}: {event['kernels']} kernels, {event['externs']} externs, "
            f"{event['seconds']:.2f} s, cache {'hit' if event['cache_hit'] else 'miss'}")


class JobLogHandler(logging.Handler):
    """Writes the `bessemer` logger's records to the job's log; compile events as above."""

    def __init__(self, stream: Optional[TextIO] = None, after: float = PROGRESS_AFTER_S,
                 every: float = PROGRESS_EVERY_S):
        super().__init__(logging.INFO)
        self.stream = stream
        self.after, self.every = after, every
        self._running: dict[int, tuple[str, float]] = {}   # thread id -> (graph, start)
        self._told: dict[int, float] = {}                  # thread id -> when progress was last told
        self._state = threading.Lock()
        self._watcher: Optional[threading.Thread] = None

    def _write(self, line: str) -> None:
        stream = self.stream or sys.stderr
        stream.write(line + "\n")
        stream.flush()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            event = getattr(record, "bessemer_compile", None)
            if not isinstance(event, dict):
                message = record.getMessage()
                if message.startswith("bessemer: "):  # the compiler's own prefix: the rank goes in it
                    message = message[len("bessemer: "):]
                self._write(message if message.startswith("bessemer[") else f"{prefix()}: {message}")
                return
            me = threading.get_ident()
            with self._state:
                if event.get("event") == "start":
                    self._running[me] = (str(event.get("graph")), time.monotonic())
                else:  # done or failed: this thread's compile is over
                    self._running.pop(me, None)
                self._told.pop(me, None)
            if event.get("event") == "start":
                self._watch()
            elif event.get("event") == "done":
                self._write(graph_line(event))
        except Exception:  # noqa: BLE001 - logging must never break the script
            self.handleError(record)

    def _watch(self) -> None:
        if self._watcher is None:
            self._watcher = threading.Thread(target=self._progress_loop, name="bessemer-compile-progress",
                                             daemon=True)
            self._watcher.start()

    def _progress_loop(self) -> None:
        while True:
            time.sleep(min(1.0, self.after / 2))
            for line in self.progress_lines(time.monotonic()):
                self._write(line)

    def progress_lines(self, now: float) -> list[str]:
        """Lines for the compiles that have run long, each at most once per `every` seconds."""
        out = []
        with self._state:
            for tid, (graph, start) in self._running.items():
                told = self._told.get(tid)
                if now - start >= self.after and (told is None or now - told >= self.every):
                    self._told[tid] = now
                    out.append(f"{prefix()}: compiling graph {graph} ... {now - start:.0f} s so far")
        return out


def install(stream: Optional[TextIO] = None) -> JobLogHandler:
    """Route the `bessemer` logger (INFO and up) to the job's log, once per process."""
    logger = logging.getLogger("bessemer")
    for h in logger.handlers:
        if getattr(h, _MARK, False):
            return h
    handler = JobLogHandler(stream)
    setattr(handler, _MARK, True)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    return handler
