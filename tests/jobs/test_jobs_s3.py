"""Jobs whose channels, outputs and checkpoints are s3:// URLs, against moto's S3 server on
127.0.0.1: staged in before the script, SageMaker's output layout at the end, a resume from
S3, and a missing bucket (one clear error, nothing lost)."""
from __future__ import annotations

import io
import json
import tarfile

import pytest

from bessemer import PyTorch, TrainingCompilerConfig
from bessemer.jobs import JobFailedError
from bessemer.jobs.store import JobStore

from jobs_testing import write

pytest.importorskip("s3fs")
pytest.importorskip("moto")
from s3_server import moto_s3  # noqa: E402

BUCKET = "bessemer-jobs"

# Sums the numbers of its channel's files, counts epochs on from its checkpoint, and writes a
# model, an output file and a checkpoint per epoch.
SCRIPT = """
import argparse, json, os
p = argparse.ArgumentParser(); p.add_argument("--epochs", type=int); args = p.parse_args()
data = os.environ["SM_CHANNEL_TRAIN"]
total = sum(float(open(os.path.join(d, f)).read()) for d, _, fs in os.walk(data) for f in fs)
ckpt = os.path.join(os.environ["SM_CHECKPOINT_DIR"], "state.json")
start = json.load(open(ckpt))["epoch"] + 1 if os.path.exists(ckpt) else 0
print(f"start={start}", flush=True)
for epoch in range(start, args.epochs):
    print(f"epoch={epoch} loss={total / (epoch + 1):.6f}", flush=True)
    with open(ckpt + ".tmp", "w") as f:
        json.dump({"epoch": epoch}, f)
    os.replace(ckpt + ".tmp", ckpt)
with open(os.path.join(os.environ["SM_MODEL_DIR"], "model.json"), "w") as f:
    json.dump({"total": total, "epochs": args.epochs}, f)
with open(os.path.join(os.environ["SM_OUTPUT_DATA_DIR"], "result.txt"), "w") as f:
    f.write(f"{total}")
if os.environ.get("DROP_BUCKET"):  # the output bucket goes away while the job runs
    import boto3
    b = boto3.resource("s3").Bucket(os.environ["DROP_BUCKET"])
    b.objects.all().delete(); b.delete()
"""


@pytest.fixture(scope="module")
def s3():
    with moto_s3() as endpoint:
        import boto3

        client = boto3.client("s3")
        client.create_bucket(Bucket=BUCKET)
        for i, value in enumerate((1.5, 2.5, 4.0)):
            client.put_object(Bucket=BUCKET, Key=f"data/train/part-{i}.txt", Body=str(value).encode())
        yield endpoint


def _fs():
    import fsspec

    fs = fsspec.filesystem("s3")
    fs.invalidate_cache()
    return fs


def _tar(url: str) -> dict[str, bytes]:
    with tarfile.open(fileobj=io.BytesIO(_fs().cat(url))) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def _est(tmp_path, epochs, **kw):
    write(tmp_path / "src" / "train.py", SCRIPT)
    kw.setdefault("output_path", f"s3://{BUCKET}/out")
    return PyTorch(entry_point="train.py", source_dir=str(tmp_path / "src"), hyperparameters={"epochs": epochs},
                   compiler_config=TrainingCompilerConfig(enabled=False),
                   metric_definitions=[{"Name": "loss", "Regex": r"loss=([0-9.]+)"}], **kw)


def test_channels_outputs_checkpoints_and_a_resume_from_s3(s3, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the jobs' folders and records go to ./runs
    ckpt = f"s3://{BUCKET}/ckpt/run-1"
    first = _est(tmp_path, 2, checkpoint_s3_uri=ckpt)
    first.fit({"train": f"s3://{BUCKET}/data/train"}, logs=False, job_name="part-1")
    assert first.model_data == f"s3://{BUCKET}/out/part-1/output/model.tar.gz"
    assert json.loads(_tar(first.model_data)["model.json"]) == {"total": 8.0, "epochs": 2}
    assert _tar(f"s3://{BUCKET}/out/part-1/output/output.tar.gz") == {"result.txt": b"8.0"}
    assert json.loads(_fs().cat(f"{ckpt}/state.json")) == {"epoch": 1}
    d = first.describe()
    assert d["ModelArtifacts"]["ModelData"] == first.model_data
    assert d["InputDataConfig"] == [{"ChannelName": "train", "DataSource": f"s3://{BUCKET}/data/train"}]
    log = open(first.latest_training_job.log_path).read()
    assert f"bessemer: channel train: 3 files staged in from s3://{BUCKET}/data/train" in log
    assert (tmp_path / "runs" / "part-1" / "input" / "data" / "train" / "part-2.txt").read_text() == "4.0"

    # a second job with the same checkpoint path resumes; its channel comes as a TrainingInput's config
    second = _est(tmp_path, 4, checkpoint_s3_uri=ckpt)
    second.fit({"train": {"DataSource": {"S3DataSource": {"S3DataType": "S3Prefix",
                                                          "S3Uri": f"s3://{BUCKET}/data/train"}}}},
               logs=False, job_name="part-2")
    assert second.metrics()["loss"] == [pytest.approx(8.0 / 3), pytest.approx(8.0 / 4)]
    assert "start=2" in open(second.latest_training_job.log_path).read()
    assert json.loads(_fs().cat(f"{ckpt}/state.json")) == {"epoch": 3}
    assert json.loads(_tar(second.model_data)["model.json"]) == {"total": 8.0, "epochs": 4}


@pytest.mark.parametrize("field", ["output_path", "checkpoint_path", "inputs"])
def test_a_missing_bucket_is_one_clear_error_before_anything_starts(s3, tmp_path, field):
    url = "s3://no-such-bucket/x"
    kw = {"output_path": str(tmp_path / "runs")}
    if field == "inputs":
        est, inputs = _est(tmp_path, 1, **kw), {"train": url}
    else:
        kw[field] = url
        est, inputs = _est(tmp_path, 1, **kw), {"train": f"s3://{BUCKET}/data/train"}
    with pytest.raises(ValueError) as info:
        est.fit(inputs, logs=False)
    message = str(info.value)
    assert "\n" not in message and "bucket 'no-such-bucket' does not exist" in message and url in message
    assert message.startswith("inputs['train']" if field == "inputs" else field)
    assert est.latest_training_job is None


def test_a_bucket_gone_at_the_end_fails_the_job_and_keeps_its_outputs(s3, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    import boto3

    boto3.client("s3").create_bucket(Bucket="short-lived")
    est = _est(tmp_path, 1, output_path="s3://short-lived/out", environment={"DROP_BUCKET": "short-lived"})
    with pytest.raises(JobFailedError) as info:
        est.fit({"train": f"s3://{BUCKET}/data/train"}, logs=False, job_name="dropped")
    assert "could not upload the outputs to s3://short-lived/out/dropped/output" in str(info.value)
    local = JobStore(est.output_path).get("dropped")
    assert local.status == "Failed"
    job_dir = est.output_path / "dropped"
    with tarfile.open(job_dir / "output" / "model.tar.gz") as tar:
        assert json.loads(tar.extractfile("model.json").read())["total"] == 8.0
    with tarfile.open(job_dir / "output" / "output.tar.gz") as tar:
        assert tar.getnames() == ["result.txt"]
