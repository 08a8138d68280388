"""batch_size="auto" on an estimator: the search as the job's first phase, the values the
script gets, the log lines and the record; bad input at construction starts no job, a model
that fits no batch fails its job before the script runs."""
from __future__ import annotations

import time

import pytest

import bessemer
from bessemer.jobs.errors import JobFailedError, JobStoppedError
from bessemer.jobs.processes import group_alive
from bessemer.jobs.store import JobStore

from jobs_testing import write

SCRIPT = """
    import argparse, json
    import torch

    WIDTH = 2048

    def workload(batch_size):
        model = torch.nn.Sequential(torch.nn.Linear(16, WIDTH), torch.nn.ReLU(), torch.nn.Linear(WIDTH, 1))
        x = torch.randn(batch_size, 16)
        return model, x, lambda m, b: m(b).square().mean()

    if __name__ == "__main__":
        p = argparse.ArgumentParser()
        p.add_argument("--batch_size", type=int)
        p.add_argument("--learning_rate", type=float)
        p.add_argument("--epochs", type=int)
        args = p.parse_args()
        print("got", json.dumps(vars(args)))
"""


def _estimator(tmp_path, hps, **kw):
    src = write(tmp_path / "src" / "train.py", SCRIPT)
    return bessemer.PyTorch(entry_point="train.py", source_dir=str(src.parent), hyperparameters=hps,
                            output_path=str(tmp_path / "runs"), **kw)


@pytest.mark.parametrize("hps,message", [
    ({"batch_size": "auto", "lr_rule": "sqrt"}, r"needs hyperparameters\['reference_batch_size'\] and "
                                                r"hyperparameters\['reference_learning_rate'\]"),
    ({"batch_size": "auto", "reference_batch_size": 8}, r"needs hyperparameters\['reference_learning_rate'\]"),
    ({"batch_size": 32, "reference_batch_size": 8}, r"hyperparameters\['reference_batch_size'\] belongs to the "
                                                    r"batch search: it needs batch_size='auto'"),
    ({"batch_size": "auto", "memory_limit": "lots"}, r"hyperparameters\['memory_limit'\]"),
])
def test_bad_search_input_is_refused_at_construction(tmp_path, hps, message):
    with pytest.raises(ValueError, match=message):
        _estimator(tmp_path, hps)


def test_budget_outside_its_range_is_refused():
    with pytest.raises(ValueError, match="memory_budget"):
        bessemer.TrainingCompilerConfig(memory_budget=2.0)


def test_model_that_does_not_fit_fails_the_job_before_the_script(tmp_path):
    est = _estimator(tmp_path, {"batch_size": "auto", "memory_limit": "1KiB"},
                     compiler_config=bessemer.TrainingCompilerConfig(enabled=False))
    with pytest.raises(JobFailedError, match="does not fit at batch 1 in eager mode"):
        est.fit(wait=True, logs=False)
    rec = est.latest_training_job.record()
    assert rec.status == "Failed" and rec.failure_reason.startswith("batch_size='auto': ")
    assert "does not fit at batch 1 in eager mode" in rec.failure_reason
    log = open(rec.log_path).read()
    assert "bessemer: batch search (eager): batch 1: " in log and "got " not in log   # the script never ran
    assert JobStore(tmp_path / "runs").attempts(rec.name) == []


def test_the_search_is_the_jobs_first_phase_and_stops_with_it(tmp_path):
    """fit(wait=False) returns once the job exists, before the search has measured anything;
    stop() ends the search (its probe processes included) and the job is Stopped."""
    est = _estimator(tmp_path, {"batch_size": "auto", "memory_limit": "1MiB", "epochs": 1},
                     compiler_config=bessemer.TrainingCompilerConfig(enabled=False))
    t0 = time.monotonic()
    est.fit(wait=False)
    returned_s = time.monotonic() - t0
    job = est.latest_training_job
    assert job.record().hyperparameters["batch_size"] == "auto"     # nothing chosen yet
    deadline = time.monotonic() + 120
    while "batch search: the largest batch" not in _log(job) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert job.stop()
    with pytest.raises(JobStoppedError):
        job.wait(logs=False)
    rec = job.record()
    assert rec.status == "Stopped" and not rec.batch_search
    assert "got " not in _log(job)
    assert rec.pgid and not group_alive(rec.pgid)
    assert returned_s < 30, f"fit(wait=False) took {returned_s:.1f} s"


def _log(job) -> str:
    try:
        return open(job.log_path).read()
    except (OSError, TypeError):
        return ""


def test_auto_batch_job(tmp_path):
    """Real steps (eager: the compiler off, for time): batch 1 fits, the search finds the
    largest, the script gets it and the scaled learning rate, the record keeps both."""
    est = _estimator(tmp_path, {"batch_size": "auto", "memory_limit": "1MiB", "reference_batch_size": 4,
                                "reference_learning_rate": 0.01, "lr_rule": "linear", "epochs": 1},
                     compiler_config=bessemer.TrainingCompilerConfig(enabled=False))
    est.fit(wait=True, logs=False)
    job = est.latest_training_job
    rec = job.record()
    search = rec.batch_search
    b = search["batch_size"]["new"]
    assert b >= 1 and search["peak_bytes"] <= 2 ** 20 and search["mode"] == "eager"
    assert any(p["batch"] == b + 1 and not p["fits"] for p in search["probes"])    # the next one did not fit
    assert rec.hyperparameters == {"batch_size": b, "learning_rate": pytest.approx(0.01 * b / 4), "epochs": 1}
    assert search["learning_rate"] == {"old": 0.01, "new": pytest.approx(0.01 * b / 4)}
    log = open(job.log_path).read()
    assert f"bessemer: batch_size 4 -> {b}: the largest under 1.0 MiB in eager mode" in log
    assert f"got {{\"batch_size\": {b}" in log
    assert job.describe()["BatchSearch"]["batch_size"]["new"] == b
    assert f"bessemer: batch search (eager): batch {b}: " in log and search["reused"] is False

    # the same script, limit and mode again: the kept result, no probes
    est.fit(wait=True, logs=False)
    again = est.latest_training_job
    assert again.name != job.name and again.record().batch_search["reused"] is True
    assert again.record().hyperparameters["batch_size"] == b
    log = open(again.log_path).read()
    assert "bessemer: batch search: the result of an earlier search with the same script, limit and mode" in log
    assert "batch search (eager): batch" not in log
