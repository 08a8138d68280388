"""The interface every engine implements, and the job description it is given.

An engine runs one prepared job: the estimator has already made the job's
folder (code, input channels, config files) and its record; the engine starts
the script's processes with the environment contract, enforces max_run, honours
stop requests from the job store, and, when the processes end, calls
`outcome.finish_job` so that every engine packs, parses and records alike.
"""
from __future__ import annotations

import abc
import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Optional

from ...fsutil import atomic_write_text


@dataclass(frozen=True)
class JobSpec:
    """What an engine is asked to run (written to the job's job.json)."""

    name: str
    job_dir: str                    # the job's folder (absolute)
    output_path: str                # where the job store lives (absolute)
    entry_point: str                # the script, relative to the job's code/ folder
    hyperparameters: dict[str, Any]
    channels: list[str]             # input channel names (their folders are under input/data/)
    instance_count: int = 1
    processes_per_instance: int = 1
    environment: dict[str, str] = field(default_factory=dict)   # set on top of the engine's own
    startup_hooks: bool = False     # put bessemer's start-up hook (HF Trainer -> compile) on PYTHONPATH
    max_run: Optional[float] = None  # seconds; None: no limit
    metric_definitions: list[dict[str, str]] = field(default_factory=list)
    banner: list[str] = field(default_factory=list)             # first lines of the job's log
    source_dir: Optional[str] = None  # the user's folder code/ was copied from (for paths in errors)
    distributed: bool = False         # launch under torchrun even for one process
    checkpoint_path: Optional[str] = None   # folder or fsspec URL kept in sync with checkpoints/
    max_retries: int = 0              # restarts of processes that fail
    metrics_csv: bool = False         # also write the metrics to output/metrics.csv
    compiler_enabled: bool = True     # the job's processes compile (the log reports what)
    output_url: Optional[str] = None  # output_path as an fsspec URL: output/*.tar.gz are uploaded there
    batch_search: Optional[dict] = None  # batch_size="auto": the search the job runs first (autobatch.phase_spec)

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "JobSpec":
        return cls(**json.loads(text))

    def save(self, path: Path) -> None:
        atomic_write_text(path, self.to_json())

    @classmethod
    def load(cls, path: Path) -> "JobSpec":
        return cls.from_json(Path(path).read_text())


class Engine(abc.ABC):
    """Runs training jobs somewhere. Stop requests and records go through the job store,
    so `bessemer jobs stop` works the same for every engine."""

    name: ClassVar[str]

    def check(self, instance_count: int, processes_per_instance: int) -> None:
        """Raise ValueError (naming the field) for a shape of job this engine cannot run."""

    @abc.abstractmethod
    def run(self, spec: JobSpec, logs: bool = True) -> str:
        """Run the job to its end in the caller, streaming its log when `logs`; returns the
        final status. On KeyboardInterrupt it stops every process of the job, records the
        job Stopped and lets the interrupt propagate."""

    @abc.abstractmethod
    def submit(self, spec: JobSpec) -> None:
        """Start the job and return at once; the job records its own end."""
