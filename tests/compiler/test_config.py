import pytest

import bessemer
from bessemer import TrainingCompilerConfig


def test_defaults():
    c = TrainingCompilerConfig()
    assert c.enabled is True and c.debug is False


@pytest.mark.parametrize("field,value", [("enabled", "yes"), ("debug", 1), ("fallback", "ignore"),
                                         ("partitioner", "magic"), ("precision", "fp8"), ("backend", "cuda"),
                                         ("cuda_graphs", 1), ("cache_size_limit", 0)])
def test_bad_values_name_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        TrainingCompilerConfig(**{field: value})


def test_unknown_option_in_compile():
    import torch
    with pytest.raises(ValueError, match="unknown TrainingCompilerConfig field"):
        bessemer.compile(torch.nn.Linear(2, 2), turbo=True)


def test_json_roundtrip_and_env(monkeypatch):
    c = TrainingCompilerConfig(debug=True, fallback="error")
    assert TrainingCompilerConfig.from_json(c.to_json()) == c
    monkeypatch.setenv("BESSEMER_COMPILER_CONFIG", c.to_json())
    assert TrainingCompilerConfig.from_env() == c
    monkeypatch.setenv("BESSEMER_COMPILER_CONFIG", "{not json")
    with pytest.raises(ValueError, match="BESSEMER_COMPILER_CONFIG"):
        TrainingCompilerConfig.from_env()


def test_frozen():
    c = TrainingCompilerConfig()
    with pytest.raises(Exception):
        c.enabled = False  # type: ignore[misc]
