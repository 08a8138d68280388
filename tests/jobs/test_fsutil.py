"""bessemer.fsutil: whole-or-nothing writes and owner-only folders."""
import os
import stat

import pytest

from bessemer.fsutil import atomic_file, atomic_write_bytes, atomic_write_text, private_dir


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_atomic_writes_replace_whole_files_and_leave_no_temporaries(tmp_path):
    target = tmp_path / "f.txt"
    atomic_write_text(target, "one")
    atomic_write_bytes(target, b"two", mode=0o600)
    assert target.read_text() == "two" and mode(target) == 0o600
    atomic_write_text(target, "three")
    umask = os.umask(0)
    os.umask(umask)
    assert mode(target) == 0o666 & ~umask  # as open() would make it
    with pytest.raises(RuntimeError):
        with atomic_file(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("the writer failed")
    assert target.read_text() == "three"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt"]


def test_private_dir_creates_owner_only_folders_and_narrows_ours(tmp_path):
    deep = private_dir(tmp_path / "a" / "b")
    assert mode(tmp_path / "a") == 0o700 and mode(deep) == 0o700
    loose = tmp_path / "loose"
    loose.mkdir()
    os.chmod(loose, 0o777)
    private_dir(loose)
    assert mode(loose) == 0o700
    (tmp_path / "file").write_text("x")
    with pytest.raises(NotADirectoryError):
        private_dir(tmp_path / "file")


def test_private_dir_refuses_a_folder_of_another_user(tmp_path, monkeypatch):
    folder = tmp_path / "theirs"
    folder.mkdir()
    monkeypatch.setattr(os, "getuid", lambda: os.stat(folder).st_uid + 1)
    with pytest.raises(PermissionError, match="belongs to another user"):
        private_dir(folder)
