"""The turn-taking protocol between the suite and its run workers (bench/turns.py)."""
import threading

import pytest

from bessemer.bench import turns


def test_split_steps_even_and_bounded():
    assert turns.split_steps(10, 5) == [2, 2, 2, 2, 2]
    assert turns.split_steps(7, 5) == [2, 2, 1, 1, 1]
    assert turns.split_steps(3, 5) == [1, 1, 1]          # never an empty turn
    assert sum(turns.split_steps(23, 5)) == 23


def _worker(t: turns.Turns, ran: list, fail_after: int = None):
    def run_steps(n):
        if fail_after is not None and len(ran) >= fail_after:
            raise RuntimeError("step failed")
        ran.append(n)

    def body():
        try:
            turns.WorkerTurns(t.child_fds).serve(run_steps)
        except RuntimeError:
            pass
        finally:  # the worker process exits: its ends of the pipes close
            import os
            for fd in t.child_fds:
                os.close(fd)
    th = threading.Thread(target=body)
    th.start()
    return th


def test_turns_hand_out_every_step_then_finish():
    t = turns.Turns()
    ran = []
    th = _worker(t, ran)
    t.wait_ready(5)
    for n in turns.split_steps(7, 3):
        t.turn(n, 5)
    t.finish()
    th.join(5)
    assert ran == [3, 2, 2] and not th.is_alive()


def test_a_worker_that_fails_mid_turn_shows_as_closed():
    t = turns.Turns()
    ran = []
    th = _worker(t, ran, fail_after=1)
    t.wait_ready(5)
    t.turn(2, 5)
    with pytest.raises(turns.Closed):
        t.turn(2, 5)
    t.close()
    th.join(5)
    assert ran == [2]


def test_a_silent_worker_times_out():
    t = turns.Turns()
    with pytest.raises(turns.TurnTimeout):
        t.wait_ready(0.05)
    import os
    for fd in t.child_fds:
        os.close(fd)
    t.close()
