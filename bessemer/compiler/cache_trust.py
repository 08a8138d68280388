"""Trust in the cache: nothing is loaded from a file another user could have written.

A stored frame or graph entry is a pickle, a kernel is a shared library whose
constructors run when it is loaded: whoever can write the file, or rename files in
any folder above it, runs code in this process. So before anything under the
cache root is loaded, the file and every folder from the root down to it must be
owned by this user, be no symbolic link, and be writable by nobody else (no
group or other write bit). The checksum kept beside an entry only catches
accidents: whoever can replace the file can replace its checksum too.

    problem(path, root)     why `path` cannot be trusted, or None
    refuse(path, reason)    the one warning for a refused entry
    place(root, *parts)     <root>/<parts>, made 0700 where missing, if that chain is
                            trusted; otherwise (with one warning) a private temporary
                            folder of this process, where it compiles afresh

A folder that exists and fails the check is refused rather than narrowed: its
content could already have been planted, and narrowing it now would make that
content look trusted later.
"""
from __future__ import annotations

import os
import stat
import tempfile
import threading
import warnings
from pathlib import Path
from typing import Optional

from bessemer.fsutil import private_dir

_lock = threading.Lock()
_fallback: dict[str, Path] = {}
_warned: set[str] = set()


def _chain(path: Path, root: Path) -> list[Path]:
    path, root = Path(os.path.abspath(path)), Path(os.path.abspath(root))
    try:
        rel = path.relative_to(root)
    except ValueError:
        return [path]
    out = [root]
    for part in rel.parts:
        out.append(out[-1] / part)
    return out


def problem(path: os.PathLike | str, root: os.PathLike | str) -> Optional[str]:
    """Why `path` (a file or folder at or under `root`) must not be loaded, or None. Parts of
    the chain that do not exist yet are not a problem (nothing is there to load)."""
    uid = os.getuid()
    for p in _chain(Path(path), Path(root)):
        try:
            info = os.lstat(p)
        except FileNotFoundError:
            return None
        except OSError as e:
            return f"{p} cannot be inspected ({e.strerror})"
        if stat.S_ISLNK(info.st_mode):
            return f"{p} is a symbolic link"
        if info.st_uid != uid:
            return f"{p} belongs to another user (uid {info.st_uid})"
        if stat.S_IMODE(info.st_mode) & 0o022:
            return f"{p} is writable by others (mode {stat.S_IMODE(info.st_mode):o})"
    return None


def refuse(path: os.PathLike | str, reason: str) -> None:
    """One warning for an entry that is not loaded because it cannot be trusted."""
    warnings.warn(f"bessemer: cache entry {path} is not trusted ({reason}); not loading it, "
                  f"compiling afresh", RuntimeWarning, stacklevel=3)


def place(root: os.PathLike | str, *parts: str) -> Path:
    """`root/parts...` where that chain can be trusted (missing folders are made 0700);
    otherwise a private temporary folder for this process, with one warning."""
    folder = Path(root).joinpath(*parts)
    reason = problem(folder, root)
    if reason is None:
        try:
            made = private_dir(folder)
            reason = problem(made, root)    # made between the check and now by someone else
            if reason is None:
                return made
        except (PermissionError, NotADirectoryError) as e:
            reason = str(e)
    with _lock:
        tmp = _fallback.get(str(folder))
        if tmp is None:
            tmp = _fallback[str(folder)] = Path(tempfile.mkdtemp(prefix="bessemer-cache-"))
        if str(folder) not in _warned:
            _warned.add(str(folder))
            warnings.warn(f"bessemer: cache folder {folder} is not trusted ({reason}); nothing is loaded "
                          f"from it, and this process compiles into {tmp} instead (make the folder yours "
                          f"and mode 0700, or choose another with BESSEMER_CACHE_DIR)",
                          RuntimeWarning, stacklevel=3)
    return tmp
