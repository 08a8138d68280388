"""Job records in SQLite, metric parsing, and failure summaries."""
import threading
import time

import pytest

from bessemer.jobs import store as store_mod
from bessemer.jobs.metrics import parse_metrics, validate_definitions
from bessemer.jobs.store import COMPLETED, FAILED, IN_PROGRESS, STOPPED, JobRecord, JobStore


def test_records_round_trip(tmp_path):
    store = JobStore(tmp_path)
    rec = JobRecord(name="job-a", framework="pytorch", hyperparameters={"epochs": 2, "lr": 0.1},
                    compiler_config={"enabled": True}, inputs={"train": "/data"}, creation_time=1.0)
    store.create(rec)
    got = store.get("job-a")
    assert got.status == IN_PROGRESS
    assert got.hyperparameters == {"epochs": 2, "lr": 0.1}
    assert got.compiler_config == {"enabled": True}
    assert got.inputs == {"train": "/data"}
    with pytest.raises(ValueError, match="job_name 'job-a' is already taken"):
        store.create(rec)
    with pytest.raises(ValueError, match="no job named 'nope'"):
        store.get("nope")


def test_a_job_ends_once(tmp_path):
    store = JobStore(tmp_path)
    store.create(JobRecord(name="j", creation_time=1.0))
    store.finish("j", FAILED, failure_reason="boom", exit_code=3)
    store.finish("j", COMPLETED)  # too late: the first end stands
    rec = store.get("j")
    assert (rec.status, rec.failure_reason, rec.exit_code) == (FAILED, "boom", 3)
    assert rec.end_time is not None
    with pytest.raises(ValueError, match="status"):
        store.finish("j", "Done")


def test_same_millisecond_gives_distinct_names(tmp_path, monkeypatch):
    monkeypatch.setattr(store_mod.time, "time", lambda: 1_800_000_000.123)
    store = JobStore(tmp_path)
    names = [store.create_unique("train", JobRecord(name="")).name for _ in range(3)]
    assert len(set(names)) == 3
    assert names[0] == "train-2027-01-15-08-00-00-123"
    assert all(n.startswith(names[0]) for n in names)
    assert len(store.list()) == 3


def test_concurrent_writers_each_get_a_record(tmp_path):
    names, errors = [], []

    def start():
        try:
            names.append(JobStore(tmp_path).create_unique("concurrent", JobRecord(name="")).name)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=start) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(set(names)) == 8
    assert sorted(r.name for r in JobStore(tmp_path).list()) == sorted(names)


def test_long_base_names_are_cut_to_63_characters(tmp_path):
    rec = JobStore(tmp_path).create_unique("x" * 80, JobRecord(name=""))
    assert len(rec.name) <= 63


def test_list_newest_first_and_by_status(tmp_path):
    store = JobStore(tmp_path)
    for i, name in enumerate(["a", "b", "c"]):
        store.create(JobRecord(name=name, creation_time=float(i)))
    store.finish("b", COMPLETED)
    assert [r.name for r in store.list()] == ["c", "b", "a"]
    assert [r.name for r in store.list(status=COMPLETED)] == ["b"]
    assert [r.name for r in store.list(limit=1)] == ["c"]
    with pytest.raises(ValueError, match="status"):
        store.list(status="Running")


def test_stop_requests(tmp_path):
    store = JobStore(tmp_path)
    store.create(JobRecord(name="j", creation_time=1.0))
    assert not store.stop_requested("j")
    assert store.request_stop("j") is True
    assert store.stop_requested("j")
    store.finish("j", STOPPED)
    assert store.request_stop("j") is False  # already ended


def test_metrics_keep_step_order(tmp_path):
    store = JobStore(tmp_path)
    store.create(JobRecord(name="j", creation_time=1.0))
    store.add_metrics("j", [("loss", 1, 0.5), ("loss", 0, 0.9), ("acc", 0, 0.1), ("loss", 2, float("nan"))])
    assert store.metrics("j") == {"acc": [(0, 0.1)], "loss": [(0, 0.9), (1, 0.5), (2, None)]}
    d = store.describe("j")
    assert d["Metrics"]["loss"] == [{"Step": 0, "Value": 0.9}, {"Step": 1, "Value": 0.5},
                                    {"Step": 2, "Value": None}]
    assert {m["MetricName"]: m["Value"] for m in d["FinalMetricDataList"]} == {"acc": 0.1, "loss": None}


def test_parse_metrics_from_log_lines():
    defs = validate_definitions([{"Name": "loss", "Regex": r"loss=([0-9.]+)"},
                                 {"Name": "acc", "Regex": r"acc: ([0-9.]+)%"}])
    lines = ["epoch=0 loss=1.5 acc: 10%", "noise", "epoch=1 loss=0.75", "loss=nope", "acc: 55.5%"]
    assert parse_metrics(lines, defs) == [("loss", 0, 1.5), ("acc", 0, 10.0), ("loss", 1, 0.75),
                                          ("acc", 1, 55.5)]


@pytest.mark.parametrize("bad, match", [
    ("loss=(.*)", "must be a list"),
    ([{"Name": "loss"}], r"metric_definitions\[0\] must be a dict"),
    ([{"Name": "", "Regex": "(x)"}], r"\['Name'\]"),
    ([{"Name": "l", "Regex": "("}], "not a valid regex"),
    ([{"Name": "l", "Regex": "loss=[0-9]+"}], "capture group"),
    ([{"Name": "l", "Regex": "(a)"}, {"Name": "l", "Regex": "(b)"}], "defined twice"),
])
def test_bad_metric_definitions(bad, match):
    with pytest.raises(ValueError, match=match):
        validate_definitions(bad)


def test_a_reader_never_creates_a_store(tmp_path):
    with pytest.raises(store_mod.NoJobStore, match=r"no jobs in .*--output-path"):
        JobStore(tmp_path / "empty", create=False)
    assert not (tmp_path / "empty").exists()
    JobStore(tmp_path).create(JobRecord(name="there", creation_time=1.0))
    reader = JobStore(tmp_path, create=False)
    with pytest.raises(store_mod.UnknownJob, match=r"no job named 'nope' .*the latest: there.*bessemer jobs list"):
        reader.get("nope")


def test_attempts_and_metric_times_are_recorded(tmp_path):
    store = JobStore(tmp_path)
    store.create(JobRecord(name="j", creation_time=1.0, max_retries=2, checkpoint_path="memory://x"))
    store.start_attempt("j", 1)
    store.end_attempt("j", 1, FAILED, 1, "ValueError: boom")
    store.start_attempt("j", 2)
    store.end_attempt("j", 2, COMPLETED, 0, None)
    store.end_attempt("j", 2, FAILED, 9, "too late")  # an attempt ends once
    store.add_metrics("j", [("loss", 0, 0.5, 100.0), ("loss", 1, 0.25)])
    assert store.metric_points("j") == {"loss": [(0, 0.5, 100.0), (1, 0.25, None)]}
    d = store.describe("j")
    assert [(a["Attempt"], a["Status"], a["ExitCode"], a["Reason"]) for a in d["Attempts"]] == [
        (1, FAILED, 1, "ValueError: boom"), (2, COMPLETED, 0, None)]
    assert d["RetryStrategy"] == {"MaximumRetryAttempts": 2}
    assert d["CheckpointConfig"] == {"S3Uri": "memory://x"}


def test_a_store_of_an_earlier_version_gains_the_new_columns(tmp_path):
    import sqlite3

    db = sqlite3.connect(tmp_path / "jobs.sqlite")
    db.executescript("CREATE TABLE jobs (name TEXT PRIMARY KEY, status TEXT NOT NULL, creation_time REAL, "
                     "stop_requested INTEGER NOT NULL DEFAULT 0);"
                     "CREATE TABLE metrics (job TEXT NOT NULL, name TEXT NOT NULL, step INTEGER NOT NULL, "
                     "value REAL, PRIMARY KEY (job, name, step));"
                     "INSERT INTO jobs (name, status, creation_time) VALUES ('old', 'Completed', 1.0);"
                     "INSERT INTO metrics VALUES ('old', 'loss', 0, 0.5);")
    db.commit()
    db.close()
    store = JobStore(tmp_path, create=False)
    old = store.get("old")
    assert old.status == COMPLETED and old.max_retries == 0 and old.compile_summary == {}
    assert store.metric_points("old") == {"loss": [(0, 0.5, None)]}


def test_stores_made_at_once_by_many_are_one_sound_store(tmp_path):
    """A new store is linked into place whole: no one opening it meanwhile sees an empty file."""
    import threading

    errors, start = [], threading.Barrier(8)

    def open_and_add(i):
        try:
            start.wait()
            JobStore(tmp_path / "runs").create(JobRecord(name=f"j{i}", creation_time=float(i)))
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=open_and_add, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(JobStore(tmp_path / "runs").list()) == 8
    assert [p.name for p in (tmp_path / "runs").iterdir() if p.name.endswith(".tmp")] == []


def test_a_store_removed_while_in_use_is_not_made_anew(tmp_path):
    from bessemer.jobs.store import StoreDamaged

    store = JobStore(tmp_path)
    store.create(JobRecord(name="j", creation_time=1.0))
    (tmp_path / "jobs.sqlite").unlink()
    with pytest.raises(StoreDamaged, match=r"jobs.sqlite is damaged: it has gone \(removed while in use\); .*"
                                           r"`bessemer jobs repair"):
        store.get("j")
    assert not (tmp_path / "jobs.sqlite").exists()


def test_a_store_growing_under_a_reader_is_not_taken_for_truncated(tmp_path):
    """A checkpoint that grows the file writes the header's new page count first: for a
    moment the file is shorter than it says. Opening the store then is not damage."""
    import threading

    from bessemer.jobs.store import file_damage

    store = JobStore(tmp_path)
    store.create(JobRecord(name="j", creation_time=1.0))
    until, alarms = time.monotonic() + 2.0, []

    def grow():
        i = 0
        while time.monotonic() < until:  # each call closes its connection: a checkpoint
            store.add_metrics("j", [("loss", i * 50 + k, 0.5) for k in range(50)])
            i += 1

    def look():
        while time.monotonic() < until:
            what = file_damage(store.path)
            if what:
                alarms.append(what)

    threads = [threading.Thread(target=grow), threading.Thread(target=look)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert alarms == []
    assert (tmp_path / "jobs.sqlite").stat().st_size > 64 * 1024  # it did grow
