"""What the command-line tools share: a parser whose errors are one line, and the
argument types of counts."""
from __future__ import annotations

import argparse


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser that raises `error` (an exception type) with argparse's message,
    instead of printing its usage and exiting: the tool prints one line and exits 2."""

    def __init__(self, *args, error: type[Exception] = ValueError, **kwargs):
        self._error = error
        super().__init__(*args, **kwargs)

    def error(self, message):
        raise self._error(message)


def positive(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return v


def non_negative(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}")
    return v
