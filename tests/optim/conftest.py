import warnings

import pytest

from bessemer.config import TrainingCompilerConfig


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory):
    # One kernel cache for the tests of a worker, so each kernel builds once.
    return str(tmp_path_factory.mktemp("optim-cache"))


@pytest.fixture
def config(shared_cache):
    return TrainingCompilerConfig(cache_dir=shared_cache)


@pytest.fixture
def no_warnings():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught
    assert [str(w.message) for w in caught] == []
