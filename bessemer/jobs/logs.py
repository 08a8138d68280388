"""Following a job's log file as it grows (what fit() and `bessemer jobs logs` print)."""
from __future__ import annotations

import codecs
from pathlib import Path
from typing import Optional, TextIO


class LogFollower:
    """Copies what was appended to a log file since the last call to a stream."""

    def __init__(self, path: Path, stream: Optional[TextIO]):
        self.path = Path(path)
        self.stream = stream
        self.offset = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def pump(self) -> None:
        if self.stream is None:
            return
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return
        if data:
            self.offset += len(data)
            self.stream.write(self._decoder.decode(data))
            self.stream.flush()
