"""What fit() raises when a job does not complete, and why a script failed, told so a
person can act on it.

A failure reason starts with the script's exception line, then the traceback
frames that matter (those in the script's own files, shown at their paths in
source_dir rather than in the job's copy, and the frame that raised), then a
hint where the cause is a known one, and last the exit code:

    FileNotFoundError: [Errno 2] No such file or directory: 'data/train.csv'
      File "/home/me/project/train.py", line 12, in <module>
        rows = open("data/train.csv").read()
    hint: the script runs in a copy of source_dir (...); pass data as a channel ...
    (the script exited with code 1)
"""
from __future__ import annotations

import re
import signal
import sys
from dataclasses import dataclass, field
from typing import Optional, Sequence

# Lines of a failure reason kept in the record and the exception (the full log stays on disk).
REASON_CHARS = 4000
FRAMES_KEPT = 6
MESSAGE_LINES = 6
OUTPUT_LINES = 10
_TRACEBACK = "Traceback (most recent call last):"
_FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>.*))?$')
# A syntax error in the script Python was asked to run comes without a traceback header:
#       File "/job/code/train.py", line 3
#         x = (
#             ^
#     SyntaxError: '(' was never closed
_SYNTAX_ERROR = re.compile(r"^(SyntaxError|IndentationError|TabError): ")
_SYNTAX_LOOKAHEAD = 4       # lines between such a File line and its error line (code, caret)
# Launcher tracebacks that only repeat that a worker failed; the worker's own is the one to show.
_LAUNCHER_ERRORS = ("ChildFailedError",)
# Lines bessemer itself wrote into the log (the banner, notes): never part of why a script failed.
_OWN_LINE = re.compile(r"^bessemer(\[rank \d+\])?: ")
# A line a launcher or logger prefixed (torchrun's "[rank0]:", "[W 12:00:00 ...]"): not the
# continuation of an exception's message.
_PREFIXED = re.compile(r"^\[[\w ]*\d[^\]]*\]")


class JobFailedError(RuntimeError):
    """A training job ended Failed (or Stopped: see JobStoppedError)."""

    def __init__(self, job_name: str, status: str, reason: Optional[str], log_path: Optional[str]):
        self.job_name = job_name
        self.status = status
        self.reason = reason
        self.log_path = log_path
        msg = f"training job {job_name} {status.lower()}"
        if reason:
            msg += f": {reason}"
        if log_path:
            msg += f"\n(full log: {log_path})"
        super().__init__(msg)


class JobStoppedError(JobFailedError):
    """A training job was stopped (by request, or for running past max_run) before it completed."""


@dataclass(frozen=True)
class ScriptContext:
    """Where the script ran and where it came from, to show paths a person knows and to
    give hints that name the right flags."""

    code_dir: Optional[str] = None       # the job's copy of source_dir, where the script ran
    source_dir: Optional[str] = None     # the user's folder the copy was made from
    channels: Sequence[str] = field(default_factory=tuple)
    python: str = sys.executable


@dataclass
class Frame:
    path: str
    line: int
    func: str
    code: list[str]


@dataclass
class PythonError:
    frames: list[Frame]
    message: list[str]          # "ValueError: ..." and its continuation lines

    @property
    def kind(self) -> str:
        return self.message[0].split(":", 1)[0].strip() if self.message else ""


def parse_last_error(lines: Sequence[str]) -> Optional[PythonError]:
    """The last Python traceback in `lines` (a worker's, not a launcher's summary of it)."""
    lines = [ln.rstrip("\n") for ln in lines]
    found: list[PythonError] = []
    i = 0
    while i < len(lines):
        if not lines[i].lstrip().startswith(_TRACEBACK):
            bare = _bare_syntax_error(lines, i)
            if bare is not None:
                found.append(bare[0])
                i = bare[1]
                continue
            i += 1
            continue
        indent = len(lines[i]) - len(lines[i].lstrip())
        frames: list[Frame] = []
        j = i + 1
        # Frames are indented; the exception line is the first line back at the header's indent.
        while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) > indent
                                  or lines[j].lstrip().startswith(("File ", "^", "~"))):
            m = _FRAME.match(lines[j])
            if m:
                frames.append(Frame(m["path"], int(m["line"]), m["func"] or "", []))
            elif frames and lines[j].strip() and not set(lines[j].strip()) <= set("^~ "):
                frames[-1].code.append(lines[j].strip())
            j += 1
        message = [lines[j][indent:]] if j < len(lines) else []
        k = j + 1
        # A message of several lines continues until a blank line, a log line of bessemer's or
        # a new traceback.
        while k < len(lines) and len(message) < MESSAGE_LINES and lines[k].strip() \
                and not lines[k].lstrip().startswith(_TRACEBACK) and not _OWN_LINE.match(lines[k]) \
                and not _PREFIXED.match(lines[k]) \
                and not lines[k].startswith(("The above exception", "During handling")):
            message.append(lines[k][indent:])
            k += 1
        found.append(PythonError(frames, message))
        i = j + 1
    chosen = [e for e in found if e.message and not any(x in e.message[0] for x in _LAUNCHER_ERRORS)]
    return chosen[-1] if chosen else None


def _bare_syntax_error(lines: Sequence[str], i: int) -> Optional[tuple[PythonError, int]]:
    """(the error, the index after it) when lines[i] starts a syntax error printed without a
    traceback header (one in the script Python was asked to run)."""
    m = _FRAME.match(lines[i])
    if not m or m["func"] is not None:
        return None
    code: list[str] = []
    for j in range(i + 1, min(i + 1 + _SYNTAX_LOOKAHEAD, len(lines))):
        if _SYNTAX_ERROR.match(lines[j]):
            return PythonError([Frame(m["path"], int(m["line"]), "", code[:1])], [lines[j]]), j + 1
        if lines[j].strip() and not set(lines[j].strip()) <= set("^~ "):
            code.append(lines[j].strip())
    return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def failure_reason(exit_code: Optional[int], lines: Sequence[str], context: ScriptContext = ScriptContext()) -> str:
    """Why the script failed, for the record, the exception fit() raises and output/failure."""
    error = parse_last_error(lines)
    out: list[str] = []
    if error is not None:
        out += error.message
        for fr in _relevant_frames(error.frames, context):
            # a syntax error's frame has no function: it never ran
            out.append(f'  File "{_user_path(fr.path, context)}", line {fr.line}' + (f", in {fr.func}" if fr.func
                                                                                      else ""))
            out += [f"    {c}" for c in fr.code[:2]]
    else:
        tail = [ln.rstrip("\n") for ln in lines if ln.strip() and not _OWN_LINE.match(ln)]
        out += tail[-OUTPUT_LINES:] or ["(the script printed nothing)"]
    hint = _hint(error, exit_code, context)
    if hint:
        out.append(f"hint: {hint}")
    out.append(f"({_exit_text(exit_code)})")
    text = "\n".join(out)
    return text if len(text) <= REASON_CHARS else text[:REASON_CHARS - 4] + "\n..."


def _relevant_frames(frames: list[Frame], context: ScriptContext) -> list[Frame]:
    """The frames in the script's own files, and the one that raised."""
    own = [f for f in frames if context.code_dir and f.path.startswith(context.code_dir.rstrip("/") + "/")]
    keep = own[-FRAMES_KEPT:]
    if frames and (not keep or keep[-1] is not frames[-1]):
        keep.append(frames[-1])
    return keep


def _user_path(path: str, context: ScriptContext) -> str:
    code = (context.code_dir or "").rstrip("/")
    if code and context.source_dir and path.startswith(code + "/"):
        return context.source_dir.rstrip("/") + path[len(code):]
    return path


def _exit_text(exit_code: Optional[int]) -> str:
    if exit_code is None:
        return "the script did not run to an exit code"
    if exit_code < 0:
        try:
            name = signal.Signals(-exit_code).name
        except ValueError:
            name = f"signal {-exit_code}"
        return f"the script was killed by {name}"
    return f"the script exited with code {exit_code}"


def _hint(error: Optional[PythonError], exit_code: Optional[int], context: ScriptContext) -> Optional[str]:
    if error is None:
        if exit_code in (-signal.SIGKILL, 128 + signal.SIGKILL):
            return ("SIGKILL often means the machine ran out of memory (the kernel's OOM killer); "
                    "try a smaller batch size")
        return None
    text = "\n".join(error.message)
    kind = error.kind.rsplit(".", 1)[-1]
    if kind == "FileNotFoundError" or "No such file or directory" in text:
        where = f" ({context.code_dir})" if context.code_dir else ""
        return (f"the script runs in a copy of its source folder{where}: files outside --source-dir "
                "(source_dir=) are not there. Pass data as a channel, --channel NAME=PATH "
                "(fit({'NAME': PATH})), and read it from the SM_CHANNEL_NAME folder")
    if kind == "ModuleNotFoundError":
        m = re.search(r"No module named '([^']+)'", text)
        module = m.group(1).split(".")[0] if m else "it"
        return (f"the script runs with {context.python}: install {module} into that environment, or put "
                "the module in --source-dir (source_dir=) so that it is copied with the script")
    if kind == "KeyError" and re.search(r"'SM_CHANNEL_\w+'", text):
        have = ", ".join(context.channels) or "none"
        return (f"the job's channels are: {have}; pass one with --channel NAME=PATH (fit({{'NAME': PATH}})) "
                "and it arrives as SM_CHANNEL_<NAME>")
    if "out of memory" in text.lower() or kind == "OutOfMemoryError":
        return "lower the batch size (--hp batch_size=...), or train in bf16 (--precision bf16)"
    if any("/bessemer/compiler/" in f.path for f in error.frames):
        return ("the error comes from the bessemer compiler: --no-compiler (enabled=False) trains the same "
                "script eagerly; --debug (debug=True) keeps the compiler's artifacts for a report")
    return None
