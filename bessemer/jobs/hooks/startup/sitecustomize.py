"""Start-up hook of a bessemer training job (this folder is first on the job's PYTHONPATH).

When the script imports transformers' Trainer, the Trainer is patched so that its
model goes through bessemer.compile (bessemer.jobs.hooks.trainer); and the
`bessemer` logger writes what the compiler does (a line per compiled graph,
progress during a long compile) to the job's log (bessemer_job_log.py). Only the
standard library is imported here: a process that never uses transformers or
the compiler pays nothing. A sitecustomize further along sys.path still runs.
"""
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

_TARGET = "transformers.trainer"
_HERE = os.path.dirname(os.path.abspath(__file__))


class _PatchAfterExec(importlib.abc.Loader):
    """Runs the real loader, then patches the module it made."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        try:
            from bessemer.jobs.hooks.trainer import patch_trainer_module
            patch_trainer_module(module)
        except Exception as e:  # noqa: BLE001 - the script must run even if the hook cannot
            print(f"bessemer: could not hook transformers.Trainer ({e!r}); "
                  "its model runs without the compiler", file=sys.stderr, flush=True)

    def __getattr__(self, name):
        return getattr(self._loader, name)


class _TrainerFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname != _TARGET:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _PatchAfterExec(spec.loader)
        return spec


def _run_next_sitecustomize():
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # noqa: BLE001 - as Python itself treats a failing sitecustomize
        print(f"Error in sitecustomize ({spec.origin}): {e!r}", file=sys.stderr)


sys.meta_path.insert(0, _TrainerFinder())
try:
    import bessemer_job_log

    bessemer_job_log.install()
except Exception as e:  # noqa: BLE001 - the script must run even if the hook cannot
    print(f"bessemer: could not route the compiler's log to the job's log ({e!r})", file=sys.stderr, flush=True)
_run_next_sitecustomize()
