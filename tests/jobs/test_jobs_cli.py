"""The `bessemer` command: train, jobs list/describe/logs/stop, and bench delegation."""
import json
import sys
import types

import pytest

from bessemer.cli import main
from bessemer.jobs.store import COMPLETED, FAILED, JobStore

from jobs_testing import write

SCRIPT = """
import json, os, sys
print("args", json.dumps(sys.argv[1:]))
print("loss=0.5")
print("loss=0.25")
with open(os.path.join(os.environ["SM_MODEL_DIR"], "env.json"), "w") as f:
    json.dump({k: v for k, v in os.environ.items() if k.startswith(("SM_", "BESSEMER_", "MY_"))}, f)
if os.environ.get("SM_HP_FAIL") == "true":
    raise SystemExit("asked to fail")
"""


@pytest.fixture
def project(tmp_path):
    write(tmp_path / "src" / "train.py", SCRIPT)
    write(tmp_path / "data" / "a.txt", "a")
    return tmp_path


def train(project, *extra):
    return main(["train", "train.py", "--source-dir", str(project / "src"), "--output-path",
                 str(project / "runs"), "--quiet", *extra])


def test_train_runs_a_job_with_hyperparameters_channels_and_metrics(project, capsys):
    rc = train(project, "--hp", "epochs=2", "--hp", "lr=3e-4", "--hp", "name=bert", "--hp", "flag=true",
               "--channel", f"train={project / 'data'}", "--env", "MY_VAR=x=y",
               "--metric", "loss=loss=([0-9.]+)", "--job-name", "cli-job", "--no-compiler", "--debug",
               "--precision", "bf16")
    out = capsys.readouterr().out
    assert rc == 0
    assert "model: " + str(project / "runs" / "cli-job" / "output" / "model.tar.gz") in out
    assert "log:   " + str(project / "runs" / "cli-job" / "job.log") in out
    rec = JobStore(project / "runs").get("cli-job")
    assert rec.status == COMPLETED
    assert rec.hyperparameters == {"epochs": 2, "lr": 3e-4, "name": "bert", "flag": True}
    assert rec.compiler_config["enabled"] is False and rec.compiler_config["debug"] is True
    assert rec.compiler_config["precision"] == "bf16" and rec.compiler_config["cuda_graphs"] is False
    assert rec.inputs == {"train": str(project / "data")}
    env = json.loads((project / "runs" / "cli-job" / "model" / "env.json").read_text())
    assert env["MY_VAR"] == "x=y" and env["SM_HP_EPOCHS"] == "2" and env["SM_HP_NAME"] == "bert"
    assert json.loads(env["BESSEMER_COMPILER_CONFIG"])["precision"] == "bf16"   # what the script's compile reads
    assert env["SM_CHANNEL_TRAIN"] == str(project / "runs" / "cli-job" / "input" / "data" / "train")
    assert JobStore(project / "runs").metrics("cli-job") == {"loss": [(0, 0.5), (1, 0.25)]}


def test_train_reports_a_failed_job(project, capsys):
    assert train(project, "--hp", "fail=true", "--job-name", "bad-job") == 1
    err = capsys.readouterr().err
    assert "training job bad-job failed" in err and "asked to fail" in err
    assert JobStore(project / "runs").get("bad-job").status == FAILED


def test_train_refuses_bad_arguments(project, capsys):
    assert train(project, "--hp", "no-equals-sign") == 2
    assert "--hp: expected KEY=VALUE, got 'no-equals-sign'" in capsys.readouterr().err
    assert main(["train", "missing.py", "--output-path", str(project / "runs")]) == 2
    assert "the script 'missing.py' does not exist" in capsys.readouterr().err


def test_jobs_list_describe_logs(project, capsys):
    assert train(project, "--job-name", "first", "--no-compiler") == 0
    assert train(project, "--job-name", "second", "--hp", "fail=true") == 1
    capsys.readouterr()
    runs = str(project / "runs")

    assert main(["jobs", "list", "--output-path", runs]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["NAME", "STATUS", "CREATED", "SECONDS", "FRAMEWORK", "COMPILER"]
    assert [ln.split()[:2] for ln in lines[1:]] == [["second", "Failed"], ["first", "Completed"]]
    assert lines[1].split()[-1] == "on" and lines[2].split()[-1] == "off"

    assert main(["jobs", "list", "--output-path", runs, "--status", "Completed"]) == 0
    assert [ln.split()[0] for ln in capsys.readouterr().out.splitlines()[1:]] == ["first"]

    assert main(["jobs", "describe", "second", "--output-path", runs]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["TrainingJobName"] == "second" and d["TrainingJobStatus"] == "Failed"
    assert "asked to fail" in d["FailureReason"]

    assert main(["jobs", "logs", "first", "--output-path", runs]) == 0
    assert "loss=0.25" in capsys.readouterr().out
    assert main(["jobs", "logs", "first", "--output-path", runs, "--follow"]) == 0
    assert main(["jobs", "logs", "second", "--output-path", runs, "--follow"]) == 1

    assert main(["jobs", "describe", "nope", "--output-path", runs]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bessemer jobs describe: error: no job named 'nope'") and err.count("\n") == 1
    assert "the latest: second, first" in err and "bessemer jobs list" in err and "--output-path" in err
    assert main(["jobs", "stop", "first", "--output-path", runs]) == 0
    assert "already ended (Completed)" in capsys.readouterr().out


def test_bench_is_handed_its_arguments(monkeypatch):
    import bessemer

    seen = []
    fake = types.ModuleType("bessemer.bench.cli")
    fake.main = lambda argv: seen.append(argv) or 7
    monkeypatch.setitem(sys.modules, "bessemer.bench.cli", fake)
    if "bessemer.bench" not in sys.modules:
        package = types.ModuleType("bessemer.bench")
        package.__path__ = []
        monkeypatch.setitem(sys.modules, "bessemer.bench", package)
        monkeypatch.setattr(bessemer, "bench", package, raising=False)
    assert main(["bench", "--model", "mlp", "--help"]) == 7
    assert seen == [["--model", "mlp", "--help"]]


@pytest.mark.parametrize("args, message", [
    (["--processes", "two"], "bessemer train: error: --processes: expected a whole number >= 1, got 'two'"),
    (["--processes", "0"], "bessemer train: error: --processes: expected a whole number >= 1, got '0'"),
    (["--max-run", "-5"], "bessemer train: error: --max-run: expected a number of seconds > 0, got '-5'"),
    (["--max-retries", "-1"], "bessemer train: error: --max-retries: expected a whole number >= 0, got '-1'"),
    (["--precision", "fp8"], "bessemer train: error: --precision: invalid choice: 'fp8'"),
    (["--channel", "train=/no/such/data"], "bessemer train: error: --channel train: '/no/such/data' does not exist"),
    (["--metric", "loss=loss=[0-9.]+"], "bessemer train: error: --metric #1 'loss=[0-9.]+' needs a capture group"),
    (["--checkpoint-path", "nosuch://x"], "bessemer train: error: --checkpoint-path 'nosuch://x': fsspec knows"),
    (["--job-name", "bad_name"], "bessemer train: error: --job-name must be letters"),
])
def test_bad_values_are_one_line_naming_the_flag(project, capsys, args, message):
    assert train(project, *args) == 2
    err = capsys.readouterr().err
    assert err.startswith(message), err
    assert err.count("\n") == 1 and "usage:" not in err
    assert not (project / "runs").exists()  # refused before anything was made


def test_read_only_commands_never_create_a_store(tmp_path, capsys):
    empty = tmp_path / "nothing-here"
    assert main(["jobs", "list", "--output-path", str(empty)]) == 0
    assert "no jobs in" in capsys.readouterr().out
    for action in (["describe", "x"], ["logs", "x"], ["metrics", "x"], ["stop", "x"], ["compare", "x", "y"]):
        assert main(["jobs", *action, "--output-path", str(empty)]) == 2
        assert "no jobs in" in capsys.readouterr().err
    assert not empty.exists()


def test_version(capsys):
    import tomllib

    import bessemer
    from jobs_testing import REPO

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"bessemer {bessemer.__version__} (torch ")
    assert bessemer.__version__ == tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]


def test_help_lists_the_commands(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for command in ("train", "jobs", "bench"):
        assert command in out
    assert main([]) == 2
