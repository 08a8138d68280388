"""The Ray engine on this machine: a Ray started for each job, and an existing cluster
(`ray start --head` on loopback) found by address. The example trains on 2 Ray workers
to the model of the local engine's 2-process run; a lost worker restarts the job from
its last checkpoint; a failing worker fails it with its error; a stop ends every worker
and frees the placement group. No Ray process outlives the module."""
import json
import os
import signal
import shutil
import subprocess
import sys
import tempfile
import time

import psutil
import pytest
import torch

pytest.importorskip("ray")

from bessemer import PyTorch, TrainingCompilerConfig, demo  # noqa: E402
from bessemer.jobs.store import COMPLETED, FAILED, STOPPED  # noqa: E402

from jobs_testing import (PYTORCH_EXAMPLE, SLEEPER, job_ended, load_state_dict_from_tar,  # noqa: E402
                          model_tar_members, process_running, read_pids, wait_for, write)

RAY = [sys.executable, "-m", "ray.scripts.scripts"]


def ray_processes(temp: str) -> dict[int, str]:
    """This module's Ray processes: those whose command line names its Ray temp folder (the
    GCS, raylets, agents; Ray's workers end with their raylet). Other tests' Rays, which may
    run at the same time under pytest-xdist, are not looked at."""
    found = {}
    for p in psutil.process_iter(["cmdline"]):
        try:
            cmd = " ".join(p.info["cmdline"] or [])
        except psutil.Error:
            continue
        if temp in cmd and p.pid != os.getpid():
            found[p.pid] = cmd
    return found


@pytest.fixture(scope="module")
def ray_temp():
    """A short Ray temp folder of this module's own (Ray's socket paths must stay short), for
    every Ray the module starts; at the end no process of theirs may be left."""
    temp = tempfile.mkdtemp(prefix="bray-", dir="/tmp")
    yield temp
    deadline = time.monotonic() + 30
    while (left := ray_processes(temp)) and time.monotonic() < deadline:
        time.sleep(0.5)
    for pid in left:
        try:
            psutil.Process(pid).kill()
        except psutil.Error:
            pass
    shutil.rmtree(temp, ignore_errors=True)
    assert not left, f"Ray processes left behind: {left}"


@pytest.fixture(autouse=True)
def _ray_temp_dir(ray_temp, monkeypatch):
    monkeypatch.setenv("RAY_TMPDIR", ray_temp)       # a job's driver passes it on to the Ray it starts
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")


@pytest.fixture(scope="module")
def cluster(ray_temp):
    """A Ray cluster of one node on loopback, started as a user would (`ray start --head`), in
    the foreground (--block) in a session of its own, so that ending it ends only its processes
    (`ray stop` would end every Ray of this user on the machine)."""
    port = _free_port()
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_TMPDIR": ray_temp}
    head = subprocess.Popen([*RAY, "start", "--head", "--block", f"--port={port}", "--node-ip-address=127.0.0.1",
                             "--num-cpus=2", "--include-dashboard=false", "--object-store-memory=100000000",
                             "--disable-usage-stats", f"--temp-dir={ray_temp}"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for(lambda: head.poll() is not None or any("gcs_server" in c for c in ray_processes(ray_temp).values()),
                 timeout=120, what="the Ray head")
        assert head.poll() is None, "ray start --head failed"
        yield f"127.0.0.1:{port}"
    finally:
        os.killpg(head.pid, signal.SIGTERM)
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait()


@pytest.fixture
def cluster_address(cluster, monkeypatch):
    # `ray start` turns on token authentication (its token in ~/.ray/auth_token); a client that
    # connects to it says so, and the job's driver inherits the setting from this environment.
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    return cluster


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def example_job(out, engine, instances=1, processes=1, **kw):
    est = PyTorch(entry_point="train.py", source_dir=PYTORCH_EXAMPLE, hyperparameters={**demo.HYPERPARAMETERS, "epochs": 3, "repeat": 4},
                  instance_count=instances, processes_per_instance=processes, engine=engine,
                  compiler_config=TrainingCompilerConfig(fallback="error"), metric_definitions=demo.METRICS,
                  output_path=out, **kw)
    est.fit({"train": PYTORCH_EXAMPLE / "data"}, logs=False)
    return est


def test_two_ray_workers_train_the_local_engines_two_process_model(tmp_path, monkeypatch):
    monkeypatch.setenv("BESSEMER_CACHE_DIR", str(tmp_path / "cache"))   # empty: the Ray job compiles
    ray_est = example_job(tmp_path / "ray", "ray", instances=2)
    local_est = example_job(tmp_path / "local", "local", processes=2)

    job = ray_est.latest_training_job
    rec = job.record()
    assert (rec.status, rec.engine, rec.instance_count, rec.processes_per_instance) == (COMPLETED, "ray", 2, 1)
    assert [a.status for a in job.store.attempts(job.name)] == [COMPLETED]
    assert model_tar_members(ray_est.model_data) == ["model.pt"]
    assert json.loads((job.job_dir.output_data / "history.json").read_text())["world_size"] == 2
    got, want = load_state_dict_from_tar(ray_est.model_data), load_state_dict_from_tar(local_est.model_data)
    assert got.keys() == want.keys()
    for k in want:
        assert got[k].equal(want[k]), k
    assert ray_est.metrics()["loss"] == local_est.metrics()["loss"]
    assert len(ray_est.metrics()["loss"]) == 3

    log = open(job.log_path).read()
    assert "placement group of 2 x {'CPU': 1} (PACK) ready" in log
    assert "worker 1 (rank 1, algo-2)" in log
    # Rank 1's own output is in its worker log, not the job's; its compile lines are in both.
    assert "rank 1/2: model ready (bessemer compiler enabled=True)" in (job.job_dir.root / "workers" / "worker-1.log").read_text()
    assert "rank 1/2: model ready" not in log
    assert "bessemer[rank 1]: compiled graph" in log
    assert "bessemer: ray: compiles per worker (one kernel cache per node): rank 0: " in log
    summary = rec.compile_summary
    assert summary["graphs"] > 0 and summary["fallbacks"] == 0 and summary["ranks"] == 2
    # The same contract as the local engine's: the script saw two hosts.
    config = json.loads((job.job_dir.input_config / "resourceconfig.json").read_text())
    assert config["hosts"] == ["algo-1", "algo-2"]
    assert job.describe()["TrainingJobStatus"] == COMPLETED


# FSDP2: each Linear is an FSDP unit, compiled by bessemer (the root is not: FSDP2 runs its
# hooks outside Dynamo, so a compiled root graph-breaks at every sharded layer and compiles
# nothing). Each rank saves its own shards of the trained parameters.
FSDP_SCRIPT = """
import os, sys
import torch, torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import fully_shard
import bessemer

dist.init_process_group(backend=os.environ["SM_DIST_BACKEND"])
rank = dist.get_rank()
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 4))
for layer in model:
    if isinstance(layer, nn.Linear):
        fully_shard(layer)
        bessemer.compile(layer)
fully_shard(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
g = torch.Generator().manual_seed(100 + rank)
for step in range(4):
    x, y = torch.randn(8, 16, generator=g), torch.randint(0, 4, (8,), generator=g)
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    print(f"step={step} loss={loss.item():.6f}", flush=True)
os.makedirs(os.environ["SM_MODEL_DIR"], exist_ok=True)
torch.save({n: p.to_local().detach().clone() for n, p in model.named_parameters()},
           os.path.join(os.environ["SM_MODEL_DIR"], f"shard-{rank}.pt"))
dist.barrier()
dist.destroy_process_group()
sys.stdout.flush()
os._exit(0)
"""


def test_fsdp2_trains_compiled_on_ray_workers_to_eager_fsdps_shards(tmp_path, monkeypatch):
    monkeypatch.setenv("BESSEMER_CACHE_DIR", str(tmp_path / "cache"))
    write(tmp_path / "src" / "fsdp.py", FSDP_SCRIPT)

    def run(engine, enabled, **kw):
        est = PyTorch(entry_point="fsdp.py", source_dir=tmp_path / "src", output_path=tmp_path / engine, engine=engine,
                      compiler_config=TrainingCompilerConfig(enabled=enabled, fallback="error"), **kw)
        est.fit(logs=False)
        return est

    compiled = run("ray", True, instance_count=2)
    eager = run("local", False, processes_per_instance=2)
    summary = compiled.latest_training_job.record().compile_summary
    # three units, a forward and a backward each, on both ranks; nothing eager
    assert summary["graphs"] == 6 and summary["fallbacks"] == 0 and summary["ranks"] == 2, summary
    for rank in (0, 1):
        got = load_state_dict_from_tar(compiled.model_data, f"shard-{rank}.pt")
        want = load_state_dict_from_tar(eager.model_data, f"shard-{rank}.pt")
        assert got.keys() == want.keys() and len(want) == 6
        for k in want:
            assert got[k].shape == want[k].shape and got[k].shape[0] in (32, 2), (k, got[k].shape)  # a half
            torch.testing.assert_close(got[k], want[k], atol=1e-6, rtol=0, msg=lambda m, k=k: f"rank {rank} {k}: {m}")


# Steps with a checkpoint after each (rank 0 saves); every rank records its pid and its
# actor's (its parent's) and waits for the others at each step (a file per rank and step).
STEPPER = """
import json, os, sys, time
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
pids = os.environ["PID_DIR"]
with open(os.path.join(pids, f"actor-{rank}.pid"), "w") as f:
    f.write(str(os.getppid()))
ckpt = os.path.join(os.environ["SM_CHECKPOINT_DIR"], "state.json")
start = json.load(open(ckpt))["step"] + 1 if os.path.exists(ckpt) else 0
print(f"rank {rank}: resuming from step {start}", flush=True)
if rank == int(os.environ.get("FAIL_RANK", "-1")):
    raise RuntimeError(f"simulated failure on rank {rank}")
for step in range(start, int(os.environ["STEPS"])):
    time.sleep(0.2)
    if rank == 0:
        with open(ckpt + ".tmp", "w") as f:
            json.dump({"step": step}, f)
        os.replace(ckpt + ".tmp", ckpt)
        print(f"saved step={step}", flush=True)
os.makedirs(os.environ["SM_MODEL_DIR"], exist_ok=True)
if rank == 0:
    open(os.path.join(os.environ["SM_MODEL_DIR"], "done.txt"), "w").write("done")
"""


def stepper(tmp_path, **kw):
    write(tmp_path / "src" / "steps.py", STEPPER)
    (tmp_path / "pids").mkdir(exist_ok=True)
    env = {"STEPS": "40", "PID_DIR": str(tmp_path / "pids"), **kw.pop("env", {})}
    return PyTorch(entry_point="steps.py", source_dir=tmp_path / "src", output_path=tmp_path / "runs",
                   instance_count=2, engine="ray", environment=env,
                   compiler_config=TrainingCompilerConfig(enabled=False), **kw)


def test_a_lost_worker_restarts_the_workers_from_the_last_checkpoint(tmp_path, monkeypatch):
    # As on a node that does not see the job's folder: the inputs go through the object store,
    # rank 0's checkpoints and model come back through it.
    monkeypatch.setenv("BESSEMER_RAY_STAGE", "1")
    ckpt = tmp_path / "ckpt"
    est = stepper(tmp_path, checkpoint_path=ckpt, max_retries=1)
    est.fit(wait=False)
    wait_for(lambda: (ckpt / "state.json").exists() and json.loads((ckpt / "state.json").read_text())["step"] >= 3,
             timeout=120, what="a few steps checkpointed")
    actor = int((tmp_path / "pids" / "actor-1.pid").read_text())
    os.kill(actor, signal.SIGKILL)       # worker 1's Ray actor (and with it, its script)
    wait_for(lambda: job_ended(est), timeout=180, what="the job's end")

    job = est.latest_training_job
    rec = job.record()
    log = open(job.log_path).read()
    assert rec.status == COMPLETED, (rec.failure_reason, log[-3000:])
    attempts = job.store.attempts(job.name)
    assert [a.status for a in attempts] == [FAILED, COMPLETED]
    assert "WorkerLostError: worker 1 (rank 1, algo-2" in attempts[0].reason
    resumed = [int(ln.split("resuming from step ")[1]) for ln in log.splitlines()
               if ln.startswith("rank 0: resuming from step ")]
    assert resumed[0] == 0 and resumed[1] >= 4, resumed
    assert model_tar_members(est.model_data) == ["done.txt"]
    assert "sent through the object store to 2 worker(s)" in log
    assert json.loads((ckpt / "state.json").read_text())["step"] == 39
    assert not process_running(actor)


def test_a_failing_worker_fails_the_job_with_its_error(tmp_path, cluster_address):
    est = stepper(tmp_path, env={"FAIL_RANK": "1"}, cluster_address=cluster_address)
    with pytest.raises(Exception, match="simulated failure on rank 1"):
        est.fit(logs=False)
    rec = est.latest_training_job.record()
    assert rec.status == FAILED and "RuntimeError: simulated failure on rank 1" in rec.failure_reason
    log = open(est.latest_training_job.log_path).read()
    assert "[worker 1] RuntimeError: simulated failure on rank 1" in log
    assert "worker 1 (rank 1, algo-2 on " in log and "the other workers were stopped" in log


def test_an_existing_cluster_by_address_runs_and_stops_a_job(tmp_path, cluster_address):
    cluster = cluster_address
    write(tmp_path / "src" / "sleep.py", SLEEPER)
    pids = tmp_path / "pids"
    pids.mkdir()
    est = PyTorch(entry_point="sleep.py", source_dir=tmp_path / "src", output_path=tmp_path / "runs",
                  instance_count=2, engine="ray", cluster_address=cluster, environment={"PID_DIR": str(pids)},
                  compiler_config=TrainingCompilerConfig(enabled=False))
    est.fit(wait=False)
    wait_for(lambda: len(read_pids(pids)) == 4 or job_ended(est), timeout=120, what="both workers' scripts")
    assert len(read_pids(pids)) == 4, open(est.latest_training_job.log_path).read()[-3000:]
    scripts = read_pids(pids)
    assert est.stop()
    wait_for(lambda: job_ended(est), timeout=60, what="the stopped job's end")
    rec = est.latest_training_job.record()
    assert rec.status == STOPPED
    log = open(est.latest_training_job.log_path).read()
    assert f"the Ray cluster at {cluster}: 1 node(s), 2 CPUs" in log
    wait_for(lambda: not any(process_running(p) for p in scripts), timeout=30, what="every script's end")
    # The placement group is gone and the cluster's CPUs are free again.
    probe = ("import json, ray; ray.init(address=%r, log_to_driver=False);"
             "print(json.dumps([ray.available_resources().get('CPU', 0),"
             " sorted({p['state'] for p in ray.util.placement_group_table().values()})]))" % cluster)

    def freed():
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
        cpus, states = json.loads(out.stdout.strip().splitlines()[-1])
        return cpus == 2 and states == ["REMOVED"]
    wait_for(freed, timeout=60, what="the placement group removed")


def test_asking_for_ray_without_it_says_how_to_install_it(tmp_path):
    script = write(tmp_path / "t.py", "print(1)\n")
    code = ("import sys; sys.modules['ray'] = None\n"
            "from bessemer import PyTorch\n"
            f"PyTorch(entry_point={str(script)!r}, engine='ray', output_path={str(tmp_path / 'runs')!r})\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert "ValueError: engine='ray' needs Ray, which is not installed: pip install 'bessemer[ray]'" in out.stderr


def test_cluster_address_is_for_the_ray_engine(tmp_path):
    script = write(tmp_path / "t.py", "print(1)\n")
    with pytest.raises(ValueError, match="cluster_address is for engine='ray'"):
        PyTorch(entry_point=script, cluster_address="auto", output_path=tmp_path / "runs")
    with pytest.raises(ValueError, match="cluster_address must be None"):
        PyTorch(entry_point=script, engine="ray", cluster_address="", output_path=tmp_path / "runs")
