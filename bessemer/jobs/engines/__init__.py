"""Engines run prepared training jobs: "local" on this machine (the default); others,
such as a Ray cluster, plug in behind the same `Engine` interface."""
from __future__ import annotations

from typing import Optional, Union

from .base import Engine, JobSpec

__all__ = ["Engine", "JobSpec", "get_engine", "ENGINES"]

ENGINES = ("local", "ray")


def get_engine(engine: Union[str, Engine], cluster_address: Optional[str] = None) -> Engine:
    """The engine named `engine`; `cluster_address` is the Ray cluster of engine="ray"
    (None: a Ray started on this machine for each job)."""
    if cluster_address is not None and engine != "ray":
        raise ValueError(f"cluster_address is for engine='ray' (a Ray cluster), got engine={engine!r}")
    if isinstance(engine, Engine):
        return engine
    if engine == "local":
        from .local import LocalEngine
        return LocalEngine()
    if engine == "ray":
        from .ray import RayEngine
        return RayEngine(cluster_address)
    raise ValueError(f"engine must be one of {list(ENGINES)} or an Engine instance, got {engine!r}")
