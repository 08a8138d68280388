"""Estimators: describe a training job once, run it with fit().

    est = bessemer.PyTorch(entry_point="train.py", source_dir="src",
                           hyperparameters={"epochs": 2, "batch_size": 64},
                           compiler_config=bessemer.TrainingCompilerConfig())
    est.fit({"train": "data/train"})
    est.model_data          # runs/<job-name>/output/model.tar.gz

Parameter names follow the SageMaker Python SDK where they mean the same thing,
so estimator code written for it carries over; its other arguments are sorted in
sagemaker_args.py (cloud-only: accepted and named in the log; unsupported: one
ValueError saying what to use instead). Everything is checked here, at
construction (and the channels at fit()), with a ValueError naming the field.

    PyTorch.attach("job-name", output_path="runs")   an estimator bound to an earlier job
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import time
from pathlib import Path
from typing import Any, ClassVar, Mapping, Optional, Union

from ..config import ENV_CONFIG, ENV_DEBUG, TrainingCompilerConfig
from . import autobatch
from .checkpoints import check_checkpoint_path, in_process_only
from .contract import check_env_names, compiler_environment
from .engines import Engine, JobSpec, get_engine
from .errors import JobFailedError, JobStoppedError
from .job import TrainingJob
from .layout import JobDir, copy_source, link_channels
from .metrics import validate_definitions
from .analytics import TrainingJobAnalytics
from .sagemaker_args import check_instance_type, cloud_note, split_sagemaker_options
from .staging import channel_source, check_bucket, check_input, filesystem, is_url, job_output_url, stage_in
from .store import FAILED, JobNameTaken, JobRecord, JobStore, UnknownJob

__all__ = ["Estimator", "PyTorch", "HuggingFace", "TrainingJob", "JobFailedError", "JobStoppedError"]

DEFAULT_MAX_RUN = 24 * 60 * 60  # seconds, SageMaker's default
# SageMaker's rule for job names: letters, digits and single-or-more hyphens between them, 63 at most.
_JOB_NAME = re.compile(r"^[a-zA-Z0-9](-*[a-zA-Z0-9])*$")
_JOB_NAME_MAX = 63
_CHANNEL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
MAX_RETRIES = 30  # SageMaker's limit on retry attempts
# distribution= switches, as the SageMaker SDK spells them, that bessemer runs with torchrun.
_TORCHRUN_DISTRIBUTIONS = ("torch_distributed", "pytorchddp")


class Estimator:
    """A training job's description; `fit()` runs it. Use `PyTorch` or `HuggingFace`."""

    framework: ClassVar[str] = "pytorch"
    default_base_job_name: ClassVar[str] = "bessemer-training"

    def __init__(self, entry_point: Union[str, os.PathLike],
                 source_dir: Optional[Union[str, os.PathLike]] = None,
                 hyperparameters: Optional[Mapping[str, Any]] = None,
                 instance_count: int = 1,
                 processes_per_instance: Optional[int] = None,
                 environment: Optional[Mapping[str, str]] = None,
                 compiler_config: Optional[TrainingCompilerConfig] = None,
                 metric_definitions: Optional[list[dict[str, str]]] = None,
                 output_path: Union[str, os.PathLike] = "runs",
                 base_job_name: Optional[str] = None,
                 max_run: Optional[float] = DEFAULT_MAX_RUN,
                 checkpoint_path: Optional[Union[str, os.PathLike]] = None,
                 max_retries: int = 0,
                 distribution: Optional[Mapping[str, Any]] = None,
                 metrics_csv: bool = False,
                 allow_cpu: bool = False,
                 engine: Union[str, Engine] = "local",
                 cluster_address: Optional[str] = None,
                 **sagemaker_options: Any):
        self.cloud_arguments, renamed = split_sagemaker_options(type(self).__name__, sagemaker_options)
        self.instance_type = sagemaker_options.get("instance_type")
        self.instance_note = check_instance_type(self.instance_type, allow_cpu)
        if self.instance_type in ("local", "local_gpu"):  # SageMaker local mode's names: understood here
            self.cloud_arguments = [a for a in self.cloud_arguments if a != "instance_type"]
        if "checkpoint_path" in renamed:
            if checkpoint_path is not None:
                raise ValueError("checkpoint_s3_uri and checkpoint_path name the same thing: give one")
            checkpoint_path = renamed["checkpoint_path"]
        if "max_retries" in renamed:
            if max_retries:
                raise ValueError("max_retry_attempts and max_retries name the same thing: give one")
            max_retries = renamed["max_retries"]
        self.source_dir, self.entry_point = _check_entry_point(entry_point, source_dir)
        self.hyperparameters = Hyperparameters(_check_hyperparameters(hyperparameters))
        autobatch.check(self.hyperparameters)  # batch_size="auto" and its companions
        self.instance_count = _check_count("instance_count", instance_count)
        if processes_per_instance is not None:
            _check_count("processes_per_instance", processes_per_instance)
        self.distribution = distribution
        self.processes_per_instance, self.distributed = _check_distribution(distribution, processes_per_instance)
        self.checkpoint_path = check_checkpoint_path("checkpoint_path", checkpoint_path)
        self.max_retries = _check_retries(max_retries)
        if not isinstance(metrics_csv, bool):
            raise ValueError(f"metrics_csv must be True or False, got {metrics_csv!r}")
        self.metrics_csv = metrics_csv
        self.environment = _check_environment(environment)
        if compiler_config is None:
            compiler_config = TrainingCompilerConfig()
        if not isinstance(compiler_config, TrainingCompilerConfig):
            raise ValueError(f"compiler_config must be a bessemer.TrainingCompilerConfig (or None for the "
                             f"defaults), got {type(compiler_config).__name__}")
        self.compiler_config = compiler_config
        self.metric_definitions = [d.to_dict() for d in validate_definitions(metric_definitions)]
        self.output_path, self.output_url = _check_output_path(output_path)
        self.base_job_name = _check_job_name("base_job_name", base_job_name or self.default_base_job_name,
                                             max_len=_JOB_NAME_MAX - 24)
        self.max_run = _check_max_run(max_run)
        self.engine = get_engine(engine, cluster_address)  # engine='ray': None, 'auto' or 'ray://host:port'
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
        for field, url in (("checkpoint_path", self.checkpoint_path), ("output_path", self.output_url)):
            if not wait and in_process_only(url):
                raise ValueError(f"{field} {url!r} lives in this process's memory, and a job started with "
                                 "wait=False runs in another process: use a folder or a remote URL, or "
                                 "fit(wait=True)")
            if url and is_url(url):
                check_bucket(field, url)  # a missing bucket is one error now, before anything starts
        if job_name is not None:
            _check_job_name("job_name", job_name)
            _refuse_taken(self.output_path, job_name)
        store = JobStore(self.output_path)
        record = self._record(channels)
        if job_name is not None:
            record.name = job_name
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

    def _record(self, channels: Mapping[str, Union[Path, str]]) -> JobRecord:
        return JobRecord(
            name="", framework=self.framework, engine=self.engine.name,
            entry_point=self.entry_point, source_dir=str(self.source_dir) if self.source_dir else None,
            inputs={k: str(v) for k, v in channels.items()},
            hyperparameters=self.hyperparameters, compiler_config=self.compiler_config.to_dict(),
            instance_count=self.instance_count, processes_per_instance=self.processes_per_instance,
            max_run=self.max_run, creation_time=time.time(), checkpoint_path=self.checkpoint_path,
            max_retries=self.max_retries)

    def _prepare(self, name: str, channels: Mapping[str, Union[Path, str]]) -> JobSpec:
        """Make the job's folder and describe what the engine must run."""
        store = JobStore(self.output_path)
        job = JobDir.create(self.output_path / name)
        store.update(name, job_dir=str(job.root), log_path=str(job.log))
        entry = (self.source_dir / self.entry_point) if self.source_dir else Path(self.entry_point)
        copy_source(self.source_dir, entry.resolve(), job.code, exclude=(self.output_path,))
        link_channels(job, {k: v for k, v in channels.items() if isinstance(v, Path)})
        staged = []
        for channel, url in sorted((k, v) for k, v in channels.items() if isinstance(v, str)):
            n = stage_in(url, job.channel(channel))
            staged.append(f"bessemer: channel {channel}: {n} file{'' if n == 1 else 's'} staged in from {url}")
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
            banner=self._banner(name, job_config) + staged,
            # batch_size="auto": the job's first phase searches (the supervisor runs it)
            batch_search=autobatch.phase_spec(self.hyperparameters, self.compiler_config, self.framework,
                                              self.output_path / SEARCHES_DIR),
            source_dir=str(self.source_dir or Path(self.entry_point).parent),
            distributed=self.distributed, checkpoint_path=self.checkpoint_path,
            max_retries=self.max_retries, metrics_csv=self.metrics_csv,
            compiler_enabled=job_config.enabled, output_url=self.output_url)
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
        if self.distribution and self.distributed:
            lines.append(f"bessemer: distribution {sorted(self.distribution)[0]}: torchrun with "
                         f"{self.processes_per_instance} process(es)")
        if self.checkpoint_path:
            lines.append(f"bessemer: checkpoints kept at {self.checkpoint_path}")
        if self.output_url:
            lines.append(f"bessemer: outputs go to {job_output_url(self.output_url, name)}/ at the end "
                         f"(the job's folder and record stay in {self.output_path})")
        lines += self.instance_note
        if self.max_retries:
            lines.append(f"bessemer: a failed attempt is restarted up to {self.max_retries} time(s)")
        return lines + cloud_note(self.cloud_arguments)

    @classmethod
    def attach(cls, training_job_name: str, output_path: Union[str, os.PathLike] = "runs",
               **sagemaker_options: Any) -> "Estimator":
        """An estimator bound to the job `training_job_name` under `output_path`, as the job
        was described: `describe()`, `logs()`, `model_data` act on that job, and `fit()`
        runs it again as a new job. (SageMaker's sagemaker_session= is accepted and unused.)"""
        split_sagemaker_options(f"{cls.__name__}.attach", sagemaker_options)
        job = TrainingJob.attach(training_job_name, output_path)
        rec = job.record()
        if cls is not Estimator and rec.framework != cls.framework:
            other = {"pytorch": "PyTorch", "huggingface": "HuggingFace"}.get(rec.framework, "Estimator")
            raise ValueError(f"training job {training_job_name} is a {rec.framework} job: use {other}.attach")
        est = cls.__new__(cls)
        spec = _recorded_spec(job)
        config = {k: v for k, v in rec.compiler_config.items()
                  if k in {f.name for f in dataclasses.fields(TrainingCompilerConfig)}}
        est.source_dir = Path(rec.source_dir) if rec.source_dir else None
        est.entry_point = rec.entry_point
        est.hyperparameters = Hyperparameters(rec.hyperparameters)
        est.instance_count = rec.instance_count
        est.processes_per_instance = rec.processes_per_instance
        est.distributed = bool(spec.get("distributed", False))
        est.distribution = {"torch_distributed": {"enabled": True}} if est.distributed else None
        est.environment = {k: v for k, v in spec.get("environment", {}).items()
                           if k not in (ENV_CONFIG, ENV_DEBUG)}
        est.compiler_config = TrainingCompilerConfig.from_dict({**config, "debug_dir": None})
        est.metric_definitions = list(spec.get("metric_definitions", []))
        est.output_path = job.output_path
        est.output_url = spec.get("output_url")
        est.instance_type, est.instance_note = None, []
        est.base_job_name = _base_of(training_job_name)
        est.max_run = rec.max_run
        est.checkpoint_path = rec.checkpoint_path
        est.max_retries = rec.max_retries
        est.metrics_csv = bool(spec.get("metrics_csv", False))
        est.cloud_arguments = []
        est.engine = get_engine("local")  # fit() runs the job again on this machine
        est.latest_training_job = job
        return est

    # -- the latest job -----------------------------------------------------------------
    def _latest(self) -> TrainingJob:
        if self.latest_training_job is None:
            raise RuntimeError("this estimator has not started a training job yet: call fit() first")
        return self.latest_training_job

    @property
    def model_data(self) -> str:
        """The latest job's model artifact: `<output_path>/<job>/output/model.tar.gz` (a URL
        when output_path is one)."""
        job = self._latest()
        if self.output_url:
            return f"{job_output_url(self.output_url, job.name)}/model.tar.gz"
        return job.model_data

    @property
    def training_job_analytics(self) -> TrainingJobAnalytics:
        """The latest job's metrics; `.dataframe()` is a table of them, as SageMaker's."""
        job = self._latest()
        return TrainingJobAnalytics(job.name, output_path=job.output_path)

    def set_hyperparameters(self, **hyperparameters: Any) -> None:
        """Add or replace hyperparameters, as SageMaker's set_hyperparameters does."""
        merged = _check_hyperparameters({**self.hyperparameters, **hyperparameters})
        autobatch.check(merged)
        self.hyperparameters = Hyperparameters(merged)

    def describe(self) -> dict[str, Any]:
        """The latest job's record (SageMaker's DescribeTrainingJob fields, plus bessemer's)."""
        return self._latest().describe()

    def wait(self, logs: Union[bool, str] = True) -> None:
        self._latest().wait(logs=_check_logs(logs))

    def stop(self) -> bool:
        """Stop the latest job (every process of it); False when it had already ended."""
        return self._latest().stop()

    def logs(self) -> None:
        """Print the latest job's log and follow it to the job's end, as SageMaker's logs()
        does; raises JobFailedError (JobStoppedError) unless the job completed."""
        self._latest().wait(logs=True)

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


class Hyperparameters(dict):
    """The estimator's hyperparameters: a dict, and, called as SageMaker's
    `hyperparameters()` method is, a copy of it."""

    def __call__(self) -> dict[str, Any]:
        return dict(self)


# -- validation ------------------------------------------------------------------------
def _refuse_taken(output_path: Path, name: str) -> None:
    try:
        JobStore(output_path, create=False).get(name)
    except (UnknownJob, ValueError):
        return
    raise JobNameTaken(f"job_name {name!r} is already taken in {output_path}")


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


def _recorded_spec(job: TrainingJob) -> dict[str, Any]:
    try:
        return json.loads(job.job_dir.spec_file.read_text())
    except (OSError, ValueError):
        return {}


def _base_of(job_name: str) -> str:
    """The base name a generated job name was made from (`demo-2024-...` -> `demo`)."""
    m = re.match(r"^(.*?)-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}-\d{3}(-[0-9a-f]{4})?$", job_name)
    base = m.group(1) if m else job_name
    return base[: _JOB_NAME_MAX - 24].rstrip("-") or "bessemer-training"


def _check_distribution(distribution: Any, processes: Optional[int]) -> tuple[int, bool]:
    """(processes per instance, whether to launch under torchrun) for SageMaker's
    distribution= switch: torch_distributed / pytorchddp launch one process per GPU
    (processes_per_instance when given; one on a machine without a GPU)."""
    if distribution is None:
        return processes or 1, (processes or 1) > 1
    if not isinstance(distribution, Mapping) or len(distribution) != 1:
        raise ValueError("distribution must be one switch, e.g. {'torch_distributed': {'enabled': True}}, "
                         f"got {distribution!r}")
    [(kind, options)] = distribution.items()
    if kind not in _TORCHRUN_DISTRIBUTIONS:
        raise ValueError(f"distribution {kind!r} is not supported: bessemer runs data-parallel jobs with torchrun; "
                         "use distribution={'torch_distributed': {'enabled': True}} and processes_per_instance=N "
                         "(--processes N)")
    if not isinstance(options, Mapping) or set(options) - {"enabled"} or \
            not isinstance(options.get("enabled", False), bool):
        raise ValueError(f"distribution[{kind!r}] must be {{'enabled': True}} or {{'enabled': False}}, got "
                         f"{options!r}")
    if not options.get("enabled", False):
        return processes or 1, (processes or 1) > 1
    if processes is None:
        import torch
        processes = torch.cuda.device_count() if torch.cuda.is_available() else 1
    return max(processes, 1), True


def _check_retries(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_RETRIES:
        raise ValueError(f"max_retries must be an int from 0 to {MAX_RETRIES}, got {value!r}")
    return value


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


# Under output_path: batch_size="auto" searches kept per (script, limit, mode, ...).
SEARCHES_DIR = ".batch-searches"
# Where the jobs' folders and records go when output_path is a URL (the outputs go there).
LOCAL_RUNS = "runs"


def _check_output_path(path: Any) -> tuple[Path, Optional[str]]:
    """(the local folder of the jobs and their records, the URL outputs are uploaded to or None)."""
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        raise ValueError(f"output_path must be a folder or a URL (s3://..., gs://..., file://...), got {path!r}")
    text = os.fspath(path)
    if text.startswith("file://"):
        text = text[len("file://"):]
    elif "://" in text:
        filesystem("output_path", text)  # its file system must load (s3:// needs bessemer[s3])
        return Path(LOCAL_RUNS).resolve(), text
    return Path(text).resolve(), None


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


def _check_inputs(inputs: Any) -> dict[str, Union[Path, str]]:
    """{channel: local path (linked into the job) or URL (staged in)}; a URL is checked to
    exist, its bucket too."""
    if inputs is None:
        return {}
    if isinstance(inputs, (str, os.PathLike)) or hasattr(inputs, "config"):
        inputs = {"training": inputs}
    if not isinstance(inputs, Mapping):
        raise ValueError(f"inputs must be a path or a dict of channel name to path, got {type(inputs).__name__}")
    channels: dict[str, Union[Path, str]] = {}
    for name, path in inputs.items():
        if not isinstance(name, str) or not _CHANNEL_NAME.match(name):
            raise ValueError(f"inputs: channel name {name!r} must be letters, digits, '.', '_' or '-' "
                             "(starting with a letter or digit), at most 64 characters")
        text = os.fspath(channel_source(name, path))
        if text.startswith("file://"):
            text = text[len("file://"):]
        elif "://" in text:
            check_input(f"inputs[{name!r}]", text)
            channels[name] = text
            continue
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
