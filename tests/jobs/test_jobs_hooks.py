"""The start-up hook that compiles a Hugging Face Trainer's model in a job's processes."""
import os
import subprocess
import sys
import textwrap
import types

import pytest

import bessemer
from bessemer.config import ENV_CONFIG
from bessemer.jobs.hooks import STARTUP_DIR
from bessemer.jobs.hooks import trainer as hook

from jobs_testing import write


def run_python(code: str, pythonpath: list, **env) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in pythonpath), **env}
    return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True, timeout=60)


def test_the_startup_hook_costs_nothing_until_transformers_trainer_is_imported():
    r = run_python("import sys; print(sorted(m for m in ('torch', 'bessemer', 'transformers') if m in sys.modules));"
                   "print(any(type(f).__name__ == '_TrainerFinder' for f in sys.meta_path))", [STARTUP_DIR])
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:2] == ["[]", "True"]


def test_another_sitecustomize_still_runs(tmp_path):
    write(tmp_path / "other" / "sitecustomize.py", "import builtins; builtins.OTHER_SITE = 'ran'\n")
    r = run_python("import builtins; print(getattr(builtins, 'OTHER_SITE', 'missing'))",
                   [STARTUP_DIR, tmp_path / "other"])
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ran"


@pytest.fixture
def fake_trainer_module(monkeypatch):
    """A stand-in for transformers.trainer, and a recorder in place of bessemer.compile."""
    compiled = []

    def fake_compile(model, optimizer=None, config=None, **options):
        compiled.append((model, config))
        return model

    monkeypatch.setattr(bessemer, "compile", fake_compile)

    class Args:
        torch_compile = False

    class Trainer:
        def __init__(self, model=None, args=None, model_init=None):
            self.model = model
            self.args = args or Args()
            self.model_init = model_init

        def call_model_init(self, trial=None):
            return self.model_init()

    module = types.ModuleType("transformers.trainer")
    module.Trainer = Trainer
    hook.patch_trainer_module(module)
    hook.patch_trainer_module(module)  # patching twice changes nothing
    return module, compiled, Args


class Model:
    pass


def test_a_trainer_compiles_its_model_under_the_job_config(fake_trainer_module, monkeypatch, capsys):
    module, compiled, _ = fake_trainer_module
    monkeypatch.setenv(ENV_CONFIG, bessemer.TrainingCompilerConfig(debug=True).to_json())
    model = Model()
    trainer = module.Trainer(model=model)
    assert trainer.model is model
    assert len(compiled) == 1 and compiled[0][0] is model and compiled[0][1].debug is True
    assert "compiling the Trainer's model (Model) with the bessemer training compiler" in capsys.readouterr().err

    class MyTrainer(module.Trainer):  # subclasses, as scripts write them, are covered too
        pass

    MyTrainer(model=Model())
    module.Trainer(model=model)  # already compiled: not again
    assert len(compiled) == 2


def test_model_init_models_are_compiled_when_created(fake_trainer_module, monkeypatch):
    module, compiled, _ = fake_trainer_module
    monkeypatch.delenv(ENV_CONFIG, raising=False)
    trainer = module.Trainer(model_init=Model)
    assert compiled == []
    model = trainer.call_model_init()
    assert [m for m, _ in compiled] == [model]


def test_nothing_is_compiled_with_the_compiler_off_or_torch_compile_asked(fake_trainer_module, monkeypatch, capsys):
    module, compiled, Args = fake_trainer_module
    monkeypatch.setenv(ENV_CONFIG, bessemer.TrainingCompilerConfig(enabled=False).to_json())
    module.Trainer(model=Model())
    monkeypatch.delenv(ENV_CONFIG)
    args = Args()
    args.torch_compile = True
    module.Trainer(model=Model(), args=args)
    assert compiled == []
    assert "torch_compile=True" in capsys.readouterr().err


def test_the_startup_hook_reports_compiled_graphs_and_long_compiles():
    code = textwrap.dedent("""
        import logging, sys, time
        import bessemer_job_log
        bessemer_job_log.PROGRESS_AFTER_S = 0.2
        handler = logging.getLogger("bessemer").handlers[0]
        handler.after, handler.every = 0.2, 0.3
        log = logging.getLogger("bessemer")
        log.info("compiling graph %s", "backward1", extra={"bessemer_compile": {"event": "start", "graph": "backward1"}})
        time.sleep(0.9)
        log.info("compiled graph", extra={"bessemer_compile": {"event": "done", "graph": "backward1", "kernels": 4,
                                                               "externs": 1, "seconds": 0.9, "cache_hit": False}})
        log.info("bessemer: a note from the compiler")
        log.debug("not shown")
        logging.basicConfig()
        logging.getLogger().warning("the script's own logging is untouched")
    """)
    r = run_python(code, [STARTUP_DIR], RANK="1")
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    progress = [ln for ln in lines if ln.startswith("bessemer[rank 1]: compiling graph backward1 ... ")]
    assert 1 <= len(progress) <= 3
    assert "bessemer[rank 1]: compiled graph backward1: 4 kernels, 1 externs, 0.90 s, cache miss" in lines
    assert "bessemer[rank 1]: a note from the compiler" in lines and "not shown" not in r.stderr
    assert "WARNING:root:the script's own logging is untouched" in lines
    assert not any("compiled graph" in ln and "INFO" in ln for ln in lines)  # not twice, via the root logger
