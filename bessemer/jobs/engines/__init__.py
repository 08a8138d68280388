"""Engines run prepared training jobs: "local" on this machine (the default); others,
such as a Ray cluster, plug in behind the same `Engine` interface."""
from __future__ import annotations

from typing import Union

from .base import Engine, JobSpec

__all__ = ["Engine", "JobSpec", "get_engine", "ENGINES"]

ENGINES = ("local",)


def get_engine(engine: Union[str, Engine]) -> Engine:
    if isinstance(engine, Engine):
        return engine
    if engine == "local":
        from .local import LocalEngine
        return LocalEngine()
    raise ValueError(f"engine must be one of {list(ENGINES)} or an Engine instance, got {engine!r}")
