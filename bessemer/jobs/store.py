"""Job records in an embedded SQLite database (`<output_path>/jobs.sqlite`).

One row per job (name, status, times, hyperparameters, compiler config, failure
reason, compile summary, ...), one row per attempt of a job (a failed attempt is
restarted up to max_retries times) and one row per metric data point. Every call
opens its own short connection, so the estimator, a job's supervisor and
`bessemer jobs` in another shell may all use one database at once (WAL journal,
waits on a busy lock). Commands that only read (`JobStore(path, create=False)`)
never create a database.

The database is never replaced silently: a new one is made under a temporary name
and linked into place, so a `jobs.sqlite` that is empty, truncated or not SQLite at
all is damage, reported as StoreDamaged (one line: which file, what is wrong, how to
recover). Each job's folder keeps a copy of its record (`record.json`: the row and its
attempts, rewritten in the same transaction as every change but metrics), from which
`bessemer jobs repair` (repair.py) rebuilds the store.
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import secrets
import sqlite3
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional, Sequence

from ..fsutil import atomic_write_text

DB_NAME = "jobs.sqlite"
RECORD_FILE = "record.json"          # in each job's folder: its record and attempts
_SQLITE_MAGIC = b"SQLite format 3\x00"

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
    pgid INTEGER,
    checkpoint_path TEXT,
    max_retries INTEGER,
    compile_summary TEXT,
    peak_memory_bytes INTEGER
);
CREATE TABLE IF NOT EXISTS metrics (
    job TEXT NOT NULL,
    name TEXT NOT NULL,
    step INTEGER NOT NULL,
    value REAL,
    time REAL,
    PRIMARY KEY (job, name, step)
);
CREATE TABLE IF NOT EXISTS attempts (
    job TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    status TEXT NOT NULL,
    start_time REAL,
    end_time REAL,
    exit_code INTEGER,
    reason TEXT,
    PRIMARY KEY (job, attempt)
);
"""
# Columns added to a table after its first version: (table, column).
_LATER_COLUMNS = (("metrics", "time"),)

_JSON_FIELDS = ("inputs", "hyperparameters", "compiler_config", "compile_summary", "batch_search")


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
    checkpoint_path: Optional[str] = None  # folder or fsspec URL the checkpoints are kept at
    max_retries: int = 0
    compile_summary: dict = field(default_factory=dict)
    # the most resident memory seen: the job's processes summed (sampled each second), or
    # the main process's own high-water mark as the kernel kept it, whichever is larger
    peak_memory_bytes: Optional[int] = None
    batch_search: dict = field(default_factory=dict)  # batch_size="auto": what the search chose (autobatch.py)
    stop_reason: Optional[str] = None      # why a stop was requested ("stop requested", "interrupted (Ctrl-C)")

    @property
    def done(self) -> bool:
        return self.status in TERMINAL

    def describe(self, metrics: dict[str, list[tuple[int, Optional[float]]]],
                 attempts: Sequence["Attempt"] = ()) -> dict[str, Any]:
        """The record in the shape of SageMaker's DescribeTrainingJob, plus bessemer's fields."""
        ts = _ts
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
            "CheckpointConfig": {"S3Uri": self.checkpoint_path} if self.checkpoint_path else None,
            "RetryStrategy": {"MaximumRetryAttempts": self.max_retries or 0},
            "Attempts": [a.describe() for a in attempts],
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
            "CompileSummary": self.compile_summary or None,
            "PeakMemoryMiB": (round(self.peak_memory_bytes / 2**20, 1)
                              if self.peak_memory_bytes is not None else None),
            "BatchSearch": self.batch_search or None,
        }
        return out


@dataclass
class Attempt:
    """One run of a job's processes; a failed attempt is followed by another while
    max_retries allows."""

    attempt: int
    status: str
    start_time: Optional[float] = None
    end_time: Optional[float] = None
    exit_code: Optional[int] = None
    reason: Optional[str] = None

    def describe(self) -> dict[str, Any]:
        return {"Attempt": self.attempt, "Status": self.status, "StartTime": _ts(self.start_time),
                "EndTime": _ts(self.end_time), "ExitCode": self.exit_code, "Reason": self.reason}


def _ts(t: Optional[float]) -> Optional[datetime]:
    return datetime.fromtimestamp(t, tz=timezone.utc) if t is not None else None


class JobNameTaken(ValueError):
    pass


class NoJobStore(ValueError):
    """A command that only reads was pointed at a folder without jobs."""


class UnknownJob(ValueError):
    """No job of that name in the store."""


class StoreDamaged(ValueError):
    """jobs.sqlite is there but is not a sound job store (empty, truncated, garbled)."""


def damaged(path: Path, what: str) -> StoreDamaged:
    folder = path.parent.resolve()
    return StoreDamaged(f"{path.resolve()} is damaged: {what}; the job folders keep their records: "
                        f"`bessemer jobs repair --output-path {folder}` rebuilds it from them (the damaged "
                        "file is kept aside)")


def file_damage(path: Path, tries: int = 5) -> Optional[str]:
    """What is wrong with the database file at `path` by its size and header, or None.

    A checkpoint that grows the file writes its first page (with the new page count) before
    the pages after the end, so a file shorter than its header says may be one being
    written: it counts as truncated only when it stays so over `tries` looks 20 ms apart
    (a checkpoint's few pages take far less; a cut file stays cut)."""
    for attempt in range(tries):
        size = path.stat().st_size
        if size == 0:
            return "it is empty (0 bytes)"
        with open(path, "rb") as f:
            head = f.read(100)
        if len(head) < 100 or not head.startswith(_SQLITE_MAGIC):
            return "it is not an SQLite database (its header is garbled)"
        page_size = int.from_bytes(head[16:18], "big")
        page_size = 65536 if page_size == 1 else page_size
        pages = int.from_bytes(head[28:32], "big")
        # The header's page count is valid while its version-valid-for number equals the change counter.
        if not (pages and head[92:96] == head[24:28] and size < pages * page_size):
            return None
        if attempt + 1 < tries:
            time.sleep(0.02)
    return f"it is truncated ({size} of {pages * page_size} bytes)"


class JobStore:
    def __init__(self, output_path: str | Path, create: bool = True):
        self.path = Path(output_path).resolve() / DB_NAME
        if not self.path.is_file():
            if not create:
                raise NoJobStore(f"no jobs in {Path(output_path).resolve()} (there is no {DB_NAME}); pass "
                                 "--output-path (output_path=) of the folder the jobs were started with")
            _create_database(self.path)
        what = file_damage(self.path)
        if what:
            raise damaged(self.path, what)
        with self._connect() as db:
            if not db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'jobs'").fetchone():
                raise damaged(self.path, "it has no jobs table")
            db.executescript(_SCHEMA)   # tables added since an earlier version
            _add_missing_columns(db)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        # mode=rw: a database that has gone is an error, never silently made anew
        try:
            db = sqlite3.connect(f"{self.path.as_uri()}?mode=rw", uri=True, timeout=30.0, isolation_level=None)
        except sqlite3.OperationalError:
            if not self.path.exists():
                raise damaged(self.path, "it has gone (removed while in use)") from None
            raise
        try:
            db.execute("PRAGMA busy_timeout=30000")
            yield db
        except sqlite3.DatabaseError as e:
            # OperationalError (locked, ...) and IntegrityError are its subclasses, not damage
            if type(e) is sqlite3.DatabaseError:
                raise damaged(self.path, f"sqlite says {e}") from None
            raise
        finally:
            db.close()

    @contextmanager
    def _changing(self, name: str) -> Iterator[sqlite3.Connection]:
        """A write transaction on job `name` that also rewrites the job folder's record.json
        (under the write lock, so the copies are written in the order of the changes)."""
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
                self._mirror(db, name)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def _mirror(self, db: sqlite3.Connection, name: str) -> None:
        db.row_factory = sqlite3.Row
        row = db.execute("SELECT * FROM jobs WHERE name = ?", (name,)).fetchone()
        db.row_factory = None
        if row is None or not row["job_dir"] or not os.path.isdir(row["job_dir"]):
            return  # not prepared yet, or its folder was removed
        attempts = db.execute("SELECT attempt, status, start_time, end_time, exit_code, reason FROM attempts "
                              "WHERE job = ? ORDER BY attempt", (name,)).fetchall()
        content = {"record": dataclasses.asdict(_from_row(row)),
                   "attempts": [dataclasses.asdict(Attempt(*a)) for a in attempts]}
        path = Path(row["job_dir"]) / RECORD_FILE
        try:
            atomic_write_text(path, json.dumps(content, indent=2, sort_keys=True))
        except OSError as e:  # the record in the database stands; only the copy is behind
            warnings.warn(f"bessemer: could not keep job {name}'s record in {path}: {e}", stacklevel=3)

    # -- creating ---------------------------------------------------------------
    def create(self, record: JobRecord) -> None:
        """Insert a new record; raises JobNameTaken when its name is in use."""
        row = _to_row(record)
        cols = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        try:
            with self._changing(record.name) as db:
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
            raise UnknownJob(self._unknown(name))
        return _from_row(row)

    def _unknown(self, name: str) -> str:
        with self._connect() as db:
            names = [r[0] for r in db.execute("SELECT name FROM jobs ORDER BY creation_time DESC LIMIT 4")]
        known = (f"the latest: {', '.join(names[:3])}{', ...' if len(names) > 3 else ''}" if names
                 else "it has none")
        return (f"no job named {name!r} in {self.path.parent} ({known}); `bessemer jobs list` shows "
                "them, --output-path (output_path=) picks another folder")

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
        with self._changing(name) as db:
            db.execute(f"UPDATE jobs SET {sets} WHERE name = ?", [*row.values(), name])

    def finish(self, name: str, status: str, **fields: Any) -> None:
        """Record a job's end, once: a record already in a final state keeps it."""
        if status not in TERMINAL:
            raise ValueError(f"status must be one of {list(TERMINAL)}, got {status!r}")
        row = _encode({"status": status, "end_time": time.time(), **fields})
        sets = ", ".join(f"{k} = ?" for k in row)
        with self._changing(name) as db:
            db.execute(f"UPDATE jobs SET {sets} WHERE name = ? AND status = ?",
                       [*row.values(), name, IN_PROGRESS])

    # -- stopping -------------------------------------------------------------------
    def request_stop(self, name: str, reason: str = "stop requested") -> bool:
        """Ask a running job to stop (the record's reason will be `Stopped: <reason>`); False
        when it has already ended."""
        self.get(name)
        with self._changing(name) as db:
            cur = db.execute("UPDATE jobs SET stop_requested = 1, stop_reason = ? WHERE name = ? AND status = ?",
                             (reason, name, IN_PROGRESS))
            return cur.rowcount > 0

    def stop_requested(self, name: str) -> bool:
        with self._connect() as db:
            row = db.execute("SELECT stop_requested FROM jobs WHERE name = ?", (name,)).fetchone()
        return bool(row and row[0])

    def claim_supervision(self, name: str, dead_pid: int, pid: int, host: str) -> bool:
        """Make `pid` on `host` the supervisor of a running job whose supervisor `dead_pid`
        died; False when another process claimed it first (or the job has ended)."""
        with self._changing(name) as db:
            cur = db.execute("UPDATE jobs SET supervisor_pid = ?, host = ? WHERE name = ? AND status = ? "
                             "AND supervisor_pid = ?", (pid, host, name, IN_PROGRESS, dead_pid))
            return cur.rowcount > 0

    # -- attempts -------------------------------------------------------------------
    def start_attempt(self, name: str, attempt: int) -> None:
        with self._changing(name) as db:
            db.execute("INSERT OR REPLACE INTO attempts (job, attempt, status, start_time) VALUES (?, ?, ?, ?)",
                       (name, attempt, IN_PROGRESS, time.time()))

    def end_attempt(self, name: str, attempt: int, status: str, exit_code: Optional[int],
                    reason: Optional[str]) -> None:
        with self._changing(name) as db:
            db.execute("UPDATE attempts SET status = ?, end_time = ?, exit_code = ?, reason = ? "
                       "WHERE job = ? AND attempt = ? AND status = ?",
                       (status, time.time(), exit_code, reason, name, attempt, IN_PROGRESS))

    def restore(self, record: JobRecord, attempts: Sequence[Attempt]) -> None:
        """Put back a job's record and attempts (repair.py), as its folder kept them."""
        row = _to_row(record)
        with self._changing(record.name) as db:
            db.execute(f"INSERT INTO jobs ({', '.join(row)}) VALUES ({', '.join('?' for _ in row)})",
                       list(row.values()))
            db.executemany("INSERT OR REPLACE INTO attempts (job, attempt, status, start_time, end_time, exit_code, "
                           "reason) VALUES (?, ?, ?, ?, ?, ?, ?)",
                           [(record.name, *dataclasses.astuple(a)) for a in attempts])

    def attempts(self, name: str) -> list[Attempt]:
        with self._connect() as db:
            rows = db.execute("SELECT attempt, status, start_time, end_time, exit_code, reason FROM attempts "
                              "WHERE job = ? ORDER BY attempt", (name,)).fetchall()
        return [Attempt(*row) for row in rows]

    # -- metrics --------------------------------------------------------------------
    def add_metrics(self, name: str, points: Iterable[tuple]) -> None:
        """Points as (metric, step, value) or (metric, step, value, wall time)."""
        rows = []
        for m, step, v, *when in points:
            rows.append((name, m, int(step), None if (v is None or math.isnan(v)) else float(v),
                         when[0] if when else None))
        if not rows:
            return
        with self._connect() as db:
            db.execute("BEGIN")
            db.executemany("INSERT OR REPLACE INTO metrics (job, name, step, value, time) VALUES (?, ?, ?, ?, ?)",
                           rows)
            db.execute("COMMIT")

    def metrics(self, name: str) -> dict[str, list[tuple[int, Optional[float]]]]:
        """{metric: [(step, value), ...] in step order}; NaN values read back as None."""
        return {m: [(step, value) for step, value, _ in pts] for m, pts in self.metric_points(name).items()}

    def metric_points(self, name: str) -> dict[str, list[tuple[int, Optional[float], Optional[float]]]]:
        """{metric: [(step, value, wall time or None), ...] in step order}."""
        with self._connect() as db:
            rows = db.execute("SELECT name, step, value, time FROM metrics WHERE job = ? ORDER BY name, step",
                              (name,)).fetchall()
        out: dict[str, list[tuple[int, Optional[float], Optional[float]]]] = {}
        for metric, step, value, when in rows:
            out.setdefault(metric, []).append((step, value, when))
        return out

    def describe(self, name: str) -> dict[str, Any]:
        return self.get(name).describe(self.metrics(name), self.attempts(name))


def _create_database(path: Path) -> None:
    """Make an empty job store at `path`: under a temporary name, then linked into place, so
    that no reader ever sees a file without the schema (which would be damage)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{DB_NAME}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        db = sqlite3.connect(tmp, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_SCHEMA)
        finally:
            db.close()
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process made it first
        except OSError:
            # A file system without hard links: a rename, which trades the guarantee against a
            # store made by another process in the same instant (one of the two would be lost).
            if not path.exists():
                os.replace(tmp, path)
    finally:
        for leftover in (tmp, tmp.with_name(tmp.name + "-wal"), tmp.with_name(tmp.name + "-shm")):
            leftover.unlink(missing_ok=True)


def _add_missing_columns(db: sqlite3.Connection) -> None:
    """A database made by an earlier version gains the columns added since (NULL in old rows;
    SQLite columns take values of any type). Several processes may open it at once: one
    adds a column, the others find it there."""
    wanted = [("jobs", f.name) for f in dataclasses.fields(JobRecord)] + list(_LATER_COLUMNS)
    for table, column in wanted:
        if column in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}:
            continue
        try:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column}")
        except sqlite3.OperationalError as e:
            if "duplicate column" not in str(e):
                raise


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
    d["max_retries"] = d["max_retries"] or 0
    return JobRecord(**d)
