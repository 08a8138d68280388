"""Training jobs: estimators that run an unchanged training script with the compiler on.

    estimator.py      Estimator, PyTorch, HuggingFace: describe a job, fit() runs it, attach() finds one
    sagemaker_args.py the SageMaker SDK's other estimator arguments: cloud-only, renamed, refused
    job.py            TrainingJob: a handle on one job (describe, wait, stop, logs)
    contract.py       the environment a job's processes get (SM_* and BESSEMER_* variables)
    layout.py         the job's folder: code, input channels, model, output, checkpoints, log
    store.py          job records, attempts and metrics in SQLite under output_path (each job's
                      record also in its folder's record.json)
    repair.py         `bessemer jobs repair`: the store rebuilt from the job folders
    metrics.py        metric_definitions and parsing them from the log
    tail.py           reading the log as it grows: metrics (record, TensorBoard, CSV), compile lines
    checkpoints.py    checkpoints/ kept in sync with checkpoint_path (a folder or an fsspec URL)
    errors.py         JobFailedError, and failure reasons that start with the script's exception
    outcome.py        what happens when a job ends (pack the model, last metrics, record)
    report.py         metrics tables and PNGs, jobs side by side
    commands.py       `bessemer train` and `bessemer jobs ...`
    engines/          where jobs run: local.py (this machine; supervisor.py watches a job, launch.py
                      starts its processes); the Engine interface in base.py
    hooks/            the start-up hook: a Hugging Face Trainer's model compiled, the compiler's
                      lines in the job's log
"""
from .errors import JobFailedError, JobStoppedError
from .estimator import Estimator, HuggingFace, PyTorch
from .job import TrainingJob

__all__ = ["Estimator", "PyTorch", "HuggingFace", "TrainingJob", "JobFailedError", "JobStoppedError"]
