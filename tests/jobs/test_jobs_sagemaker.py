"""SageMaker habits: attach, logs() that follows, distribution=, and the SDK's other estimator
arguments (accepted and named in the log, renamed, or refused with what to use instead)."""
import io
import json
import sys

import pytest

from bessemer import HuggingFace, PyTorch, TrainingCompilerConfig
from bessemer.jobs import JobFailedError

from jobs_testing import write

LOSS = [{"Name": "loss", "Regex": r"loss=([0-9.]+)"}]


@pytest.fixture
def src(tmp_path):
    write(tmp_path / "src" / "train.py", """
        import json, os, sys, time
        time.sleep(float(os.environ.get("SLEEP", "0")))
        print("loss=0.5", flush=True)
        keys = ("RANK", "WORLD_SIZE", "MASTER_ADDR", "TORCHELASTIC_RUN_ID")
        with open(os.path.join(os.environ["SM_MODEL_DIR"], f"rank-{os.environ.get('RANK', 'none')}.json"), "w") as f:
            json.dump({k: os.environ.get(k) for k in keys}, f)
    """)
    return tmp_path / "src"


def est(src, cls=PyTorch, **kw):
    kw.setdefault("compiler_config", TrainingCompilerConfig(enabled=False))
    return cls(entry_point="train.py", source_dir=src, output_path=src.parent / "runs", metric_definitions=LOSS,
               **kw)


def test_attach_returns_an_estimator_bound_to_the_job(src):
    first = est(src, hyperparameters={"epochs": 2}, max_retries=1, environment={"MY": "x"})
    first.fit(logs=False, job_name="to-attach")
    again = PyTorch.attach("to-attach", output_path=src.parent / "runs", sagemaker_session=None)
    assert isinstance(again, PyTorch)
    assert again.model_data == first.model_data
    assert again.describe()["TrainingJobStatus"] == "Completed" and again.metrics() == {"loss": [0.5]}
    assert (again.hyperparameters, again.max_retries, again.environment) == ({"epochs": 2}, 1, {"MY": "x"})
    assert again.metric_definitions == LOSS and again.compiler_config.enabled is False
    again.fit(logs=False)  # runs the same job again, as a new job
    assert again.latest_training_job.name != "to-attach" and again.latest_training_job.name.startswith("to-attach-")
    assert again.metrics() == {"loss": [0.5]}
    with pytest.raises(ValueError, match="is a pytorch job: use PyTorch.attach"):
        HuggingFace.attach("to-attach", output_path=src.parent / "runs")
    with pytest.raises(ValueError, match="no job named 'gone'"):
        PyTorch.attach("gone", output_path=src.parent / "runs")
    with pytest.raises(ValueError, match="no jobs in"):
        PyTorch.attach("to-attach", output_path=src.parent / "elsewhere")
    assert not (src.parent / "elsewhere").exists()


def test_logs_follows_a_running_job_to_its_end(src, monkeypatch):
    job = est(src, environment={"SLEEP": "1.5"})
    job.fit(wait=False, job_name="followed")
    attached = PyTorch.attach("followed", output_path=src.parent / "runs")
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    attached.logs()  # returns only once the job has ended
    assert attached.describe()["TrainingJobStatus"] == "Completed"
    assert "loss=0.5" in out.getvalue() and "training job followed Completed" in out.getvalue()


def test_logs_raises_for_a_failed_job(tmp_path):
    write(tmp_path / "bad.py", "raise SystemExit('nope')\n")
    e = PyTorch(entry_point=tmp_path / "bad.py", output_path=tmp_path / "runs",
                compiler_config=TrainingCompilerConfig(enabled=False))
    e.fit(wait=False)
    with pytest.raises(JobFailedError, match="nope"):
        e.logs()


def test_distribution_runs_under_torchrun(src):
    for kind in ("torch_distributed", "pytorchddp"):
        e = est(src, distribution={kind: {"enabled": True}})
        assert e.processes_per_instance == 1 and e.distributed  # one per GPU; this machine has none
        two = est(src, distribution={kind: {"enabled": True}}, processes_per_instance=2)
        assert two.processes_per_instance == 2 and two.distributed
        off = est(src, distribution={kind: {"enabled": False}})
        assert off.processes_per_instance == 1 and not off.distributed
    e.fit(logs=False)
    seen = json.loads((e.latest_training_job.job_dir.model / "rank-0.json").read_text())
    assert seen["RANK"] == "0" and seen["WORLD_SIZE"] == "1" and seen["TORCHELASTIC_RUN_ID"]
    log = open(e.latest_training_job.log_path).read()
    assert f"distribution {kind}: torchrun with 1 process(es)" in log
    assert "torch.distributed.run --standalone --nnodes=1 --nproc-per-node=1" in log


@pytest.mark.parametrize("distribution, match", [
    ({"smdistributed": {"dataparallel": {"enabled": True}}}, "'smdistributed' is not supported: bessemer runs"),
    ({"pytorchxla": {"enabled": True}}, "use distribution=\\{'torch_distributed'"),
    ({"torch_distributed": {"enabled": "yes"}}, "must be \\{'enabled': True\\}"),
    ({"torch_distributed": {"enabled": True}, "pytorchddp": {"enabled": True}}, "must be one switch"),
])
def test_distributions_that_cannot_run(src, distribution, match):
    with pytest.raises(ValueError, match=match):
        est(src, distribution=distribution)


def test_cloud_only_arguments_are_accepted_and_named_in_the_log(src):
    e = est(src, role="arn:aws:iam::1:role/x", instance_type="ml.m5.xlarge", framework_version="2.0",
            py_version="py310", use_spot_instances=False, disable_profiler=True)
    e.fit(logs=False)
    log = open(e.latest_training_job.log_path).read()
    assert ("bessemer: not used on this machine (SageMaker cloud settings): disable_profiler, framework_version, "
            "instance_type, py_version, role, use_spot_instances") in log


@pytest.mark.parametrize("kwargs, instead", [
    ({"use_spot_instances": True}, "use checkpoint_path= (--checkpoint-path) and max_retries="),
    ({"max_wait": 3600}, "use max_run= (--max-run)"),
    ({"checkpoint_local_path": "/opt/ml/checkpoints"}, "SM_CHECKPOINT_DIR"),
    ({"image_uri": "123.dkr.ecr/x:latest"}, "install what the script needs"),
    ({"debugger_hook_config": {"s3_output_path": "s3://b"}}, "TrainingCompilerConfig(debug=True)"),
    ({"input_mode": "Pipe"}, "read them as files"),
    ({"git_config": {"repo": "https://x"}}, "clone the repository"),
    ({"dependencies": ["lib"]}, "inside source_dir"),
    ({"checkpoint_s3_uri": "s3://b/c", "checkpoint_path": "/x"}, "name the same thing"),
])
def test_arguments_bessemer_cannot_honour_are_one_clear_error(src, kwargs, instead):
    with pytest.raises(ValueError) as info:
        est(src, **kwargs)
    message = str(info.value)
    assert "\n" not in message and instead in message, message
    assert message.startswith(next(iter(kwargs)))  # it names the argument


def test_unknown_arguments_are_a_type_error(src):
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['instance_typo'\]"):
        est(src, instance_typo="x")
