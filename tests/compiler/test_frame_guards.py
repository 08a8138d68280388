"""Stored frames are used only where every guard Dynamo would install holds.

Each run is a subprocess against one BESSEMER_CACHE_DIR, as a warm start is. A variant of a
small model differs from the one stored before it in a function attribute (relu or tanh), an
enum attribute, a module-level global (a float and a function), a TransformerEncoderLayer's
activation, a closure's value, its depth, or its source; every run trains as eager (loss,
gradients and parameters after two SGD steps), with fallback="error" and graphs compiled.
A config object whose identity Dynamo guards is described by its class and attributes."""
import collections
import copy
import functools
import json
import os
import random
import subprocess
import sys
import textwrap

import pytest
import torch

from bessemer.compiler.capture.frame_guards import Unguardable, describe

WORKER = textwrap.dedent('''
    import copy, enum, json, sys
    import torch
    import torch.nn.functional as F
    import bessemer
    from bessemer.compiler.capture import precompile

    class Mode(enum.Enum):
        A = 1
        B = 2

    ACTS = {"relu": torch.relu, "tanh": torch.tanh, "gelu": F.gelu, "silu": F.silu}
    SCALE = 1.0
    POST = F.silu

    def scaled(k):         # a closure: its value is the variant's
        def f(h):
            return h * k
        return f

    CLOSURE = scaled(1.0)

    class Cfg:             # a model's config: a plain-data object
        def __init__(self, k):
            self.k = k
            self.names = {"act": "relu"}

    class Net(torch.nn.Module):
        def __init__(self, v):
            super().__init__()
            self.layers = torch.nn.ModuleList(torch.nn.Linear(8, 8) for _ in range(v["depth"]))
            self.act = ACTS[v["act"]]
            self.mode = Mode[v["mode"]]
            self.cfg = Cfg(v["cfg"])
            self.enc = None if v["enc"] is None else torch.nn.TransformerEncoderLayer(
                8, 2, 16, dropout=0.0, activation=ACTS[v["enc"]], batch_first=True)

        def tail(self, h):
            return h * 1.0

        def forward(self, x):
            h = x
            for layer in self.layers:
                h = self.act(layer(h))
            h = CLOSURE(h * SCALE) * copy.deepcopy(self.cfg).k   # identity-guards the config
            if self.mode is Mode.A:
                h = h + 1.0
            else:
                h = h - 0.5
            if self.enc is not None:
                h = self.enc(h.unsqueeze(0)).squeeze(0)
            return self.tail(POST(h)).pow(2).mean()

    def step(m, o, x):
        loss = m(x)
        loss.backward()
        grads = [p.grad.clone() for p in m.parameters()]
        o.step()
        o.zero_grad()
        return loss.detach(), grads

    close = lambda a, b: torch.allclose(a, b, rtol=1e-5, atol=1e-6)
    results = []
    for v in json.loads(sys.argv[2]):
        SCALE, POST, CLOSURE = v["scale"], ACTS[v["post"]], scaled(v["closure"])
        torch.manual_seed(0)
        model = Net(v)
        ref = copy.deepcopy(model)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1)
        cfg = bessemer.TrainingCompilerConfig(cache_dir=sys.argv[1], fallback="error")
        bessemer.compile(model, config=cfg)
        before = dict(precompile.stats)
        ok = True
        for i in range(2):
            x = torch.randn(4, 8)
            (l, g), (rl, rg) = step(model, opt, x), step(ref, ref_opt, x)
            ok &= close(l, rl) and all(close(a, b) for a, b in zip(g, rg))
        ok &= all(close(a, b) for a, b in zip(model.parameters(), ref.parameters()))
        results.append({"equal": bool(ok), "compiled": len(model.forward._bessemer_frame.backend.bessemer.compiled),
                        **{k: precompile.stats[k] - before[k] for k in ("loaded", "saved", "refused")}})
    print("RESULT", json.dumps(results))
''')

BASE = {"act": "relu", "mode": "A", "scale": 1.0, "post": "silu", "enc": None, "closure": 1.0, "depth": 1, "cfg": 1.0}


def run(tmp_path, cache, variants, edit=None) -> list[dict]:
    script = tmp_path / "worker.py"
    script.write_text(WORKER if edit is None else WORKER.replace(*edit))
    env = dict(os.environ, BESSEMER_GRAPH_CACHE="1")
    env.pop("BESSEMER_DEBUG", None)
    variants = [{**BASE, **v} for v in variants]
    p = subprocess.run([sys.executable, str(script), str(cache), json.dumps(variants)],
                       capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")][-1]
    out = json.loads(line[len("RESULT "):])
    for v, r in zip(variants, out):
        assert r["equal"], (v, r)
        assert r["compiled"] >= 1, (v, r)
    return out


def test_each_guard_kind_refuses_another_models_frame(tmp_path):
    """relu then tanh as a function attribute, an enum attribute, a global float and a global
    function, a TransformerEncoderLayer's activation with F.silu after it, a closure's value, a
    config object's attribute (Dynamo guards the config's identity): each second process
    gets eager's values; the variant that matches the stored frame still loads it."""
    cache = tmp_path / "cache"
    cases = [({"act": "relu"}, {"act": "tanh"}), ({"mode": "A"}, {"mode": "B"}),
             ({"scale": 1.0}, {"scale": 3.0}), ({"post": "silu"}, {"post": "gelu"}),
             ({"enc": "relu", "post": "gelu"}, {"enc": "tanh", "post": "silu"}),
             ({"closure": 1.0}, {"closure": -2.0}), ({"cfg": 1.0}, {"cfg": 2.0})]
    first = run(tmp_path, cache, [a for a, _ in cases])
    assert first[0]["saved"] == 1, first   # the others are the same model (BASE), or its encoder variant
    second = run(tmp_path, cache, [b for _, b in cases])
    # (several models in one process, each its own)
    assert all(r["loaded"] == 0 for r in second), second


def test_the_same_model_still_loads_its_frame(tmp_path):
    cache = tmp_path / "cache"
    v = [{"enc": "tanh", "mode": "B", "scale": 2.0, "closure": 0.5, "depth": 2}]
    assert run(tmp_path, cache, v)[0]["saved"] == 1
    again = run(tmp_path, cache, v)[0]
    assert again["loaded"] == 1 and again["saved"] == 0, again


def test_an_edited_class_source_is_not_reused(tmp_path):
    cache = tmp_path / "cache"
    run(tmp_path, cache, [{}])
    edited = run(tmp_path, cache, [{}], edit=("return h * 1.0", "return h * 3.0"))[0]
    assert edited["loaded"] == 0 and edited["saved"] == 1, edited


def test_random_variants_across_processes_equal_eager(tmp_path):
    """20 random variants (activation, scale, enum, global function, closure, depth), compiled
    in turn against one cache, two processes of ten."""
    cache = tmp_path / "cache"
    rng = random.Random(29)
    variants = [{"act": rng.choice(["relu", "tanh", "gelu"]), "mode": rng.choice("AB"),
                 "scale": rng.choice([1.0, 0.5, 2.0]), "post": rng.choice(["silu", "gelu"]),
                 "closure": rng.choice([1.0, -1.0]), "depth": rng.choice([1, 2])} for _ in range(20)]
    for i in range(0, 20, 10):
        run(tmp_path, cache, variants[i:i + 10])

class Config:
    def __init__(self, **kw):
        self.hidden = 32
        self.act = "gelu"
        self.id2label = {0: "a", 1: "b"}
        self.dtype = torch.float32
        self.__dict__.update(kw)


def test_a_copy_of_a_config_is_described_as_the_config():
    a = Config()
    assert describe(copy.deepcopy(a), None, "c") == describe(a, None, "c")


@pytest.mark.parametrize("change", [dict(hidden=33), dict(act="relu"), dict(id2label={0: "a", 1: "c"}),
                                    dict(dtype=torch.float64), dict(extra=None), dict(hidden=32.0)])
def test_any_changed_attribute_changes_the_description(change):
    assert describe(Config(**change), None, "c") != describe(Config(), None, "c")


def test_a_config_inside_a_config_is_described_to_its_attributes():
    assert describe(Config(sub=Config()), None, "c") != describe(Config(sub=Config(hidden=1)), None, "c")


def test_a_class_that_cannot_be_found_by_name_is_unguardable():
    class Other(Config):
        pass
    with pytest.raises(Unguardable):   # a class defined in a function cannot be found by name
        describe(Other(), None, "c")


class Slotted(Config):
    __slots__ = ("extra",)


class Items(dict):
    pass


@pytest.mark.parametrize("make", [lambda: functools.partial(max, 1), lambda: collections.defaultdict(list),
                                  lambda: Items(a=1), lambda: Slotted()],
                         ids=["partial", "defaultdict", "dict-subclass", "slots"])
def test_an_object_with_state_outside_its_dict_is_unguardable(make):
    """A C class keeps state its __dict__ does not show (a partial's function and arguments,
    a defaultdict's factory, a dict subclass's items), as __slots__ do: two such objects with
    the same __dict__ are not the same, so none is described."""
    with pytest.raises(Unguardable):
        describe(make(), None, "c")


@pytest.mark.parametrize("value", [torch.zeros(2), object(), torch.nn.Linear(2, 2)])
def test_an_object_holding_what_cannot_be_named_is_unguardable(value):
    with pytest.raises(Unguardable, match="c"):
        describe(Config(held=value), None, "c")
