"""A job's metrics as a table, as SageMaker's TrainingJobAnalytics gives them.

    est.training_job_analytics.dataframe()
           timestamp metric_name     value
    0        12.41        loss  0.917300
    1        13.02        loss  0.611200

`timestamp` is seconds since the job started, as SageMaker's is; rows are in the
order the job printed them, metric by metric. Needs pandas (`bessemer[jobs]`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

from .store import JobStore

COLUMNS = ("timestamp", "metric_name", "value")


class TrainingJobAnalytics:
    """The metrics of one job (all of them, or `metric_names`)."""

    def __init__(self, training_job_name: str, metric_names: Optional[Sequence[str]] = None,
                 output_path: str | Path = "runs"):
        self.name = training_job_name
        self.metric_names = list(metric_names) if metric_names is not None else None
        self.store = JobStore(output_path, create=False)
        self.store.get(training_job_name)  # an unknown name is one clear ValueError now

    def rows(self) -> list[tuple[Optional[float], str, Optional[float]]]:
        start = self.store.get(self.name).start_time
        out = []
        for metric, points in sorted(self.store.metric_points(self.name).items()):
            if self.metric_names is not None and metric not in self.metric_names:
                continue
            for _, value, when in points:
                at = round(when - start, 3) if when is not None and start is not None else None
                out.append((at, metric, value))
        return out

    def dataframe(self, force_refresh: bool = False):  # noqa: ARG002 - SageMaker's signature; always fresh
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("training_job_analytics.dataframe() needs pandas: pip install pandas "
                              "(or 'bessemer[jobs]')") from None
        return pd.DataFrame(self.rows(), columns=list(COLUMNS))
