"""Small things a new user meets: syntax errors told at the user's own path, exception line
first; bessemer's lines under torchrun carry the rank; `bessemer train` with an unknown flag
points at `bessemer train --help`."""
from __future__ import annotations

import io
import logging

import pytest

from bessemer import PyTorch, TrainingCompilerConfig
from bessemer.cli import main
from bessemer.jobs import JobFailedError
from bessemer.jobs.errors import ScriptContext, failure_reason
from bessemer.jobs.hooks import STARTUP_DIR

from jobs_testing import write

CTX = ScriptContext(code_dir="/runs/job-1/code", source_dir="/home/me/project")


def test_a_syntax_error_in_the_entry_point_starts_the_reason_at_the_users_path():
    log = ["bessemer: running python train.py", '  File "/runs/job-1/code/train.py", line 3',
           "    x = (", "        ^", "SyntaxError: '(' was never closed"]
    assert failure_reason(1, log, CTX).splitlines() == [
        "SyntaxError: '(' was never closed", '  File "/home/me/project/train.py", line 3', "    x = (",
        "(the script exited with code 1)"]


def test_a_syntax_error_in_an_imported_helper_has_no_empty_function_name():
    log = ["Traceback (most recent call last):", '  File "/runs/job-1/code/train.py", line 1, in <module>',
           "    import helper", '  File "/runs/job-1/code/helper.py", line 1', "    def f(:",
           "          ^", "SyntaxError: invalid syntax"]
    assert failure_reason(1, log, CTX).splitlines() == [
        "SyntaxError: invalid syntax", '  File "/home/me/project/train.py", line 1, in <module>',
        "    import helper", '  File "/home/me/project/helper.py", line 1', "    def f(:",
        "(the script exited with code 1)"]


def test_a_job_whose_script_does_not_parse(tmp_path):
    src = tmp_path / "src"
    write(src / "train.py", "print('start')\nx = (\n")
    est = PyTorch(entry_point="train.py", source_dir=str(src), output_path=str(tmp_path / "runs"),
                  compiler_config=TrainingCompilerConfig(enabled=False))
    with pytest.raises(JobFailedError) as info:
        est.fit(logs=False)
    reason = info.value.reason.splitlines()
    assert reason[0] == "SyntaxError: '(' was never closed"
    assert reason[1] == f'  File "{src}/train.py", line 2'


def _hook_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("bessemer_job_log_test", STARTUP_DIR / "bessemer_job_log.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_bessemers_own_lines_carry_the_rank_under_torchrun(monkeypatch):
    hook = _hook_module()
    out = io.StringIO()
    handler = hook.JobLogHandler(out)
    monkeypatch.setenv("RANK", "1")
    for message in ("bessemer: partition joint0: saves 3 values", "partition joint0: saves 3 values"):
        handler.emit(logging.LogRecord("bessemer", logging.INFO, __file__, 1, message, None, None))
    assert out.getvalue().splitlines() == ["bessemer[rank 1]: partition joint0: saves 3 values"] * 2
    monkeypatch.delenv("RANK")
    handler.emit(logging.LogRecord("bessemer", logging.INFO, __file__, 1, "bessemer: x", None, None))
    assert out.getvalue().splitlines()[-1] == "bessemer: x"


def test_an_unknown_flag_to_train_points_at_train_help(capsys):
    assert main(["train", "train.py", "--epochs", "3"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "bessemer train: error: unrecognized arguments: --epochs 3 (see `bessemer train --help`)"
    assert main(["jobs", "list", "--bogus"]) == 2
    assert capsys.readouterr().err.strip().endswith("(see `bessemer jobs list --help`)")
    assert main(["--bogus"]) == 2
    assert capsys.readouterr().err.strip().endswith("(see `bessemer --help`)")
