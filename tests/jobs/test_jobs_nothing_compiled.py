"""A job with the compiler on whose script never hands its model to the compiler: the log,
the record, `jobs compare` and the batch search all say it trains eagerly."""
from __future__ import annotations

import json

import bessemer
from bessemer.cli import main
from bessemer.jobs.autobatch import script_mode
from bessemer.jobs.outcome import NOTHING_COMPILED

from jobs_testing import write

# Trains eagerly: no bessemer.compile anywhere.
EAGER = """
import torch
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.ones(8, 4)).square().mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"step={step} loss={loss.item():.6f}", flush=True)
"""


def test_a_job_that_compiles_nothing_says_so(tmp_path, capsys):
    write(tmp_path / "src" / "train.py", EAGER)
    est = bessemer.PyTorch(entry_point="train.py", source_dir=str(tmp_path / "src"),
                           output_path=str(tmp_path / "runs"),
                           compiler_config=bessemer.TrainingCompilerConfig(fallback="error"),
                           metric_definitions=[{"Name": "loss", "Regex": r"loss=([0-9.]+)"}])
    est.fit(logs=False, job_name="quiet")
    log = open(est.latest_training_job.log_path).read().splitlines()
    [line] = [ln for ln in log if NOTHING_COMPILED in ln]
    assert "model = bessemer.compile(model)" in line and 'backend="bessemer"' in line
    assert not any(ln.startswith("bessemer: compile summary") for ln in log)
    summary = est.describe()["CompileSummary"]
    assert summary["graphs"] == 0 and summary["note"].startswith(NOTHING_COMPILED)

    capsys.readouterr()
    assert main(["train", "train.py", "--source-dir", str(tmp_path / "src"), "--output-path",
                 str(tmp_path / "runs"), "--quiet", "--no-compiler", "--job-name", "eager",
                 "--metric", "loss=loss=([0-9.]+)"]) == 0
    capsys.readouterr()
    assert main(["jobs", "compare", "eager", "quiet", "--output-path", str(tmp_path / "runs")]) == 0
    rows = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("compiler ")]
    assert rows and rows[0].split(None, 1)[1].split("  ")[0].strip() == "eager"
    assert rows[0].rstrip().endswith(NOTHING_COMPILED)
    assert main(["jobs", "describe", "quiet", "--output-path", str(tmp_path / "runs")]) == 0
    assert json.loads(capsys.readouterr().out)["CompileSummary"]["note"].startswith(NOTHING_COMPILED)


def test_a_job_that_compiles_records_its_graphs(tmp_path):
    write(tmp_path / "src" / "train.py", EAGER.replace("opt = ", "model = bessemer.compile(model)\nopt = ")
          .replace("import torch", "import torch, bessemer"))
    est = bessemer.PyTorch(entry_point="train.py", source_dir=str(tmp_path / "src"),
                           output_path=str(tmp_path / "runs"),
                           compiler_config=bessemer.TrainingCompilerConfig(fallback="error"))
    est.fit(logs=False)
    summary = est.describe()["CompileSummary"]
    assert summary["graphs"] >= 2 and "note" not in summary
    assert NOTHING_COMPILED not in open(est.latest_training_job.log_path).read()


def test_the_batch_search_sizes_by_the_mode_the_script_trains_in(tmp_path):
    eager = write(tmp_path / "a" / "train.py", EAGER + "# model = bessemer.compile(model)\n")
    assert script_mode(str(eager), str(eager.parent), "pytorch", True)[0] == "eager"
    assert script_mode(str(eager), str(eager.parent), "pytorch", False) == ("eager", "the compiler is off")
    helper = write(tmp_path / "b" / "lib" / "build.py", "import torch\ndef make(m):\n"
                   "    return torch.compile(m, backend='bessemer')\n")
    write(tmp_path / "b" / "train.py", EAGER)
    assert script_mode(str(tmp_path / "b" / "train.py"), str(tmp_path / "b"), "pytorch", True)[0] == "bessemer"
    trainer = write(tmp_path / "c" / "train.py", "from transformers import Trainer\n")
    assert script_mode(str(trainer), None, "huggingface", True)[0] == "bessemer"
    assert script_mode(str(trainer), None, "pytorch", True)[0] == "eager"
