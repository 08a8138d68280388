"""Files written whole or not at all, and folders only their owner can use.

    atomic_write_bytes(path, data)   write to a temporary file beside `path`, then rename it
    atomic_write_text(path, text)    the same, for text (UTF-8)
    atomic_file(path)                a context manager: write to the yielded temporary path
                                     (a tar archive, a compiler's output), renamed on success
    private_dir(path)                make a folder (and missing parents) readable, writable and
                                     searchable by its owner only, and refuse one that is not ours

A reader of a path written here sees the old content or the new, never half of
it: the data goes to a temporary name in the same folder (so the rename stays
on one file system) and `os.replace` swaps it in. A write that fails leaves no
temporary file behind.
"""
from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path
from typing import Iterator, Union

PathLike = Union[str, os.PathLike]

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


@contextlib.contextmanager
def atomic_file(path: PathLike, mode: int | None = None) -> Iterator[Path]:
    """Yield a temporary path beside `path`; when the block ends without an exception the
    file written there replaces `path` (with permissions `mode` when given), else it is removed.
    Without `mode` the file gets the permissions a plain open() would give it (0666 less the umask)."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, _default_file_mode() if mode is None else mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_bytes(path: PathLike, data: bytes, mode: int | None = None) -> Path:
    """Write `data` to `path` whole or not at all; returns the path."""
    with atomic_file(path, mode) as tmp:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    return Path(path)


def atomic_write_text(path: PathLike, text: str, mode: int | None = None) -> Path:
    """Write `text` (UTF-8) to `path` whole or not at all; returns the path."""
    return atomic_write_bytes(path, text.encode("utf-8"), mode)


def private_dir(path: PathLike) -> Path:
    """Make `path` (and missing parents) a folder of mode 0700, and return it.

    A folder that exists already is kept if this user owns it (its mode is narrowed to
    0700 when wider); one owned by someone else is refused with PermissionError, since
    whatever it holds could have been planted there. Parents that exist are left alone.
    """
    p = Path(path)
    missing = []
    for parent in [p, *p.parents]:
        if parent.exists():
            break
        missing.append(parent)
    for d in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(d, PRIVATE_DIR_MODE)
    info = os.stat(p)
    if not stat.S_ISDIR(info.st_mode):
        raise NotADirectoryError(f"{p} is not a folder")
    if info.st_uid != os.getuid():
        raise PermissionError(f"{p} belongs to another user (uid {info.st_uid}); it cannot be trusted "
                              "as a private folder: choose another (e.g. BESSEMER_CACHE_DIR)")
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(p, PRIVATE_DIR_MODE)
    return p


def _default_file_mode() -> int:
    return 0o666 & ~_umask()


def _umask() -> int:
    # Linux reports the umask in /proc/self/status; elsewhere it can only be read by setting
    # it, which for an instant changes it for every thread of the process.
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    umask = os.umask(0o022)
    os.umask(umask)
    return umask
