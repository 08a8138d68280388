"""frame_guards.CallBinder: a stored frame's locals per call, bound once per call shape, must be
what torch's prepare_f_locals (signature.bind with the defaults applied) gives for every call."""
import inspect
import types

import pytest
import torch
from torch._dynamo.aot_compile import bind_locals

from bessemer.compiler.capture.frame_guards import CallBinder

DEFAULT = object()


class _Frame:
    """The parts of torch's AOTCompiledFunction that CallBinder reads, binding as torch does."""

    def __init__(self, fn, closure=None):
        env = types.SimpleNamespace(closure=closure, bytecode=fn.__code__)
        self._artifacts = types.SimpleNamespace(signature=inspect.signature(fn), runtime_env=env)
        self.prepared = 0

    def prepare_f_locals(self, *args, **kwargs):
        self.prepared += 1
        out = {}
        if self._artifacts.runtime_env.closure:
            out = {n: c.cell_contents for n, c in zip(self._artifacts.runtime_env.bytecode.co_freevars,
                                                      self._artifacts.runtime_env.closure)}
        out.update(bind_locals(self._artifacts.signature, *args, **kwargs))
        return out


def plain(self, x, y=None, scale=2.0, flag=DEFAULT):
    return x


def varargs(self, x, *rest, labels=None, **extra):
    return x


def kwonly(self, x, *, mask, bias=DEFAULT):
    return x


def same(a, b):
    assert list(a) == list(b)
    for k in a:
        if type(a[k]) in (tuple, dict):
            assert type(b[k]) is type(a[k]) and len(a[k]) == len(b[k]), k
            items = a[k].items() if isinstance(a[k], dict) else enumerate(a[k])
            for i, v in items:
                assert b[k][i] is v, (k, i)
        else:
            assert a[k] is b[k], k


CALLS = {
    plain: [((1, "x"), {}), ((1, "x", "y"), {}), ((1, "x"), {"scale": 3.0}), ((1,), {"x": "x", "flag": 5}),
            ((1, "x"), {"flag": 1, "y": 2})],
    varargs: [((1, "x"), {}), ((1, "x", 2, 3), {}), ((1, "x", 2), {"labels": 4, "k": 5, "j": 6}),
              ((1, "x"), {"j": 6, "k": 5})],
    kwonly: [((1, "x"), {"mask": 3}), ((1, "x"), {"mask": 3, "bias": 4}), ((1,), {"x": 0, "mask": 1})],
}


@pytest.mark.parametrize("fn", list(CALLS), ids=lambda f: f.__name__)
def test_matches_torchs_binding_for_every_shape(fn):
    frame = _Frame(fn)
    binder = CallBinder(frame)
    for rep in range(3):
        for args, kwargs in CALLS[fn]:
            args = tuple(torch.zeros(1) if a == "x" else a for a in args)    # fresh objects each call
            kwargs = {k: (torch.zeros(1) if v == "x" else v) for k, v in kwargs.items()}
            same(bind_locals(frame._artifacts.signature, *args, **kwargs), binder(args, kwargs))
    # torch's binding ran once per shape, the first time it was seen; the recipe after
    assert frame.prepared == len({(len(a), tuple(k)) for a, k in CALLS[fn]})


def test_a_call_the_forward_does_not_take_raises():
    binder = CallBinder(_Frame(kwonly))
    with pytest.raises(TypeError):
        binder((1, "x"), {})          # mask missing
    with pytest.raises(TypeError):
        binder((1, "x"), {})          # and again: the refused shape keeps torch's binding
    with pytest.raises(TypeError):
        binder((1, "x", 2), {"mask": 1})


def test_closure_cells_are_read_at_every_call():
    k = 1

    def inner(self, x):
        return x + k
    cell = inner.__closure__[0]
    frame = _Frame(inner, closure=inner.__closure__)
    binder = CallBinder(frame)
    assert binder((0, 1), {})["k"] == 1
    k = 7   # noqa: F841 - the cell's content changes
    assert cell.cell_contents == 7
    assert binder((0, 1), {})["k"] == 7
