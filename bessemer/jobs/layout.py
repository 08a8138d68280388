"""The folder of one training job, and what goes into it and out of it.

    <output_path>/<job-name>/
      code/                   a copy of source_dir (or of the lone entry point); the script runs here
      input/data/<channel>/   each input channel (a link to the folder given to fit())
      input/config/           hyperparameters.json, inputdataconfig.json, resourceconfig.json
      model/                  what the script saves; packed to output/model.tar.gz at the end
      output/data/            the script's other outputs; compiler/ holds debug artifacts
      output/model.tar.gz     the model artifact
      output/output.tar.gz    output/data packed, as SageMaker packs it
      output/tensorboard/     the job's metrics as TensorBoard event files
      output/metrics.csv      the same as CSV, when asked for (--metrics-csv)
      output/failure          why the job failed or stopped (absent when it completed)
      checkpoints/            the script's checkpoints (kept in sync with checkpoint_path)
      job.log                 everything the job printed
      job.json                what the engine was asked to run
"""
from __future__ import annotations

import fnmatch
import json
import os
import shutil
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

from ..fsutil import atomic_file, atomic_write_text
from .contract import ContractPaths

# Never copied from source_dir: version control, caches and virtual environments.
COPY_IGNORE = (".git", ".hg", ".svn", "__pycache__", "*.pyc", ".venv", "venv", ".mypy_cache",
               ".pytest_cache", ".ipynb_checkpoints", "*.egg-info")


@dataclass(frozen=True)
class JobDir:
    root: Path

    @property
    def code(self) -> Path:
        return self.root / "code"

    @property
    def input(self) -> Path:
        return self.root / "input"

    @property
    def input_data(self) -> Path:
        return self.input / "data"

    @property
    def input_config(self) -> Path:
        return self.input / "config"

    @property
    def model(self) -> Path:
        return self.root / "model"

    @property
    def output(self) -> Path:
        return self.root / "output"

    @property
    def output_data(self) -> Path:
        return self.output / "data"

    @property
    def compiler_debug(self) -> Path:
        return self.output_data / "compiler"

    @property
    def model_tar(self) -> Path:
        return self.output / "model.tar.gz"

    @property
    def output_tar(self) -> Path:
        return self.output / "output.tar.gz"

    @property
    def tensorboard(self) -> Path:
        return self.output / "tensorboard"

    @property
    def metrics_csv(self) -> Path:
        return self.output / "metrics.csv"

    @property
    def failure_file(self) -> Path:
        return self.output / "failure"

    @property
    def checkpoints(self) -> Path:
        return self.root / "checkpoints"

    @property
    def log(self) -> Path:
        return self.root / "job.log"

    @property
    def spec_file(self) -> Path:
        return self.root / "job.json"

    def channel(self, name: str) -> Path:
        return self.input_data / name

    @classmethod
    def create(cls, root: Path) -> "JobDir":
        """Make the folder of a new job; its name must not be taken."""
        root = Path(root)
        root.parent.mkdir(parents=True, exist_ok=True)
        root.mkdir()  # raises FileExistsError: job folders are never reused
        job = cls(root)
        for d in (job.input_data, job.input_config, job.model, job.output_data, job.checkpoints):
            d.mkdir(parents=True, exist_ok=True)
        return job

    def contract_paths(self, channels: Mapping[str, str]) -> ContractPaths:
        return ContractPaths(
            model_dir=str(self.model), output_dir=str(self.output),
            output_data_dir=str(self.output_data), input_dir=str(self.input),
            input_config_dir=str(self.input_config), checkpoint_dir=str(self.checkpoints),
            module_dir=str(self.code),
            channel_dirs={name: str(self.channel(name)) for name in channels})


def copy_source(source_dir: Path | None, entry_point: Path, dest: Path,
                exclude: tuple[Path, ...] = ()) -> None:
    """Copy source_dir (or only the entry point, without one) into `dest`.

    `exclude` are folders never copied, such as the jobs' own output_path when it
    lies inside source_dir.
    """
    if source_dir is None:
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copy2(entry_point, dest / entry_point.name)
        return
    excluded = {p.resolve() for p in exclude}

    def ignore(folder: str, names: list[str]) -> set[str]:
        skip = {n for n in names if any(fnmatch.fnmatch(n, pat) for pat in COPY_IGNORE)}
        skip |= {n for n in names if (Path(folder) / n).resolve() in excluded}
        return skip

    shutil.copytree(source_dir, dest, ignore=ignore, symlinks=True)


def link_channels(job: JobDir, channels: Mapping[str, Path]) -> None:
    """Give each channel a folder under input/data/: a link to the folder given to fit(),
    or, for a single file, a folder holding a link to that file (data is never copied)."""
    for name, source in channels.items():
        target = job.channel(name)
        if source.is_dir():
            target.symlink_to(source, target_is_directory=True)
        else:
            target.mkdir()
            (target / source.name).symlink_to(source)


def write_input_config(job: JobDir, hyperparameters: Mapping, channels: Iterable[str],
                       hosts: list[str], current_host: str) -> None:
    """The SageMaker input/config files, for scripts that read them instead of the environment."""
    # SageMaker writes every hyperparameter value as a JSON string in this file.
    hps = {k: v if isinstance(v, str) else json.dumps(v) for k, v in hyperparameters.items()}
    files = {
        "hyperparameters.json": hps,
        "inputdataconfig.json": {name: {} for name in sorted(channels)},
        "resourceconfig.json": {"current_host": current_host, "hosts": hosts},
    }
    for fname, content in files.items():
        atomic_write_text(job.input_config / fname, json.dumps(content, indent=2, sort_keys=True))


def pack_model(job: JobDir) -> Path:
    """Pack the contents of model/ (at the archive's root, as SageMaker does) into
    output/model.tar.gz; written to a temporary name first so a reader never sees half."""
    return _pack(job.model, job.model_tar)


def pack_output_data(job: JobDir) -> Path:
    """Pack the contents of output/data/ (none when the script removed it) into
    output/output.tar.gz, as SageMaker does."""
    return _pack(job.output_data, job.output_tar, missing_ok=True)


def _pack(folder: Path, archive: Path, missing_ok: bool = False) -> Path:
    entries = sorted(os.listdir(folder)) if not missing_ok or folder.is_dir() else []
    with atomic_file(archive) as tmp:
        with tarfile.open(tmp, "w:gz") as tar:
            for entry in entries:
                tar.add(folder / entry, arcname=entry)
    return archive
