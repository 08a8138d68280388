"""Stored frames (compiler/capture/precompile.py): a second process loads the forward's stored frame
and runs it without Dynamo's trace, training exactly as eager and as the first process; a
change the stored guards cannot see (a helper's source, a module attribute) is refused or
misses the key; a forward with a graph break is marked once and traced by Dynamo at every
start; a damaged entry is traced afresh. Each process is a subprocess, as a warm start is."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

WORKER = textwrap.dedent('''
    import copy, functools, json, sys, warnings
    import torch
    import torch.nn.functional as F
    import bessemer
    from bessemer.compiler.capture import precompile
    from torch._dynamo.utils import compilation_time_metrics

    # graph_break: "none"; "mid" (inside the forward, whose own layers hold much of the model);
    # "head" (after a child that holds every parameter, as a classification loss breaks it)
    cache_dir, scale, graph_break = sys.argv[1], float(sys.argv[2]), sys.argv[3]

    def act(h):
        return F.gelu(h)

    def wrapped(fn):   # a decorator with a closure, as transformers wraps its models' forwards
        @functools.wraps(fn)
        def wrapper(self, *args, **kwargs):
            return fn(self, *args, **kwargs)
        return wrapper

    class Body(torch.nn.Module):
        def __init__(self, head):
            super().__init__()
            self.scale = scale
            self.fc1, self.norm = torch.nn.Linear(16, 32), torch.nn.LayerNorm(32)
            self.head = torch.nn.Linear(32, 4) if head else None

        def forward(self, x):
            h = self.norm(act(self.fc1(x))) * self.scale
            return h if self.head is None else self.head(h)

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = Body(graph_break == "head")
            self.fc2 = torch.nn.Linear(32, 4) if graph_break != "head" else None

        @wrapped
        def forward(self, x, y):
            h = self.body(x)
            if graph_break != "none":
                torch._dynamo.graph_break()
            logits = h if self.fc2 is None else self.fc2(h)
            return F.cross_entropy(logits, y), logits

    torch.manual_seed(0)
    model = Net()
    ref = copy.deepcopy(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    cfg = bessemer.TrainingCompilerConfig(cache_dir=cache_dir, fallback="error")
    bessemer.compile(model, config=cfg)

    def step(m, o, x, y):
        loss, _ = m(x, y)
        loss.backward()
        grads = [p.grad.clone() for p in m.parameters()]
        o.step()
        o.zero_grad()
        return loss.item(), grads

    close = lambda a, b: torch.allclose(a, b, rtol=1e-5, atol=1e-6)
    out = {"losses": [], "ref_losses": [], "grads_equal": True}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(4):
            n = 8 if i < 3 else 6   # the last step's batch: a call the stored guards refuse
            x, y = torch.randn(n, 16), torch.randint(0, 4, (n,))
            (l, g), (rl, rg) = step(model, opt, x, y), step(ref, ref_opt, x, y)
            out["losses"].append(l)
            out["ref_losses"].append(rl)
            out["grads_equal"] &= all(close(a, b) for a, b in zip(g, rg))
            if i == 0:
                out["traced_first"] = "_compile.compile_inner" in compilation_time_metrics \\
                    or "fullgraph_capture" in compilation_time_metrics
        with torch.no_grad():      # grad mode off: Dynamo's path too
            out["eval_equal"] = close(model(x, y)[1], ref(x, y)[1])
        try:                       # a call the forward does not take: the forward's own error
            model.body(x, y) if graph_break == "head" else model(x)
        except TypeError as e:
            out["bad_call"] = str(e)
    out["params_equal"] = all(close(a, b) for a, b in zip(model.parameters(), ref.parameters()))
    out["params"] = [p.detach().flatten().tolist() for p in model.parameters()]
    out["warnings"] = [str(w.message) for w in caught if "bessemer" in str(w.message)]
    out["stats"] = precompile.stats
    print("RESULT", json.dumps(out))
''')


def run(tmp_path, cache, scale=1.0, graph_break="none", act=None) -> dict:
    script = tmp_path / "worker.py"
    src = WORKER if act is None else WORKER.replace("return F.gelu(h)", f"return {act}(h)")
    script.write_text(src)
    env = dict(os.environ, BESSEMER_GRAPH_CACHE="1", BESSEMER_VERIFY="1")
    env.pop("BESSEMER_DEBUG", None)
    p = subprocess.run([sys.executable, str(script), str(cache), str(scale), graph_break],
                       capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT "):])


def trains_as_eager(r: dict) -> None:
    assert r["grads_equal"] and r["params_equal"] and r["eval_equal"], r
    assert "forward() " in r.get("bad_call", ""), r.get("bad_call")
    assert all(abs(a - b) <= 1e-5 * max(1.0, abs(b)) for a, b in zip(r["losses"], r["ref_losses"])), r
    # the last step's new batch size is compiled again, as Dynamo's path does in any process
    assert not [w for w in r["warnings"] if not w.startswith("bessemer: recompiling")], r["warnings"]


def frames(cache) -> list[str]:
    d = cache / "frames"
    return sorted(p.name for p in d.iterdir()) if d.exists() else []


def test_a_second_process_runs_the_stored_frame_without_tracing(tmp_path):
    cache = tmp_path / "cache"
    first = run(tmp_path, cache)
    trains_as_eager(first)
    assert first["traced_first"]
    assert first["stats"]["saved"] == 1 and first["stats"]["loaded"] == 0
    assert len(frames(cache)) == 1 and not frames(cache)[0].endswith(".none")

    second = run(tmp_path, cache)
    trains_as_eager(second)
    assert second["stats"]["loaded"] == 1 and second["stats"]["saved"] == 0, second["stats"]
    assert not second["traced_first"], "the warm process traced its first step with Dynamo"
    # the same compiled graphs: the same steps, bit for bit (the last step's new batch size is
    # compiled by Dynamo in each process, statically in one, with symbolic sizes in the other)
    assert second["losses"][:3] == first["losses"][:3]


def test_a_changed_helper_refuses_the_stored_frame(tmp_path):
    """The forward's own code is in the key; a function it calls is checked at load, against
    the checksums of every source the trace went through."""
    cache = tmp_path / "cache"
    run(tmp_path, cache)
    changed = run(tmp_path, cache, act="torch.relu")
    trains_as_eager(changed)
    assert changed["stats"]["refused"] == 1 and changed["stats"]["saved"] == 1, changed["stats"]
    assert changed["traced_first"]


def test_a_changed_module_attribute_is_another_key(tmp_path):
    cache = tmp_path / "cache"
    run(tmp_path, cache)
    other = run(tmp_path, cache, scale=2.0)
    trains_as_eager(other)
    assert other["stats"]["loaded"] == 0 and other["stats"]["saved"] == 1, other["stats"]
    assert len(frames(cache)) == 2


def test_a_graph_break_is_marked_once_and_traced_by_dynamo(tmp_path):
    """The forward's own layers hold a fifth of the parameters: Dynamo's path, at every start."""
    cache = tmp_path / "cache"
    first = run(tmp_path, cache, graph_break="mid")
    trains_as_eager(first)
    assert first["stats"]["uncaptured"] == 1 and first["stats"]["saved"] == 0
    (marker,) = frames(cache)
    assert marker.endswith(".none")
    assert "graph_break" in (cache / "frames" / marker).read_text() or "Unsupported" in \
        (cache / "frames" / marker).read_text()

    second = run(tmp_path, cache, graph_break="mid")
    trains_as_eager(second)
    assert second["stats"] == {**second["stats"], "uncaptured": 0, "saved": 0, "loaded": 0}
    assert second["traced_first"]
    assert second["losses"] == first["losses"]


def test_a_graph_break_after_a_large_child_stores_the_child(tmp_path):
    """A forward that breaks after a child holding its parameters (a classification loss):
    the child is compiled and stored, the forward's own code runs eagerly, and a warm process
    loads the child's frame without tracing anything."""
    cache = tmp_path / "cache"
    first = run(tmp_path, cache, graph_break="head")
    trains_as_eager(first)
    assert first["stats"]["uncaptured"] == 1 and first["stats"]["saved"] == 1, first["stats"]
    (marker,) = [f for f in frames(cache) if f.endswith(".none")]
    assert (cache / "frames" / marker).read_text().startswith("children:body\n")

    second = run(tmp_path, cache, graph_break="head")
    trains_as_eager(second)
    assert second["stats"] == {**second["stats"], "uncaptured": 0, "saved": 0, "loaded": 1}
    assert not second["traced_first"]
    assert second["losses"][:3] == first["losses"][:3]


def test_a_damaged_frame_is_traced_afresh_and_written_again(tmp_path):
    cache = tmp_path / "cache"
    run(tmp_path, cache)
    (name,) = frames(cache)
    path = cache / "frames" / name
    data = bytearray(path.read_bytes())
    data[-100] ^= 0xFF
    path.write_bytes(bytes(data))
    again = run(tmp_path, cache)
    trains_as_eager(again)
    assert again["stats"]["loaded"] == 0 and again["stats"]["saved"] == 1, again["stats"]
    third = run(tmp_path, cache)
    assert third["stats"]["loaded"] == 1


ZOO_WORKER = textwrap.dedent('''
    import json, os, sys
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch
    import bessemer
    from bessemer import zoo
    from bessemer.compiler.capture import precompile
    w = zoo.build(sys.argv[2], "tiny", seed=0)
    cfg = bessemer.TrainingCompilerConfig(cache_dir=sys.argv[1], fallback="error")
    bessemer.compile(w.model, config=cfg)
    loss = w.loss_fn(w.model, w.make_batch(0))
    loss.backward()
    print("RESULT", json.dumps({"loss": loss.item(), "stats": precompile.stats}))
''')


@pytest.mark.parametrize("model", ["resnet50", "t5-small"])
def test_a_zoo_frame_whose_guards_name_objects_is_loaded(tmp_path, model):
    """resnet50: transformers' ResNet reaches the torch module in a way Dynamo installs under a
    name of the object's id (`_140712243323712_c0`), which a guard reads (its `.Tensor`): the
    stored frame records that name as the module. t5-small: its decoder deep-copies the config,
    and Dynamo guards the copy's identity: the stored frame describes it by class and
    attributes. Either way a second process loads the frame instead of tracing again."""
    script = tmp_path / "zoo_worker.py"
    script.write_text(ZOO_WORKER)
    cache = tmp_path / "cache"
    results = []
    for _ in range(2):
        p = subprocess.run([sys.executable, str(script), str(cache), model], capture_output=True, text=True,
                           env=dict(os.environ, BESSEMER_GRAPH_CACHE="1"), timeout=600)
        assert p.returncode == 0, p.stdout + p.stderr
        line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")][-1]
        results.append(json.loads(line[len("RESULT "):]))
    first, second = results
    assert frames(cache), "the first process stored no frame"
    assert second["stats"]["loaded"] >= 1 and second["stats"]["refused"] == 0, second["stats"]
    assert second["loss"] == first["loss"]
