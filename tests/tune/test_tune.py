"""`bessemer tune`: the search (on a modelled memory curve, and on real steps), the
learning-rate rules, the table and JSON, and bad input (one line, exit code 2)."""
from __future__ import annotations

import json
import math
import textwrap

import pytest

from bessemer.cli import main as bessemer_main
from bessemer.tune import TuneError, Workload, find_batch, scaled_learning_rate, scaled_warmup_steps
from bessemer.tune.lr import check_scaling
from bessemer.bench.search import Probe, parse_limit


def _curve(fixed, per_sample, oom_above=None):
    """A probe function whose step peaks at fixed + per_sample * batch."""
    calls = []

    def run(workload, mode, batch, device, env, timeout, log):
        calls.append(batch)
        if oom_above is not None and batch > oom_above:
            return Probe(batch, False, oom=True)
        return Probe(batch, True, fixed + per_sample * batch, 0.01 * batch + 0.1, fixed)
    return run, calls


@pytest.mark.parametrize("multiple", [1, 8])
def test_search_finds_the_largest_batch_under_the_limit(multiple):
    run, calls = _curve(1000, 37)
    r = find_batch(Workload(model="mlp"), "eager", 1000 + 37 * 100, multiple, run_probe=run)
    want = (100 // multiple) * multiple
    assert r.batch_size == want and r.bracketed
    assert want + multiple in calls            # the next one up was measured not to fit
    assert len(calls) <= 6 and all(c % multiple == 0 for c in calls)


def test_search_when_small_batches_peak_in_the_optimizer():
    """Flat at small batches (the update's peak), then linear: still found in few probes."""
    def run(workload, mode, batch, device, env, timeout, log):
        peak = max(50_000, 40_000 + 900 * batch)
        return Probe(batch, True, peak, 0.01, 30_000)
    r = find_batch(Workload(model="mlp"), "eager", 40_000 + 900 * 57, 1, run_probe=run)
    assert r.batch_size == 57 and r.bracketed and len(r.probes) <= 7


def test_search_treats_running_out_of_memory_as_not_fitting():
    run, calls = _curve(1000, 10, oom_above=50)     # the machine gives out before the limit
    r = find_batch(Workload(model="mlp"), "eager", 10 ** 9, 1, run_probe=run, max_probes=16)
    assert r.batch_size == 50 and r.bracketed


def test_smallest_batch_over_the_limit_is_an_error():
    run, _ = _curve(1000, 500)
    with pytest.raises(TuneError, match="does not fit at batch 4 in eager mode.*peaks at"):
        find_batch(Workload(model="mlp"), "eager", 2000, 4, run_probe=run)


def _budget_curve(per_budget, fixed=1000, time_per_budget=None):
    """A probe function whose step peaks at fixed + per_budget[b] * batch, b the memory budget
    the probe's environment hands the compiler."""
    from bessemer.config import ENV_CONFIG, TrainingCompilerConfig
    calls = []

    def run(workload, mode, batch, device, env, timeout, log):
        b = json.loads(env[ENV_CONFIG])["memory_budget"]
        calls.append((b, batch))
        step = (time_per_budget or {}).get(b, 0.01) * batch + 0.1
        return Probe(batch, True, fixed + per_budget[b] * batch, step, fixed)
    return run, calls, TrainingCompilerConfig()


def test_budget_search_takes_the_largest_budget_that_reaches_the_largest_batch():
    from bessemer.bench.search import find_batch_and_budget
    run, calls, config = _budget_curve({1.0: 50, 0.5: 20, 0.2: 18, 0.0: 18})
    r = find_batch_and_budget(Workload(model="mlp"), "bessemer", 1000 + 20 * 100, config, run_probe=run)
    # budget 0 reaches 111 (2000 / 18); 0.5 does not fit there, 0.2 does
    assert r.batch_size == 111 and r.memory_budget == 0.2 and r.bracketed
    assert r.budgets["1"]["largest_batch"] == 40 and r.budgets["0"]["largest_batch"] == 111
    assert r.budgets["0.5"] == {"batch": 111, "fits": False, "peak_bytes": 1000 + 20 * 111}
    assert r.budgets["0.2"]["fits"] and r.peak_bytes == 1000 + 18 * 111
    # the least-memory search starts from the default plan's batch, not from 1
    assert [c for c in calls if c[0] == 0.0][0] == (0.0, 40)
    d = r.to_dict()
    assert d["memory_budget"] == 0.2 and d["batch_size"] == 111


def test_budget_search_keeps_the_default_plan_when_recomputation_buys_no_batch():
    from bessemer.bench.search import find_batch_and_budget
    run, calls, config = _budget_curve({1.0: 20, 0.5: 20, 0.2: 20, 0.0: 20})
    r = find_batch_and_budget(Workload(model="mlp"), "bessemer", 1000 + 20 * 100, config, run_probe=run)
    assert r.batch_size == 100 and r.memory_budget == 1.0
    assert not any(b in (0.5, 0.2) for b, _ in calls)      # nothing between probed


def test_search_from_a_start_that_does_not_fit():
    run, calls = _curve(1000, 37)
    r = find_batch(Workload(model="mlp"), "eager", 1000 + 37 * 100, 4, run_probe=run, start=203)
    assert r.batch_size == 100 and r.bracketed and calls[:2] == [200, 4]


def test_learning_rate_rules():
    assert scaled_learning_rate(32, 8, 1e-3, "linear") == pytest.approx(4e-3)
    assert scaled_learning_rate(32, 8, 1e-3, "sqrt") == pytest.approx(2e-3)
    assert scaled_warmup_steps(32, 8, 100) == 25
    assert check_scaling(None, 8, 1e-3) == "linear" and check_scaling(None, None, None) is None
    with pytest.raises(ValueError, match="needs --reference-lr"):
        check_scaling("sqrt", 8, None)


def test_limits_parse():
    assert parse_limit("512MiB") == 512 * 2 ** 20 and parse_limit("1.5GB") == 1_500_000_000
    assert parse_limit("auto") == "auto" and parse_limit("4096") == 4096
    with pytest.raises(TuneError, match="--memory-limit"):
        parse_limit("lots")


@pytest.mark.parametrize("argv,message", [
    (["mlp", "--scale", "tiny", "--memory-limit", "1GiB", "--lr-rule", "sqrt"], "needs --reference-batch and --reference-lr"),
    (["mlp", "--scale", "tiny", "--memory-limit", "1GiB", "--reference-batch", "8"], "needs --reference-lr"),
    (["mlp", "--scale", "tiny", "--memory-limit", "1GiB", "--memory-budget", "1.5"], "--memory-budget.*memory_budget"),
    (["mlp", "--scale", "tiny", "--memory-limit", "1KiB"], "smaller than one sample needs: mlp's parameters"),
    (["mlp", "--memory-limit", "1GiB", "--modes", "eager,jax"], "unknown mode"),
    (["nosuchmodel", "--memory-limit", "1GiB"], "unknown model"),
    (["mlp", "--memory-limit", "plenty"], "--memory-limit"),
    (["mlp", "--memory-limit", "1GiB", "--memory-budget", "most"], "--memory-budget.*fraction in \\[0, 1\\] or auto"),
    (["mlp", "--memory-limit", "1GiB", "--memory-budget", "auto", "--modes", "eager"], "neither bessemer nor bessemer-step"),
])
def test_bad_input_is_one_line(capsys, argv, message):
    assert bessemer_main(["tune", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("bessemer tune: error:")
    import re
    assert re.search(message, err), err


def test_script_workload_json(tmp_path, capsys):
    """Real steps of a script's workload function: the JSON object the command promises."""
    (tmp_path / "train.py").write_text(textwrap.dedent("""
        import torch

        def workload(batch_size):
            model = torch.nn.Sequential(torch.nn.Linear(16, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1))
            x = torch.randn(batch_size, 16)
            return model, x, lambda m, b: m(b).square().mean()

        if __name__ == "__main__":
            raise SystemExit("training would start here")
    """))
    code = bessemer_main(["tune", "--entry-point", str(tmp_path / "train.py"), "--memory-limit", "4MiB",
                          "--modes", "eager", "--multiple-of", "8", "--max-probes", "2", "--reference-batch",
                          "8", "--reference-lr", "1e-3", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["model"].endswith("train.py:workload") and out["limit_bytes"] == 4 * 2 ** 20
    e = out["modes"]["eager"]
    assert e["batch_size"] >= 8 and e["batch_size"] % 8 == 0 and e["peak_bytes"] <= 4 * 2 ** 20
    assert len(e["probes"]) == 2 and e["probes"][0]["batch"] == 8
    assert e["step_ms"] > 0 and math.isclose(e["samples_per_s"], e["batch_size"] / e["step_ms"] * 1e3, rel_tol=1e-2)
    assert out["learning_rate"] == pytest.approx(1e-3 * e["batch_size"] / 8)
