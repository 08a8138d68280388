"""The program generator: random straight-line torch programs from a seed.

Programs are grown one statement at a time. Each candidate statement is run
eagerly on the program's actual inputs before it is kept, so every kept program
is valid PyTorch, its shapes and dtypes are known exactly, and its values stay
finite and moderate (a statement whose result is non-finite or huge is dropped).

A share of programs (SPECIAL_SHARE) reads float inputs with NaN, +Inf and -Inf among
their values: there non-finite results and gradients are kept, so eager's NaN and Inf
semantics are compared too.

Discontinuous ops (comparisons, floor/round, float -> int casts, argmax, integer
division) only take operands whose values are exact: inputs and what data
movement, selection and integer arithmetic make of them. Applied to a rounded
float value they would turn a last-bit difference (a different summation order,
another libm) into a different integer, which is no compiler bug.
"""
from __future__ import annotations

import dataclasses
import math
import random
import warnings
from typing import Callable, Optional

import torch
import torch.nn.functional as F

from progfuzz import DTYPES, NAME, Input, Program, make_input, make_inputs, run

SIZES = [1, 1, 2, 3, 4, 5, 7, 8, 11, 13, 16, 17]
# Large programs reach the kernels' parallel paths (work above the renderer's
# parallel threshold, 32K elements).
BIG_SIZES = [1, 2, 3, 5, 8, 16, 17, 31, 37, 64, 67, 128]
FLOATS = ("float32", "bfloat16")
# Programs whose float inputs hold NaN and +-Inf (Input.special), decided by a draw of
# their own so that the other programs of a seed stay as they were.
SPECIAL_SHARE = 0.15
# Ops left out of those programs, where eager disagrees with itself at NaN depending on
# where the NaN sits: its vectorized loop and the scalar loop that takes a tensor's last
# elements differ, and the fuzzer's tensors are small. The activations' gradient at NaN
# (nan_semantics.py in the compiler follows the vectorized loop); the sign of a NaN, which
# copysign and signbit read: a bfloat16 NaN stored by the vectorized loop is 0xffff
# (negative), by the scalar loop 0x7fc0 (positive), as the kernels store it. And the
# mean of var_mean over an infinity: eager's Welford pass gives NaN where the infinity
# is followed by other elements in its accumulator, the infinity where it comes last
# (bessemer gives the infinity, as torch.mean does). And prod's gradient at an infinity:
# eager computes grad * result / input (inf / inf: NaN), while the graph AOTAutograd traces
# takes torch's other formula (prod_safe_zeros_backward, no division: the product of the
# other elements), which every compiled backward then follows.
EAGER_NAN_BY_POSITION = ("F.hardtanh", "F.elu", "F.hardswish", "F.hardshrink", "F.softshrink", "F.relu6",
                         "copysign", "signbit", "var_mean", "torch.prod(")
_G = {"torch": torch, "F": F}


class Rejected(Exception):
    pass


class Gen:
    """Grows one program; see generate()."""

    def __init__(self, seed: int):
        self.seed = seed
        self.r = random.Random(seed)
        self.big = self.r.random() < 0.12
        self.special = random.Random(seed * 7919 + 17).random() < SPECIAL_SHARE
        self.cap = 70000 if self.big else 2500
        self.inputs: list[Input] = []
        self.lines: list[str] = []
        self.env: dict = {}
        self.exact: dict[str, bool] = {}
        self.nv = 0
        self.order: list[str] = []        # names in definition order

    # -- values ---------------------------------------------------------------
    def t(self, name: str) -> torch.Tensor:
        return self.env[name]

    def shape(self, name: str) -> tuple:
        return tuple(self.env[name].shape)

    def dt(self, name: str) -> str:
        return {v: k for k, v in DTYPES.items()}.get(self.env[name].dtype, "other")

    def is_float(self, name: str) -> bool:
        return self.env[name].is_floating_point()

    def pick(self, pred: Callable[[str], bool] = lambda n: True, exact: bool = False) -> Optional[str]:
        """A value, recent ones more likely (programs become chains, not heaps)."""
        cands = [n for n in self.order if pred(n) and (not exact or self.exact[n])]
        if not cands:
            return None
        w = [1.0 + 2.0 * i for i in range(len(cands))]
        return self.r.choices(cands, w)[0]

    def pick_float(self, exact: bool = False, **kw) -> Optional[str]:
        return self.pick(lambda n: self.is_float(n) and self._rank_ok(n, **kw), exact)

    def _rank_ok(self, n, min_rank=0, max_rank=5, min_numel=0):
        t = self.env[n]
        return min_rank <= t.dim() <= max_rank and t.numel() >= min_numel

    # -- new inputs -----------------------------------------------------------
    def rand_shape(self, rank: Optional[int] = None) -> tuple:
        rank = self.r.choice([0, 1, 2, 2, 3, 3, 4, 4, 5]) if rank is None else rank
        sizes = BIG_SIZES if self.big else SIZES
        for _ in range(50):
            shape = tuple(self.r.choice(sizes) for _ in range(rank))
            n = math.prod(shape)
            if n <= self.cap and (not self.big or self.inputs or n >= 32768 or rank < 2):
                return shape
        return tuple(self.r.choice([1, 2, 3]) for _ in range(rank))

    def new_input(self, shape: tuple, dtype: Optional[str] = None, grad: Optional[bool] = None,
                  low: int = -4, high: int = 5, expanded: bool = True) -> str:
        """expanded False: never the "e" layout (drawn, then read as "c": the draws stay the same)."""
        r = self.r
        dtype = dtype or r.choice(["float32"] * 6 + ["bfloat16"] * 2 + ["int64", "bool"])
        rank = len(shape)
        lays = ["c"] * 4
        if rank >= 2:
            lays += ["t"] * 2 + ["s"]
        if rank == 1:
            lays += ["s"]
        if rank in (4, 5):
            lays += ["cl"] * 2
        if rank >= 1 and shape[0] > 1:
            lays += ["e"]
        lay = r.choice(lays)
        if lay == "e" and not expanded:
            lay = "c"
        if lay == "t":
            perm = list(range(rank))
            while perm == list(range(rank)):
                r.shuffle(perm)
            lay = "t" + "".join(map(str, perm))
        if grad is None:
            grad = dtype in FLOATS and r.random() < 0.75
        i = len(self.inputs)
        spec = Input(tuple(shape), dtype, lay, bool(grad and dtype in FLOATS), low, high, self.seed * 64 + i,
                     special=self.special and dtype in FLOATS)
        self.inputs.append(spec)
        name = f"a{i}"
        self.env[name] = make_input(spec)
        self.exact[name] = True
        self.order.append(name)
        return name

    def partner(self, x: str, dtype: Optional[str] = None, same_shape: bool = False) -> str:
        """A value broadcastable against x (an existing one or a new input)."""
        r = self.r
        shape = self.shape(x)
        dtype = dtype or (self.dt(x) if r.random() < 0.7 else r.choice(["float32", "bfloat16", "int64", "bool"]))
        if r.random() < 0.4:
            def ok(n):
                if self.dt(n) != dtype or n == x:
                    return False
                if same_shape:
                    return self.shape(n) == shape
                return _bcast_into(self.shape(n), shape)
            y = self.pick(ok)
            if y is not None:
                return y
        if same_shape:
            s = shape
        else:
            drop = r.randint(0, len(shape)) if r.random() < 0.3 else 0
            s = tuple(1 if r.random() < 0.3 else d for d in shape[drop:])
        return self.new_input(s, dtype)

    def index_input(self, shape: tuple, high: int, low: int = 0) -> str:
        return self.new_input(shape, "int64", False, low, high)

    # -- running candidates ---------------------------------------------------
    def replay(self) -> None:
        """Rebuild every value from fresh inputs (after a rejected in-place statement)."""
        inputs = make_inputs(self.inputs)
        self.env = {f"a{i}": t for i, t in enumerate(inputs)}
        for ln in self.lines:
            self._exec(ln)

    def rollback(self, n_inputs: int) -> None:
        """Forget inputs made for a candidate that was not kept."""
        if len(self.inputs) > n_inputs:
            del self.inputs[n_inputs:]
            self.replay()
        self.order = [n for n in self.order if n in self.env]

    def _exec(self, line: str) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(line, _G, self.env)

    def try_line(self, line: str, targets: list[str], inplace: Optional[str], kind: str) -> bool:
        if self.special and any(op in line for op in EAGER_NAN_BY_POSITION):
            return False
        try:
            self._exec(line)
            for n in targets + ([inplace] if inplace else []):
                self._sane(self.env.get(n))
        except Exception:  # noqa: BLE001 - an invalid candidate is simply not kept
            for n in targets:
                self.env.pop(n, None)
            if inplace:
                self.replay()
            return False
        if inplace:
            targets = []
        used = [m for m in NAME.findall(line) if m not in targets]
        exact_in = all(self.exact.get(m, True) for m in used)
        self.lines.append(line)
        for n in targets:
            t = self.env[n]
            self.exact[n] = exact_in and (kind in ("move", "disc") or not t.is_floating_point())
            self.order.append(n)
        if inplace and not (exact_in and kind in ("move", "disc")):
            ptr = self.env[inplace].untyped_storage().data_ptr()
            for n, t in self.env.items():
                if isinstance(t, torch.Tensor) and t.untyped_storage().data_ptr() == ptr:
                    self.exact[n] = False
        return True

    def _sane(self, t) -> None:
        if not isinstance(t, torch.Tensor):
            raise Rejected("not a tensor")
        if t.dim() > 5 or t.numel() > self.cap or t.is_complex():
            raise Rejected("too big")
        if t.dtype not in DTYPES.values():
            raise Rejected("dtype")
        if t.numel() == 0:
            return
        d = t.detach()
        if d.is_floating_point() and self.special:
            finite = d[torch.isfinite(d)]     # NaN and Inf are the point here
            if finite.numel() and finite.abs().max() > 1e4:
                raise Rejected("huge")
        elif d.is_floating_point():
            if not torch.isfinite(d).all() or d.abs().max() > 1e4:
                raise Rejected("not finite or huge")
        elif d.dtype == torch.int64 and d.abs().max() > 10 ** 6:
            raise Rejected("huge int")

    def new_name(self) -> str:
        n = f"v{self.nv}"
        self.nv += 1
        return n


# ----------------------------------------------------------------------------------
# the op catalog: each entry returns an expression (kind "move" / "arith" / "disc")
# or, for in-place entries, a statement and the name it updates
# ----------------------------------------------------------------------------------
def _dims_subset(r: random.Random, rank: int) -> list[int]:
    k = r.randint(1, rank)
    dims = sorted(r.sample(range(rank), k))
    return [d - rank if r.random() < 0.3 else d for d in dims]


def _tup(xs) -> str:
    xs = list(xs)
    return "(" + ", ".join(map(str, xs)) + ("," if len(xs) == 1 else "") + ")"


def _slice_text(r: random.Random, n: int) -> str:
    start = r.choice([None, 0, 1, -1 - r.randint(0, max(n - 1, 0)), r.randint(0, max(n - 1, 0))])
    stop = r.choice([None, None, n - 1, -1, r.randint(0, n)])
    step = r.choice([None, None, 1, 2, 3])
    s = f"{'' if start is None else start}:{'' if stop is None else stop}"
    return s + (f":{step}" if step else "")


def _reshape_target(r: random.Random, shape: tuple) -> Optional[tuple]:
    s = list(shape)
    choice = r.random()
    if not s:
        return (1,) * r.randint(1, 2)
    if choice < 0.25:
        return (-1,)
    if choice < 0.5 and len(s) >= 2:
        i = r.randrange(len(s) - 1)
        return tuple(s[:i] + [s[i] * s[i + 1]] + s[i + 2:])
    if choice < 0.8:
        i = r.randrange(len(s))
        n = s[i]
        facs = [f for f in range(1, n + 1) if n % f == 0]
        f = r.choice(facs)
        return tuple(s[:i] + [f, n // f] + s[i + 1:])
    i = r.randrange(len(s) + 1)
    return tuple(s[:i] + [1] + s[i:])


def op_unary(g: Gen):
    x = g.pick_float()
    if x is None:
        return None
    t = g.t(x).detach().float()
    lo = float(t.min()) if t.numel() else 1.0
    big = float(t.abs().max()) if t.numel() else 0.0
    pos = x if lo > 0.05 else f"({x}.abs() + 0.5)"
    unit = x if big < 0.95 else f"{x}.tanh()"
    fns = [f"torch.exp({x})", f"torch.expm1({x})", f"torch.log({pos})", f"torch.log1p({pos})",
           f"torch.log2({pos})", f"torch.log10({pos})", f"torch.sqrt({pos})", f"torch.rsqrt({pos})",
           f"{x}.sin()", f"torch.cos({x})", f"torch.tan({unit})", f"torch.tanh({x})", f"torch.sigmoid({x})",
           f"torch.erf({x})", f"torch.erfc({x})", f"torch.atan({x})", f"torch.asin({unit})", f"torch.acos({unit})",
           f"torch.sinh({x})", f"torch.cosh({x})", f"torch.exp2({x})", f"torch.relu({x})", f"F.gelu({x})",
           f"F.gelu({x}, approximate='tanh')", f"F.silu({x})", f"F.leaky_relu({x}, 0.1)",
           f"F.hardtanh({x}, -0.5, 0.5)", f"F.softplus({x})", f"F.elu({x})", f"torch.square({x})", f"-{x}",
           f"{x}.abs()", f"torch.clamp({x}, min=-0.5, max=0.7)", f"{x}.clamp_min(0.1)", f"{x}.clamp(max=0.3)",
           f"torch.reciprocal({pos})", f"{x} ** 2", f"{x} ** 3", f"{pos} ** 0.5", f"{pos} ** -1.5",
           f"2.0 ** {x}", f"1.0 - {x}", f"torch.rsub({x}, 2)", f"{x} * 3", f"{x} / 3", f"0.5 * {x} + 1",
           f"{x} - 2.5", f"torch.sign({x}) * {x}", f"F.hardsigmoid({x})", f"F.hardswish({x})",
           f"F.mish({x})", f"torch.logit(torch.sigmoid({x}))"]
    return "arith", g.r.choice(fns)


def op_disc_unary(g: Gen):
    x = g.pick(lambda n: g.dt(n) != "other", exact=True)
    if x is None:
        return None
    if g.is_float(x):
        fns = [f"torch.floor({x})", f"torch.ceil({x})", f"torch.round({x})", f"torch.trunc({x})",
               f"torch.sign({x})", f"{x}.long()", f"{x}.bool()", f"({x} > 0)", f"({x} <= 0.25)",
               f"{x}.eq(0)", f"torch.isnan({x})", f"torch.isinf({x})", f"{x}.to(torch.int64)",
               f"torch.round({x} * 4) / 4", f"(torch.floor({x} * 3) + 0.5)"]
    elif g.dt(x) == "int64":
        fns = [f"{x} * 2 - 1", f"-{x}", f"{x}.abs()", f"~{x}", f"{x} % 3", f"{x} // 2", f"torch.sign({x})",
               f"{x}.float()", f"{x}.to(torch.bfloat16)", f"({x} > 1)", f"{x}.bool()", f"{x} ** 2",
               f"torch.clamp({x}, -2, 3)", f"{x}.ne(0)", f"{x} & 5", f"{x} | 2", f"{x} ^ 1", f"{x} >> 1",
               f"torch.bitwise_not({x})"]
    else:
        fns = [f"~{x}", f"torch.logical_not({x})", f"{x}.float()", f"{x}.long()", f"{x}.to(torch.bfloat16)",
               f"{x} * 2.5", f"{x}.int().long()"]
    return "disc", g.r.choice(fns)


def op_binary(g: Gen):
    x = g.pick(lambda n: g.dt(n) != "other")
    if x is None:
        return None
    r = g.r
    y = g.partner(x)
    if r.random() < 0.5:
        x, y = y, x
    xy = [x, y]
    t_y = g.t(y).detach()
    nz = t_y.numel() == 0 or (t_y.is_floating_point() and float(t_y.abs().min()) > 0.2)
    den = y if nz else f"({y}.abs() + 0.5)" if t_y.is_floating_point() else f"({y}.float().abs() + 0.5)"
    fns = [f"{x} + {y}", f"{x} - {y}", f"{x} * {y}", f"{x} / {den}", f"torch.add({x}, {y}, alpha=2)",
           f"torch.sub({x}, {y}, alpha=0.5)", f"torch.maximum({x}, {y})", f"torch.minimum({x}, {y})",
           f"torch.atan2({x}, {den})", f"torch.copysign({x}, {den})", f"torch.lerp({x}.float(), {y}.float(), 0.3)",
           f"torch.addcmul({x}.float(), {x}, {y}, value=0.5)", f"{x} * {y} + {x}",
           f"torch.where({x} > {y}, {x}, {y})" if all(g.exact[n] for n in xy) else f"{x} * 2 + {y}",
           f"torch.pow({x}.abs() + 0.5, {y})" if g.is_float(y) else f"{x} * {y}",
           f"torch.clamp({x}, min={y})" if g.dt(x) == g.dt(y) else f"{x} - {y}",
           f"{x}.float().mul({y})", f"{x}.to(torch.bfloat16) + {y}"]
    return "arith", r.choice(fns)


def op_disc_binary(g: Gen):
    x = g.pick(lambda n: g.dt(n) != "other", exact=True)
    if x is None:
        return None
    r = g.r
    y = g.partner(x)
    if not g.exact[y]:
        return None
    if r.random() < 0.5:
        x, y = y, x
    t_y = g.t(y)
    nonzero = t_y.numel() > 0 and bool((t_y != 0).all()) and t_y.dtype != torch.bool
    fns = [f"({x} > {y})", f"({x} == {y})", f"({x} != {y})", f"({x} <= {y})", f"({x} >= {y}).float()",
           f"torch.lt({x}, {y})", f"torch.logical_and({x}, {y})", f"torch.logical_or({x}, {y})",
           f"torch.logical_xor({x}, {y})", f"torch.where({x} < {y}, {x}, {y})", f"torch.maximum({x}, {y})"]
    if nonzero:
        fns += [f"{x} // {y}", f"torch.remainder({x}, {y})", f"torch.fmod({x}, {y})",
                f"torch.div({x}, {y}, rounding_mode='floor')", f"torch.div({x}, {y}, rounding_mode='trunc')"]
    if g.dt(x) in ("int64", "bool") and g.dt(y) in ("int64", "bool"):
        fns += [f"{x} & {y}", f"{x} | {y}", f"{x} ^ {y}"]
    return "disc", r.choice(fns)


def op_where(g: Gen):
    x = g.pick(lambda n: g.dt(n) != "other")
    if x is None:
        return None
    r = g.r
    c = g.pick(lambda n: g.dt(n) == "bool" and _bcast_into(g.shape(n), g.shape(x)), exact=True)
    if c is None or r.random() < 0.4:
        c = g.partner(x, "bool")
    y = g.partner(x) if r.random() < 0.5 else r.choice(["0.0", "-1.5", "2"])
    return "move", r.choice([f"torch.where({c}, {x}, {y})", f"{x}.masked_fill({c}, -0.25)",
                             f"torch.where({c}, {y}, {x})"])


def _bcast_into(s: tuple, target: tuple) -> bool:
    """A value of shape s broadcasts to target without changing it."""
    return len(s) <= len(target) and all(a in (1, b) for a, b in zip(reversed(s), reversed(target)))


def op_reduce(g: Gen):
    x = g.pick(lambda n: g.dt(n) != "other" and g.env[n].dim() >= 1)
    if x is None:
        x = g.pick(lambda n: g.dt(n) != "other")
        if x is None:
            return None
    r = g.r
    rank = g.env[x].dim()
    dims = _tup(_dims_subset(r, rank)) if rank else "()"
    d1 = r.randrange(-rank, rank) if rank else 0
    kd = r.choice([True, False])
    fl = g.is_float(x)
    fns = [f"{x}.sum({dims}, keepdim={kd})", f"torch.sum({x})", f"{x}.amax({dims}, keepdim={kd})",
           f"torch.amin({x}, {dims}, keepdim={kd})", f"{x}.sum(dim={dims})",
           f"torch.any({x}, dim={d1}, keepdim={kd})" if rank else f"torch.any({x})",
           f"{x}.bool().all()", f"{x}.sum({d1}, dtype=torch.float32)" if rank else f"{x}.sum()"]
    if fl:
        fns += [f"{x}.mean({dims}, keepdim={kd})", f"torch.mean({x})", f"{x}.var({dims}, keepdim={kd})",
                f"torch.var({x}, {dims}, correction=0, keepdim={kd})", f"{x}.std({dims}, keepdim={kd})",
                f"torch.logsumexp({x}, {dims}, keepdim={kd})", f"torch.prod({x}, {d1}, keepdim={kd})" if rank
                else f"torch.prod({x})", f"torch.linalg.vector_norm({x}, 2, {dims}, keepdim={kd})",
                f"torch.max({x}, {d1}, keepdim={kd}).values" if rank else f"torch.max({x})",
                f"torch.min({x}, dim={d1}).values" if rank else f"torch.min({x})",
                f"{x}.norm(dim={dims})", f"(({x} - {x}.mean({dims}, keepdim=True)) ** 2).sum({dims}, keepdim={kd})"]
        if rank and g.exact[x]:
            fns += [f"torch.argmax({x}, {d1}, keepdim={kd})", f"{x}.argmin({d1})",
                    f"torch.max({x}, {d1}).indices"]
    return ("disc" if not fl else "arith"), r.choice(fns)


def op_var_mean(g: Gen):
    x = g.pick_float(min_rank=1)
    if x is None:
        return None
    r = g.r
    dims = _tup(_dims_subset(r, g.env[x].dim()))
    return "arith", f"torch.var_mean({x}, {dims}, keepdim={r.choice([True, False])})", 2


def op_norm(g: Gen):
    x = g.pick_float(min_rank=1, min_numel=1)
    if x is None:
        return None
    r = g.r
    s = g.shape(x)
    rank = len(s)
    d = r.randrange(-rank, rank)
    k = r.randint(1, rank)
    ns = tuple(s[-k:])
    fns = [lambda: f"F.softmax({x}, {d})", lambda: f"F.log_softmax({x}, dim={d})",
           lambda: f"torch.softmax({x}.float(), {d})", lambda: f"F.normalize({x}, dim={d})",
           lambda: f"F.layer_norm({x}, {ns})"]
    if g.dt(x) == "float32":
        fns.append(lambda: f"F.layer_norm({x}, {ns}, {g.new_input(ns, 'float32')}, {g.new_input(ns, 'float32')})")
        if rank in (2, 3, 4):
            # no expanded weight: eager's CPU batch_norm backward reads a stride-0 weight as a
            # contiguous one, past its one element (undefined: no oracle; a strided one the
            # truth run reads contiguous, test_regressions.py::test_batch_norm_strided_weight)
            fns.append(lambda: f"F.batch_norm({x}, None, None, {g.new_input((s[1],), 'float32', expanded=False)}, "
                               f"None, training=True)")
        if rank >= 3:
            fns.append(lambda: f"F.group_norm({_gn_arg(g, x)}, 1, {g.new_input((s[1],), 'float32')})")
    if rank == 2 and s[1] > 1:
        fns += [lambda: f"F.cross_entropy({x}, {g.index_input((s[0],), s[1])})",
                lambda: f"F.nll_loss(F.log_softmax({x}, 1), {g.index_input((s[0],), s[1])}, reduction='sum')",
                lambda: f"F.cross_entropy({x}, {g.index_input((s[0],), s[1])}, reduction='none', "
                        f"label_smoothing=0.1)"]
    return "arith", r.choice(fns)()


def _gn_arg(g: Gen, x: str) -> str:
    """x, made contiguous where eager's CPU GroupNorm backward would crash (torch 2.13: a
    segmentation fault for a channels-last input without a gradient of its own, its weight's
    gradient wanted): no oracle there."""
    t = g.env[x]
    return f"{x}.contiguous()" if not t.requires_grad and not t.is_contiguous() else x


def op_view(g: Gen):
    x = g.pick(lambda n: g.dt(n) != "other")
    if x is None:
        return None
    r = g.r
    s = g.shape(x)
    rank = len(s)
    fns = []
    if rank >= 2:
        perm = list(range(rank))
        r.shuffle(perm)
        d0, d1 = r.sample(range(rank), 2)
        fns += [f"{x}.permute{_tup(perm)}", f"{x}.transpose({d0}, {d1 - rank})", f"torch.movedim({x}, {d0}, {d1})",
                f"{x}.swapaxes({d0}, {d1})", f"torch.flatten({x}, {min(d0, d1)}, {max(d0, d1)})"]
        if rank == 2:
            fns += [f"{x}.t()", f"{x}.mT", f"torch.diagonal({x})", f"torch.tril({x})", f"{x}.triu(1)"]
    tgt = _reshape_target(r, s)
    fns += [f"{x}.reshape{_tup(tgt)}", f"{x}.contiguous().view{_tup(tgt)}", f"{x}.unsqueeze({r.randint(-rank - 1, rank)})"]
    if rank:
        d = r.randrange(rank)
        i = r.randrange(s[d]) if s[d] else 0
        idx = [":"] * rank
        idx[d] = _slice_text(r, s[d])
        fns += [f"{x}[{', '.join(idx)}]", f"{x}.squeeze({d})", f"{x}.squeeze()", f"{x}.flip({d})",
                f"{x}.flip{_tup(_dims_subset(r, rank))}", f"torch.roll({x}, {r.randint(-3, 3)}, {d})",
                f"torch.roll({x}, {r.randint(1, 5)})", f"{x}.narrow({d}, 0, {max(s[d] - 1, 0)})",
                f"{x}[..., {r.randrange(s[-1]) if s[-1] else 0}]" if s[-1] else f"{x}[...]",
                f"{x}.split({max(s[d] // 2, 1)}, {d})[0]", f"{x}.chunk(2, {d})[-1]",
                f"{x}.unbind({d})[{i}]" if s[d] else f"{x}.flip(0)",
                f"{x}[{', '.join(_slice_text(r, n) for n in s)}]",
                f"{x}.select({d}, {i - s[d] if r.random() < 0.3 else i})" if s[d] else f"{x}.flip(0)",
                f"{x}.unflatten({d}, (1, {s[d]}))", f"{x}.clone()", f"{x}.contiguous()"]
        if s[d] >= 2:
            fns.append(f"{x}.unfold({d}, 2, {r.randint(1, 2)})")
        # expand size-1 dims, add leading dims
        tgt = tuple(r.choice([1, 2, 3, 5]) if n == 1 else n for n in s)
        if math.prod(tgt) <= g.cap:
            fns += [f"{x}.expand{_tup(tgt)}", f"{x}.expand{_tup((2,) + tgt)}" if 2 * math.prod(tgt) <= g.cap
                    else f"{x}.expand{_tup(tgt)}"]
    if rank == 4:
        fns.append(f"{x}.contiguous(memory_format=torch.channels_last)")
    if rank == 0:
        fns += [f"{x}.expand(3, 2)", f"{x}.reshape(1, 1)"]
    return "move", r.choice(fns)


def op_view_chain(g: Gen):
    """A view of a view of a view, in one statement."""
    x = g.pick(lambda n: g.dt(n) != "other" and g.env[n].dim() >= 2)
    if x is None:
        return None
    r = g.r
    s = g.shape(x)
    rank = len(s)
    perm = list(range(rank))
    r.shuffle(perm)
    tgt = _reshape_target(r, tuple(s[p] for p in perm))
    chain = [f".permute{_tup(perm)}", f"[{_slice_text(r, s[perm[0]])}]", f".transpose(0, -1)",
             f".unsqueeze(1)", f"[..., ::2]", f".reshape{_tup(tgt)}"]
    k = r.randint(2, 4)
    pieces = [chain[0]] + r.sample(chain[1:], k - 1) if r.random() < 0.5 else r.sample(chain, k)
    return "move", x + "".join(pieces)


def op_cat(g: Gen):
    x = g.pick(lambda n: g.dt(n) != "other" and g.env[n].dim() >= 1)
    if x is None:
        return None
    r = g.r
    s = list(g.shape(x))
    d = r.randrange(len(s))
    other = list(s)
    other[d] = r.choice([1, 2, 3, 5])

    def y():
        return r.choice([lambda: g.new_input(tuple(other), g.dt(x) if r.random() < 0.8 else None),
                         lambda: f"{x}.flip({d})", lambda: x])()

    fns = [lambda: f"torch.cat([{x}, {y()}], {d})", lambda: f"torch.cat(({y()}, {x}, {x}), dim={d - len(s)})",
           lambda: f"torch.stack([{x}, {g.partner(x, same_shape=True)}], {r.randint(0, len(s))})",
           lambda: f"torch.stack(({g.partner(x, same_shape=True)}, {x}), -1)",
           lambda: f"torch.hstack([{x}, {g.partner(x, same_shape=True)}])",
           lambda: f"torch.cat([{x}, {g.partner(x, same_shape=True)}.to({x}.dtype)], {d})"]
    return "move", r.choice(fns)()


def op_index(g: Gen):
    x = g.pick(lambda n: g.dt(n) != "other" and g.env[n].dim() >= 1 and g.env[n].numel() > 0)
    if x is None:
        return None
    r = g.r
    s = g.shape(x)
    rank = len(s)
    d = r.randrange(rank)
    n = s[d]
    k = r.choice([1, 2, 3, 5, 7])
    idx_shape = tuple(min(r.choice([1, 2, s[i]]), s[i]) if i != d else k for i in range(rank))
    sel = [":"] * rank
    gi = lambda: g.index_input(idx_shape, n)  # noqa: E731
    i1 = lambda low=0: g.index_input((k,), n, low=low)  # noqa: E731

    def advanced():
        sel[d] = i1(-n if r.random() < 0.3 else 0)
        return f"{x}[{', '.join(sel)}]"

    fns = [lambda: f"torch.gather({x}, {d}, {gi()})", lambda: f"{x}.gather({d - rank}, {gi()})", advanced,
           lambda: f"{x}.index_select({d}, {i1()})"]
    if rank >= 2:
        fns.append(lambda: f"{x}[{g.index_input((k,), s[0])}, {g.index_input((1,), s[1])}]")
    if g.is_float(x):
        def scatter():
            idx = gi()
            src = g.new_input(idx_shape, g.dt(x))
            if _unique_rows(g, idx, d):
                return f"torch.scatter({x}, {d}, {idx}, {src})"
            return f"{x}.scatter_add({d}, {idx}, {src})"

        fns += [scatter, lambda: f"{x}.scatter({d}, {gi()}, 0.5)",
                lambda: f"torch.scatter_add({x}, {d}, {gi()}, {g.new_input(idx_shape, g.dt(x))})",
                lambda: f"{x}.index_add({d}, {i1()}, "
                        f"{g.new_input(tuple(k if j == d else s[j] for j in range(rank)), g.dt(x))})"]
        if rank == 2:
            fns.append(lambda: f"F.embedding({g.index_input((r.choice([1, 3, 4]), k), s[0])}, {x})")
    if g.dt(x) == "int64" and g.exact[x]:
        fns.append(lambda: f"F.one_hot({x}.clamp(0, 4), 5)")
    return "move", r.choice(fns)()


def _unique_rows(g: Gen, gi: str, d: int) -> bool:
    """scatter with repeated indices along d writes in an unspecified order."""
    t = g.t(gi)
    srt = t.sort(dim=d).values
    return bool((srt.narrow(d, 1, t.shape[d] - 1) != srt.narrow(d, 0, t.shape[d] - 1)).all()) if t.shape[d] > 1 else True


def op_misc(g: Gen):
    x = g.pick(lambda n: g.dt(n) != "other")
    if x is None:
        return None
    r = g.r
    s = g.shape(x)
    rank = len(s)
    fns = [f"torch.zeros_like({x}) + {x}", f"torch.full_like({x}, 2) * {x}", f"{x}.new_ones({_tup(s)}) - {x}",
           f"{x}.to(torch.bfloat16)", f"{x}.float()", f"{x}.to(torch.float32) * 1.5"]
    if rank:
        pad = [r.randint(0, 2) for _ in range(2 * r.randint(1, min(rank, 3)))]
        fns += [f"F.pad({x}, {tuple(pad)})", f"F.pad({x}.float(), {tuple(pad)}, value=0.5)",
                f"{x} * torch.arange({s[-1]})", f"{x} + torch.arange({s[-1]}, dtype=torch.float32) * 0.5",
                f"{x}.repeat{_tup([r.choice([1, 2]) for _ in range(rank)])}", f"torch.tile({x}, (2,))",
                f"torch.cumsum({x}, {r.randrange(rank)})", f"{x}.float().cumsum(-1)",
                f"torch.sort({x}, {r.randrange(rank)}).values", f"torch.ones({s[-1]}) * {x}",
                f"{x} * torch.linspace(0, 1, {s[-1]})"]
        if s[-1] >= 2:
            fns.append(f"torch.topk({x}.float(), {min(2, s[-1])}).values")
        # constant tensors in the program (graph constants), arange with a step
        vals = [round(r.uniform(-2, 2), 2) for _ in range(s[-1])]
        fns += [f"{x} * torch.tensor({vals})", f"{x} + torch.tensor({vals[0]})",
                f"{x} - torch.arange(1, {2 * s[-1] + 1}, 2)", f"torch.full({_tup(s)}, 0.5) * {x}",
                f"torch.where({x} > 0, {x}, torch.zeros({_tup(s)}))" if g.exact[x] else f"{x} * 0.5",
                f"torch.clamp({x}, min=torch.tensor(-0.5), max=torch.ones({s[-1]}))"]
        d = r.randrange(rank)
        if s[d] >= 2:
            k = r.randint(1, s[d] - 1)
            fns.append((f"{x}.split([{k}, {s[d] - k}], {d})", 2))
    if g.is_float(x) and r.random() < 0.3:
        fns.append(f"F.dropout({x}, 0.25)")
    got = r.choice(fns)
    return ("arith",) + (got if isinstance(got, tuple) else (got,))


def op_matmul(g: Gen):
    x = g.pick_float(min_rank=2, max_rank=4)
    if x is None:
        return None
    s = g.shape(x)
    w = g.new_input((s[-1], g.r.choice([1, 3, 8])), g.dt(x))
    return "arith", g.r.choice([f"{x} @ {w}", f"torch.matmul({x}, {w})", f"F.linear({x}, {w}.t())"])


def op_inplace(g: Gen):
    """An update in place of a value (never of an input that requires grad)."""
    r = g.r
    # an input whose elements share memory (expanded) cannot be updated: eager
    # tolerates some such updates, AOTAutograd's copy back into the input does not
    x = g.pick(lambda n: g.dt(n) != "other" and (n[0] == "v" or not g.env[n].requires_grad)
               and not torch._debug_has_internal_overlap(g.env[n]))
    if x is None:
        return None
    s = g.shape(x)
    rank = len(s)
    tgt = x
    if rank and r.random() < 0.5:
        d = r.randrange(rank)
        idx = [":"] * rank
        idx[d] = _slice_text(r, s[d])
        tgt = f"{x}[{', '.join(idx)}]"
    if r.random() < 0.3 and rank >= 2:
        tgt = f"{tgt}.transpose(0, 1)"
    y = lambda: g.partner(x)  # noqa: E731
    stmts = [lambda: f"{tgt}.add_({y()})", lambda: f"{tgt}.mul_(2)", lambda: f"{tgt}.sub_({y()}, alpha=0.5)",
             lambda: f"{tgt}.clamp_(min=-0.3)", lambda: f"{tgt}.relu_()", lambda: f"{tgt}.zero_()",
             lambda: f"{tgt}.fill_(1.5)", lambda: f"{tgt}.copy_({y()})", lambda: f"{tgt}.mul_({y()})",
             lambda: f"{tgt}.sigmoid_()", lambda: f"{tgt}.masked_fill_({g.partner(x, 'bool')}, 0)"]
    if rank:
        sel = [":"] * rank
        j = r.randrange(rank)
        sel[j] = _slice_text(r, s[j])
        sl = f"{x}[{', '.join(sel)}]"
        stmts += [lambda: f"{sl} = 0.25", lambda: f"{sl} += 1", lambda: f"{sl} *= {y()}"]
        if s[0]:
            i1 = lambda: g.index_input((r.choice([1, 2, 3]),), s[0])  # noqa: E731
            stmts += [lambda: f"{x}[{i1()}] = {r.choice(['0.5', '-1', y()])}",
                      lambda: f"{x}.index_fill_(0, {i1()}, 2)"]
    return "arith", r.choice(stmts)(), x


def op_clone_for_update(g: Gen):
    x = g.pick(lambda n: g.dt(n) != "other")
    if x is None:
        return None
    return "move", g.r.choice([f"{x}.clone()", f"{x} * 1", f"{x}.detach().clone()" if g.r.random() < 0.1
                               else f"{x}.clone()", f"{x}.contiguous().clone()"])


CATALOG: list[tuple[Callable, float]] = [
    (op_unary, 4), (op_binary, 4), (op_disc_unary, 1.5), (op_disc_binary, 1.5), (op_where, 1.5),
    (op_reduce, 3), (op_var_mean, 0.5), (op_norm, 1.5), (op_view, 5), (op_view_chain, 1.5), (op_cat, 2),
    (op_index, 2), (op_misc, 1.5), (op_matmul, 0.7), (op_inplace, 2), (op_clone_for_update, 0.7),
]


def generate(seed: int, max_lines: Optional[int] = None) -> Program:
    """The program of `seed`: valid in eager, forward and backward."""
    g = Gen(seed)
    r = g.r
    n_lines = max_lines or r.randint(2, 9)
    for _ in range(r.choice([1, 1, 2])):
        g.new_input(g.rand_shape())
    fns, weights = zip(*CATALOG)
    attempts = 0
    while len(g.lines) < n_lines and attempts < 80:
        attempts += 1
        op = r.choices(fns, weights)[0]
        n_inputs = len(g.inputs)
        try:
            got = op(g)
        except Exception:  # noqa: BLE001 - a generator that cannot apply here
            got = None
        if got is None:
            g.rollback(n_inputs)
            continue
        if op is op_inplace:
            kind, stmt, target = got
            ok = g.try_line(stmt, [], target, kind)
        else:
            kind, expr = got[0], got[1]
            n_out = got[2] if len(got) > 2 else 1
            names = [g.new_name() for _ in range(n_out)]
            ok = g.try_line(f"{', '.join(names)} = {expr}", names, None, kind)
            if not ok:
                g.nv -= n_out
        if not ok:
            g.rollback(n_inputs)
    return _finish(g)


def _finish(g: Gen) -> Program:
    r = g.r
    # a value is a sink when no later statement reads it; an updated value is
    # defined again by its update
    last_def: dict[str, int] = {}
    last_use: dict[str, int] = {}
    for i, ln in enumerate(g.lines):
        lhs, rhs = _split(ln)
        for m in NAME.findall(rhs):
            last_use[m] = i
        for m in NAME.findall(lhs):
            last_def[m] = i
    sinks = [n for n, i in last_def.items() if last_use.get(n, -1) <= i]
    others = [n for n in last_def if n not in sinks and r.random() < 0.15]
    outs = sorted(set(sinks[-3:] + others), key=lambda n: (n[0], int(n[1:])))
    if not outs:
        outs = [g.order[-1]]
    prog = Program(list(g.inputs), list(g.lines), outs[:5], g.seed)
    # the program must run forward and backward in eager, with finite gradients (but for
    # a program of special inputs)
    while True:
        res = run(prog.function(), prog.inputs, prog.seed)
        if res.error is None and (g.special or all(x is None or bool(torch.isfinite(x).all()) for x in res.grads)):
            return prog
        if not prog.lines:
            return prog.copy(inputs=[dataclasses.replace(s, grad=False) for s in prog.inputs])
        prog = _drop_last(prog)


def _split(line: str) -> tuple[str, str]:
    """(names a statement defines or updates, the text it reads)."""
    if " = " in line and "[" not in line.split(" = ", 1)[0]:
        lhs, rhs = line.split(" = ", 1)
        return lhs, rhs
    # an update: `x[...] = y`, `x[...] += y`, `x.add_(y)`: x is read and defined again
    target = NAME.match(line).group(0) if NAME.match(line) else ""
    return target, line


def _drop_last(prog: Program) -> Program:
    """The program without its last statement (and outputs that depended on it)."""
    last = prog.lines[-1]
    lhs = last.split(" = ", 1)[0] if " = " in last and "[" not in last.split(" = ", 1)[0] else ""
    defined = set(NAME.findall(lhs))
    outs = [o for o in prog.outputs if o not in defined]
    lines = prog.lines[:-1]
    if not outs:
        for ln in reversed(lines):
            lh = ln.split(" = ", 1)[0] if " = " in ln else ""
            names = NAME.findall(lh)
            if names and "[" not in lh:
                outs = [names[0]]
                break
    if not outs:
        outs = ["a0"]
    return prog.copy(lines=lines, outputs=outs)
