"""Training jobs: estimators that run an unchanged training script with the compiler on.

    estimator.py   Estimator, PyTorch, HuggingFace: describe a job, fit() runs it
    job.py         TrainingJob: a handle on one job (describe, wait, stop, logs)
    contract.py    the environment a job's processes get (SM_* and BESSEMER_* variables)
    layout.py      the job's folder: code, input channels, model, output, checkpoints, log
    store.py       job records and metrics in SQLite under output_path
    metrics.py     metric_definitions and parsing them from the log
    outcome.py     what happens when a job ends (pack the model, parse metrics, record)
    engines/       where jobs run: local.py (this machine); the Engine interface in base.py
    hooks/         the start-up hook that compiles a Hugging Face Trainer's model
"""
from .errors import JobFailedError, JobStoppedError
from .estimator import Estimator, HuggingFace, PyTorch
from .job import TrainingJob

__all__ = ["Estimator", "PyTorch", "HuggingFace", "TrainingJob", "JobFailedError", "JobStoppedError"]
