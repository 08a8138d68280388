"""The checkpoint copier (jobs/checkpoints.py): a file the script removes between the copier's
scan and its copy (a temporary file renamed into place) is skipped, not a failed job."""

from bessemer.jobs.checkpoints import CheckpointSync


def test_a_file_renamed_away_between_scan_and_copy_is_skipped(tmp_path):
    local, remote = tmp_path / "checkpoints", tmp_path / "path"
    local.mkdir()
    (local / ".state.json.tmp").write_text('{"step": 3}')
    sync = CheckpointSync(str(remote), local)
    scan = sync._scan

    def scan_then_rename():
        found = scan()
        (local / ".state.json.tmp").rename(local / "state.json")   # the script's atomic write
        return found
    sync._scan = scan_then_rename
    assert sync.sync() == 0
    sync._scan = scan
    assert sync.sync() == 1
    assert (remote / "state.json").read_text() == '{"step": 3}'
    assert not (remote / ".state.json.tmp").exists()


def test_a_file_that_cannot_be_read_still_fails(tmp_path):
    local, remote = tmp_path / "checkpoints", tmp_path / "path"
    local.mkdir()
    (local / "a.bin").write_bytes(b"x")
    sync = CheckpointSync(str(remote), local)
    remote.mkdir()
    (remote / "a.bin").mkdir()          # the copy's target is a folder: an error of its own
    try:
        sync.sync()
    except OSError:
        return
    raise AssertionError("a copy that failed for another reason was skipped")
