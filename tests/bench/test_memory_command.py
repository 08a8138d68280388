"""`bessemer bench memory`: its tables, the page section it owns, bad input."""
from __future__ import annotations

from bessemer.bench import memory
from bessemer.bench.cli import main as bench_main


def _results():
    rows = []
    for variant, mode, peak, step in (("eager", "eager", 280, 0.30), ("no remat", "bessemer", 240, 0.25),
                                      ("budget 1", "bessemer", 180, 0.255), ("budget 0", "bessemer", 150, 0.31)):
        rows.append({"model": "gpt2", "variant": variant, "mode": mode, "config": None,
                     "peak_bytes": peak * 2 ** 20, "step_s": step})
    rows.append({"model": "llama", "variant": "eager", "mode": "eager", "config": None, "error": "boom"})
    return {"meta": {"date": "d", "scale": "small", "device": "cpu", "steps": 5, "warmup": 2,
                     "command": "bessemer bench memory gpt2", "cpu": "cpu", "cores": 2},
            "rows": rows, "tune": {"limit_bytes": 400 * 2 ** 20, "models": {"gpt2": {
                "eager": {"batch_size": 8, "samples_per_s": 20.0, "largest_confirmed": True},
                "bessemer": {"batch_size": 20, "samples_per_s": 30.0, "largest_confirmed": True}}}}}


def test_tables(tmp_path):
    md = memory.markdown(_results())
    assert "| gpt2 | 280.0 | 240.0 | 180.0 | 0.64x | 250.0 | 255.0 | 1.02x |" in md
    assert "| gpt2 | 0 | 150.0 | 0.54x | 310.0 | 1.24x |" in md
    assert "| gpt2 | 8 | 20.0 | 20 | 30.0 |" in md
    memory.chart(_results(), str(tmp_path / "c.png"))
    assert (tmp_path / "c.png").stat().st_size > 0


def test_section_survives_the_page_being_rendered_again(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(memory.replace_section("# Tested models\n\nold table\n", "memory tables"))
    again = memory.keep_section(str(page), "# Tested models\n\nnew table\n")
    assert "new table" in again and "memory tables" in again and "old table" not in again
    assert again.count(memory.START) == 1


def test_bad_budget_is_one_line(capsys):
    assert bench_main(["memory", "gpt2", "--budgets", "1.0,1.5"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "memory_budget" in err


def test_whole_step_row():
    res = _results()
    res["rows"].append({"model": "gpt2", "variant": "whole step", "mode": "bessemer-step", "config": None,
                        "peak_bytes": 130 * 2 ** 20, "step_s": 0.2})
    md = memory.markdown(res)
    assert "| gpt2 | whole step | 130.0 | 0.46x | 200.0 | 0.80x |" in md
    assert ("whole step", "bessemer-step", None) in memory.variants([1.0])


def test_budget_search_column():
    res = _results()
    res["tune"]["models"]["gpt2"]["bessemer-step:auto"] = {
        "batch_size": 33, "samples_per_s": 28.0, "largest_confirmed": True, "memory_budget": 0.0,
        "budgets": {"1": {"largest_batch": 24}, "0": {"largest_batch": 33}}}
    md = memory.markdown(res)
    assert "bessemer-step:auto: largest batch" in md and "| 33 (budget 0) | 28.0 |" in md


def test_bad_tune_modes_are_one_line(capsys):
    for modes, said in (("eager,jax", "unknown mode 'jax'"), ("eager:auto", "only a bessemer mode"),
                        ("bessemer:0.5", "only :auto")):
        assert bench_main(["memory", "gpt2", "--tune-limit", "300MiB", "--tune-modes", modes]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and said in err, err
