"""Estimators check what they are given, at construction (channels at fit()), naming the field."""
import pytest

import bessemer
from bessemer import HuggingFace, PyTorch, TrainingCompilerConfig
from bessemer.jobs.engines import Engine

from jobs_testing import write


@pytest.fixture
def src(tmp_path):
    write(tmp_path / "src" / "train.py", "print('hi')\n")
    write(tmp_path / "src" / "pkg" / "nested.py", "print('nested')\n")
    write(tmp_path / "outside.py", "print('outside')\n")
    return tmp_path / "src"


def est(src, **kw):
    kw.setdefault("entry_point", "train.py")
    kw.setdefault("source_dir", src)
    kw.setdefault("output_path", src.parent / "runs")
    return PyTorch(**kw)


def test_public_names():
    assert bessemer.PyTorch is PyTorch and bessemer.HuggingFace is HuggingFace
    assert issubclass(PyTorch, bessemer.Estimator) and issubclass(HuggingFace, bessemer.Estimator)


def test_defaults(src):
    e = est(src)
    assert e.compiler_config == TrainingCompilerConfig()  # compiler on, debug off
    assert e.entry_point == "train.py" and e.source_dir == src.resolve()
    assert e.instance_count == 1 and e.processes_per_instance == 1
    assert e.base_job_name == "pytorch-training"
    assert HuggingFace(entry_point="train.py", source_dir=src).base_job_name == "huggingface-training"
    assert e.max_run == 24 * 3600
    assert est(src, entry_point="pkg/nested.py").entry_point == "pkg/nested.py"
    assert est(src, entry_point=str(src / "train.py")).entry_point == "train.py"


@pytest.mark.parametrize("kwargs, match", [
    ({"entry_point": "missing.py"}, "entry_point 'missing.py' does not exist"),
    ({"entry_point": "../outside.py"}, "entry_point '../outside.py' is outside source_dir"),
    ({"entry_point": "train.sh"}, r"entry_point must be a Python script"),
    ({"entry_point": ""}, "entry_point"),
    ({"source_dir": "/no/such/folder"}, "source_dir '/no/such/folder' does not exist"),
    ({"hyperparameters": {"epochs": object()}}, r"hyperparameters\['epochs'\] is not JSON-serialisable"),
    ({"hyperparameters": {"lr": float("nan")}}, r"hyperparameters\['lr'\] is not JSON-serialisable"),
    ({"hyperparameters": {1: 2}}, "hyperparameters: key 1"),
    ({"hyperparameters": {"a-b": 1, "a_b": 2}}, "hyperparameters: 'a-b' and 'a_b'"),
    ({"hyperparameters": [("epochs", 1)]}, "hyperparameters must be a dict"),
    ({"compiler_config": {"enabled": True}}, "compiler_config must be a bessemer.TrainingCompilerConfig"),
    ({"compiler_config": True}, "compiler_config"),
    ({"instance_count": 0}, "instance_count must be an int >= 1"),
    ({"instance_count": 2}, "instance_count must be 1 for the local engine"),
    ({"processes_per_instance": 0}, "processes_per_instance must be an int >= 1"),
    ({"processes_per_instance": True}, "processes_per_instance"),
    ({"environment": {"A": 1}}, "environment must be a dict of str to str"),
    ({"metric_definitions": [{"Name": "loss", "Regex": "loss=[0-9.]+"}]}, "capture group"),
    ({"output_path": "nosuch://bucket/prefix"}, "output_path 'nosuch://bucket/prefix': fsspec knows no file "
                                                "system nosuch://"),
    ({"base_job_name": "bad name!"}, "base_job_name must be letters"),
    ({"max_run": 0}, "max_run must be a number of seconds > 0"),
    ({"engine": "nosuch"}, "engine must be one of"),
])
def test_bad_arguments_raise_value_error_naming_the_field(src, kwargs, match):
    with pytest.raises(ValueError, match=match):
        est(src, **kwargs)


def test_entry_point_without_source_dir(tmp_path):
    script = write(tmp_path / "solo.py", "print(1)\n")
    e = PyTorch(entry_point=script, output_path=tmp_path / "runs")
    assert e.source_dir is None and e.entry_point == str(script)
    with pytest.raises(ValueError, match="does not exist"):
        PyTorch(entry_point=tmp_path / "nope.py")


def test_config_values_are_checked_by_the_config():
    with pytest.raises(ValueError, match="TrainingCompilerConfig.enabled"):
        TrainingCompilerConfig(enabled="yes")


def test_sagemaker_only_arguments_are_accepted_and_others_are_not(src):
    est(src, role="arn:aws:iam::1:role/x", instance_type="ml.m5.xlarge", framework_version="2.0",
        py_version="py310")
    with pytest.raises(TypeError, match="unexpected keyword"):
        est(src, instance_typo="x")


def test_an_engine_instance_can_be_given(src):
    class Recorder(Engine):
        name = "recorder"

        def __init__(self):
            self.specs = []

        def run(self, spec, logs=True):
            self.specs.append(spec)
            from bessemer.jobs.outcome import finish_job
            return finish_job(spec, "Completed", 0)

        def submit(self, spec):
            raise NotImplementedError

    engine = Recorder()
    e = est(src, engine=engine, hyperparameters={"epochs": 1})
    e.fit(logs=False)
    [spec] = engine.specs
    assert spec.hyperparameters == {"epochs": 1} and spec.entry_point == "train.py"
    assert e.describe()["TrainingJobStatus"] == "Completed"
    assert e.describe()["Engine"] == "recorder"


@pytest.mark.parametrize("inputs, match", [
    ({"train": "/no/such/data"}, r"inputs\['train'\]: '/no/such/data' does not exist"),
    ({"bad name": "."}, "inputs: channel name 'bad name'"),
    ({"train": "nosuch://bucket/train"}, r"inputs\['train'\] 'nosuch://bucket/train': fsspec knows no file system"),
    ({"train": 3}, r"inputs\['train'\] must be a path, a URL \(s3://..., file://...\) or a TrainingInput"),
    ({"train": "memory://no/such/data"}, r"inputs\['train'\]: 'memory://no/such/data' does not exist"),
    (["train"], "inputs must be a path or a dict"),
])
def test_bad_inputs_are_refused_before_a_job_starts(src, inputs, match):
    e = est(src)
    with pytest.raises(ValueError, match=match):
        e.fit(inputs)
    assert e.latest_training_job is None


def test_bad_or_taken_job_names(src):
    e = est(src)
    with pytest.raises(ValueError, match="job_name must be letters"):
        e.fit(job_name="no_underscores")
    e.fit(job_name="my-job", logs=False)
    with pytest.raises(ValueError, match="job_name 'my-job' is already taken"):
        e.fit(job_name="my-job", logs=False)


def test_nothing_to_describe_before_fit(src):
    with pytest.raises(RuntimeError, match="call fit"):
        est(src).model_data
