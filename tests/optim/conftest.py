import os
import warnings

import pytest

from bessemer.config import TrainingCompilerConfig


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory):
    # One kernel cache for the whole run (all xdist workers share the parent of
    # their base temp folder), so each kernel builds once; builds are atomic.
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    path = base / "optim-kernel-cache"
    path.mkdir(exist_ok=True)
    return str(path)


@pytest.fixture
def config(shared_cache):
    return TrainingCompilerConfig(cache_dir=shared_cache)


@pytest.fixture
def no_warnings():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught
    assert [str(w.message) for w in caught] == []
