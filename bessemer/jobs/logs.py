"""Following a job's log file as it grows (what fit() and `bessemer jobs logs` print)."""
from __future__ import annotations

import codecs
from pathlib import Path
from typing import Optional, TextIO


class AppendedText:
    """What was appended to a text file since the last read, decoded as UTF-8 (a character cut
    in two by a read is completed by the next one)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.offset = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def read(self, final: bool = False) -> str:
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return ""
        self.offset += len(data)
        return self._decoder.decode(data, final=final)


class LogFollower:
    """Copies what was appended to a log file since the last call to a stream."""

    def __init__(self, path: Path, stream: Optional[TextIO]):
        self.stream = stream
        self._text = AppendedText(path)

    def pump(self) -> None:
        if self.stream is None:
            return
        if text := self._text.read():
            self.stream.write(text)
            self.stream.flush()
