"""The environment contract between a training job and the script it runs.

Existing SageMaker training scripts read their paths and settings from SM_*
environment variables and their hyperparameters from `--key value` arguments.
A bessemer job sets the same variables, so those scripts run unchanged, and a
BESSEMER_* twin of each one, for scripts written for bessemer:

    name (after SM_ / BESSEMER_)  value
    MODEL_DIR                     the job's model/ folder (packed to output/model.tar.gz)
    CHANNELS                      JSON list of the input channel names, sorted
    CHANNEL_<NAME>                folder of input channel NAME
    HPS                           JSON object of the hyperparameters
    HP_<NAME>                     one hyperparameter: strings as they are, other values as JSON
    USER_ARGS                     JSON list of the arguments the script gets
    OUTPUT_DIR, OUTPUT_DATA_DIR   the job's output/ and output/data/ folders
    INPUT_DIR, INPUT_CONFIG_DIR   the job's input/ and input/config/ folders
    CHECKPOINT_DIR                the job's checkpoints/ folder (bessemer's own name)
    MODULE_DIR                    the folder the script runs in (a copy of source_dir)
    USER_ENTRY_POINT              the script, relative to MODULE_DIR
    NUM_CPUS, NUM_GPUS            what this host has
    HOSTS, CURRENT_HOST           JSON list of the job's hosts, and this one's name
    RESOURCE_CONFIG               JSON {"current_host", "hosts"}
    INPUT_DATA_CONFIG             JSON {channel: {}} for each channel
    TRAINING_ENV                  JSON of all of the above, as one object
    LOG_LEVEL                     20 (logging.INFO)
    DIST_BACKEND                  "nccl" where the host has a GPU, else "gloo"

plus TRAINING_JOB_NAME (as SageMaker sets it) and BESSEMER_JOB_NAME. Names of
channels and hyperparameters are upper-cased in variable names, and any
character other than a letter, digit or underscore becomes an underscore.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..config import ENV_CONFIG, ENV_DEBUG, TrainingCompilerConfig

PREFIXES = ("SM_", "BESSEMER_")
_ENV_UNSAFE = re.compile(r"[^A-Z0-9_]")


def env_suffix(name: str) -> str:
    """The part of a variable name that stands for a channel or hyperparameter name."""
    return _ENV_UNSAFE.sub("_", name.upper())


def _as_env_value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _as_arg_value(value: Any) -> str:
    # Booleans as Python writes them ("True"), as SageMaker passed them; containers as JSON.
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (dict, list, tuple)) or value is None:
        return json.dumps(value, sort_keys=True)
    return str(value)


def hyperparameters_to_args(hyperparameters: Mapping[str, Any]) -> list[str]:
    """`{"epochs": 2, "lr": 3e-4}` -> `["--epochs", "2", "--lr", "0.0003"]` (keys sorted)."""
    args: list[str] = []
    for key in sorted(hyperparameters):
        args += [f"--{key}", _as_arg_value(hyperparameters[key])]
    return args


@dataclass(frozen=True)
class ContractPaths:
    """The folders of one job that a script is told about (absolute paths)."""

    model_dir: str
    output_dir: str
    output_data_dir: str
    input_dir: str
    input_config_dir: str
    checkpoint_dir: str
    module_dir: str
    channel_dirs: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class HostInfo:
    """What a job's engine tells each process about where it runs."""

    current_host: str
    hosts: Sequence[str]
    num_cpus: int
    num_gpus: int

    @property
    def dist_backend(self) -> str:
        return "nccl" if self.num_gpus > 0 else "gloo"


def contract_values(job_name: str, paths: ContractPaths, entry_point: str,
                    hyperparameters: Mapping[str, Any], host: HostInfo) -> dict[str, str]:
    """The contract as {suffix: value}; `training_environment` adds the prefixes."""
    channels = sorted(paths.channel_dirs)
    user_args = hyperparameters_to_args(hyperparameters)
    values: dict[str, str] = {
        "MODEL_DIR": paths.model_dir,
        "CHANNELS": json.dumps(channels),
        "HPS": json.dumps(dict(hyperparameters), sort_keys=True),
        "USER_ARGS": json.dumps(user_args),
        "OUTPUT_DIR": paths.output_dir,
        "OUTPUT_DATA_DIR": paths.output_data_dir,
        "INPUT_DIR": paths.input_dir,
        "INPUT_CONFIG_DIR": paths.input_config_dir,
        "CHECKPOINT_DIR": paths.checkpoint_dir,
        "MODULE_DIR": paths.module_dir,
        "USER_ENTRY_POINT": entry_point,
        "NUM_CPUS": str(host.num_cpus),
        "NUM_GPUS": str(host.num_gpus),
        "HOSTS": json.dumps(list(host.hosts)),
        "CURRENT_HOST": host.current_host,
        "RESOURCE_CONFIG": json.dumps({"current_host": host.current_host, "hosts": list(host.hosts)}),
        "INPUT_DATA_CONFIG": json.dumps({c: {} for c in channels}),
        "LOG_LEVEL": "20",
        "DIST_BACKEND": host.dist_backend,
    }
    for name in channels:
        values[f"CHANNEL_{env_suffix(name)}"] = paths.channel_dirs[name]
    for key, value in hyperparameters.items():
        values[f"HP_{env_suffix(key)}"] = _as_env_value(value)
    values["TRAINING_ENV"] = json.dumps({
        "job_name": job_name,
        "hyperparameters": dict(hyperparameters),
        "channel_input_dirs": dict(paths.channel_dirs),
        "model_dir": paths.model_dir,
        "output_dir": paths.output_dir,
        "output_data_dir": paths.output_data_dir,
        "input_dir": paths.input_dir,
        "input_config_dir": paths.input_config_dir,
        "checkpoint_dir": paths.checkpoint_dir,
        "module_dir": paths.module_dir,
        "user_entry_point": entry_point,
        "num_cpus": host.num_cpus,
        "num_gpus": host.num_gpus,
        "hosts": list(host.hosts),
        "current_host": host.current_host,
        "user_args": user_args,
    }, sort_keys=True)
    return values


def training_environment(job_name: str, paths: ContractPaths, entry_point: str,
                         hyperparameters: Mapping[str, Any], host: HostInfo) -> dict[str, str]:
    """Every variable of the contract, SM_* and BESSEMER_* twins, plus the job's name."""
    values = contract_values(job_name, paths, entry_point, hyperparameters, host)
    env = {prefix + suffix: value for suffix, value in values.items() for prefix in PREFIXES}
    env["TRAINING_JOB_NAME"] = job_name
    env["BESSEMER_JOB_NAME"] = job_name
    return env


def check_env_names(kind: str, names: Sequence[str]) -> None:
    """Two names that map to one variable (`a-b` and `a_b`) would hide each other."""
    seen: dict[str, str] = {}
    for name in names:
        suffix = env_suffix(name)
        if suffix in seen:
            raise ValueError(f"{kind}: {seen[suffix]!r} and {name!r} map to the same environment "
                             f"variable name ({suffix}); rename one")
        seen[suffix] = name


def compiler_environment(config: TrainingCompilerConfig, debug_dir: str
                         ) -> tuple[TrainingCompilerConfig, dict[str, str]]:
    """The compiler config a job's processes get, and the variables that carry it.

    With debug on, the compiler's artifacts go to `debug_dir` (the job's
    output/data/compiler/); with debug off, no folder is set, so nothing is dumped.
    """
    job_config = config.replace(debug_dir=str(debug_dir) if config.debug else None)
    env = {ENV_CONFIG: job_config.to_json()}
    if config.debug:
        env[ENV_DEBUG] = str(debug_dir)
    return job_config, env
