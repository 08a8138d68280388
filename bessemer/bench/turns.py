"""Measured steps in turns: the modes of one model timed round by round, interleaved.

On a shared machine the speed of the cores drifts over minutes (other jobs, thermal
and frequency changes). Timing eager's steps, then Inductor's, then bessemer's, one
block after the other, puts each mode in a different stretch of that drift, and a
ratio between them measures the drift as much as the modes. So the `run` workers of a
model are started one at a time (compiles never overlap), each stops once set up and
warmed up, and the suite then hands out the measured steps in rounds: a few steps of
eager, then of each other mode, then again. Every mode's median comes from the same
stretches of time. Idle workers wait on a pipe and use no CPU; the cost is memory, as
all the modes of one model are alive at once (`--no-interleave` times one at a time).

The protocol is one line per message over two pipes:

  worker -> suite   "ready"     set up, first step and warm-up done
  suite -> worker   "steps N"   run and time N more measured steps
  worker -> suite   "done"      those steps are done
  suite -> worker   "finish"    no more steps: finish the job and write the result
"""
from __future__ import annotations

import os
import select
import time
from typing import Optional


class Closed(Exception):
    """The other side of the pipe is gone (the worker exited or failed)."""


class TurnTimeout(Exception):
    """The other side did not answer in time."""


def _read_line(fd: int, timeout_s: Optional[float]) -> str:
    buf = b""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    while not buf.endswith(b"\n"):
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            raise TurnTimeout(f"no answer in {timeout_s:.0f} s")
        chunk = os.read(fd, 1)
        if not chunk:
            raise Closed("the pipe was closed")
        buf += chunk
    return buf.decode().strip()


def _write_line(fd: int, line: str) -> None:
    try:
        os.write(fd, (line + "\n").encode())
    except (BrokenPipeError, OSError) as e:
        raise Closed(str(e)) from e


def split_steps(steps: int, rounds: int) -> list[int]:
    """`steps` measured steps as `rounds` turns (at most one per step), as even as can be."""
    rounds = max(1, min(rounds, steps))
    base, extra = divmod(steps, rounds)
    return [base + (1 if r < extra else 0) for r in range(rounds)]


# -- the worker's end ---------------------------------------------------------------------
class WorkerTurns:
    """In a worker: wait for turns from the suite. `fds` is (read end, write end)."""

    def __init__(self, fds: tuple[int, int]):
        self.cmd_fd, self.ack_fd = fds

    def serve(self, run_steps) -> None:
        """Say ready, then run `run_steps(n)` for every turn until told to finish. If the
        suite is gone, stop taking turns (the job then finishes with the steps it has)."""
        try:
            _write_line(self.ack_fd, "ready")
            while True:
                cmd = _read_line(self.cmd_fd, None)
                if cmd.startswith("steps "):
                    run_steps(int(cmd.split()[1]))
                    _write_line(self.ack_fd, "done")
                else:
                    return
        except Closed:
            return


# -- the suite's end ----------------------------------------------------------------------
class Turns:
    """In the suite: the two pipes to one worker. Create it before the worker starts,
    pass `child_fds` to the worker (Popen's pass_fds and the job), then `started()`."""

    def __init__(self):
        self._cmd_r, self._cmd_w = os.pipe()
        self._ack_r, self._ack_w = os.pipe()
        self.child_fds = (self._cmd_r, self._ack_w)
        self.open = True

    def started(self) -> None:
        """The worker has the child ends now: close ours, so its exit shows as EOF."""
        for fd in self.child_fds:
            os.close(fd)

    def wait_ready(self, timeout_s: float) -> None:
        self._expect("ready", timeout_s)

    def turn(self, steps: int, timeout_s: float) -> None:
        _write_line(self._cmd_w, f"steps {steps}")
        self._expect("done", timeout_s)

    def finish(self) -> None:
        if self.open:
            try:
                _write_line(self._cmd_w, "finish")
            except Closed:
                pass
        self.close()

    def close(self) -> None:
        if self.open:
            self.open = False
            for fd in (self._cmd_w, self._ack_r):
                try:
                    os.close(fd)
                except OSError:
                    pass

    def _expect(self, word: str, timeout_s: float) -> None:
        line = _read_line(self._ack_r, timeout_s)
        if line != word:
            raise Closed(f"expected {word!r}, got {line!r}")
