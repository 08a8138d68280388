"""Estimator arguments of the SageMaker Python SDK that bessemer has no field for.

Each one is in exactly one of three places, so none is silently ignored:

    CLOUD     describes cloud resources (an IAM role, an instance type, a VPC): it means
              nothing on this machine, is accepted so estimator code carries over, and
              the job's log names it (instance_type is also checked: check_instance_type)
    RENAMED   bessemer has the same thing under its own name (checkpoint_s3_uri ->
              checkpoint_path)
    REFUSED   asks for something bessemer cannot do: ValueError, one line saying what to
              use instead (some are refused only for values that ask for something)

An argument in none of them is a TypeError, as for any Python function.
"""
from __future__ import annotations

import sys
from typing import Any, Callable, Mapping, Optional

CLOUD = frozenset({
    "role", "instance_type", "sagemaker_session", "subnets", "security_group_ids", "tags",
    "volume_size", "volume_kms_key", "output_kms_key", "framework_version", "py_version",
    "pytorch_version", "transformers_version", "code_location", "enable_sagemaker_metrics",
    "keep_alive_period_in_seconds", "disable_profiler", "container_log_level",
    "encrypt_inter_container_traffic",
})

RENAMED = {
    "checkpoint_s3_uri": "checkpoint_path",
    "max_retry_attempts": "max_retries",
}


def _always(_: Any) -> bool:
    return True


def _truthy(value: Any) -> bool:
    return bool(value)


def _not_file_mode(value: Any) -> bool:
    return value not in (None, "File")


# name -> (refused for this value?, what to do instead)
REFUSED: dict[str, tuple[Callable[[Any], bool], str]] = {
    "use_spot_instances": (_truthy, "a bessemer job runs on this machine, not on spot instances; to survive "
                                    "interruptions use checkpoint_path= (--checkpoint-path) and max_retries= "
                                    "(--max-retries)"),
    "max_wait": (lambda v: v is not None, "max_wait is the spot-instance wait; use max_run= (--max-run) to "
                                          "limit the job's time"),
    "checkpoint_local_path": (lambda v: v is not None,
                              "the job's checkpoint folder is <job>/checkpoints/, given to the script as "
                              "SM_CHECKPOINT_DIR: read that variable instead of a fixed path"),
    "image_uri": (lambda v: v is not None, f"bessemer runs the script with this Python ({sys.executable}): "
                                           "install what the script needs into that environment"),
    "debugger_hook_config": (_truthy, "there is no SageMaker Debugger here; TrainingCompilerConfig(debug=True) "
                                      "(--debug) keeps the compiler's artifacts, and the script can log what "
                                      "it needs to SM_OUTPUT_DATA_DIR"),
    "rules": (_truthy, "there are no SageMaker Debugger rules here; watch the metrics with "
                       "`bessemer jobs metrics NAME` or TensorBoard on <job>/output/tensorboard/"),
    "profiler_config": (_truthy, "there is no SageMaker Profiler here; `bessemer bench` measures speed and "
                                 "memory, and the job records its peak memory"),
    "tensorboard_output_config": (_truthy, "the job writes its metrics as TensorBoard event files to "
                                           "<job>/output/tensorboard/; the script's own event files can go to "
                                           "SM_OUTPUT_DATA_DIR"),
    "input_mode": (_not_file_mode, "channels are local folders linked into the job (SageMaker's 'File' mode); "
                                   "read them as files"),
    "enable_network_isolation": (_truthy, "bessemer cannot cut a local job off the network; run it in a "
                                          "container without a network for that"),
    "dependencies": (_truthy, "put those folders inside source_dir (--source-dir): it is copied into the job "
                              "whole"),
    "git_config": (_truthy, "clone the repository and pass its folder as source_dir (--source-dir)"),
    "model_uri": (_truthy, "pass the model as a channel, fit({'model': PATH}) (--channel model=PATH), and read "
                           "it from SM_CHANNEL_MODEL"),
    "model_channel_name": (_truthy, "pass the model as a channel, fit({'model': PATH}) (--channel model=PATH)"),
}


def split_sagemaker_options(cls_name: str, options: Mapping[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """(names of the cloud-only arguments given, {bessemer name: value} of renamed ones);
    TypeError for an unknown argument, ValueError for a refused one."""
    known = CLOUD | set(RENAMED) | set(REFUSED)
    unknown = sorted(set(options) - known)
    if unknown:
        raise TypeError(f"{cls_name}() got unexpected keyword argument(s) {unknown}")
    for name, value in options.items():
        if name in REFUSED:
            refuse, instead = REFUSED[name]
            if refuse(value):
                raise ValueError(f"{name}={value!r} is not supported: {instead}")
    cloud = sorted(n for n in options if n in CLOUD or n in REFUSED)
    renamed = {RENAMED[n]: v for n, v in options.items() if n in RENAMED}
    return cloud, renamed


# SageMaker local mode's instance types, and the prefixes of SageMaker's GPU instance types
# (ml.p3.2xlarge, ml.g5.xlarge, ...).
LOCAL_INSTANCE_TYPES = ("local", "local_gpu")
GPU_INSTANCE_PREFIXES = ("ml.p", "ml.g")


def wants_gpu(instance_type: Any) -> bool:
    return isinstance(instance_type, str) and (instance_type == "local_gpu"
                                               or instance_type.startswith(GPU_INSTANCE_PREFIXES))


def check_instance_type(instance_type: Any, allow_cpu: bool, gpus: Optional[int] = None) -> list[str]:
    """The job's log lines for `instance_type`; ValueError (one line) when it asks for a GPU
    this machine does not have, unless `allow_cpu`."""
    if not isinstance(allow_cpu, bool):
        raise ValueError(f"allow_cpu must be True or False, got {allow_cpu!r}")
    if instance_type is None:
        return []
    if not isinstance(instance_type, str) or not (instance_type in LOCAL_INSTANCE_TYPES
                                                  or instance_type.startswith("ml.")):
        raise ValueError(f"instance_type must be 'local', 'local_gpu' or a SageMaker type ('ml.m5.xlarge', "
                         f"'ml.p3.2xlarge', ...), got {instance_type!r}")
    if not wants_gpu(instance_type):
        return []
    if gpus is None:
        import torch
        gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if gpus:
        return [f"bessemer: instance_type {instance_type}: training on this machine's GPU(s) ({gpus})"]
    if not allow_cpu:
        raise ValueError(f"instance_type {instance_type!r} asks for a GPU and this machine has none "
                         "(torch.cuda.is_available() is False): pass allow_cpu=True to train on "
                         "the CPU, or instance_type='local'")
    return [f"bessemer: instance_type {instance_type} asks for a GPU; this machine has none: training on the "
            "CPU (allow_cpu=True)"]


def cloud_note(names: list[str]) -> list[str]:
    """The job's log line for the cloud-only arguments it was given."""
    if not names:
        return []
    return [f"bessemer: not used on this machine (SageMaker cloud settings): {', '.join(names)}"]
