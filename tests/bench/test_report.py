"""Rendering and the numbers derived from results: speed-ups, geometric means, targets, fidelity."""
import math

import pytest
import torch

from bessemer.bench import report, suite


def _row(model, mode, median=None, error=None, **extra):
    r = {"model": model, "mode": mode, "status": "error" if error else "ok", "error": error,
         "phase_errors": {}, "batch": 8, "seq": 128, "image": None}
    if not error:
        r.update(step_s={"median": median, "spread": 0.02}, first_step_cold_s=1.0, first_step_warm_s=None,
                 final_loss=2.0, losses=[2.0], mfu=0.3)
    r.update(extra)
    return r


def _results():
    return {"meta": {"command": "bessemer bench x", "plan": {"scale": "small"}, "host": {"cpu": "cpu"},
                     "matmul_peak": {"flops_per_s": 1e11, "n": 2048, "dtype": "float32", "device": "cpu"}},
            "rows": [_row("a", "eager", 1.0), _row("a", "inductor", 0.5, first_step_cold_s=30.0),
                     _row("a", "bessemer", 0.25, first_step_cold_s=5.0, first_step_warm_s=1.0),
                     _row("b", "eager", 2.0), _row("b", "inductor", 1.0, first_step_cold_s=30.0),
                     _row("b", "bessemer", error="set-up: RuntimeError: boom")]}


def test_speedups_geomeans_and_targets():
    res = _results()
    report.speedups(res)
    rows = {(r["model"], r["mode"]): r for r in res["rows"]}
    assert rows[("a", "bessemer")]["speedup"] == 4.0 and rows[("b", "bessemer")]["speedup"] is None
    g = report.geomean_speedups(res)
    assert g["inductor"] == {"geomean": pytest.approx(2.0), "models": 2}
    assert g["bessemer"] == {"geomean": pytest.approx(4.0), "models": 1}
    met = {(t["model"], t["target"]): t["met"] for t in report.targets(res)}
    assert met[("a", "bessemer at least as fast as eager")]
    assert met[("a", "bessemer cold compile <= 1/4 of Inductor's")]
    assert met[("a", "bessemer warm start < 2 s")]
    assert not met[("b", "bessemer at least as fast as eager")]
    # over the run: bessemer's 4.00x (one model) against 1.20x and Inductor's 2.00x
    assert met[("all models", "bessemer geometric-mean speed-up >= 1.20x")]
    assert met[("all models", "bessemer geometric-mean speed-up >= Inductor's")]
    res["rows"][2]["step_s"]["median"] = 0.9
    report.speedups(res)
    met = {(t["model"], t["target"]): t["met"] for t in report.targets(res)}
    assert not met[("all models", "bessemer geometric-mean speed-up >= 1.20x")]
    assert not met[("all models", "bessemer geometric-mean speed-up >= Inductor's")]


def test_the_warm_start_target_shows_dynamos_share():
    res = _results()
    res["rows"][2]["first_step_warm_compile"] = {"dynamo_s": 0.61, "backend_s": 0.12}
    value = {(t["model"], t["target"]): t["value"] for t in report.targets(res)}
    assert value[("a", "bessemer warm start < 2 s")] == "1.00 s: Dynamo 0.61 s, backend 0.12 s"


def test_table_and_page_show_errors_in_their_rows():
    res = _results()
    report.speedups(res)
    table = report.table(res)
    assert "error: set-up: RuntimeError: boom" in table and "4.00x" in table
    page = report.markdown(res, title="Tested models")
    assert "| b | batch 8, seq 128 | bessemer | error: set-up: RuntimeError: boom |" in page
    assert "bessemer bench x" in page and "MFU" in page
    res["rows"][0]["mfu"] = 1.5
    assert "exceed 100%" in report.table(res)
    res["rows"][1]["foreign_cpu_share"] = 0.4
    table = report.table(res)
    assert "500.0 ±1%†" in table and "up to 40%" in table


def test_param_difference_is_relative_to_the_largest_parameter():
    ref = {"w": torch.tensor([1.0, -2.0]), "key_bias": torch.tensor([1e-6, -1e-6])}
    # A parameter with a zero gradient drifts by noise: 100% of its own size, nothing of the model's.
    got = {"w": torch.tensor([1.0, -2.0]), "key_bias": torch.tensor([-1e-6, 1e-6])}
    d = suite._param_diff(got, ref)
    assert d["max_rel"] == pytest.approx(1e-6)
    assert d["worst"]["name"] == "key_bias" and d["worst"]["rel"] == pytest.approx(2.0)
    assert suite._param_diff({"w": torch.tensor([1.0, float("nan")])}, {"w": ref["w"]})["max_rel"] == math.inf
    assert suite._param_diff({}, ref)["max_rel"] == math.inf


def test_chart_is_written(tmp_path):
    res = _results()
    report.speedups(res)
    report.chart(res, str(tmp_path / "c.png"))
    assert (tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"


def test_a_row_with_fallbacks_is_not_counted_as_compiled():
    res = _results()
    res["rows"][2].update(fallbacks=1, fallback_notes=["bessemer: backward graph backward3 runs eagerly (X: y)"],
                          unlowered_ops=["aten.frob.default"])
    res["rows"][1].update(fallbacks=0)
    report.speedups(res)
    assert "bessemer" not in report.geomean_speedups(res)        # its only ok row ran partly eagerly
    met = {(t["model"], t["target"]): t for t in report.targets(res)}
    assert not met[("a", "bessemer at least as fast as eager")]["met"]
    assert "ran partly eagerly" in met[("a", "bessemer at least as fast as eager")]["value"]
    assert not met[("a", "bessemer compiles every graph and update")]["met"]
    table = report.table(res)
    assert "4.00x‡" in table and "fallbacks" in table
    assert "a · bessemer: backward graph backward3 runs eagerly (X: y)" in table
    assert "a · bessemer: aten.frob.default" in table
    page = report.markdown(res, title="Tested models")
    assert "| a | batch 8, seq 128 | bessemer | 250.0 ±1% | 4.00x‡ | 1 |" in page
    assert "not counted as compiled" in page
