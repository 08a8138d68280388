"""`bessemer bench --dynamic` end to end on a tiny model: varying sequence lengths in
fresh worker processes, against a static run, with nothing left eager."""
import json
import math

from bessemer.bench import cli, dynamic


def test_default_lengths_are_half_to_all_of_the_scale_length():
    assert dynamic.default_lengths(128) == [64, 80, 96, 112, 128]
    assert dynamic.default_lengths(16) == [8, 10, 12, 14, 16]


def test_varying_lengths_eager_and_bessemer(tmp_path, capsys):
    out_dir = tmp_path / "out"
    code = cli.main(["distilgpt2", "--dynamic", "--scale", "tiny", "--lengths", "8,12", "--modes", "eager,bessemer",
                     "--passes", "2", "--steps", "1", "--warmup", "0", "--out", str(out_dir)])
    table = capsys.readouterr().out
    assert code == 0
    results = json.loads((out_dir / "results.json").read_text())
    assert results["meta"]["kind"] == "dynamic" and results["meta"]["plan"]["reference"] == [2, 12]
    rows = {r["mode"]: r for r in results["rows"]}
    assert set(rows) == {"eager", "bessemer"}
    for r in rows.values():
        assert r["status"] == "ok", r["error"]
        assert [(s["batch"], s["seq"]) for s in r["shapes"]] == [(2, 8), (2, 12)]
        assert len(r["losses"]) == 4 and all(math.isfinite(x) for x in r["losses"])
        assert r["later_ref_s"]["median"] > 0 and r["static_s"]["median"] > 0 and r["ratio"] > 0
        assert r["static_s"]["n"] == 1
        # the interleaved A/B at the reference shape, in the shapes run's process
        assert r["ab_dynamic_s"]["n"] == 1 and r["ab_static_s"]["n"] == 1
    e, b = rows["eager"], rows["bessemer"]
    assert e["dynamo_graphs"] == 0 and e["pipeline_runs"] is None
    # As fallback="error": any graph bessemer left eager (or an update left to torch) fails here.
    assert b["fallbacks"] == 0 and b["fallback_notes"] == [], b["fallback_notes"]
    # Dynamo compiles the model's frames in the first pass only, at most twice each
    # (the first shape static, then symbolic sizes), and bessemer compiles every graph.
    assert 1 <= b["dynamo_graphs"] <= 2 * max(b["static_dynamo_graphs"], 1) and b["dynamo_graphs_later"] == 0
    assert b["static_pipeline_runs"] >= 2 and b["pipeline_runs"] >= b["static_pipeline_runs"]
    # the first shape static, then one compile with symbolic sizes serves the other length
    assert b["pipeline_runs"] == 4 and b["pipeline_runs_later"] == 0, b["pipeline_runs"]
    assert b["loss_max_rel_diff"] < 1e-4 and b["param_max_rel_diff"] < 1e-4
    assert "Dynamo graphs" in table and "static ms @ref" in table and "A/B ms @ref" in table and "‡" not in table
    md = (out_dir / "results.md").read_text()
    assert "| distilgpt2 | bessemer |" in md and "## Per shape" in md and "What the columns mean" in md
    assert sorted(p.name for p in out_dir.iterdir()) == ["results.json", "results.md"]

    # rendered again from the saved run
    again = tmp_path / "again"
    assert cli.main(["--report", str(out_dir / "results.json"), "--out", str(again)]) == 0
    assert (again / "results.md").read_text() == md
