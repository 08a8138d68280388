import os

import pytest
import torch


@pytest.fixture(scope="session")
def kernel_cache(tmp_path_factory, worker_id):
    # One kernel cache for the whole test session, shared by the xdist workers
    # (builds are content-addressed and written atomically), so each kernel is
    # built by gcc once.
    base = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        base = base.parent
    path = base / "bessemer-model-cache"
    path.mkdir(exist_ok=True)
    return str(path)


@pytest.fixture(autouse=True)
def fresh_dynamo():
    # Each test starts with empty Dynamo caches and counters: compiled graphs
    # of an earlier test's model cannot count against the recompile limit, and
    # the counters a test reads are its own.
    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    yield
    torch._dynamo.reset()


@pytest.fixture(autouse=True)
def one_core_per_worker():
    # With pytest -n N each worker gets its share of the cores: with more
    # threads than cores every OpenMP barrier (ATen's and the compiled
    # kernels') waits for a descheduled thread, and a step of these tiny
    # models takes a hundred times longer.
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    before = torch.get_num_threads()
    torch.set_num_threads(max(1, len(os.sched_getaffinity(0)) // workers))
    yield
    torch.set_num_threads(before)
