"""Estimators: describe a training job once, run it with fit().

    est = bessemer.PyTorch(entry_point="train.py", source_dir="src",
                           hyperparameters={"epochs": 2, "batch_size": 64},
                           compiler_config=bessemer.TrainingCompilerConfig())
    est.fit({"train": "data/train"})
    est.model_data          # runs/<job-name>/output/model.tar.gz

Parameter names follow the SageMaker Python SDK where they mean the same thing,
so estimator code written for it carries over. Everything is checked here, at
construction (and the channels at fit()), with a ValueError naming the field.
"""
from __future__ import annotations

import json
import logging
import math
import os
import re
import time
from pathlib import Path
from typing import Any, ClassVar, Mapping, Optional, Union

from ..config import TrainingCompilerConfig
from .contract import check_env_names, compiler_environment
from .engines import Engine, JobSpec, get_engine
from .errors import JobFailedError, JobStoppedError
from .job import TrainingJob
from .layout import JobDir, copy_source, link_channels
from .metrics import validate_definitions
from .store import FAILED, JobRecord, JobStore

__all__ = ["Estimator", "PyTorch", "HuggingFace", "TrainingJob", "JobFailedError", "JobStoppedError"]

log = logging.getLogger("bessemer.jobs")

DEFAULT_MAX_RUN = 24 * 60 * 60  # seconds, SageMaker's default
# SageMaker's rule for job names: letters, digits and single-or-more hyphens between them, 63 at most.
_JOB_NAME = re.compile(r"^[a-zA-Z0-9](-*[a-zA-Z0-9])*$")
_JOB_NAME_MAX = 63
_CHANNEL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
# SageMaker estimator arguments that mean nothing on this machine: accepted so that
# estimator code carries over unchanged, and otherwise ignored.
_SAGEMAKER_ONLY = frozenset({
    "role", "instance_type", "framework_version", "py_version", "pytorch_version",
    "transformers_version", "sagemaker_session", "volume_size", "tags", "disable_profiler",
    "debugger_hook_config", "max_wait", "use_spot_instances", "subnets", "security_group_ids",
})


class Estimator:
    """A training job's description; `fit()` runs it. Use `PyTorch` or `HuggingFace`."""

    framework: ClassVar[str] = "pytorch"
    default_base_job_name: ClassVar[str] = "bessemer-training"

    def __init__(self, entry_point: Union[str, os.PathLike],
                 source_dir: Optional[Union[str, os.PathLike]] = None,
                 hyperparameters: Optional[Mapping[str, Any]] = None,
                 instance_count: int = 1,
                 processes_per_instance: int = 1,
                 environment: Optional[Mapping[str, str]] = None,
                 compiler_config: Optional[TrainingCompilerConfig] = None,
                 metric_definitions: Optional[list[dict[str, str]]] = None,
                 output_path: Union[str, os.PathLike] = "runs",
                 base_job_name: Optional[str] = None,
                 max_run: Optional[float] = DEFAULT_MAX_RUN,
                 engine: Union[str, Engine] = "local",
                 **sagemaker_options: Any):
        unknown = set(sagemaker_options) - _SAGEMAKER_ONLY
        if unknown:
            raise TypeError(f"{type(self).__name__}() got unexpected keyword argument(s) {sorted(unknown)}")
        if sagemaker_options:
            log.info("bessemer: ignoring SageMaker-only estimator arguments %s", sorted(sagemaker_options))
        self.source_dir, self.entry_point = _check_entry_point(entry_point, source_dir)
        self.hyperparameters = _check_hyperparameters(hyperparameters)
        self.instance_count = _check_count("instance_count", instance_count)
        self.processes_per_instance = _check_count("processes_per_instance", processes_per_instance)
        self.environment = _check_environment(environment)
        if compiler_config is None:
            compiler_config = TrainingCompilerConfig()
        if not isinstance(compiler_config, TrainingCompilerConfig):
            raise ValueError(f"compiler_config must be a bessemer.TrainingCompilerConfig (or None for the "
                             f"defaults), got {type(compiler_config).__name__}")
        self.compiler_config = compiler_config
        self.metric_definitions = [d.to_dict() for d in validate_definitions(metric_definitions)]
        self.output_path = _check_output_path(output_path)
        self.base_job_name = _check_job_name("base_job_name", base_job_name or self.default_base_job_name,
                                             max_len=_JOB_NAME_MAX - 24)
        self.max_run = _check_max_run(max_run)
        self.engine = get_engine(engine)
        self.engine.check(self.instance_count, self.processes_per_instance)
        self.latest_training_job: Optional[TrainingJob] = None

    # -- running --------------------------------------------------------------------
    def fit(self, inputs: Union[None, str, os.PathLike, Mapping[str, Union[str, os.PathLike]]] = None,
            wait: bool = True, logs: Union[bool, str] = True, job_name: Optional[str] = None) -> None:
        """Run a training job. `inputs` maps channel names to local folders or files (a lone
        path is the channel "training"). With `wait`, block until the job ends, streaming its
        log when `logs`, and raise JobFailedError (JobStoppedError) unless it completed;
        Ctrl-C stops the job. Without `wait`, return once the job has started."""
        channels = _check_inputs(inputs)
        stream_logs = _check_logs(logs)
        store = JobStore(self.output_path)
        record = self._record(channels)
        if job_name is not None:
            record.name = _check_job_name("job_name", job_name)
            store.create(record)
        else:
            record = store.create_unique(self.base_job_name, record)
        job = TrainingJob(record.name, self.output_path)
        self.latest_training_job = job
        try:
            spec = self._prepare(record.name, channels)
        except BaseException as e:
            store.finish(record.name, FAILED, failure_reason=f"could not prepare the job: {e}")
            raise
        if wait:
            self.engine.run(spec, logs=stream_logs)
            job.raise_for_status()
        else:
            self.engine.submit(spec)

    def _record(self, channels: Mapping[str, Path]) -> JobRecord:
        return JobRecord(
            name="", framework=self.framework, engine=self.engine.name,
            entry_point=self.entry_point, source_dir=str(self.source_dir) if self.source_dir else None,
            inputs={k: str(v) for k, v in channels.items()},
            hyperparameters=self.hyperparameters, compiler_config=self.compiler_config.to_dict(),
            instance_count=self.instance_count, processes_per_instance=self.processes_per_instance,
            max_run=self.max_run, creation_time=time.time())

    def _prepare(self, name: str, channels: Mapping[str, Path]) -> JobSpec:
        """Make the job's folder and describe what the engine must run."""
        store = JobStore(self.output_path)
        job = JobDir.create(self.output_path / name)
        store.update(name, job_dir=str(job.root), log_path=str(job.log))
        entry = (self.source_dir / self.entry_point) if self.source_dir else Path(self.entry_point)
        copy_source(self.source_dir, entry.resolve(), job.code, exclude=(self.output_path,))
        link_channels(job, channels)
        job_config, compiler_env = compiler_environment(self.compiler_config, str(job.compiler_debug))
        store.update(name, compiler_config=job_config.to_dict())
        if job_config.debug:
            job.compiler_debug.mkdir(parents=True, exist_ok=True)
        spec = JobSpec(
            name=name, job_dir=str(job.root), output_path=str(self.output_path),
            entry_point=self.entry_point if self.source_dir else Path(self.entry_point).name,
            hyperparameters=self.hyperparameters, channels=sorted(channels),
            instance_count=self.instance_count, processes_per_instance=self.processes_per_instance,
            environment={**self.environment, **compiler_env},
            startup_hooks=job_config.enabled, max_run=self.max_run,
            metric_definitions=self.metric_definitions,
            banner=self._banner(name, job_config))
        spec.save(job.spec_file)
        return spec

    def _banner(self, name: str, config: TrainingCompilerConfig) -> list[str]:
        lines = [f"bessemer: training job {name} ({self.framework}, engine {self.engine.name}, "
                 f"{self.instance_count} instance x {self.processes_per_instance} process(es))"]
        if config.enabled:
            lines.append(f"bessemer: training compiler configured (enabled=True, debug={config.debug})")
            if config.debug:
                lines.append(f"bessemer: compiler debug mode on: artifacts go to {config.debug_dir}")
        else:
            lines.append("bessemer: training compiler disabled (enabled=False): the script runs eagerly")
        return lines

    # -- the latest job -----------------------------------------------------------------
    def _latest(self) -> TrainingJob:
        if self.latest_training_job is None:
            raise RuntimeError("this estimator has not started a training job yet: call fit() first")
        return self.latest_training_job

    @property
    def model_data(self) -> str:
        """Path of the latest job's model artifact, `<output_path>/<job>/output/model.tar.gz`."""
        return self._latest().model_data

    def describe(self) -> dict[str, Any]:
        """The latest job's record (SageMaker's DescribeTrainingJob fields, plus bessemer's)."""
        return self._latest().describe()

    def wait(self, logs: Union[bool, str] = True) -> None:
        self._latest().wait(logs=_check_logs(logs))

    def stop(self) -> bool:
        """Stop the latest job (every process of it); False when it had already ended."""
        return self._latest().stop()

    def logs(self) -> None:
        self._latest().logs()

    def metrics(self) -> dict[str, list[Optional[float]]]:
        return self._latest().metrics()


class PyTorch(Estimator):
    """A PyTorch training script; with the compiler on, the script's
    `model = bessemer.compile(model)` compiles under the job's config."""

    framework = "pytorch"
    default_base_job_name = "pytorch-training"


class HuggingFace(Estimator):
    """A Hugging Face transformers training script; with the compiler on, a `Trainer`
    compiles its model with bessemer without any change to the script."""

    framework = "huggingface"
    default_base_job_name = "huggingface-training"


# -- validation ------------------------------------------------------------------------
def _check_entry_point(entry_point: Any, source_dir: Any) -> tuple[Optional[Path], str]:
    """(source_dir resolved or None, entry point: relative to source_dir, or a path)."""
    if not isinstance(entry_point, (str, os.PathLike)) or not os.fspath(entry_point):
        raise ValueError(f"entry_point must be the path of a Python script, got {entry_point!r}")
    entry = Path(entry_point)
    if entry.suffix != ".py":
        raise ValueError(f"entry_point must be a Python script (*.py), got {os.fspath(entry_point)!r}")
    if source_dir is None:
        if not entry.is_file():
            raise ValueError(f"entry_point {os.fspath(entry)!r} does not exist (or is not a file)")
        return None, str(entry.resolve())
    if not isinstance(source_dir, (str, os.PathLike)):
        raise ValueError(f"source_dir must be a folder path, got {source_dir!r}")
    src = Path(source_dir).resolve()
    if not src.is_dir():
        raise ValueError(f"source_dir {os.fspath(source_dir)!r} does not exist (or is not a folder)")
    full = (entry if entry.is_absolute() else src / entry).resolve()
    if not full.is_relative_to(src):
        raise ValueError(f"entry_point {os.fspath(entry)!r} is outside source_dir {str(src)!r}; "
                         "give it relative to source_dir, inside it")
    if not full.is_file():
        raise ValueError(f"entry_point {os.fspath(entry)!r} does not exist in source_dir {str(src)!r}")
    return src, full.relative_to(src).as_posix()


def _check_hyperparameters(hps: Any) -> dict[str, Any]:
    if hps is None:
        return {}
    if not isinstance(hps, Mapping):
        raise ValueError(f"hyperparameters must be a dict, got {type(hps).__name__}")
    for key, value in hps.items():
        if not isinstance(key, str) or not key or key.startswith("-") or any(c.isspace() for c in key):
            raise ValueError(f"hyperparameters: key {key!r} must be a non-empty string without "
                             "spaces or a leading '-'")
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise ValueError(f"hyperparameters[{key!r}] is not JSON-serialisable "
                             f"({type(value).__name__}: {e})") from None
    check_env_names("hyperparameters", list(hps))
    return json.loads(json.dumps(dict(hps)))  # a private, plain-JSON copy


def _check_count(name: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be an int >= 1, got {value!r}")
    return value


def _check_environment(env: Any) -> dict[str, str]:
    if env is None:
        return {}
    if not isinstance(env, Mapping):
        raise ValueError(f"environment must be a dict of str to str, got {type(env).__name__}")
    for k, v in env.items():
        if not isinstance(k, str) or not k or "=" in k or not isinstance(v, str):
            raise ValueError(f"environment must be a dict of str to str, got {k!r}: {v!r}")
    return dict(env)


def _check_output_path(path: Any) -> Path:
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        raise ValueError(f"output_path must be a local folder path, got {path!r}")
    text = os.fspath(path)
    if text.startswith("file://"):
        text = text[len("file://"):]
    elif "://" in text:
        raise ValueError(f"output_path must be a local folder (or file://...), got {text!r}")
    return Path(text).resolve()


def _check_job_name(field: str, name: Any, max_len: int = _JOB_NAME_MAX) -> str:
    if not isinstance(name, str) or not _JOB_NAME.match(name) or len(name) > max_len:
        raise ValueError(f"{field} must be letters, digits and hyphens (starting and ending with a "
                         f"letter or digit), at most {max_len} characters, got {name!r}")
    return name


def _check_max_run(max_run: Any) -> Optional[float]:
    if max_run is None:
        return None
    if isinstance(max_run, bool) or not isinstance(max_run, (int, float)) or not math.isfinite(max_run) \
            or max_run <= 0:
        raise ValueError(f"max_run must be a number of seconds > 0 (or None for no limit), got {max_run!r}")
    return max_run


def _check_inputs(inputs: Any) -> dict[str, Path]:
    if inputs is None:
        return {}
    if isinstance(inputs, (str, os.PathLike)):
        inputs = {"training": inputs}
    if not isinstance(inputs, Mapping):
        raise ValueError(f"inputs must be a path or a dict of channel name to path, got {type(inputs).__name__}")
    channels: dict[str, Path] = {}
    for name, path in inputs.items():
        if not isinstance(name, str) or not _CHANNEL_NAME.match(name):
            raise ValueError(f"inputs: channel name {name!r} must be letters, digits, '.', '_' or '-' "
                             "(starting with a letter or digit), at most 64 characters")
        if not isinstance(path, (str, os.PathLike)):
            raise ValueError(f"inputs[{name!r}] must be a local path, got {path!r}")
        text = os.fspath(path)
        if text.startswith("file://"):
            text = text[len("file://"):]
        elif "://" in text:
            raise ValueError(f"inputs[{name!r}] must be a local path (or file://...), got {text!r}")
        p = Path(text).resolve()
        if not p.exists():
            raise ValueError(f"inputs[{name!r}]: {text!r} does not exist")
        channels[name] = p
    check_env_names("inputs", list(channels))
    return channels


def _check_logs(logs: Any) -> bool:
    # SageMaker also takes "All" and "None"; the local engine has one log, so they mean True and False.
    if isinstance(logs, bool):
        return logs
    if logs in ("All", "Rules", "Training"):
        return True
    if logs == "None":
        return False
    raise ValueError(f"logs must be True, False, 'All' or 'None', got {logs!r}")
