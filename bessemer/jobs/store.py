"""Job records in an embedded SQLite database (`<output_path>/jobs.sqlite`).

One row per job (name, status, times, hyperparameters, compiler config, failure
reason, ...) and one row per metric data point. Every call opens its own short
connection, so the estimator, a job's supervisor and `bessemer jobs` in another
shell may all use one database at once (WAL journal, waits on a busy lock).
"""
from __future__ import annotations

import dataclasses
import json
import math
import secrets
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional

DB_NAME = "jobs.sqlite"

IN_PROGRESS = "InProgress"
COMPLETED = "Completed"
FAILED = "Failed"
STOPPED = "Stopped"
STATUSES = (IN_PROGRESS, COMPLETED, FAILED, STOPPED)
TERMINAL = (COMPLETED, FAILED, STOPPED)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    name TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    framework TEXT,
    engine TEXT,
    entry_point TEXT,
    source_dir TEXT,
    job_dir TEXT,
    inputs TEXT,
    hyperparameters TEXT,
    compiler_config TEXT,
    instance_count INTEGER,
    processes_per_instance INTEGER,
    max_run REAL,
    creation_time REAL,
    start_time REAL,
    end_time REAL,
    exit_code INTEGER,
    failure_reason TEXT,
    model_data TEXT,
    log_path TEXT,
    stop_requested INTEGER NOT NULL DEFAULT 0,
    supervisor_pid INTEGER,
    host TEXT,
    pgid INTEGER
);
CREATE TABLE IF NOT EXISTS metrics (
    job TEXT NOT NULL,
    name TEXT NOT NULL,
    step INTEGER NOT NULL,
    value REAL,
    PRIMARY KEY (job, name, step)
);
"""

_JSON_FIELDS = ("inputs", "hyperparameters", "compiler_config")


@dataclass
class JobRecord:
    name: str
    status: str = IN_PROGRESS
    framework: str = ""
    engine: str = ""
    entry_point: str = ""
    source_dir: Optional[str] = None
    job_dir: str = ""
    inputs: dict = field(default_factory=dict)
    hyperparameters: dict = field(default_factory=dict)
    compiler_config: dict = field(default_factory=dict)
    instance_count: int = 1
    processes_per_instance: int = 1
    max_run: Optional[float] = None
    creation_time: float = 0.0
    start_time: Optional[float] = None
    end_time: Optional[float] = None
    exit_code: Optional[int] = None
    failure_reason: Optional[str] = None
    model_data: Optional[str] = None
    log_path: Optional[str] = None
    stop_requested: bool = False
    supervisor_pid: Optional[int] = None   # the process watching the job, on `host`
    host: Optional[str] = None
    pgid: Optional[int] = None             # the process group of the job's processes, on `host`

    @property
    def done(self) -> bool:
        return self.status in TERMINAL

    def describe(self, metrics: dict[str, list[tuple[int, Optional[float]]]]) -> dict[str, Any]:
        """The record in the shape of SageMaker's DescribeTrainingJob, plus bessemer's fields."""
        def ts(t):
            return datetime.fromtimestamp(t, tz=timezone.utc) if t is not None else None

        end = self.end_time if self.end_time is not None else (time.time() if self.start_time else None)
        out: dict[str, Any] = {
            "TrainingJobName": self.name,
            "TrainingJobStatus": self.status,
            "FailureReason": self.failure_reason,
            "HyperParameters": self.hyperparameters,
            "CompilerConfig": self.compiler_config,
            "CreationTime": ts(self.creation_time),
            "TrainingStartTime": ts(self.start_time),
            "TrainingEndTime": ts(self.end_time),
            "TrainingTimeInSeconds": (round(end - self.start_time, 3)
                                      if self.start_time is not None and end is not None else None),
            "ModelArtifacts": {"ModelData": self.model_data},
            "InputDataConfig": [{"ChannelName": k, "DataSource": v} for k, v in sorted(self.inputs.items())],
            "ResourceConfig": {"InstanceCount": self.instance_count,
                               "ProcessesPerInstance": self.processes_per_instance},
            "StoppingCondition": {"MaxRuntimeInSeconds": self.max_run},
            "FinalMetricDataList": [{"MetricName": n, "Value": pts[-1][1]}
                                    for n, pts in sorted(metrics.items()) if pts],
            "Metrics": {n: [{"Step": s, "Value": v} for s, v in pts] for n, pts in sorted(metrics.items())},
            "Framework": self.framework,
            "Engine": self.engine,
            "EntryPoint": self.entry_point,
            "SourceDir": self.source_dir,
            "JobDir": self.job_dir,
            "LogPath": self.log_path,
            "ExitCode": self.exit_code,
        }
        return out


class JobNameTaken(ValueError):
    pass


class JobStore:
    def __init__(self, output_path: str | Path):
        self.path = Path(output_path) / DB_NAME
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_SCHEMA)
            _add_missing_columns(db)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        try:
            db.execute("PRAGMA busy_timeout=30000")
            yield db
        finally:
            db.close()

    # -- creating ---------------------------------------------------------------
    def create(self, record: JobRecord) -> None:
        """Insert a new record; raises JobNameTaken when its name is in use."""
        row = _to_row(record)
        cols = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        try:
            with self._connect() as db:
                db.execute(f"INSERT INTO jobs ({cols}) VALUES ({marks})", list(row.values()))
        except sqlite3.IntegrityError:
            raise JobNameTaken(f"job_name {record.name!r} is already taken in {self.path}") from None

    def create_unique(self, base: str, record: JobRecord, max_len: int = 63) -> JobRecord:
        """Insert `record` under a new name `<base>-<timestamp>`; two jobs started in the
        same millisecond (from any process) get distinct names."""
        now = time.time()
        stamp = time.strftime("%Y-%m-%d-%H-%M-%S", time.gmtime(now)) + f"-{int(now * 1000) % 1000:03d}"
        suffix = ""
        for _ in range(32):
            tail = f"-{stamp}{suffix}"
            name = base[: max_len - len(tail)] + tail
            try:
                candidate = dataclasses.replace(record, name=name)
                self.create(candidate)
                return candidate
            except JobNameTaken:
                suffix = "-" + secrets.token_hex(2)
        raise RuntimeError(f"could not find a free job name for base {base!r}")

    # -- reading and updating ---------------------------------------------------------
    def get(self, name: str) -> JobRecord:
        with self._connect() as db:
            db.row_factory = sqlite3.Row
            row = db.execute("SELECT * FROM jobs WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise ValueError(f"job_name: no job named {name!r} in {self.path}")
        return _from_row(row)

    def list(self, status: Optional[str] = None, limit: Optional[int] = None) -> list[JobRecord]:
        """Records, newest first."""
        if status is not None and status not in STATUSES:
            raise ValueError(f"status must be one of {list(STATUSES)}, got {status!r}")
        sql = "SELECT * FROM jobs"
        args: list[Any] = []
        if status is not None:
            sql += " WHERE status = ?"
            args.append(status)
        sql += " ORDER BY creation_time DESC, name DESC"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(int(limit))
        with self._connect() as db:
            db.row_factory = sqlite3.Row
            return [_from_row(r) for r in db.execute(sql, args).fetchall()]

    def update(self, name: str, **fields: Any) -> None:
        unknown = set(fields) - {f.name for f in dataclasses.fields(JobRecord)}
        if unknown:
            raise ValueError(f"unknown job record field(s): {sorted(unknown)}")
        row = _encode(fields)
        sets = ", ".join(f"{k} = ?" for k in row)
        with self._connect() as db:
            db.execute(f"UPDATE jobs SET {sets} WHERE name = ?", [*row.values(), name])

    def finish(self, name: str, status: str, **fields: Any) -> None:
        """Record a job's end, once: a record already in a final state keeps it."""
        if status not in TERMINAL:
            raise ValueError(f"status must be one of {list(TERMINAL)}, got {status!r}")
        row = _encode({"status": status, "end_time": time.time(), **fields})
        sets = ", ".join(f"{k} = ?" for k in row)
        with self._connect() as db:
            db.execute(f"UPDATE jobs SET {sets} WHERE name = ? AND status = ?",
                       [*row.values(), name, IN_PROGRESS])

    # -- stopping -------------------------------------------------------------------
    def request_stop(self, name: str) -> bool:
        """Ask a running job to stop; False when it has already ended."""
        self.get(name)
        with self._connect() as db:
            cur = db.execute("UPDATE jobs SET stop_requested = 1 WHERE name = ? AND status = ?",
                             (name, IN_PROGRESS))
            return cur.rowcount > 0

    def stop_requested(self, name: str) -> bool:
        with self._connect() as db:
            row = db.execute("SELECT stop_requested FROM jobs WHERE name = ?", (name,)).fetchone()
        return bool(row and row[0])

    # -- metrics --------------------------------------------------------------------
    def add_metrics(self, name: str, points: Iterable[tuple[str, int, float]]) -> None:
        rows = [(name, m, int(step), None if (v is None or math.isnan(v)) else float(v))
                for m, step, v in points]
        with self._connect() as db:
            db.execute("BEGIN")
            db.executemany("INSERT OR REPLACE INTO metrics (job, name, step, value) VALUES (?, ?, ?, ?)", rows)
            db.execute("COMMIT")

    def metrics(self, name: str) -> dict[str, list[tuple[int, Optional[float]]]]:
        """{metric: [(step, value), ...] in step order}; NaN values read back as None."""
        with self._connect() as db:
            rows = db.execute("SELECT name, step, value FROM metrics WHERE job = ? ORDER BY name, step",
                              (name,)).fetchall()
        out: dict[str, list[tuple[int, Optional[float]]]] = {}
        for metric, step, value in rows:
            out.setdefault(metric, []).append((step, value))
        return out

    def describe(self, name: str) -> dict[str, Any]:
        return self.get(name).describe(self.metrics(name))


def _add_missing_columns(db: sqlite3.Connection) -> None:
    """A database made by an earlier version gains the columns added since (NULL in old rows;
    SQLite columns take values of any type)."""
    have = {row[1] for row in db.execute("PRAGMA table_info(jobs)")}
    for f in dataclasses.fields(JobRecord):
        if f.name not in have:
            db.execute(f"ALTER TABLE jobs ADD COLUMN {f.name}")


def _encode(fields: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for k, v in fields.items():
        if k in _JSON_FIELDS:
            v = json.dumps(v, sort_keys=True)
        elif k == "stop_requested":
            v = int(bool(v))
        out[k] = v
    return out


def _to_row(record: JobRecord) -> dict[str, Any]:
    return _encode(dataclasses.asdict(record))


def _from_row(row: sqlite3.Row) -> JobRecord:
    d = dict(row)
    for k in _JSON_FIELDS:
        d[k] = json.loads(d[k]) if d[k] else {}
    d["stop_requested"] = bool(d["stop_requested"])
    return JobRecord(**d)
