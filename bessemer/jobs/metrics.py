"""Metrics from a job's log, by the estimator's metric_definitions.

A definition is `{"Name": "loss", "Regex": "loss=([0-9.]+)"}`, as in SageMaker:
every match of the regex in the log is one data point, its value the first
capture group; the n-th match of a metric is its step n (0, 1, 2, ...).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Optional, Sequence


@dataclass(frozen=True)
class MetricDefinition:
    name: str
    regex: re.Pattern

    def to_dict(self) -> dict[str, str]:
        return {"Name": self.name, "Regex": self.regex.pattern}


def validate_definitions(definitions: Optional[Sequence[Any]]) -> list[MetricDefinition]:
    """Check metric_definitions; raises ValueError naming the field and the bad entry."""
    if definitions is None:
        return []
    if isinstance(definitions, (str, bytes, dict)) or not isinstance(definitions, Sequence):
        raise ValueError("metric_definitions must be a list of {'Name': ..., 'Regex': ...} dicts, "
                         f"got {type(definitions).__name__}")
    out: list[MetricDefinition] = []
    names: set[str] = set()
    for i, d in enumerate(definitions):
        if not isinstance(d, dict) or set(d) != {"Name", "Regex"}:
            raise ValueError(f"metric_definitions[{i}] must be a dict with exactly the keys "
                             f"'Name' and 'Regex', got {d!r}")
        name, regex = d["Name"], d["Regex"]
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"metric_definitions[{i}]['Name'] must be a non-empty string, got {name!r}")
        if name in names:
            raise ValueError(f"metric_definitions[{i}]['Name'] {name!r} is defined twice")
        if not isinstance(regex, str):
            raise ValueError(f"metric_definitions[{i}]['Regex'] must be a string, got {regex!r}")
        try:
            pattern = re.compile(regex)
        except re.error as e:
            raise ValueError(f"metric_definitions[{i}]['Regex'] {regex!r} is not a valid regex: {e}") from None
        if pattern.groups < 1:
            raise ValueError(f"metric_definitions[{i}]['Regex'] {regex!r} needs a capture group "
                             "around the value, e.g. 'loss=([0-9.]+)'")
        names.add(name)
        out.append(MetricDefinition(name, pattern))
    return out


def parse_line(line: str, definitions: Sequence[MetricDefinition]) -> list[tuple[str, float]]:
    """[(name, value)] for every match in one line; matches whose value is not a number
    are skipped."""
    found: list[tuple[str, float]] = []
    for d in definitions:
        for m in d.regex.finditer(line):
            try:
                found.append((d.name, float(m.group(1))))
            except (TypeError, ValueError):
                continue
    return found


def parse_metrics(lines: Iterable[str], definitions: Sequence[MetricDefinition]
                  ) -> list[tuple[str, int, float]]:
    """[(name, step, value)] for every match, in log order."""
    steps = {d.name: 0 for d in definitions}
    points: list[tuple[str, int, float]] = []
    for line in lines:
        for name, value in parse_line(line, definitions):
            points.append((name, steps[name], value))
            steps[name] += 1
    return points
