"""The graph cache: a second process training the same model under the same config loads its
compiled forward and backward graphs (no AOTAutograd trace, no partitioner, no pipeline) and
trains exactly as the first and as eager; a damaged entry is compiled afresh with one warning
and written again; another config or another model misses. Each process is a subprocess, as
a warm start is."""
import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap

import pytest
import torch

from bessemer import TrainingCompilerConfig
from bessemer.compiler.capture import graph_cache

WORKER = textwrap.dedent('''
    import copy, json, logging, sys, warnings
    import torch
    import bessemer
    import torch._functorch.aot_autograd as aot_mod
    from bessemer.compiler.capture import graph_cache
    from bessemer.compiler.partition import partitioner as partition
    from bessemer.compiler.pipeline import Pipeline

    cache_dir, budget, width = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    calls = {"pipeline": 0, "aot_trace": 0, "partition": 0}

    def counting(owner, attr, what):
        real = getattr(owner, attr)
        def wrapper(*a, **k):
            calls[what] += 1
            return real(*a, **k)
        setattr(owner, attr, wrapper)

    counting(Pipeline, "run", "pipeline")
    counting(aot_mod, "aot_stage1_graph_capture", "aot_trace")
    counting(partition, "partition", "partition")

    events = []
    class Events(logging.Handler):
        def emit(self, record):
            ev = getattr(record, "bessemer_compile", None)
            if ev and ev.get("event") == "done":
                events.append(ev)
    logging.getLogger("bessemer").addHandler(Events())
    logging.getLogger("bessemer").setLevel(logging.INFO)

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, width), torch.nn.GELU(), torch.nn.LayerNorm(width),
                                torch.nn.Linear(width, 4))
    ref = copy.deepcopy(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    cfg = bessemer.TrainingCompilerConfig(cache_dir=cache_dir, fallback="error", memory_budget=budget)
    be = bessemer.compile(model, config=cfg).forward._bessemer_backend
    x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))

    def step(m, o):
        loss = torch.nn.functional.cross_entropy(m(x), y)
        loss.backward()
        grads = [p.grad.clone() for p in m.parameters()]
        o.step()
        o.zero_grad()
        return loss.item(), grads

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = {"losses": [], "ref_losses": [], "grads_equal": True}
        for _ in range(3):
            (l, g), (rl, rg) = step(model, opt), step(ref, ref_opt)
            out["losses"].append(l)
            out["ref_losses"].append(rl)
            out["grads_equal"] &= all(torch.allclose(a, b, rtol=1e-5, atol=1e-6) for a, b in zip(g, rg))
        with torch.no_grad():      # an inference graph too
            out["eval_equal"] = torch.allclose(model(x), ref(x), rtol=1e-5, atol=1e-6)
    out["params_equal"] = all(torch.allclose(a, b, rtol=1e-5, atol=1e-6)
                              for a, b in zip(model.parameters(), ref.parameters()))
    out["params"] = [p.detach().flatten().tolist() for p in model.parameters()]
    out["warnings"] = [str(w.message) for w in caught if "bessemer" in str(w.message)]
    out.update(calls=calls, stats=graph_cache.stats, events=events, compiled=len(be.compiled),
               partitions=len(be.partitions), partition_on_graphs=[cg.partition is not None for cg in be.compiled])
    print("RESULT", json.dumps(out))
''')


def run(tmp_path, cache, budget=1.0, width=32) -> dict:
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    env = dict(os.environ, BESSEMER_GRAPH_CACHE="1", BESSEMER_VERIFY="1")
    env.pop("BESSEMER_DEBUG", None)
    p = subprocess.run([sys.executable, str(script), str(cache), str(budget), str(width)],
                       capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT "):])


@pytest.fixture(scope="module")
def filled(tmp_path_factory):
    """A cache folder a first process filled, and what that process saw."""
    tmp = tmp_path_factory.mktemp("graph-cache")
    first = run(tmp, tmp / "cache")
    return tmp / "cache", first


def copy_of(filled, tmp_path):
    cache = tmp_path / "cache"
    shutil.copytree(filled[0], cache)
    return cache


def entries(cache):
    return sorted((cache / "graphs").glob("*/entry"))


def test_the_first_process_compiles_and_stores(filled):
    cache, first = filled
    assert first["calls"]["pipeline"] == 3 and first["calls"]["aot_trace"] == 2, first["calls"]
    assert first["stats"]["hits"] == 0 and first["stats"]["saved"] == 2, first["stats"]  # training, eval
    assert len(entries(cache)) == 2
    assert stat.S_IMODE(os.stat(cache / "graphs").st_mode) == 0o700
    for e in entries(cache):
        assert stat.S_IMODE(os.stat(e.parent).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(e).st_mode) == 0o600
    assert first["grads_equal"] and first["params_equal"] and first["eval_equal"]
    assert all(ev["cache_hit"] is not None and not ev.get("graph_cache") for ev in first["events"])


def test_a_second_process_loads_every_graph_and_trains_as_eager(filled, tmp_path):
    cache, first = filled
    second = run(tmp_path, copy_of(filled, tmp_path))
    # nothing traced, partitioned or compiled: forward, backward and the eval graph all loaded
    assert second["calls"] == {"pipeline": 0, "aot_trace": 0, "partition": 0}, second["calls"]
    assert second["stats"] == {"hits": 3, "saved": 0, "corrupt": 0, "untrusted": 0}, second["stats"]
    # reported as compiles are: compiled graphs, the partition report, the log's lines
    assert second["compiled"] == first["compiled"] == 3
    assert second["partitions"] == first["partitions"] == 1
    assert second["partition_on_graphs"] == first["partition_on_graphs"]
    assert len(second["events"]) == 3
    assert all(ev["cache_hit"] and ev["graph_cache"] for ev in second["events"])
    # the same compiled code: the same numbers as the first process, and eager's
    assert second["losses"] == first["losses"] and second["params"] == first["params"]
    torch.testing.assert_close(second["losses"], second["ref_losses"], rtol=1e-5, atol=1e-6)
    assert second["grads_equal"] and second["params_equal"] and second["eval_equal"]
    assert second["warnings"] == []


@pytest.mark.parametrize("damage", ["truncated", pytest.param("flipped byte", marks=pytest.mark.full),
                                    pytest.param("other format", marks=pytest.mark.full)])
def test_a_damaged_entry_warns_once_and_is_compiled_and_written_again(filled, tmp_path, damage):
    cache = copy_of(filled, tmp_path)
    victim = entries(cache)[0]
    data = victim.read_bytes()
    if damage == "truncated":
        data = data[: len(data) // 2]
    elif damage == "flipped byte":
        i = len(data) - 100
        data = data[:i] + bytes([data[i] ^ 0xFF]) + data[i + 1:]
    else:
        data = b"bessemer-graph-0\n" + data[len(graph_cache.FORMAT):]
    victim.write_bytes(data)
    second = run(tmp_path, cache)
    damaged = [w for w in second["warnings"] if "graph cache entry" in w]
    assert len(damaged) == 1 and str(victim) in damaged[0], second["warnings"]
    assert second["stats"]["corrupt"] == 1 and second["stats"]["saved"] == 1, second["stats"]
    assert second["calls"]["pipeline"] >= 1
    assert second["grads_equal"] and second["params_equal"] and second["eval_equal"]
    third = run(tmp_path, cache)      # rewritten: every graph loads again
    assert third["stats"] == {"hits": 3, "saved": 0, "corrupt": 0, "untrusted": 0}, third["stats"]
    assert third["warnings"] == [] and third["calls"]["pipeline"] == 0


@pytest.mark.parametrize("change", ["config", "model"])
def test_another_config_or_model_misses(filled, tmp_path, change):
    cache = copy_of(filled, tmp_path)
    other = run(tmp_path, cache, **({"budget": 0.5} if change == "config" else {"width": 24}))
    assert other["stats"]["hits"] == 0 and other["stats"]["saved"] == 2, other["stats"]
    assert other["calls"]["pipeline"] == 3 and other["calls"]["aot_trace"] == 2
    assert other["grads_equal"] and other["params_equal"]
    assert len(entries(cache)) == 4


def test_the_cache_can_be_turned_off(tmp_path):
    cfg = TrainingCompilerConfig(cache_dir=str(tmp_path), graph_cache=False)
    assert not graph_cache.enabled(cfg)
    assert graph_cache.enabled(cfg.replace(graph_cache=True)) == (os.environ.get("BESSEMER_GRAPH_CACHE") != "0")
    assert not graph_cache.enabled(cfg.replace(graph_cache=True, debug_dir=str(tmp_path / "dbg")))
    with pytest.raises(ValueError, match="graph_cache"):
        TrainingCompilerConfig(graph_cache="yes")


def test_the_key_salt_follows_the_config(tmp_path):
    a = TrainingCompilerConfig(cache_dir=str(tmp_path))
    assert graph_cache.salt(a) == graph_cache.salt(a.replace(cache_dir=str(tmp_path / "x"), debug=False))
    for change in ({"memory_budget": 0.5}, {"partitioner": "default"}, {"backend": "cpp"},
                   {"precision": "bf16"}, {"fallback": "error"}):
        assert graph_cache.salt(a.replace(**change)) != graph_cache.salt(a), change


def test_torchs_cache_is_patched_for_the_block_and_restored_after_it():
    """The attributes `active` sets on torch's cache come back as they were: a class's own
    classmethod object, an inherited method (no entry left on the class), a module function,
    also when the block raises."""
    from torch._functorch._aot_autograd import autograd_cache as aot_cache
    from torch._functorch._aot_autograd.autograd_cache import AOTAutogradCache

    cls = AOTAutogradCache
    own = "_get_tmp_dir" in vars(cls) and vars(cls)["_get_tmp_dir"]
    inherited = "iterate_over_candidates" not in vars(cls) and cls.iterate_over_candidates
    key = aot_cache.autograd_cache_key
    assert own and inherited, "the attributes the graph cache patches moved in torch"
    with pytest.raises(RuntimeError):
        with graph_cache._patched(cls, "_get_tmp_dir", classmethod(lambda c: "/x")), \
                graph_cache._patched(cls, "iterate_over_candidates", classmethod(lambda c, *a: [])), \
                graph_cache._patched(aot_cache, "autograd_cache_key", None):
            assert cls._get_tmp_dir() == "/x" and cls.iterate_over_candidates(1) == []
            assert aot_cache.autograd_cache_key is None
            raise RuntimeError
    assert vars(cls)["_get_tmp_dir"] is own
    assert "iterate_over_candidates" not in vars(cls) and cls.iterate_over_candidates == inherited
    assert aot_cache.autograd_cache_key is key


def test_the_key_tells_aliased_inputs_and_storage_offsets_apart():
    """The same graph code called with inputs that share a storage, or that start inside one,
    is another compile (AOTAutograd's runtime handles aliased inputs apart): another key."""
    import types
    gm = torch.fx.symbolic_trace(lambda a, b: a * 2 + b)
    cfg = types.SimpleNamespace(num_params_buffers=0, keep_inference_input_mutations=False, is_export=False,
                                no_tangents=False, dynamic_shapes=False, aot_autograd_arg_pos_to_source=None,
                                static_input_indices=[], pre_dispatch=False)
    base = torch.randn(8)
    separate = graph_cache._key(gm, [torch.randn(4), torch.randn(4)], cfg)[0]
    assert graph_cache._key(gm, [torch.randn(4), torch.randn(4)], cfg)[0] == separate
    assert graph_cache._key(gm, [base[:4], base[4:]], cfg)[0] != separate    # one storage, offset 4
    assert graph_cache._key(gm, [base[:4], base[:4]], cfg)[0] != separate   # same metadata, one storage


PRECOMPILE_SCRIPT = textwrap.dedent("""
    import copy, sys, torch
    import bessemer
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 4))
    ref = copy.deepcopy(model)
    x = torch.randn(5, 8)
    bessemer.compile(model, fallback="error", memory_budget=float(sys.argv[1]))
    model(x).square().mean().backward()
    ref(x).square().mean().backward()
    for p, q in zip(model.parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad)
    torch.compiler.save_cache_artifacts()
    print("OK")
""")


def test_torch_caching_precompile_is_left_out_with_a_notice(tmp_path):
    """TORCH_CACHING_PRECOMPILE=1 (torch's experimental Dynamo cache, keyed by a function's
    name and line only) would install graphs stored under another config; bessemer compiles
    without it, says so once, and a second process (another config too) trains as eager."""
    script = tmp_path / "pc.py"
    script.write_text(PRECOMPILE_SCRIPT)
    env = dict(os.environ, TORCH_CACHING_PRECOMPILE="1", BESSEMER_GRAPH_CACHE="1",
               BESSEMER_CACHE_DIR=str(tmp_path / "b"), TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "i"))
    for budget in ("1.0", "1.0", "0.5"):
        p = subprocess.run([sys.executable, str(script), budget], capture_output=True, text=True, env=env,
                           timeout=600)
        assert p.returncode == 0 and "OK" in p.stdout, p.stderr[-3000:]
        assert "torch's experimental Dynamo cache is not used" in p.stderr
