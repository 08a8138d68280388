"""bessemer: an open training compiler for PyTorch."""
from .config import TrainingCompilerConfig
from .api import compile, compile_step

__version__ = "0.1.0"

# The estimators are imported when first used (`bessemer.PyTorch`, `from bessemer import
# PyTorch`): a script that only compiles does not load the jobs package and its libraries.
_ESTIMATORS = ("Estimator", "PyTorch", "HuggingFace")
_SUBPACKAGES = ("jobs", "bench", "zoo")

__all__ = ["TrainingCompilerConfig", "compile", "compile_step", "__version__", *_ESTIMATORS]


def __getattr__(name: str):
    if name in _ESTIMATORS:
        from .jobs import estimator

        return getattr(estimator, name)
    if name in _SUBPACKAGES:  # `import bessemer; bessemer.jobs.TrainingJob`
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'bessemer' has no attribute {name!r}")
