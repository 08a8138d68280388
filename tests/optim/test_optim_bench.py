"""`bessemer bench optim` runs (a smoke run: one round, one step; its numbers mean nothing)."""
import pytest

from bessemer.bench import cli
from bessemer.bench import optim as bench_optim


def test_bench_optim_smoke(shared_cache):
    r = bench_optim.measure("gpt2", "tiny", "adamw", ["eager", "template", "ir"], rounds=1, steps=1, warmup=1,
                            device=__import__("torch").device("cpu"), cache_dir=shared_cache)
    assert r["tensors"] > 0 and r["elements"] > 0
    assert set(r["us"]) == {"eager", "template", "ir"} and all(v > 0 for v in r["us"].values())
    text = bench_optim.table([r], ["eager", "template", "ir"])
    head, rule, row = text.splitlines()
    assert head.startswith("| model | optimizer |") and "ir µs/step (× eager)" in head
    assert row.startswith("| gpt2 (tiny) | adamw |") and row.count("|") == head.count("|")


@pytest.mark.parametrize("argv, words", [(["optim", "nosuchmodel"], "nosuchmodel"),
                                         (["optim", "gpt2", "--modes", "eager,fast"], "fast"),
                                         (["optim", "gpt2", "--device", "cuda:0"], "template")])
def test_bench_optim_bad_input_is_one_line(argv, words, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0], err
