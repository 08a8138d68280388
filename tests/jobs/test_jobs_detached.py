"""Jobs outlive whoever started them: a foreground `fit()` only follows its job, so a closed
terminal (SIGHUP) or a killed follower leaves the job running to its end, and Ctrl-C
stops it as stop() does; a killed supervisor is found by the next command, which stops
the job's processes, syncs its checkpoints and records it Failed."""
import json
import os
import signal
import subprocess
import sys

from bessemer.cli import main
from bessemer.jobs import TrainingJob
from bessemer.jobs.processes import group_alive
from bessemer.jobs.store import COMPLETED, FAILED, IN_PROGRESS, STOPPED, JobStore

from jobs_testing import process_running, wait_for, write

# Saves {"step": n} after each step (whole, by rename); SIGTERM ends it between steps. With
# HOLD set, it waits after step 5 until that file exists: a test that must see the job still
# running releases it only then, however slowly the machine runs.
STEPPER = """
import json, os, signal, sys, time
ckpt = os.path.join(os.environ["SM_CHECKPOINT_DIR"], "state.json")
hold = os.environ.get("HOLD")
stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
for step in range(int(os.environ["STEPS"])):
    if stop:
        sys.exit(0)
    time.sleep(0.05)
    with open(ckpt + ".tmp", "w") as f:
        json.dump({"step": step}, f)
    os.replace(ckpt + ".tmp", ckpt)
    print(f"saved step={step}", flush=True)
    while hold and step == 5 and not os.path.exists(hold) and not stop:
        time.sleep(0.05)
"""


def kept_step(ckpt) -> int:
    try:
        return json.loads((ckpt / "state.json").read_text())["step"]
    except (FileNotFoundError, ValueError):
        return -1


def saved_steps(job: TrainingJob) -> list[int]:
    return [int(ln.split("=")[1]) for ln in open(job.log_path).read().splitlines() if ln.startswith("saved step=")]


def nothing_left(job: TrainingJob, supervisor: int) -> bool:
    pgid = job.store.get(job.name).pgid
    return not process_running(supervisor) and pgid and not group_alive(pgid)


def start_following(tmp_path, steps: int, hold: str = "") -> tuple[subprocess.Popen, TrainingJob]:
    """A foreground fit() in a process of its own, in its own session as a terminal's is."""
    write(tmp_path / "src" / "steps.py", STEPPER)
    runs, ckpt = tmp_path / "runs", tmp_path / "ckpt"
    driver = write(tmp_path / "driver.py", f"""
        import signal
        signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C, as in a terminal
        signal.signal(signal.SIGHUP, signal.SIG_DFL)  # a hang-up ends it, as in a terminal (not under nohup)
        from bessemer import PyTorch, TrainingCompilerConfig
        est = PyTorch(entry_point="steps.py", source_dir={str(tmp_path / "src")!r}, output_path={str(runs)!r},
                      checkpoint_path={str(ckpt)!r}, environment={{"STEPS": "{steps}", "HOLD": {hold!r}}},
                      compiler_config=TrainingCompilerConfig(enabled=False))
        est.fit(job_name="followed")
    """)
    proc = subprocess.Popen([sys.executable, str(driver)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    wait_for(lambda: kept_step(ckpt) >= 2 or proc.poll() is not None, timeout=120,
             what="checkpoints copied while the job runs")
    assert proc.poll() is None, "the follower ended early"
    return proc, TrainingJob("followed", runs)


def test_a_closed_terminal_or_a_killed_follower_leaves_the_job_running(tmp_path, capsys):
    steps = 60
    for sig in (signal.SIGHUP, signal.SIGKILL):
        case = tmp_path / sig.name
        release = case / "release"      # the job waits at step 5 until the check below
        proc, job = start_following(case, steps=steps, hold=str(release))
        os.killpg(proc.pid, sig)  # the terminal's whole process group, as a hang-up reaches it
        proc.wait(timeout=30)
        assert job.status == IN_PROGRESS, f"{sig.name}: the job ended with its follower"
        release.write_text("")
        # `bessemer jobs logs -f` picks the job up again and follows it to its end.
        assert main(["jobs", "logs", "followed", "-f", "--output-path", str(case / "runs")]) == 0
        out = capsys.readouterr().out
        assert f"saved step={steps - 1}\n" in out and "bessemer: training job followed Completed (exit code 0)" in out
        assert job.status == COMPLETED
        assert saved_steps(job) == list(range(steps))
        assert kept_step(case / "ckpt") == steps - 1
        supervisor = job.store.get(job.name).supervisor_pid
        wait_for(lambda: nothing_left(job, supervisor), timeout=30, what="the supervisor to exit")


def test_ctrl_c_stops_the_job_and_syncs_its_checkpoints(tmp_path):
    proc, job = start_following(tmp_path, steps=100_000)
    supervisor = job.store.get(job.name).supervisor_pid
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=120) != 0
    d = job.describe()
    assert d["TrainingJobStatus"] == STOPPED and d["FailureReason"] == "Stopped: interrupted (Ctrl-C)"
    last = saved_steps(job)[-1]
    assert last >= 2 and kept_step(tmp_path / "ckpt") == last
    wait_for(lambda: nothing_left(job, supervisor), timeout=30, what="the supervisor to exit")


def test_a_killed_supervisor_is_reconciled_by_the_next_command(tmp_path, capsys):
    proc, job = start_following(tmp_path, steps=100_000)
    supervisor = job.store.get(job.name).supervisor_pid
    os.kill(supervisor, signal.SIGKILL)
    wait_for(lambda: not process_running(supervisor), what="the supervisor to die")
    proc.wait(timeout=60)  # the follower sees the job end: it notices the supervisor has gone
    assert main(["jobs", "list", "--output-path", str(tmp_path / "runs")]) == 0
    [row] = capsys.readouterr().out.splitlines()[1:]
    assert row.split()[:2] == ["followed", FAILED]
    d = job.describe()
    assert d["TrainingJobStatus"] == FAILED
    assert f"the job's supervisor (pid {supervisor}) ended without recording the job's end" in d["FailureReason"]
    assert [a["Status"] for a in d["Attempts"]] == [FAILED] and "supervisor" in d["Attempts"][0]["Reason"]
    last = saved_steps(job)[-1]
    assert last >= 2 and kept_step(tmp_path / "ckpt") == last  # the last step saved reached checkpoint_path
    assert nothing_left(job, supervisor)


def test_a_killed_supervisor_of_a_detached_job_is_reconciled_by_any_reader(tmp_path):
    from bessemer import PyTorch, TrainingCompilerConfig

    write(tmp_path / "src" / "steps.py", STEPPER)
    est = PyTorch(entry_point="steps.py", source_dir=tmp_path / "src", output_path=tmp_path / "runs",
                  checkpoint_path=tmp_path / "ckpt", environment={"STEPS": "100000"},
                  compiler_config=TrainingCompilerConfig(enabled=False))
    est.fit(wait=False)
    job = est.latest_training_job
    wait_for(lambda: kept_step(tmp_path / "ckpt") >= 2, timeout=120, what="checkpoints copied")
    supervisor = job.store.get(job.name).supervisor_pid
    os.kill(supervisor, signal.SIGKILL)
    wait_for(lambda: not process_running(supervisor), what="the supervisor to die")
    assert JobStore(tmp_path / "runs").get(job.name).status == IN_PROGRESS  # the store alone does not look
    assert job.status == FAILED  # a handle's read reconciles
    assert kept_step(tmp_path / "ckpt") == saved_steps(job)[-1]
    assert nothing_left(job, supervisor)
