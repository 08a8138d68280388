"""The batch-size tuner: the largest batch whose training step fits a memory limit, found by
real steps, per mode, with the learning rate scaled for it.

    bessemer tune gpt2 --scale small --memory-limit 512MiB
    bessemer tune --entry-point train.py --workload workload --memory-limit auto --json

The search itself is the benchmark's (bench/search.py: `find_batch`, each probe a fresh
process running bench/probe.py, the benchmark's own step set-up and measurement); this package
adds the command (`cli.main`) and the learning-rate rule (`lr.scaled_learning_rate`); the job system's `batch_size="auto"` uses the same search
(jobs/autobatch.py).
"""
from .lr import LR_RULES, scaled_learning_rate, scaled_warmup_steps
from ..bench.search import TuneError, Workload, find_batch, parse_limit, resolve_limit

__all__ = ["find_batch", "scaled_learning_rate", "scaled_warmup_steps", "LR_RULES", "TuneError", "Workload",
           "parse_limit", "resolve_limit"]
