"""Start-up hooks a training job installs in its processes.

`STARTUP_DIR` goes first on the PYTHONPATH of a job whose compiler is enabled;
its sitecustomize.py makes Hugging Face `Trainer` scripts compile their model
with bessemer, unchanged (see trainer.py).
"""
from pathlib import Path

STARTUP_DIR = Path(__file__).resolve().parent / "startup"
