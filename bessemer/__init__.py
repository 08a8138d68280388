"""bessemer: an open training compiler for PyTorch."""
from .config import TrainingCompilerConfig
from .api import compile

__version__ = "0.1.0"

__all__ = ["TrainingCompilerConfig", "compile", "__version__"]

# Estimators, when the jobs package is present.
try:  # noqa: SIM105
    from .jobs.estimator import Estimator, PyTorch, HuggingFace  # noqa: F401
    __all__ += ["Estimator", "PyTorch", "HuggingFace"]
except ImportError:  # pragma: no cover - during development of the jobs package
    pass
