"""`bessemer jobs metrics` and `bessemer jobs compare`, and `bessemer train --compare-eager`:
numbers from the jobs' own metrics, PNGs of the curves."""
import pytest

from bessemer.cli import main
from bessemer.jobs.store import JobStore

from jobs_testing import write

# Prints a loss and a throughput per epoch; a compiled run (per the job's config) is twice as
# fast after a slow first epoch, as a compile makes it.
SCRIPT = """
import json, os
compiled = json.loads(os.environ["BESSEMER_COMPILER_CONFIG"])["enabled"]
if compiled:  # the line the job's start-up hook writes for a compiled graph
    print("bessemer: compiled graph forward0: 1 kernels, 0 externs, 0.50 s, cache miss", flush=True)
for epoch in range(4):
    speed = (10.0 if epoch == 0 else 200.0) if compiled else 100.0
    print(f"epoch={epoch} loss={1.0 / (epoch + 1):.6f} samples_per_s={speed}", flush=True)
"""
METRICS = ["--metric", "loss=loss=([0-9.]+)", "--metric", "samples_per_s=samples_per_s=([0-9.]+)"]


def files_under(folder):
    """Every file under `folder` with its size and modification time (SQLite's own -wal/-shm
    files aside: a reader's connection may touch them)."""
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")
            if p.is_file() and not p.name.endswith(("-wal", "-shm"))}


def png(path) -> bool:
    with open(path, "rb") as f:
        return f.read(8) == b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def project(tmp_path):
    write(tmp_path / "src" / "train.py", SCRIPT)
    return tmp_path


def run(project, *extra):
    return main(["train", "train.py", "--source-dir", str(project / "src"), "--output-path",
                 str(project / "runs"), "--quiet", *METRICS, *extra])


def test_train_compare_eager_runs_both_and_compares(project, capsys):
    assert run(project, "--compare-eager", "--job-name", "cmp") == 0
    out = capsys.readouterr().out
    table = out[out.index("\n\n") + 2:].splitlines()
    assert table[0].split() == ["cmp-eager", "cmp"]
    rows = {ln[:24].strip(): ln[24:].split() for ln in table[1:] if not ln.startswith("plot:")}
    assert rows["status"] == ["Completed", "Completed"] and rows["compiler"] == ["eager", "compiled"]
    assert rows["speed (steady, median)"] == ["samples_per_s", "100.0", "samples_per_s", "200.0"]
    assert rows["speed-up vs cmp-eager"] == ["1.00x", "2.00x"]
    assert rows["final loss"] == ["0.25", "0.25"]
    [plot] = [ln.split("plot: ", 1)[1] for ln in table if ln.startswith("plot: ")]
    assert plot.endswith("compare-cmp-eager-cmp.png") and png(plot)
    store = JobStore(project / "runs")
    assert store.get("cmp").compiler_config["enabled"] and not store.get("cmp-eager").compiler_config["enabled"]


def test_jobs_compare_and_metrics(project, capsys):
    assert run(project, "--job-name", "fast") == 0
    assert run(project, "--job-name", "slow", "--no-compiler") == 0
    capsys.readouterr()
    runs = str(project / "runs")
    plot = project / "curves.png"
    assert main(["jobs", "compare", "slow", "fast", "--output-path", runs, "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "speed-up vs slow" in out and "2.00x" in out and png(plot)
    assert main(["jobs", "compare", "slow", "nope", "--output-path", runs]) == 2
    assert "no job named 'nope'" in capsys.readouterr().err

    before = files_under(project / "runs")
    assert main(["jobs", "metrics", "fast", "--output-path", runs]) == 0
    out = capsys.readouterr().out.splitlines()
    assert not any(ln.startswith("plot:") for ln in out)
    assert main(["jobs", "compare", "slow", "fast", "--output-path", runs]) == 0
    assert "plot:" not in capsys.readouterr().out
    assert files_under(project / "runs") == before  # read-only commands wrote nothing
    assert main(["jobs", "metrics", "fast", "--output-path", runs, "--plot", str(project / "pngs")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "fast (Completed)"
    at = out.index("loss  (4 points)")
    assert out[at + 1].split() == ["STEP", "VALUE", "SECONDS"]
    assert [ln.split()[:2] for ln in out[at + 2: at + 6]] == [["0", "1"], ["1", "0.5"], ["2", "0.333333"],
                                                              ["3", "0.25"]]
    plots = sorted(ln.split("plot: ", 1)[1] for ln in out if ln.startswith("plot: "))
    assert [p.rsplit("/", 1)[1] for p in plots] == ["loss.png", "samples_per_s.png"]
    assert all(png(p) and p.startswith(str(project / "pngs")) for p in plots)
    assert main(["jobs", "metrics", "fast", "--output-path", runs, "--last", "1"]) == 0
    out = capsys.readouterr().out
    assert "loss  (4 points, the last 1)" in out and "plot:" not in out


def test_metrics_into_a_closed_pipe_end_quietly(tmp_path):
    """`bessemer jobs metrics NAME | head`: the reader leaves early; no BrokenPipeError traceback."""
    import subprocess
    import sys

    from bessemer.jobs.store import COMPLETED, JobRecord
    from jobs_testing import REPO

    store = JobStore(tmp_path)
    store.create(JobRecord(name="long", status=COMPLETED, creation_time=1.0, start_time=1.0, end_time=2.0))
    store.add_metrics("long", [("loss", i, 1.0 / (i + 1), 1.0 + i) for i in range(20_000)])  # > a pipe's buffer
    proc = subprocess.Popen([sys.executable, "-m", "bessemer.cli", "jobs", "metrics", "long", "--output-path",
                             str(tmp_path)], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline() == b"long (Completed)\n"
    proc.stdout.close()  # as `head -1` does
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141, err
    assert "Traceback" not in err and "BrokenPipe" not in err, err
