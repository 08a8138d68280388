"""The environment contract: what a job's processes are told, as pure values."""
import json

import pytest

from bessemer import TrainingCompilerConfig
from bessemer.config import ENV_CONFIG, ENV_DEBUG
from bessemer.jobs.contract import (ContractPaths, HostInfo, check_env_names, compiler_environment,
                                    env_suffix, hyperparameters_to_args, training_environment)

# The variables a SageMaker training script may read (and bessemer's CHECKPOINT_DIR).
REQUIRED = ["MODEL_DIR", "CHANNELS", "HPS", "OUTPUT_DATA_DIR", "CHECKPOINT_DIR", "NUM_CPUS", "NUM_GPUS",
            "HOSTS", "CURRENT_HOST", "USER_ARGS"]


def paths(channels=("train", "test")):
    return ContractPaths(model_dir="/j/model", output_dir="/j/output", output_data_dir="/j/output/data",
                         input_dir="/j/input", input_config_dir="/j/input/config",
                         checkpoint_dir="/j/checkpoints", module_dir="/j/code",
                         channel_dirs={c: f"/j/input/data/{c}" for c in channels})


HOST = HostInfo(current_host="algo-1", hosts=["algo-1"], num_cpus=2, num_gpus=0)


def test_hyperparameters_become_sorted_key_value_arguments():
    args = hyperparameters_to_args({"lr": 3e-4, "epochs": 2, "name": "bert", "fp16": True,
                                    "layers": [1, 2], "opts": {"b": 1}, "none": None})
    assert args == ["--epochs", "2", "--fp16", "True", "--layers", "[1, 2]", "--lr", "0.0003",
                    "--name", "bert", "--none", "null", "--opts", '{"b": 1}']


def test_every_contract_variable_has_a_bessemer_twin_with_the_same_value():
    hps = {"epochs": 2, "learning_rate": 3e-4, "model-name": "bert", "fp16": False}
    env = training_environment("job-1", paths(), "train.py", hps, HOST)
    for suffix in REQUIRED + ["CHANNEL_TRAIN", "CHANNEL_TEST", "HP_EPOCHS"]:
        assert env["SM_" + suffix] == env["BESSEMER_" + suffix], suffix
    sm = {k[3:]: v for k, v in env.items() if k.startswith("SM_")}
    bess = {k[9:]: v for k, v in env.items() if k.startswith("BESSEMER_") and k != "BESSEMER_JOB_NAME"}
    assert sm == bess


def test_contract_values():
    hps = {"epochs": 2, "learning_rate": 3e-4, "model-name": "bert", "fp16": False}
    env = training_environment("job-1", paths(), "train.py", hps, HOST)
    assert env["SM_MODEL_DIR"] == "/j/model"
    assert env["SM_OUTPUT_DATA_DIR"] == "/j/output/data"
    assert env["SM_CHECKPOINT_DIR"] == "/j/checkpoints"
    assert json.loads(env["SM_CHANNELS"]) == ["test", "train"]
    assert env["SM_CHANNEL_TRAIN"] == "/j/input/data/train"
    assert env["SM_CHANNEL_TEST"] == "/j/input/data/test"
    assert json.loads(env["SM_HPS"]) == hps
    # Strings as they are, other values as JSON; names upper-cased, '-' -> '_'.
    assert env["SM_HP_EPOCHS"] == "2"
    assert env["SM_HP_LEARNING_RATE"] == "0.0003"
    assert env["SM_HP_MODEL_NAME"] == "bert"
    assert env["SM_HP_FP16"] == "false"
    assert json.loads(env["SM_USER_ARGS"]) == hyperparameters_to_args(hps)
    assert env["SM_NUM_CPUS"] == "2" and env["SM_NUM_GPUS"] == "0"
    assert json.loads(env["SM_HOSTS"]) == ["algo-1"] and env["SM_CURRENT_HOST"] == "algo-1"
    assert env["SM_DIST_BACKEND"] == "gloo"
    assert env["TRAINING_JOB_NAME"] == env["BESSEMER_JOB_NAME"] == "job-1"
    training_env = json.loads(env["SM_TRAINING_ENV"])
    assert training_env["channel_input_dirs"]["train"] == "/j/input/data/train"
    assert training_env["hyperparameters"] == hps


def test_gpu_hosts_use_nccl():
    gpu = HostInfo(current_host="algo-1", hosts=["algo-1"], num_cpus=16, num_gpus=8)
    env = training_environment("j", paths(), "train.py", {}, gpu)
    assert env["SM_DIST_BACKEND"] == env["BESSEMER_DIST_BACKEND"] == "nccl"
    assert env["SM_NUM_GPUS"] == "8"


def test_names_that_would_share_a_variable_are_refused():
    assert env_suffix("train-data.v2") == "TRAIN_DATA_V2"
    with pytest.raises(ValueError, match="hyperparameters.*'a-b'.*'a_b'"):
        check_env_names("hyperparameters", ["a-b", "a_b"])
    check_env_names("inputs", ["train", "test"])


def test_compiler_environment_puts_debug_artifacts_in_the_job():
    cfg, env = compiler_environment(TrainingCompilerConfig(debug=True), "/j/output/data/compiler")
    assert cfg.debug_dir == "/j/output/data/compiler"
    assert env[ENV_DEBUG] == "/j/output/data/compiler"
    assert TrainingCompilerConfig.from_json(env[ENV_CONFIG]) == cfg

    cfg, env = compiler_environment(TrainingCompilerConfig(debug_dir="/elsewhere"), "/j/output/data/compiler")
    assert cfg.debug_dir is None and ENV_DEBUG not in env  # debug off: nothing is dumped

    cfg, env = compiler_environment(TrainingCompilerConfig(enabled=False), "/x")
    assert TrainingCompilerConfig.from_json(env[ENV_CONFIG]).enabled is False
