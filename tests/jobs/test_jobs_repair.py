"""A damaged job store is never replaced silently: every command says which file is wrong
and how to recover, and `bessemer jobs repair` rebuilds it from the job folders."""
import shutil

import pytest

from bessemer.cli import main
from bessemer.jobs.store import RECORD_FILE, JobStore

from jobs_testing import write

GOOD = """
import os
for step in range(3):
    print(f"loss={1.0 / (step + 1):.4f}", flush=True)
open(os.path.join(os.environ["SM_MODEL_DIR"], "m.txt"), "w").write("ok")
"""


def sqlite_rewrite(keep):
    def damage(path):
        path.write_bytes(keep(path.read_bytes()))
    return damage


def recreated_empty(path):
    """What an earlier version did with an empty file: a new, empty store in its place."""
    path.unlink()
    JobStore(path.parent)


DAMAGE = {
    "empty": sqlite_rewrite(lambda data: b""),
    "truncated": sqlite_rewrite(lambda data: data[: len(data) // 2]),
    "garbled header": sqlite_rewrite(lambda data: b"\x00garbled\x00header" + data[16:]),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("store")
    write(root / "src" / "good.py", GOOD)
    write(root / "src" / "bad.py", "raise RuntimeError('broken on purpose')\n")
    common = ["--source-dir", str(root / "src"), "--output-path", str(root / "runs"), "--quiet", "--no-compiler",
              "--metric", "loss=loss=([0-9.]+)", "--hp", "lr=0.5"]
    assert main(["train", "good.py", *common, "--job-name", "good"]) == 0
    assert main(["train", "bad.py", *common, "--job-name", "bad"]) == 1
    return root / "runs"


def moved(value, old: str, new: str):
    """`value` with every path under `old` under `new` instead (the copied output folder)."""
    if isinstance(value, dict):
        return {k: moved(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [moved(v, old, new) for v in value]
    return value.replace(old, new) if isinstance(value, str) else value


def described(runs) -> dict:
    store = JobStore(runs, create=False)
    return {r.name: store.describe(r.name) for r in store.list()}


@pytest.mark.parametrize("kind", [*DAMAGE, "recreated empty", "folders without record.json"])
def test_a_damaged_store_is_reported_and_repair_brings_every_job_back(runs, tmp_path, capsys, kind):
    out = tmp_path / "runs"
    shutil.copytree(runs, out)
    before = described(out)
    assert sorted(before) == ["bad", "good"] and before["good"]["Metrics"]["loss"][2]["Value"] == 0.3333
    db = out / "jobs.sqlite"
    if kind == "folders without record.json":  # made by an earlier version: job.json and the log only
        for name in before:
            (out / name / RECORD_FILE).unlink()
        DAMAGE["empty"](db)
    elif kind == "recreated empty":
        recreated_empty(db)
    else:
        DAMAGE[kind](db)
        damaged_bytes = db.read_bytes()
        for args in (["list"], ["describe", "good"], ["metrics", "good"], ["logs", "good"]):
            assert main(["jobs", *args, "--output-path", str(out)]) == 2
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and f"{db} is damaged: " in err, err
            assert f"`bessemer jobs repair --output-path {out}` rebuilds it" in err, err
        assert main(["train", "good.py", "--source-dir", str(runs.parent / "src"), "--output-path", str(out),
                     "--quiet", "--no-compiler"]) == 2
        assert f"{db} is damaged: " in capsys.readouterr().err
        assert db.read_bytes() == damaged_bytes  # never replaced

    assert main(["jobs", "repair", "--output-path", str(out)]) == 0
    said = capsys.readouterr().out
    assert "2 jobs rebuilt from their folders" in said and "bad, good" in said, said
    if kind in DAMAGE:
        [aside] = out.glob("jobs.sqlite.damaged-*")
        assert aside.read_bytes() == damaged_bytes and "was damaged" in said
    after = described(out)
    before = moved(before, str(runs), str(out))
    assert after["good"]["JobDir"] == str(out / "good")  # paths are where the folders are now
    if kind == "folders without record.json":  # what job.json and the log tell
        for name in before:
            for key in ("TrainingJobStatus", "HyperParameters", "Metrics", "ModelArtifacts", "EntryPoint"):
                assert after[name][key] == before[name][key], (name, key)
        assert after["bad"]["FailureReason"].startswith("RuntimeError: broken on purpose")
    else:
        assert after == before
    assert main(["jobs", "repair", "--output-path", str(out)]) == 0
    assert "nothing to repair" in capsys.readouterr().out
