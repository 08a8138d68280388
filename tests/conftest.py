"""Test-session set-up shared by every test folder.

Without a GPU, Triton kernels run under Triton's interpreter. The interpreter is
chosen when triton is imported (its library functions are wrapped then), so the
variable is set here, before any test imports it. BESSEMER_VERIFY makes every
compile check the IR's and the schedule's invariants after each pass; BESSEMER_GRAPH_CACHE=0
makes every compile run the pipeline. Tests marked `gpu` need a CUDA device and are skipped
without one.
"""
import os

import pytest
import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")
# Every compile in the tests checks the IR's invariants after each pass.
os.environ.setdefault("BESSEMER_VERIFY", "1")
# Every compile in the tests runs the pipeline: tests inspect what it produced (memory plans,
# schedules). tests/compiler/test_graph_cache.py turns the graph cache on in its processes.
os.environ.setdefault("BESSEMER_GRAPH_CACHE", "0")

from bessemer.bench.fallbacks import recompile_limit_hits  # noqa: E402  (after the variables above)


FULL = os.environ.get("BESSEMER_TEST_FULL") == "1"


def pytest_collection_modifyitems(config, items):
    """`gpu` tests need a CUDA device; `full` tests (longer variants of cases `make test`
    already covers: more models, more seeds, every launch configuration) run in
    `make test-full` only, which keeps `make test` within its time."""
    skip_gpu = pytest.mark.skip(reason="needs a CUDA GPU")
    skip_full = pytest.mark.skip(reason="make test-full only (BESSEMER_TEST_FULL=1)")
    for item in items:
        if "gpu" in item.keywords and not torch.cuda.is_available():
            item.add_marker(skip_gpu)
        if "full" in item.keywords and not FULL:
            item.add_marker(skip_full)


@pytest.fixture
def no_tf32():
    """GPU matmuls in full fp32: with TF32, eager's own matmuls differ from fp32 by
    more than the fidelity tolerances."""
    before = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    yield
    torch.backends.cuda.matmul.allow_tf32 = before


@pytest.fixture(autouse=True)
def _no_silent_recompile_limit(request):
    """A frame past Dynamo's recompile limit runs eagerly from then on, with only a log
    line: a test comparing it with eager would compare eager with itself. Such a test
    fails here, unless it is about that limit (marker `recompile_limit`)."""
    before = recompile_limit_hits()
    yield
    hits = recompile_limit_hits() - before
    if hits > 0 and "recompile_limit" not in request.keywords:   # (a test may clear the counters)
        pytest.fail(f"Dynamo hit its recompile limit {hits} time(s) in this test: some compiled code ran "
                    f"eagerly (torch._dynamo.reset() before compiling the same code again)", pytrace=False)
