"""`bessemer jobs repair`: rebuild the job store from the job folders.

Every job folder under output_path keeps its own record: `record.json` (the row and its
attempts, as the store last wrote them) and `job.json` (what the engine was asked to
run). A damaged `jobs.sqlite` is moved aside (`jobs.sqlite.damaged-<time>`, never
deleted) and a new one gets every job back; a sound one gets back the jobs it lacks.
Metrics are read again from each job's log by its metric definitions (their wall times
are not kept in the folder, so a rebuilt job's points have none).

A folder with job.json but no record.json (made by an earlier version) gets a record
from job.json, its log's last line (`bessemer: training job NAME Completed`) and its
output/failure; one whose end the log does not show is recorded Failed, saying so.
"""
from __future__ import annotations

import dataclasses
import json
import re
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from .layout import JobDir
from .metrics import parse_metrics, validate_definitions
from .store import DB_NAME, FAILED, RECORD_FILE, TERMINAL, Attempt, JobRecord, JobStore, file_damage

_END_LINE = re.compile(r"^bessemer: training job (?P<name>\S+) (?P<status>Completed|Failed|Stopped)\b")
_BANNER = re.compile(r"^bessemer: training job \S+ \((?P<framework>\w+), engine (?P<engine>\w+),")


@dataclass
class Repaired:
    store: Path
    damage: Optional[str] = None          # what was wrong with it (None: it was sound)
    moved_to: Optional[Path] = None       # where the damaged file went
    restored: list[str] = field(default_factory=list)   # jobs put back
    unreadable: list[str] = field(default_factory=list)  # folders whose record could not be read


def store_damage(path: Path) -> Optional[str]:
    """What is wrong with the store at `path` (a full integrity check), or None when it is sound."""
    what = file_damage(path)
    if what:
        return what
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            result = db.execute("PRAGMA integrity_check").fetchone()[0]
            if result != "ok":
                return f"sqlite's integrity check says {result}"
            if not db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'jobs'").fetchone():
                return "it has no jobs table"
        finally:
            db.close()
    except sqlite3.DatabaseError as e:
        return f"sqlite says {e}"
    return None


def repair(output_path: str | Path) -> Repaired:
    root = Path(output_path).resolve()
    path = root / DB_NAME
    folders = [d for d in sorted(root.iterdir()) if d.is_dir() and (d / "job.json").is_file()] \
        if root.is_dir() else []
    if not folders and not path.exists():
        raise ValueError(f"no job store and no job folders in {root}; pass --output-path of the folder "
                         "the jobs were started with")
    out = Repaired(path)
    if path.exists():
        out.damage = store_damage(path)
        if out.damage:
            out.moved_to = _move_aside(path)
    store = JobStore(root)
    known = {r.name for r in store.list()}
    for folder in folders:
        if folder.name in known:
            continue
        try:
            record, attempts = read_record(JobDir(folder))
        except (OSError, ValueError, TypeError, KeyError) as e:
            out.unreadable.append(f"{folder.name} ({e})")
            continue
        store.restore(record, attempts)
        _restore_metrics(store, JobDir(folder), record.name)
        out.restored.append(record.name)
    return out


def read_record(job: JobDir) -> tuple[JobRecord, list[Attempt]]:
    """The record a job folder keeps (record.json), or one made from job.json and the log."""
    names = {f.name for f in dataclasses.fields(JobRecord)}
    kept = job.root / RECORD_FILE
    if kept.is_file():
        data = json.loads(kept.read_text())
        record = JobRecord(**{k: v for k, v in data["record"].items() if k in names})
        if record.job_dir != str(job.root):  # the output folder was moved: its paths are here now
            record.job_dir = str(job.root)
            record.log_path = str(job.log) if record.log_path else None
            record.model_data = str(job.model_tar) if record.model_data else None
        return record, [Attempt(**a) for a in data.get("attempts", [])]
    spec = json.loads(job.spec_file.read_text())
    record = JobRecord(
        name=spec["name"], entry_point=spec.get("entry_point", ""), source_dir=spec.get("source_dir"),
        job_dir=str(job.root), hyperparameters=spec.get("hyperparameters", {}),
        compiler_config={"enabled": spec.get("compiler_enabled", True)},
        instance_count=spec.get("instance_count", 1), processes_per_instance=spec.get("processes_per_instance", 1),
        max_run=spec.get("max_run"), creation_time=job.spec_file.stat().st_mtime, log_path=str(job.log),
        checkpoint_path=spec.get("checkpoint_path"), max_retries=spec.get("max_retries", 0),
        inputs={c: str(job.channel(c).resolve()) for c in spec.get("channels", [])})
    status = None
    lines = job.log.read_text(errors="replace").splitlines() if job.log.is_file() else []
    for line in lines:
        m = _BANNER.match(line)
        if m:
            record.framework, record.engine = m["framework"], m["engine"]
        m = _END_LINE.match(line)
        if m and m["name"] == record.name:
            status = m["status"]
    if status in TERMINAL:
        record.status = status
        record.failure_reason = job.failure_file.read_text().strip() if job.failure_file.is_file() else None
    else:
        record.status = FAILED
        record.failure_reason = (f"the job's end is not in its log ({job.log}); its record was rebuilt from its "
                                 "folder by `bessemer jobs repair`")
    record.end_time = job.log.stat().st_mtime if job.log.is_file() else None
    record.model_data = str(job.model_tar) if job.model_tar.is_file() else None
    return record, []


def _restore_metrics(store: JobStore, job: JobDir, name: str) -> None:
    try:
        definitions = validate_definitions(json.loads(job.spec_file.read_text()).get("metric_definitions", []))
        lines = job.log.read_text(errors="replace").splitlines()
    except (OSError, ValueError):
        return
    store.add_metrics(name, parse_metrics(lines, definitions))


def _move_aside(path: Path) -> Path:
    """Rename the damaged database (and its -wal/-shm files) to `<name>.damaged-<time>`."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    path.rename(target)
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            side.rename(target.with_name(target.name + suffix))
    return target
