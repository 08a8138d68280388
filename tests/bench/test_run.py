"""End to end: the bench runs tiny models in worker processes and writes its table, JSON, page and chart."""
import json
import math

import pytest
import torch

from bessemer.bench import cli, measure, runner
from bessemer.compiler.runtime import step_split

PNG = b"\x89PNG\r\n\x1a\n"


def _run(argv, capsys):
    code = cli.main(argv)
    out = capsys.readouterr().out
    assert code == 0
    return out


def test_two_tiny_models_eager_and_bessemer(tmp_path, capsys):
    out_dir = tmp_path / "out"
    table = _run(["mlp", "cnn", "--scale", "tiny", "--modes", "eager,bessemer", "--steps", "2",
                  "--warmup", "1", "--out", str(out_dir)], capsys)
    results = json.loads((out_dir / "results.json").read_text())
    rows = {(r["model"], r["mode"]): r for r in results["rows"]}
    assert set(rows) == {("mlp", "eager"), ("mlp", "bessemer"), ("cnn", "eager"), ("cnn", "bessemer")}
    for model in ("mlp", "cnn"):
        e = rows[(model, "eager")]
        assert e["status"] == "ok", e["error"]
        assert e["step_s"]["median"] > 0 and e["step_s"]["n"] == 2
        assert len(e["losses"]) == 1 + 1 + 2 and all(math.isfinite(x) for x in e["losses"])
        assert e["flops_per_step"] > 0 and 0 < e["mfu"] < 1
        assert e["peak_mem_bytes"] > 0 and e["speedup"] == 1.0
        assert e["param_max_rel_diff"] == 0.0 and e["first_step_cold_s"] > 0
        b = rows[(model, "bessemer")]
        assert b["status"] == "ok", b["error"]
        assert b["speedup"] > 0 and b["first_step_warm_s"] is not None or "warm" in b["phase_errors"]
        # every graph and the optimizer update compiled: nothing ran eagerly
        assert b["fallbacks"] == 0 and b["fallback_notes"] == [] and b["unlowered_ops"] == []
        assert e["fallbacks"] == 0
        # the graph-call overhead against eager's cost per op, on the same forward and backward
        assert e["eager_ops"]["aten_ops"] > 0 and e["eager_ops"]["us_per_op"] > 0
        o = b["overhead"]
        assert o["graph_calls"] == 2 and o["kernels"] > 0 and o["own_us"] >= 0
        assert o["graph_us"] >= o["kernel_us"] + o["extern_us"] - 1.0
        # where one more whole step's time goes: its matmuls are the model's FLOPs, its parts add up
        split = b["step_split"]
        assert split["matmul_flops"] == b["flops_per_step"] and split["graph_calls"] == 2
        assert split["profiled_steps"] == runner.SPLIT_STEPS
        assert all(split[k] >= 0 for k in step_split.PARTS) and split["update_ms"] > 0
        assert sum(split[k] for k in step_split.PARTS) == pytest.approx(split["step_ms"], rel=0.01)
        assert "step_split" not in e
        assert model in table
    assert "fallbacks" in table and "‡" not in table
    assert results["meta"]["matmul_peak"]["flops_per_s"] > 0
    assert results["meta"]["command"].startswith("bessemer bench mlp cnn --scale tiny")
    md = (out_dir / "results.md").read_text()
    assert "| mlp |" in md and "| cnn |" in md and "peak MiB" in md
    assert "## Graph-call overhead (bessemer) against eager's cost per op" in md
    assert "## Where a step's time goes (bessemer)" in md
    assert (out_dir / "chart.png").read_bytes()[:8] == PNG
    assert sorted(p.name for p in out_dir.iterdir()) == ["chart.png", "results.json", "results.md"]

    # The page renders from the saved results, with the command that made them.
    page = tmp_path / "docs" / "tested-models.md"
    page.parent.mkdir()
    readme = tmp_path / "README.md"
    readme.write_text("# x\n\n<!-- bessemer-bench-summary:start -->\nold\n<!-- bessemer-bench-summary:end -->\nrest\n")
    again = tmp_path / "again"
    _run(["--report", str(out_dir / "results.json"), "--out", str(again), "--page", str(page),
          "--readme", str(readme)], capsys)
    text = page.read_text()
    assert text.startswith("# Tested models") and results["meta"]["command"] in text
    assert "Geometric-mean speed-up" in text
    # the step-time split survives the round trip through results.json
    split_rows = [line for line in md.splitlines() if line.startswith("| mlp | ") and line.count("|") == 15]
    assert len(split_rows) == 1 and split_rows[0] in text
    assert (again / "chart.png").read_bytes()[:8] == PNG
    summary = readme.read_text()
    assert "old" not in summary and summary.endswith("rest\n")
    assert "Geometric-mean speed-up over eager" in summary and "(docs/tested-models.md)" in summary
    small = tmp_path / "docs" / "small-models.md"
    _run(["--report", str(out_dir / "results.json"), "--out", str(again), "--page", str(small),
          "--title", "Small models"], capsys)
    assert small.read_text().startswith("# Small models\n")


def test_a_failing_worker_is_a_row_with_its_error_and_the_run_goes_on(tmp_path, capsys):
    out_dir = tmp_path / "out"
    table = _run(["mlp", "--scale", "tiny", "--modes", "eager,bessemer", "--steps", "1", "--warmup", "0",
                  "--timeout", "0.01", "--out", str(out_dir)], capsys)
    results = json.loads((out_dir / "results.json").read_text())
    assert [r["status"] for r in results["rows"]] == ["error", "error"]
    assert all("timed out" in r["error"] for r in results["rows"])
    assert "error: run: timed out" in table
    assert (out_dir / "chart.png").exists() and (out_dir / "results.md").exists()


@pytest.mark.slow
@pytest.mark.full
def test_inductor_mode_on_a_tiny_model(tmp_path, capsys):
    out_dir = tmp_path / "out"
    # Memory of compiled code is checked on its own below; here the runs and the warm start.
    _run(["mlp", "--scale", "tiny", "--modes", "eager,inductor", "--steps", "2", "--warmup", "1",
          "--no-memory", "--out", str(out_dir)], capsys)
    rows = {r["mode"]: r for r in json.loads((out_dir / "results.json").read_text())["rows"]}
    ind = rows["inductor"]
    assert ind["status"] == "ok", ind["error"]
    assert ind["first_step_warm_s"] > 0 and ind["speedup"] > 0
    assert ind["param_max_rel_diff"] < 1e-4 and ind["loss_max_rel_diff"] < 1e-4


@pytest.mark.slow
def test_peak_memory_sees_buffers_of_compiled_code(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "inductor"))

    def f(x):
        return (x.sin() @ x.cos()).relu().sum()

    compiled = torch.compile(f, backend="inductor")
    x = torch.randn(512, 512)  # 1 MiB; the two pointwise results and the matmul: 3 MiB more
    compiled(x)
    tracker = measure.PeakMemory(torch.device("cpu"), [x])
    with tracker:
        with tracker.measured_step():
            compiled(x)
    assert tracker.peak_bytes >= 3 * 2 ** 20


def test_bf16_autocast_bert_compiles_in_the_worker(tmp_path, monkeypatch):
    """The bench's own worker, BERT under bf16 autocast: every graph and the optimizer
    update compiled (no fallback, no op without a lowering), losses as eager's."""
    from bessemer.bench import worker
    from bessemer.compiler.lowering import lower as lowering
    monkeypatch.setenv("BESSEMER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(lowering, "_reported", set())
    results = {}
    for mode in ("eager", "bessemer"):
        torch._dynamo.reset()
        job = {"model": "bert-base-uncased", "scale": "tiny", "batch": None, "seq": None, "image": None,
               "mode": mode, "phase": "run", "dtype": "bf16", "device": "cpu", "seed": 0, "steps": 2,
               "warmup": 0, "result_path": str(tmp_path / f"{mode}.json"), "params_path": None}
        results[mode] = worker.run_job(job)
    torch._dynamo.reset()
    b = results["bessemer"]
    assert b["ok"], b.get("error")
    assert b["compile_report"]["fallbacks"] == [] and b["compile_report"]["unlowered_ops"] == []
    # the profiled step's matmul-class calls are the model's needed FLOPs (the last layer
    # computes the pooler's one token: capture/rows.py) and, under bf16, the scores Q K^T each
    # attention's backward recomputes (lowering/attention.py: matmuls in float32); the last
    # layer's attention backward has one query row, and its five products of one row are
    # kernels (lowering/thin_matmul.py), not matmul-class calls
    from bessemer import zoo
    cfg = zoo.build("bert-base-uncased", "tiny", seed=0).model.config
    one_row = 2 * b["batch"] * b["seq"] * cfg.hidden_size
    recomputed = (cfg.num_hidden_layers - 1) * one_row * b["seq"]
    assert b["needed_flops_per_step"] < b["flops_per_step"]
    assert b["step_split"]["matmul_flops"] == b["needed_flops_per_step"] + recomputed - 4 * one_row
    assert "step_split" not in results["eager"]
    torch.testing.assert_close(torch.tensor(b["losses"]), torch.tensor(results["eager"]["losses"]),
                               rtol=2e-2, atol=0)


def test_dropout_keeps_the_published_rates_and_bessemer_trains_as_eager(tmp_path, monkeypatch):
    """`bessemer bench --dropout`: a transformers model keeps its published dropout, and
    bessemer's run, drawing eager's masks, has eager's losses; without it dropout is off."""
    from bessemer import zoo
    from bessemer.bench import worker
    cfg = zoo.build("bert-base-uncased", "tiny", seed=0, dropout=True).model.config
    assert cfg.hidden_dropout_prob == 0.1 and cfg.attention_probs_dropout_prob == 0.1
    off = zoo.build("bert-base-uncased", "tiny", seed=0).model.config
    assert off.hidden_dropout_prob == 0.0 and off.attention_probs_dropout_prob == 0.0
    plan = cli._plan(cli.build_parser().parse_args(["bert-base-uncased", "--scale", "tiny", "--dropout"]),
                     ["bert-base-uncased", "--dropout"])
    assert plan.dropout
    monkeypatch.setenv("BESSEMER_CACHE_DIR", str(tmp_path / "cache"))
    results = {}
    for mode in ("eager", "bessemer"):
        torch._dynamo.reset()
        job = {"model": "bert-base-uncased", "scale": "tiny", "batch": None, "seq": None, "image": None,
               "mode": mode, "phase": "run", "dtype": "fp32", "device": "cpu", "seed": 0, "steps": 3,
               "warmup": 0, "dropout": True, "result_path": str(tmp_path / f"{mode}.json"), "params_path": None}
        results[mode] = worker.run_job(job)
    torch._dynamo.reset()
    assert results["bessemer"]["ok"], results["bessemer"].get("error")
    assert results["bessemer"]["compile_report"]["fallbacks"] == []
    torch.testing.assert_close(torch.tensor(results["bessemer"]["losses"]),
                               torch.tensor(results["eager"]["losses"]), rtol=1e-5, atol=1e-6)
