"""bessemer: an open training compiler for PyTorch."""
from .config import TrainingCompilerConfig

__version__ = "0.1.0"

# The estimators are imported when first used (`bessemer.PyTorch`, `from bessemer import
# PyTorch`): a script that only compiles does not load the jobs package and its libraries.
# The compiler's entry points are imported when first used too: a job's supervisor, the
# store commands and the CLI's jobs subcommands import `bessemer.jobs` without loading torch.
_ESTIMATORS = ("Estimator", "PyTorch", "HuggingFace")
_COMPILER = ("compile", "compile_step")
_SUBPACKAGES = ("jobs", "bench", "zoo", "tune", "compiler")

__all__ = ["TrainingCompilerConfig", "compile", "compile_step", "__version__", *_ESTIMATORS]


def __getattr__(name: str):
    if name in _COMPILER:
        from . import api

        return getattr(api, name)
    if name in _ESTIMATORS:
        from .jobs import estimator

        return getattr(estimator, name)
    if name in _SUBPACKAGES:  # `import bessemer; bessemer.jobs.TrainingJob`
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'bessemer' has no attribute {name!r}")
