"""The example training scripts, run as jobs through the estimators, eager and compiled,
single-process and under torchrun (DDP), against eager single-process training."""
import fcntl
import json
import re

import pytest
import torch

from bessemer import HuggingFace, PyTorch, TrainingCompilerConfig
from bessemer import demo
from bessemer.jobs.store import JobStore

from jobs_testing import HF_EXAMPLE, PYTORCH_EXAMPLE, load_state_dict_from_tar, model_tar_members

HF_HPS = {"max_steps": 3, "batch_size": 4, "samples": 32, "seq_len": 8, "hidden": 16, "layers": 1,
          "learning_rate": 1e-3}
HF_LOSS = [{"Name": "loss", "Regex": r"'loss': '?([0-9.]+)"}]
HOOK_LINE = "compiling the Trainer's model (BertForSequenceClassification) with the bessemer training compiler"


def shared(tmp_path_factory, worker_id, name, make):
    """Run `make(folder)` once per test session, even across pytest-xdist workers."""
    if worker_id == "master":
        return make(tmp_path_factory.mktemp(name))
    root = tmp_path_factory.getbasetemp().parent
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = root / f"{name}.json"
        if not done.exists():
            done.write_text(json.dumps(make(root / name)))
        return json.loads(done.read_text())


def pytorch_job(out, processes=1, enabled=False, debug=False, **kw):
    est = PyTorch(entry_point="train.py", source_dir=PYTORCH_EXAMPLE,
                  hyperparameters={**demo.HYPERPARAMETERS, **kw.pop("hyperparameters", {})},
                  processes_per_instance=processes,
                  compiler_config=TrainingCompilerConfig(enabled=enabled, debug=debug),
                  metric_definitions=demo.METRICS, output_path=out, **kw)
    est.fit({"train": PYTORCH_EXAMPLE / "data"}, logs=False)
    return est


def result(est) -> dict:
    job = est.latest_training_job
    return {"model_data": job.model_data, "log": job.log_path, "loss": job.metrics()["loss"],
            "job_dir": str(job.job_dir.root)}


@pytest.fixture(scope="session")
def eager_single(tmp_path_factory, worker_id):
    return shared(tmp_path_factory, worker_id, "pytorch-eager-single", lambda out: result(pytorch_job(out)))


@pytest.fixture(scope="session")
def hf_eager(tmp_path_factory, worker_id):
    def make(out):
        est = HuggingFace(entry_point="train.py", source_dir=HF_EXAMPLE, hyperparameters=HF_HPS,
                          compiler_config=TrainingCompilerConfig(enabled=False),
                          metric_definitions=HF_LOSS, output_path=out)
        est.fit(logs=False)
        return result(est)
    return shared(tmp_path_factory, worker_id, "hf-eager", make)


def assert_same_params(model_data, reference_model_data, atol):
    got, want = load_state_dict_from_tar(model_data), load_state_dict_from_tar(reference_model_data)
    assert got.keys() == want.keys()
    for k in want:
        torch.testing.assert_close(got[k], want[k], atol=atol, rtol=0, msg=lambda m, k=k: f"{k}: {m}")


def test_pytorch_example_trains_eagerly(eager_single):
    from pathlib import Path

    job_dir = Path(eager_single["job_dir"])
    assert model_tar_members(eager_single["model_data"]) == ["model.pt"]
    assert (job_dir / "checkpoints" / "checkpoint.pt").is_file()
    history = json.loads((job_dir / "output" / "data" / "history.json").read_text())
    assert history["world_size"] == 1
    losses = eager_single["loss"]
    assert len(losses) == demo.HYPERPARAMETERS["epochs"] and losses[-1] < losses[0]
    assert "compiler disabled" in open(eager_single["log"]).read()


def test_ddp_training_matches_single_process_training(tmp_path, eager_single):
    est = pytorch_job(tmp_path, processes=2)
    log = open(est.latest_training_job.log_path).read()
    assert "rank 0/2: model ready" in log and "rank 1/2: model ready" in log
    assert json.loads((est.latest_training_job.job_dir.output_data / "history.json").read_text())["world_size"] == 2
    assert_same_params(est.model_data, eager_single["model_data"], atol=1e-5)
    assert est.metrics()["loss"] == pytest.approx(eager_single["loss"], abs=1e-5)


@pytest.mark.full  # two GPT jobs and six tune probes: a minute or two on two cores
def test_demo_trains_a_gpt_compiled_and_eagerly_and_compares(tmp_path, capsys):
    """The demo, shortened: 8 steps a job, three probes a mode for the largest batch."""
    assert demo.main(["--output-path", str(tmp_path), "--steps", "8", "--tune-probes", "3", "--quiet"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    at = lines.index("  {:>6}  {:>12}  {:>14}".format("step", "loss, eager", "loss, bessemer"))
    rows = [ln.split() for ln in lines[at + 1:at + 3]]
    assert [r[0] for r in rows] == ["0", "7"], rows
    assert all(float(r[1]) == pytest.approx(float(r[2]), abs=1e-4) for r in rows), rows
    assert float(rows[1][1]) < float(rows[0][1])          # it learns
    assert re.search(r"^losses: the same to \S+ at every one of 8 steps$", out, re.M)
    assert re.search(r"^step speed: [0-9.]+x eager's \(bessemer \d+ ms a step, eager \d+ ms: the median after 5 "
                     r"warm-up steps, batch 8 x 128 tokens\)$", out, re.M)
    m = re.search(r"^peak memory of a step: (\d+) MiB against eager's (\d+) MiB", out, re.M)
    assert m and int(m[1]) < int(m[2])
    m = re.search(r"^largest batch under 384MiB: bessemer (\d+), eager (\d+) \(multiples of 8, by real steps\)$",
                  out, re.M)
    assert m and int(m[1]) >= int(m[2]) >= 8
    [png] = [ln.split("plot: ", 1)[1] for ln in lines if ln.startswith("plot: ")]
    assert png == str(tmp_path / "demo.png") and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    compiled = [j for j in JobStore(tmp_path).list() if j.name.startswith("demo-") and "eager" not in j.name]
    [rec] = compiled
    assert rec.compile_summary["graphs"] >= 2 and rec.compile_summary["fallbacks"] == 0


def test_the_example_resumes_from_its_checkpoint_to_the_same_model(tmp_path, eager_single):
    """Two epochs in one job, the other two in a second job with the same checkpoint_path:
    the model is the one four epochs in one job give."""
    kept = tmp_path / "kept"
    first = pytorch_job(tmp_path, hyperparameters={"epochs": 2}, checkpoint_path=str(kept))
    assert first.metrics()["loss"] == pytest.approx(eager_single["loss"][:2], abs=1e-6)
    second = pytorch_job(tmp_path, checkpoint_path=str(kept))
    log = open(second.latest_training_job.log_path).read()
    assert "rank 0/1: resuming from epoch 2 (checkpoint of epoch 1)" in log
    assert second.metrics()["loss"] == pytest.approx(eager_single["loss"][2:], abs=1e-6)
    assert_same_params(second.model_data, eager_single["model_data"], atol=1e-6)


def test_compiled_ddp_with_debug_artifacts(tmp_path, eager_single):
    est = pytorch_job(tmp_path, processes=2, enabled=True, debug=True)
    job = est.latest_training_job
    log = open(job.log_path).read()
    for rank in (0, 1):
        assert f"rank {rank}/2: model ready (bessemer compiler enabled=True)" in log
    assert "compiler debug mode on" in log
    debug_dir = job.job_dir.compiler_debug
    assert est.describe()["CompilerConfig"]["debug_dir"] == str(debug_dir)
    assert any(p.is_file() for p in debug_dir.rglob("*")), "no compiler artifacts in output/data/compiler/"
    assert_same_params(est.model_data, eager_single["model_data"], atol=1e-4)


def test_huggingface_trainer_example_eager(hf_eager):
    assert {"config.json", "model.safetensors"} <= set(model_tar_members(hf_eager["model_data"]))
    assert len(hf_eager["loss"]) == HF_HPS["max_steps"]
    assert HOOK_LINE not in open(hf_eager["log"]).read()


def test_huggingface_trainer_is_compiled_without_script_changes(tmp_path, hf_eager):
    est = HuggingFace(entry_point="train.py", source_dir=HF_EXAMPLE, hyperparameters=HF_HPS,
                      compiler_config=TrainingCompilerConfig(), metric_definitions=HF_LOSS, output_path=tmp_path)
    est.fit(logs=False)
    assert HOOK_LINE in open(est.latest_training_job.log_path).read()
    assert {"config.json", "model.safetensors"} <= set(model_tar_members(est.model_data))
    # The Trainer prints losses rounded to 4 digits.
    assert est.metrics()["loss"] == pytest.approx(hf_eager["loss"], abs=2e-4)
