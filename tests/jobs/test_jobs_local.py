"""Jobs on the local engine, with small standard-library scripts: the environment the
script sees, the job folder, failures, stop, max_run, Ctrl-C, detached and concurrent jobs."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from bessemer import PyTorch, TrainingCompilerConfig
from bessemer.jobs import JobFailedError, JobStoppedError, TrainingJob
from bessemer.jobs.engines.local import LocalEngine
from bessemer.jobs.hooks import STARTUP_DIR
from bessemer.jobs.store import COMPLETED, FAILED, IN_PROGRESS, STOPPED, JobStore

from jobs_testing import REPO, SLEEPER, job_ended, model_tar_members, process_running, read_pids, wait_for, write

ENV_DUMP = """
import json, os, sys
print("epoch=0 loss=0.9")
print("epoch=1 loss=0.4")
with open(os.path.join(os.environ["SM_MODEL_DIR"], "seen.json"), "w") as f:
    json.dump({"env": dict(os.environ), "argv": sys.argv[1:], "cwd": os.getcwd(),
               "train_files": sorted(os.listdir(os.environ["SM_CHANNEL_TRAIN"]))}, f)
os.makedirs(os.path.join(os.environ["SM_MODEL_DIR"], "sub"))
open(os.path.join(os.environ["SM_MODEL_DIR"], "sub", "weights.bin"), "wb").write(b"123")
"""


def seen(job) -> dict:
    return json.loads((job.job_dir.model / "seen.json").read_text())


def test_the_script_gets_the_environment_contract_and_the_job_folder(tmp_path, monkeypatch):
    write(tmp_path / "src" / "train.py", ENV_DUMP)
    write(tmp_path / "src" / "helper.py", "X = 1\n")
    write(tmp_path / "data" / "part-0.csv", "1,2\n")
    # Variables of some other job, or a debug folder, must not leak into this one.
    monkeypatch.setenv("SM_CHANNEL_STALE", "/stale")
    monkeypatch.setenv("BESSEMER_DEBUG", str(tmp_path / "stray"))
    monkeypatch.setenv("RANK", "3")
    est = PyTorch(entry_point="train.py", source_dir=tmp_path / "src",
                  hyperparameters={"epochs": 2, "learning_rate": 3e-4, "model_name": "mlp", "fp16": True},
                  environment={"MY_SETTING": "on"},
                  metric_definitions=[{"Name": "loss", "Regex": r"loss=([0-9.]+)"}],
                  output_path=tmp_path / "runs")
    est.fit({"train": tmp_path / "data"}, logs=False)
    job = est.latest_training_job
    root = job.job_dir.root
    s = seen(job)
    env = s["env"]

    assert root == (tmp_path / "runs" / job.name).resolve()
    assert env["SM_MODEL_DIR"] == str(root / "model")
    assert env["SM_OUTPUT_DATA_DIR"] == str(root / "output" / "data")
    assert env["SM_CHECKPOINT_DIR"] == str(root / "checkpoints")
    assert env["SM_CHANNEL_TRAIN"] == str(root / "input" / "data" / "train")
    assert s["train_files"] == ["part-0.csv"]
    assert json.loads(env["SM_CHANNELS"]) == ["train"]
    assert json.loads(env["SM_HPS"]) == {"epochs": 2, "learning_rate": 3e-4, "model_name": "mlp", "fp16": True}
    assert (env["SM_HP_EPOCHS"], env["SM_HP_LEARNING_RATE"], env["SM_HP_MODEL_NAME"]) == ("2", "0.0003", "mlp")
    assert s["argv"] == ["--epochs", "2", "--fp16", "True", "--learning_rate", "0.0003", "--model_name", "mlp"]
    assert json.loads(env["SM_USER_ARGS"]) == s["argv"]
    assert env["SM_NUM_CPUS"] == str(os.cpu_count())
    assert env["SM_NUM_GPUS"] == "0"
    assert json.loads(env["SM_HOSTS"]) == ["algo-1"] and env["SM_CURRENT_HOST"] == "algo-1"
    for key, value in env.items():
        if key.startswith("SM_"):
            assert env["BESSEMER_" + key[3:]] == value, key
    assert env["TRAINING_JOB_NAME"] == env["BESSEMER_JOB_NAME"] == job.name
    assert env["MY_SETTING"] == "on"
    assert "SM_CHANNEL_STALE" not in env and "BESSEMER_DEBUG" not in env and "RANK" not in env
    assert TrainingCompilerConfig.from_json(env["BESSEMER_COMPILER_CONFIG"]) == TrainingCompilerConfig()
    assert env["PYTHONPATH"].split(os.pathsep)[:2] == [str(STARTUP_DIR), str(REPO)]
    # The script runs in a copy of source_dir.
    assert s["cwd"] == str(root / "code")
    assert (root / "code" / "helper.py").read_text() == "X = 1\n"
    assert json.loads((root / "input" / "config" / "hyperparameters.json").read_text())["epochs"] == "2"
    # model/ packed at the archive's root; the log kept; the record complete.
    assert model_tar_members(est.model_data) == ["seen.json", "sub", "sub/weights.bin"]
    assert est.model_data == str(root / "output" / "model.tar.gz")
    d = est.describe()
    assert d["TrainingJobStatus"] == COMPLETED and d["ExitCode"] == 0 and d["FailureReason"] is None
    assert d["TrainingStartTime"] <= d["TrainingEndTime"]
    assert d["PeakMemoryMiB"] > 0 and [a["Status"] for a in d["Attempts"]] == [COMPLETED]
    assert d["HyperParameters"]["epochs"] == 2
    assert d["CompilerConfig"]["enabled"] is True
    assert d["Metrics"]["loss"] == [{"Step": 0, "Value": 0.9}, {"Step": 1, "Value": 0.4}]
    assert est.metrics() == {"loss": [0.9, 0.4]}
    log = (root / "job.log").read_text()
    assert "bessemer: training compiler configured (enabled=True, debug=False)" in log
    assert "epoch=1 loss=0.4" in log
    assert not (root / "output" / "failure").exists()


def test_compiler_off_reaches_the_script_and_installs_no_hook(tmp_path):
    script = write(tmp_path / "train.py", ENV_DUMP)
    write(tmp_path / "data" / "x", "")
    est = PyTorch(entry_point=script, compiler_config=TrainingCompilerConfig(enabled=False),
                  output_path=tmp_path / "runs")
    est.fit({"train": tmp_path / "data"}, logs=False)
    env = seen(est.latest_training_job)["env"]
    assert TrainingCompilerConfig.from_json(env["BESSEMER_COMPILER_CONFIG"]).enabled is False
    assert str(STARTUP_DIR) not in env["PYTHONPATH"].split(os.pathsep)
    assert "compiler disabled (enabled=False)" in open(est.latest_training_job.log_path).read()
    assert est.describe()["CompilerConfig"]["enabled"] is False


def test_a_failing_script_fails_the_job_with_its_error(tmp_path, capsys):
    write(tmp_path / "src" / "train.py", """
        import os
        print("loss=1.0")
        for i in range(50):
            print(f"noise line {i}")
        open(os.path.join(os.environ["SM_MODEL_DIR"], "partial.txt"), "w").write("x")
        def load():
            raise ValueError("cannot read shard 7 of the training set")
        load()
    """)
    est = PyTorch(entry_point="train.py", source_dir=tmp_path / "src", output_path=tmp_path / "runs",
                  metric_definitions=[{"Name": "loss", "Regex": r"loss=([0-9.]+)"}])
    with pytest.raises(JobFailedError) as info:
        est.fit()
    err = info.value
    assert not isinstance(err, JobStoppedError)
    assert err.status == FAILED and err.job_name == est.latest_training_job.name
    assert "ValueError: cannot read shard 7 of the training set" in str(err)
    assert "exited with code 1" in str(err)
    assert "noise line 10" not in err.reason  # the traceback, not the whole log
    d = est.describe()
    assert d["TrainingJobStatus"] == FAILED and d["ExitCode"] == 1
    assert "ValueError: cannot read shard 7" in d["FailureReason"]
    job_dir = est.latest_training_job.job_dir
    log = job_dir.log.read_text()
    assert "noise line 0" in log and "noise line 49" in log  # nothing lost
    assert "cannot read shard 7" in job_dir.failure_file.read_text()
    assert model_tar_members(est.model_data) == ["partial.txt"]
    assert est.metrics() == {"loss": [1.0]}
    assert "noise line 49" in capsys.readouterr().out  # logs=True streamed it


def test_max_run_stops_every_process_of_the_job(tmp_path):
    script = write(tmp_path / "sleeper.py", SLEEPER)
    pids = tmp_path / "pids"
    pids.mkdir()
    est = PyTorch(entry_point=script, output_path=tmp_path / "runs", max_run=1.5,
                  environment={"PID_DIR": str(pids)})
    started = time.monotonic()
    with pytest.raises(JobStoppedError, match="MaxRuntimeExceeded"):
        est.fit(logs=False)
    assert time.monotonic() - started < 30
    d = est.describe()
    assert d["TrainingJobStatus"] == STOPPED
    assert d["FailureReason"].startswith("MaxRuntimeExceeded")
    found = read_pids(pids)
    assert len(found) == 2  # the script and the child it started
    assert not any(process_running(p) for p in found)


def test_stop_from_another_thread(tmp_path):
    script = write(tmp_path / "sleeper.py", SLEEPER)
    pids = tmp_path / "pids"
    pids.mkdir()
    est = PyTorch(entry_point=script, output_path=tmp_path / "runs", environment={"PID_DIR": str(pids)})

    def stop_when_running():
        wait_for(lambda: len(read_pids(pids)) == 2 or job_ended(est), what="the script to start")
        assert est.stop() is True

    stopper = threading.Thread(target=stop_when_running)
    stopper.start()
    with pytest.raises(JobStoppedError, match="stop requested"):
        est.fit(logs=False)
    stopper.join()
    assert est.describe()["TrainingJobStatus"] == STOPPED
    assert not any(process_running(p) for p in read_pids(pids))
    assert est.stop() is False  # already ended


def test_torchrun_processes_get_ranks_and_are_all_stopped(tmp_path):
    script = write(tmp_path / "ranks.py", textwrap.dedent("""
        import json, os
        rank = os.environ["RANK"]
        keys = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "SM_DIST_BACKEND",
                "BESSEMER_DIST_BACKEND", "SM_MODEL_DIR"]
        with open(os.path.join(os.environ["PID_DIR"], f"env-{rank}.json"), "w") as f:
            json.dump({**{k: os.environ.get(k) for k in keys}, "launcher": os.getppid()}, f)
    """) + SLEEPER)
    pids = tmp_path / "pids"
    pids.mkdir()
    est = PyTorch(entry_point=script, output_path=tmp_path / "runs", processes_per_instance=2,
                  environment={"PID_DIR": str(pids)}, compiler_config=TrainingCompilerConfig(enabled=False))

    def stop_when_running():
        wait_for(lambda: len(read_pids(pids)) == 4 or job_ended(est), what="both ranks to start")
        est.stop()

    stopper = threading.Thread(target=stop_when_running)
    stopper.start()
    with pytest.raises(JobStoppedError):
        est.fit(logs=False)
    stopper.join()
    envs = [json.loads((pids / f"env-{r}.json").read_text()) for r in (0, 1)]
    assert [(e["RANK"], e["LOCAL_RANK"], e["WORLD_SIZE"]) for e in envs] == [("0", "0", "2"), ("1", "1", "2")]
    assert len({e["MASTER_ADDR"] for e in envs}) == 1 and len({e["MASTER_PORT"] for e in envs}) == 1
    assert {e["SM_DIST_BACKEND"] for e in envs} == {e["BESSEMER_DIST_BACKEND"] for e in envs} == {"gloo"}
    assert envs[0]["SM_MODEL_DIR"] == str(est.latest_training_job.job_dir.model)
    everyone = read_pids(pids) + [envs[0]["launcher"]]
    assert len(set(everyone)) == 5  # launcher, two ranks, a child of each
    assert not any(process_running(p) for p in everyone)
    assert "torch.distributed.run --standalone --nnodes=1 --nproc-per-node=2" in open(est.latest_training_job.log_path).read()


def test_detached_job_is_stopped_from_the_cli(tmp_path):
    from bessemer.cli import main

    script = write(tmp_path / "sleeper.py", SLEEPER)
    pids = tmp_path / "pids"
    pids.mkdir()
    est = PyTorch(entry_point=script, output_path=tmp_path / "runs", environment={"PID_DIR": str(pids)})
    est.fit(wait=False)
    job = est.latest_training_job
    assert job.status == IN_PROGRESS
    wait_for(lambda: len(read_pids(pids)) == 2 or job_ended(est), what="the detached job to start")
    assert main(["jobs", "stop", job.name, "--output-path", str(tmp_path / "runs"), "--wait"]) == 0
    assert job.status == STOPPED
    assert not any(process_running(p) for p in read_pids(pids))
    with pytest.raises(JobStoppedError):
        est.wait(logs=False)


def test_detached_job_completes_on_its_own(tmp_path, capsys):
    script = write(tmp_path / "train.py", """
        import os, time
        time.sleep(0.5)
        print("loss=0.25")
        open(os.path.join(os.environ["SM_MODEL_DIR"], "m.txt"), "w").write("ok")
    """)
    est = PyTorch(entry_point=script, output_path=tmp_path / "runs",
                  metric_definitions=[{"Name": "loss", "Regex": r"loss=([0-9.]+)"}])
    est.fit(wait=False)
    assert est.latest_training_job.status == IN_PROGRESS
    est.wait()
    assert "loss=0.25" in capsys.readouterr().out
    assert est.describe()["TrainingJobStatus"] == COMPLETED
    assert est.metrics() == {"loss": [0.25]}
    assert model_tar_members(est.model_data) == ["m.txt"]


def test_ctrl_c_in_fit_stops_the_job(tmp_path):
    script = write(tmp_path / "sleeper.py", SLEEPER)
    pids = tmp_path / "pids"
    pids.mkdir()
    runs = tmp_path / "runs"
    driver = write(tmp_path / "driver.py", f"""
        import signal
        signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
        from bessemer import PyTorch
        est = PyTorch(entry_point={str(script)!r}, output_path={str(runs)!r},
                      environment={{"PID_DIR": {str(pids)!r}}}, base_job_name="interrupted")
        est.fit(logs=False)
    """)
    proc = subprocess.Popen([sys.executable, str(driver)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    try:
        wait_for(lambda: len(read_pids(pids)) == 2 or proc.poll() is not None, what="the job to start")
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode != 0 and "KeyboardInterrupt" in out
    [rec] = JobStore(runs).list()
    assert rec.status == STOPPED and "interrupted" in rec.failure_reason
    assert not any(process_running(p) for p in read_pids(pids))


def test_two_jobs_started_at_once_get_distinct_names_and_records(tmp_path):
    write(tmp_path / "src" / "train.py", """
        import os, time
        time.sleep(0.3)
        print("loss=0.5")
        open(os.path.join(os.environ["SM_MODEL_DIR"], "who.txt"), "w").write(os.environ["SM_HP_WHO"])
    """)
    runs = tmp_path / "runs"
    start = threading.Barrier(2)
    errors = []

    def run(who):
        try:
            est = PyTorch(entry_point="train.py", source_dir=tmp_path / "src", hyperparameters={"who": who},
                          base_job_name="same", output_path=runs,
                          compiler_config=TrainingCompilerConfig(enabled=False))
            start.wait()
            est.fit(logs=False)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=run, args=(who,)) for who in ("first", "second")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    records = JobStore(runs).list()
    assert len(records) == 2 and len({r.name for r in records}) == 2
    assert all(r.status == COMPLETED and r.name.startswith("same-") for r in records)
    assert sorted(r.hyperparameters["who"] for r in records) == ["first", "second"]
    for r in records:
        assert (runs / r.name / "model" / "who.txt").read_text() == r.hyperparameters["who"]
        assert r.start_time < r.end_time


def test_attach_finds_a_job_by_name(tmp_path):
    script = write(tmp_path / "train.py", "print('done')\n")
    est = PyTorch(entry_point=script, output_path=tmp_path / "runs", base_job_name="findme")
    est.fit(logs=False)
    job = TrainingJob.attach(est.latest_training_job.name, tmp_path / "runs")
    assert job.status == COMPLETED and job.model_data == est.model_data
    with pytest.raises(ValueError, match="no job named"):
        TrainingJob.attach("findme-missing", tmp_path / "runs")


def test_compile_lines_become_the_records_compile_summary(tmp_path):
    """The supervisor collects the per-graph lines the job's processes log (and the compiler's
    fallback warnings) into one summary line and the record."""
    script = write(tmp_path / "train.py", """
        import sys
        for name, k, e, s, hit in (("forward0", 3, 2, 0.5, "miss"), ("backward1", 4, 1, 1.25, "miss"),
                                   ("forward2", 1, 0, 0.25, "hit")):
            print(f"bessemer: compiled graph {name}: {k} kernels, {e} externs, {s} s, cache {hit}", file=sys.stderr)
        print("x.py:3: UserWarning: bessemer: inference graph inference3 runs eagerly (LoweringError: no)",
              file=sys.stderr)
        print("loss=0.5")
    """)
    est = PyTorch(entry_point=script, output_path=tmp_path / "runs")
    est.fit(logs=False)
    summary = est.describe()["CompileSummary"]
    assert {k: summary[k] for k in ("graphs", "seconds", "fallbacks", "cache_hits", "kernels", "externs")} == {
        "graphs": 3, "seconds": 2.0, "fallbacks": 1, "cache_hits": 1, "kernels": 8, "externs": 3}
    assert summary["fallback_names"] == ["inference3"]
    assert [g["name"] for g in summary["per_graph"]] == ["forward0", "backward1", "forward2"]
    log = open(est.latest_training_job.log_path).read()
    assert ("bessemer: compile summary: 3 graphs in 2.00 s, 1 from the cache, 8 kernels, 3 externs, "
            "1 fallbacks to eager\n") in log


def test_a_job_no_sample_caught_still_has_its_peak_memory(tmp_path, monkeypatch):
    """The peak is the kernel's high-water mark of the main process, read when it is
    reaped, as well as the samples: a job between two samples (here: every sample
    missed) still reports it."""
    from bessemer.jobs.engines import supervisor

    monkeypatch.setattr(supervisor, "group_memory", lambda pgid: 0)
    script = write(tmp_path / "train.py", "block = bytearray(96 << 20)\nblock[::4096] = b'x' * len(block[::4096])\n")
    est = PyTorch(entry_point=script, output_path=tmp_path / "runs", engine=LocalEngine(in_process=True))
    est.fit(logs=False)
    d = est.describe()
    assert d["TrainingJobStatus"] == COMPLETED
    assert d["PeakMemoryMiB"] >= 96


def test_a_failing_metrics_reader_costs_the_live_metrics_only(tmp_path, monkeypatch):
    from bessemer.jobs.tail import LogTail

    real_poll, calls = LogTail.poll, []

    def broken_once(self, final=False):
        calls.append(1)
        if len(calls) == 1:
            raise OSError("disk full")
        return real_poll(self, final)

    monkeypatch.setattr(LogTail, "poll", broken_once)
    script = write(tmp_path / "train.py", "print('loss=0.5')\nprint('loss=0.25')\n")
    est = PyTorch(entry_point=script, output_path=tmp_path / "runs",
                  metric_definitions=[{"Name": "loss", "Regex": r"loss=([0-9.]+)"}],
                  engine=LocalEngine(in_process=True))  # the supervisor runs here, patched
    est.fit(logs=False)
    assert est.describe()["TrainingJobStatus"] == COMPLETED
    assert est.metrics() == {"loss": [0.5, 0.25]}  # read from the log at the end
    assert "could not record metrics while the job runs (OSError('disk full'))" in open(
        est.latest_training_job.log_path).read()


def test_a_failing_supervisor_records_the_job_failed_and_ends_its_processes(tmp_path, monkeypatch):
    from bessemer.jobs.engines.supervisor import Supervisor

    script = write(tmp_path / "sleeper.py", SLEEPER)
    pids = tmp_path / "pids"
    pids.mkdir()
    def watch_then_fail(self):
        wait_for(lambda: len(read_pids(pids)) == 2, what="the script to start")
        raise RuntimeError("supervisor bug")

    monkeypatch.setattr(Supervisor, "_watch", watch_then_fail)
    est = PyTorch(entry_point=script, output_path=tmp_path / "runs", environment={"PID_DIR": str(pids)},
                  engine=LocalEngine(in_process=True))  # the supervisor runs here, patched
    with pytest.raises(RuntimeError, match="supervisor bug"):
        est.fit(logs=False)
    d = est.describe()
    assert d["TrainingJobStatus"] == FAILED and "the job's supervisor failed" in d["FailureReason"]
    assert d["Attempts"][0]["Status"] == FAILED
    assert not any(process_running(p) for p in read_pids(pids))
