"""Checkpoints kept at checkpoint_path (a folder or an fsspec URL), resume, retries, and
metrics that are there while the job runs (record, TensorBoard, CSV)."""
import json
import threading

import fsspec
import pytest

from bessemer import PyTorch, TrainingCompilerConfig
from bessemer.jobs import JobFailedError, JobStoppedError
from bessemer.jobs.store import COMPLETED, FAILED, STOPPED

from jobs_testing import job_ended, wait_for, write

# Counts steps, saves {"step": n} after each (whole, by rename), and starts after the last saved
# step. SIGTERM ends it between steps, as a script written for interruptions does. With
# FAIL_AT=k it fails once at step k (a marker file outside the job remembers it did), or every
# time with FAIL_ALWAYS=1.
STEPPER = """
import json, os, signal, sys, time
ckpt = os.path.join(os.environ["SM_CHECKPOINT_DIR"], "state.json")
stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
start = 0
if os.path.exists(ckpt):
    with open(ckpt) as f:
        start = json.load(f)["step"] + 1
print(f"resuming from step {start}", flush=True)
fail_at = int(os.environ.get("FAIL_AT", "-1"))
marker = os.environ.get("MARKER", "")
for step in range(start, int(os.environ["STEPS"])):
    if stop:
        sys.exit(0)
    if step == fail_at and (os.environ.get("FAIL_ALWAYS") or not os.path.exists(marker)):
        open(marker, "w").close()
        raise RuntimeError(f"simulated failure at step {step}")
    time.sleep(float(os.environ.get("STEP_S", "0.05")))
    with open(ckpt + ".tmp", "w") as f:
        json.dump({"step": step}, f)
    os.replace(ckpt + ".tmp", ckpt)
    print(f"saved step={step} loss={1.0 / (step + 1):.4f}", flush=True)
"""
LOSS = [{"Name": "loss", "Regex": r"loss=([0-9.]+)"}, {"Name": "step", "Regex": r"saved step=(\d+)"}]


def stepper(tmp_path, checkpoint_path, steps, **kw):
    script = tmp_path / "src" / "steps.py"
    if not script.exists():
        write(script, STEPPER)
    env = {"STEPS": str(steps), "MARKER": str(tmp_path / "failed-once"), **kw.pop("env", {})}
    return PyTorch(entry_point="steps.py", source_dir=tmp_path / "src", output_path=tmp_path / "runs",
                   checkpoint_path=checkpoint_path, metric_definitions=LOSS, environment=env,
                   compiler_config=TrainingCompilerConfig(enabled=False), **kw)


def log_of(est) -> str:
    return open(est.latest_training_job.log_path).read()


def saved_steps(log: str) -> list[int]:
    return [int(ln.split("saved step=")[1].split()[0]) for ln in log.splitlines() if ln.startswith("saved step=")]


def test_a_stopped_job_resumes_from_its_last_checkpoint(tmp_path):
    url = f"memory://bessemer-tests/{tmp_path.name}/ckpt"
    fs, root = fsspec.core.url_to_fs(url)
    first = stepper(tmp_path, url, steps=10_000, env={"STEP_S": "0.1"}, metrics_csv=True, max_run=120)

    def remote_step():
        try:
            return json.loads(fs.cat_file(root + "/state.json"))["step"]
        except FileNotFoundError:
            return -1

    seen_while_running = {}

    def stop_after_a_few_steps():
        wait_for(lambda: remote_step() >= 3 or job_ended(first), timeout=150,
                 what="a checkpoint copied to the path while the job runs")
        # The metrics so far are in the record while the job runs.
        seen_while_running.update(first.describe())
        first.stop()

    stopper = threading.Thread(target=stop_after_a_few_steps)
    stopper.start()
    with pytest.raises(JobStoppedError):
        first.fit(logs=False)
    stopper.join()
    assert seen_while_running["TrainingJobStatus"] == "InProgress", "no checkpoint was copied while running"
    assert len(seen_while_running["Metrics"]["loss"]) >= 3
    last = saved_steps(log_of(first))[-1]
    assert remote_step() == last  # the end of the job synced the last checkpoint
    assert first.describe()["TrainingJobStatus"] == STOPPED

    # A new job with the same checkpoint_path starts where the first one stopped.
    second = stepper(tmp_path, url, steps=last + 3)
    second.fit(logs=False)
    log = log_of(second)
    assert f"resuming from step {last + 1}\n" in log
    assert saved_steps(log) == [last + 1, last + 2]
    assert "bessemer: checkpoints: 1 file restored from memory://" in log
    assert second.metrics()["step"] == [last + 1, last + 2]

    # The first job's metrics also went to TensorBoard event files and, as asked, to a CSV.
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    job_dir = first.latest_training_job.job_dir
    events = EventAccumulator(str(job_dir.tensorboard))
    events.Reload()
    tb = [(e.step, round(e.value, 4)) for e in events.Scalars("loss")]
    assert tb == [(s, round(v, 4)) for s, v in enumerate(first.metrics()["loss"])] and len(tb) == last + 1
    rows = job_dir.metrics_csv.read_text().splitlines()
    assert rows[0] == "wall_time,metric,step,value" and len(rows) == 1 + 2 * (last + 1)


def test_a_failed_attempt_is_retried_from_the_checkpoints(tmp_path):
    folder = tmp_path / "kept"
    est = stepper(tmp_path, str(folder), steps=8, env={"FAIL_AT": "4"}, max_retries=2)
    est.fit(logs=False)
    log = log_of(est)
    assert log.count("resuming from step 0\n") == 1 and log.count("resuming from step 4\n") == 1
    assert saved_steps(log) == list(range(8))
    assert "attempt 1 of 3 failed (RuntimeError: simulated failure at step 4); starting attempt 2" in log
    d = est.describe()
    assert d["TrainingJobStatus"] == COMPLETED
    assert [(a["Attempt"], a["Status"], a["ExitCode"]) for a in d["Attempts"]] == [(1, FAILED, 1), (2, COMPLETED, 0)]
    assert d["Attempts"][0]["Reason"].startswith("RuntimeError: simulated failure at step 4\n")
    assert d["RetryStrategy"] == {"MaximumRetryAttempts": 2}
    assert json.loads((folder / "state.json").read_text()) == {"step": 7}
    assert est.metrics()["step"] == list(range(8))


def test_retries_run_out(tmp_path):
    est = stepper(tmp_path, None, steps=3, env={"FAIL_AT": "1", "FAIL_ALWAYS": "1"}, max_retries=1)
    with pytest.raises(JobFailedError) as info:
        est.fit(logs=False)
    assert str(info.value).splitlines()[0].endswith("failed: RuntimeError: simulated failure at step 1")
    d = est.describe()
    assert [(a["Status"], a["ExitCode"]) for a in d["Attempts"]] == [(FAILED, 1), (FAILED, 1)]
    # Without checkpoint_path the job's own checkpoints/ carries over from attempt to attempt.
    assert log_of(est).count("resuming from step 1\n") == 1


def test_checkpoint_path_checks(tmp_path):
    with pytest.raises(ValueError, match="fsspec knows no file system nosuch://"):
        stepper(tmp_path, "nosuch://x", steps=1)
    est = stepper(tmp_path, "memory://x", steps=1)
    with pytest.raises(ValueError, match="lives in this process's memory"):
        est.fit(wait=False)
    with pytest.raises(ValueError, match="max_retries must be an int from 0 to 30"):
        stepper(tmp_path, None, steps=1, max_retries=-1)
    # SageMaker's names for the same things.
    alias = stepper(tmp_path, None, steps=1, checkpoint_s3_uri=str(tmp_path / "c"), max_retry_attempts=3)
    assert alias.checkpoint_path == str(tmp_path / "c") and alias.max_retries == 3
