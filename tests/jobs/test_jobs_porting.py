"""A SageMaker estimator script ported as it is: hyperparameters() as a method,
latest_training_job.job_name, training_job_analytics, channels and outputs at fsspec URLs
(memory:// and file:// here; s3:// in test_jobs_s3.py), and instance_type."""
from __future__ import annotations

import io
import tarfile

import fsspec
import pytest

from bessemer import PyTorch, TrainingCompilerConfig
from bessemer.jobs.sagemaker_args import check_instance_type

from jobs_testing import write

SCRIPT = """
import argparse, os
p = argparse.ArgumentParser(); p.add_argument("--epochs", type=int); args = p.parse_args()
names = sorted(os.listdir(os.environ["SM_CHANNEL_TRAIN"]))
for epoch in range(args.epochs):
    print(f"epoch={epoch} loss={1.0 / (epoch + 1):.4f}", flush=True)
open(os.path.join(os.environ["SM_MODEL_DIR"], "files.txt"), "w").write(",".join(names))
os.makedirs(os.path.join(os.environ["SM_OUTPUT_DATA_DIR"], "plots"))
open(os.path.join(os.environ["SM_OUTPUT_DATA_DIR"], "plots", "a.txt"), "w").write("a")
"""


def _est(tmp_path, **kw):
    write(tmp_path / "src" / "train.py", SCRIPT)
    kw.setdefault("output_path", str(tmp_path / "runs"))
    return PyTorch(entry_point="train.py", source_dir=str(tmp_path / "src"), hyperparameters={"epochs": 3},
                   compiler_config=TrainingCompilerConfig(enabled=False),
                   metric_definitions=[{"Name": "loss", "Regex": r"loss=([0-9.]+)"}], **kw)


def test_sagemaker_calls_carry_over(tmp_path):
    write(tmp_path / "data" / "x.csv", "1\n")
    est = _est(tmp_path)
    assert est.hyperparameters() == {"epochs": 3} and est.hyperparameters["epochs"] == 3
    est.set_hyperparameters(epochs=2)
    assert est.hyperparameters() == {"epochs": 2}
    est.fit({"train": f"file://{tmp_path / 'data'}"}, logs=False)
    job = est.latest_training_job
    assert job.job_name == job.name and job.job_name.startswith("pytorch-training-")
    df = est.training_job_analytics.dataframe()
    assert list(df.columns) == ["timestamp", "metric_name", "value"]
    assert list(df["metric_name"]) == ["loss", "loss"] and list(df["value"]) == [1.0, 0.5]
    assert (df["timestamp"] >= 0).all()
    with tarfile.open(tmp_path / "runs" / job.job_name / "output" / "output.tar.gz") as tar:
        assert sorted(tar.getnames()) == ["plots", "plots/a.txt"]


def test_memory_channels_and_output_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the jobs' folders and records go to ./runs
    fs = fsspec.filesystem("memory")
    fs.pipe("/porting/data/a.csv", b"1")
    fs.pipe("/porting/data/sub/b.csv", b"2")

    class TrainingInput:  # the SageMaker SDK's class, as far as fit() looks at it
        config = {"DataSource": {"S3DataSource": {"S3Uri": "memory://porting/data"}}, "InputMode": "File"}

    est = _est(tmp_path, output_path="memory://porting/out")
    with pytest.raises(ValueError, match="output_path 'memory://porting/out' lives in this process's memory"):
        est.fit({"train": TrainingInput()}, wait=False)
    est.fit({"train": TrainingInput()}, logs=False, job_name="mem")
    assert est.model_data == "memory://porting/out/mem/output/model.tar.gz"
    with tarfile.open(fileobj=io.BytesIO(fs.cat("/porting/out/mem/output/model.tar.gz"))) as tar:
        assert tar.extractfile("files.txt").read() == b"a.csv,sub"
    assert fs.exists("/porting/out/mem/output/output.tar.gz")
    with pytest.raises(ValueError, match=r"^inputs\['train'\]: 'memory://porting/nothing' does not exist$"):
        est.fit({"train": "memory://porting/nothing"})
    with pytest.raises(ValueError, match=r"input_mode 'Pipe' is not supported"):
        est.fit({"train": {"S3Uri": "memory://porting/data", "InputMode": "Pipe"}})


def test_a_taken_job_name_is_refused_before_anything_runs(tmp_path):
    est = _est(tmp_path)
    write(tmp_path / "data" / "x.csv", "1\n")
    est.fit({"train": str(tmp_path / "data")}, logs=False, job_name="once")
    again = _est(tmp_path)
    again.set_hyperparameters(batch_size="auto", memory_limit="1KiB")  # a search that would fail, never run
    with pytest.raises(ValueError, match="job_name 'once' is already taken"):
        again.fit({"train": str(tmp_path / "data")}, logs=False, job_name="once")


def test_instance_type(tmp_path):
    assert check_instance_type("local", False, gpus=0) == []
    assert check_instance_type("ml.m5.xlarge", False, gpus=0) == []
    for gpu_type in ("local_gpu", "ml.p3.2xlarge", "ml.g5.xlarge"):
        with pytest.raises(ValueError) as info:
            check_instance_type(gpu_type, False, gpus=0)
        assert "\n" not in str(info.value) and "allow_cpu=True" in str(info.value)
        assert str(info.value).startswith(f"instance_type {gpu_type!r} asks for a GPU")
        assert "training on the CPU (allow_cpu=True)" in check_instance_type(gpu_type, True, gpus=0)[0]
        assert "GPU(s) (2)" in check_instance_type(gpu_type, False, gpus=2)[0]
    with pytest.raises(ValueError, match="instance_type must be 'local', 'local_gpu' or a SageMaker type"):
        check_instance_type("p3.2xlarge", False, gpus=0)
    import torch
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="asks for a GPU and this machine has none"):
            _est(tmp_path, instance_type="ml.p3.2xlarge")
        est = _est(tmp_path, instance_type="local_gpu", allow_cpu=True)
        write(tmp_path / "data" / "x.csv", "1\n")
        est.fit({"train": str(tmp_path / "data")}, logs=False)
        log = open(est.latest_training_job.log_path).read()
        assert "asks for a GPU; this machine has none: training on the CPU (allow_cpu=True)" in log
        assert "not used on this machine" not in log
