"""Symbolic sizes: the Dim polynomial, its decisions (guards), and views with symbolic strides."""
from __future__ import annotations

import itertools
import random

import pytest
import torch

from bessemer.compiler.ir import symbolic
from bessemer.compiler.ir.symbolic import Dim, Guards, recording
from bessemer.compiler.ir.views import view_strides


def dims(**values):
    return [Dim({(f"_{k}",): 1}, v) for k, v in values.items()]


def test_arithmetic_stays_symbolic_and_keeps_its_value():
    s0, s1 = dims(s0=4, s1=7)
    e = (s0 * 768 + 3) * s1 - s1
    assert isinstance(e, Dim) and e.hint == (4 * 768 + 3) * 7 - 7
    assert str(e) == "(768*_s0*_s1 + 2*_s1)"
    assert symbolic.evaluate(e, {"_s0": 2, "_s1": 3}) == (2 * 768 + 3) * 3 - 3
    # exact divisions stay symbolic; a constant result is a plain int
    assert str((s0 * s1 * 6) // 3) == "(2*_s0*_s1)" and (s0 * 6) % 3 == 0
    assert (s0 * s1 * 12) // (s0 * 4) == s1 * 3
    assert s0 - s0 == 0 and type(s0 - s0) is int


def test_decisions_are_guards_unless_they_hold_for_every_size():
    s0, s1 = dims(s0=4, s1=7)
    g = Guards()
    with recording(g):
        assert s0 * s1 > s0          # true for all sizes >= 2: no guard
        assert s0 * 768 >= 32
        assert s0 != 1 and bool(s0)
        assert len(g) == 0
        assert s0 < s1               # depends on the sizes: a guard
        assert len(g) == 1
    assert g.check({"_s0": 3, "_s1": 9}) and not g.check({"_s0": 9, "_s1": 3})


def test_equality_is_structural_and_takes_no_guard():
    s0, s1 = dims(s0=8, s1=8)
    g = Guards()
    with recording(g):
        assert s0 != s1 and s0 != 8 and (s0, 3) != (8, 3)
        assert s0 * 2 == s0 + s0
    assert len(g) == 0


def test_leaving_the_symbolic_world_pins_the_value():
    s0, = dims(s0=5)
    g = Guards()
    with recording(g):
        assert int(s0 * 2) == 10
        assert list(range(s0)) == [0, 1, 2, 3, 4]   # __index__
        assert float(s0) == 5.0
    assert g.specialized() == ["(2*_s0 + -10)", "(_s0 + -5)"]
    assert g.check({"_s0": 5}) and not g.check({"_s0": 6})


def test_view_strides_match_torch_on_static_sizes():
    cases = [((4, 6), (24,)), ((4, 6), (2, 2, 6)), ((2, 3, 4), (6, 4)), ((2, 3, 4), (2, 12)),
             ((1, 4), (4, 1)), ((2, 1, 3), (6,)), ((3, 1), (1, 3))]
    for shape, new in cases:
        t = torch.empty(shape)
        for perm in itertools.permutations(range(len(shape))):
            x = t.permute(perm)
            try:
                want = tuple(x.view(new).stride())
            except RuntimeError:
                want = None
            assert view_strides(x.shape, x.stride(), new) == want, (shape, perm, new)


def test_view_strides_match_torch_on_random_layouts():
    """Permuted, sliced and size-1 layouts reshaped at random: the strides torch's view()
    gives, or none where it refuses (a reshape's strides come from view_strides alone:
    views.reshape). The first case is fuzz seed 68203's."""
    assert view_strides((4, 2, 1, 2), (2, 8, 1, 1), (4, 1, 4)) is None
    rng = random.Random(0)
    for _ in range(3000):
        shape = [rng.choice([1, 1, 2, 3, 4]) for _ in range(rng.randint(1, 4))]
        perm = list(range(len(shape)))
        rng.shuffle(perm)
        x = torch.empty([shape[p] for p in perm]).permute([perm.index(i) for i in range(len(shape))])
        if rng.random() < 0.3:
            x = torch.empty([2 * n for n in shape])[tuple(slice(0, None, 2) for _ in shape)]
        new, left = [], x.numel()
        for f in (4, 3, 2, 2, 1, 1):
            if left % f == 0 and rng.random() < 0.5:
                new.append(f)
                left //= f
        new.append(left)
        rng.shuffle(new)
        try:
            want = tuple(x.view(new).stride())
        except RuntimeError:
            want = None
        assert view_strides(tuple(x.shape), x.stride(), tuple(new)) == want, (x.shape, x.stride(), new)


def test_view_strides_with_symbolic_sizes():
    b, t = dims(s0=4, s1=9)
    # [b, t, 768] contiguous -> [b * t, 768] and back; a transposed one cannot merge
    assert view_strides((b, t, 768), (t * 768, 768, 1), (b * t, 768)) == (768, 1)
    assert view_strides((b * t, 768), (768, 1), (b, t, 12, 64)) == (t * 768, 768, 64, 1)
    assert view_strides((t, b), (1, t), (b * t,)) is None


@pytest.mark.parametrize("value", [0, 1])
def test_a_size_below_two_is_never_served_by_a_symbolic_compile(value):
    s0, = dims(s0=4)
    g = Guards()
    with recording(g):
        assert s0 * s0 > s0    # decided for sizes >= 2 (it fails at 0 and 1)
    assert len(g) == 0
    assert not symbolic.serves({"_s0": value}, g)
    assert symbolic.serves({"_s0": 3}, g)


def test_known_le_holds_at_every_shape_only():
    s0, s1 = dims(s0=8, s1=8)
    assert symbolic.known_le(s0 * 64, s0 * s1 * 64) and symbolic.known_le(3, 4)
    assert not symbolic.known_le(s0 * 64, s0 * s1 * 8)   # equal at these sizes, not at all


def test_input_strides_follow_the_actual_layout():
    """An argument laid out otherwise than traced (a compiled forward's saved activation in
    its own order) gets symbolic strides of its actual dense order; one that is not dense
    keeps the traced strides (the wrapper copies it into them)."""
    from bessemer.compiler.lowering.sizes import input_strides
    s, = dims(s0=10)
    shape = (2, 2, s, 16)
    traced = (32 * s, 16, 32, 1)                       # as the trace laid it out
    contiguous = torch.empty(2, 2, 10, 16)
    got = input_strides(shape, traced, contiguous)
    assert [symbolic.evaluate(x, {"_s0": 7}) for x in got] == [224, 112, 16, 1]   # dense at any length
    permuted = torch.empty(2, 10, 2, 16).permute(0, 2, 1, 3)
    assert input_strides(shape, traced, permuted) == traced
    sliced = torch.empty(2, 2, 10, 32)[..., :16]       # not dense: the traced strides stay
    assert input_strides(shape, traced, sliced) == traced
