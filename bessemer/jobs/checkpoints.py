"""A job's checkpoint folder, kept at `checkpoint_path` (a folder or an fsspec URL).

    checkpoint_path="ckpt/"               a local folder
    checkpoint_path="s3://bucket/run-1"   any fsspec URL (s3:// needs s3fs, gs:// gcsfs)
    checkpoint_path="memory://run-1"      fsspec's in-process memory (tests; fit(wait=True) only)

As with SageMaker's checkpoint_s3_uri: before the script starts, what is at the
path is copied into the job's checkpoints/ folder (SM_CHECKPOINT_DIR), so a new
job with the same path resumes. While the job runs, each file there that is
complete is copied to the path; at the end (completed, failed or stopped) every
file is. Files are only added or replaced at the path, never deleted.
"""
from __future__ import annotations

import os
import posixpath
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Optional

from ..fsutil import atomic_file

# In-process file systems: a detached job runs in another process and would not see them.
IN_PROCESS_PROTOCOLS = ("memory",)


def check_checkpoint_path(field: str, value: object) -> Optional[str]:
    """A folder (made absolute) or an fsspec URL whose file system can be loaded; else
    ValueError naming `field`."""
    if value is None:
        return None
    if not isinstance(value, (str, os.PathLike)) or not os.fspath(value):
        raise ValueError(f"{field} must be a folder or a URL (s3://..., gs://..., memory://...), got {value!r}")
    text = os.fspath(value)
    if text.startswith("file://"):
        text = text[len("file://"):]
    if "://" not in text:
        return str(Path(text).resolve())
    import fsspec

    protocol = text.split("://", 1)[0]
    try:
        fsspec.get_filesystem_class(protocol)
    except ValueError:
        raise ValueError(f"{field} {text!r}: fsspec knows no file system {protocol}://") from None
    except ImportError as e:
        raise ValueError(f"{field} {text!r} needs a package fsspec did not find: {e}") from None
    return text


def in_process_only(url: Optional[str]) -> bool:
    return bool(url) and url.split("://", 1)[0] in IN_PROCESS_PROTOCOLS


@dataclass
class _Seen:
    size: int
    mtime_ns: int


class CheckpointSync:
    """Copies between a job's checkpoints/ folder and its checkpoint_path."""

    def __init__(self, url: str, local: Path, note: Callable[[str], None] = lambda _: None):
        import fsspec

        self.url = url
        self.local = Path(local)
        self.fs, self.root = fsspec.core.url_to_fs(url)
        self.local_fs = type(self.fs).__name__ == "LocalFileSystem"
        self.note = note
        self.synced: dict[str, _Seen] = {}     # relative path -> what was copied to the path
        self.uploads = 0

    # -- path -> checkpoints/ ------------------------------------------------------
    def restore(self) -> int:
        """Copy what is at the path into checkpoints/ (replacing files of the same name);
        returns how many files came."""
        if not self.fs.exists(self.root):
            return 0
        count = 0
        for remote in sorted(self.fs.find(self.root)):
            rel = posixpath.relpath(remote, self.root.rstrip("/") or "/")
            target = self.local / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            with atomic_file(target) as tmp:
                self.fs.get_file(remote, str(tmp))
            st = target.stat()
            self.synced[rel] = _Seen(st.st_size, st.st_mtime_ns)
            count += 1
        return count

    # -- checkpoints/ -> path ------------------------------------------------------
    def sync(self, busy: Iterable[str] = (), final: bool = False) -> int:
        """Copy each file of checkpoints/ that changed since it was last copied. Unless
        `final`, a file is copied only once it is complete: no process of the job has it open
        (`busy`: the absolute paths they have open). Returns how many files were copied."""
        busy = {os.path.realpath(p) for p in busy}
        copied = 0
        for rel, seen in self._scan().items():
            if self.synced.get(rel) == seen:
                continue
            # Open means still being written. A file written, closed and reopened to write more
            # may be copied in between; the next change copies it again, and the end of the job
            # copies every file, so the path always ends with the files as the job left them.
            if not final and os.path.realpath(self.local / rel) in busy:
                continue
            try:
                self._upload(rel)
            except FileNotFoundError:
                # removed since the scan (a script's temporary file renamed into place): the
                # file it became is copied by its own entry, now or at the next sync
                if (self.local / rel).exists():
                    raise
                continue
            self.synced[rel] = seen
            copied += 1
        return copied

    def _scan(self) -> dict[str, _Seen]:
        found: dict[str, _Seen] = {}
        for folder, _, files in os.walk(self.local):
            for name in files:
                path = Path(folder) / name
                try:
                    st = path.stat()
                except FileNotFoundError:  # removed between listing and looking
                    continue
                found[path.relative_to(self.local).as_posix()] = _Seen(st.st_size, st.st_mtime_ns)
        return found

    def _upload(self, rel: str) -> None:
        source = self.local / rel
        remote = posixpath.join(self.root, rel)
        if self.local_fs:
            Path(remote).parent.mkdir(parents=True, exist_ok=True)
            with atomic_file(remote) as tmp:
                shutil.copyfile(source, tmp)
        else:
            self.fs.makedirs(posixpath.dirname(remote), exist_ok=True)
            self.fs.put_file(str(source), remote)
        self.uploads += 1
