"""PyTorch's OpInfo database (torch.testing._internal.common_methods_invocations.op_db)
run through bessemer: each op's first samples compiled with fallback="error" and
compared with eager, outputs and gradients.

One compiled function applies the op to its first N_SAMPLES samples at once (one
compile per op and backend instead of one per sample). Samples are drawn after
torch.manual_seed(SEED), so every run sees the same tensors. Elementwise unary and
binary ops get one more sample: NaN, +-Inf, signed zeros, huge and subnormal values
(every pair of them for a binary op), where eager's semantics are easiest to miss.

Every output is compared, integer ones included, and again after the backward ran
(a backward that writes over a value the forward returned is a wrong result too).
Complex outputs take part in the gradient check through their real and imaginary parts.

Run directly to tabulate results without pytest (one line per op, a summary at
the end), e.g. `python tests/ops/opinfo_harness.py --backend cpp --dtype fp32`.
"""
from __future__ import annotations

import functools
import itertools
import math
import os
import sys
import tempfile
import time
import traceback
import warnings
from typing import Any, Optional

import torch
from torch.utils._pytree import tree_flatten

import bessemer
from bessemer.api import NothingCompiled

N_SAMPLES = 2
SEED = 0
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}

# (rtol, atol) of outputs; gradients get GRAD_SCALE times as much (they go through
# one more fused graph, with reductions in another order than eager's).
TOL = {torch.float32: (1e-5, 1e-5), torch.bfloat16: (1.6e-2, 1e-2)}
GRAD_SCALE = 4
# bf16: where eager bf16 is itself far from the fp32 result, the compiled result
# passes when its RMS error against that fp32 result is at most BF16_ERR_FACTOR
# times eager's (plus a floor of bf16 resolution), as Inductor's accuracy checks do.
BF16_ERR_FACTOR = 2.0
BF16_ERR_FLOOR = 4e-3


def op_key(op) -> str:
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


def _call(op, *args, **kwargs):
    return op(*args, **kwargs)


@functools.cache
def all_ops() -> dict:
    """key -> OpInfo for every op of op_db with a float32 CPU kernel, by sorted key."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from torch.testing._internal import common_methods_invocations as cmi
    # Random ops are wrapped in wrapper_set_seed, which saves and restores the RNG
    # state around the call: Dynamo cannot trace that and would run them eagerly.
    # The harness seeds before the eager and the compiled run instead.
    cmi.wrapper_set_seed = _call
    ops = {}
    for op in cmi.op_db:
        # jiterator ops compile CUDA source at run time: they have no CPU kernel to compare with
        if torch.float32 in op.supported_dtypes("cpu") and not op.name.startswith("jiterator_"):
            key = op_key(op)
            assert key not in ops, f"two OpInfos named {key}"
            ops[key] = op
    return dict(sorted(ops.items()))


def ops_for(dtype_name: str) -> list[str]:
    dt = DTYPES[dtype_name]
    return [k for k, op in all_ops().items() if dt in op.supported_dtypes("cpu")]


def wants_grad(op, dtype: torch.dtype) -> bool:
    return bool(op.supports_autograd) and dtype in op.supported_backward_dtypes("cpu")


def first_samples(op, dtype: torch.dtype, n: int = N_SAMPLES, subnormals: bool = True) -> list:
    torch.manual_seed(SEED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        samples = list(itertools.islice(op.sample_inputs("cpu", dtype, requires_grad=wants_grad(op, dtype)), n))
        special = special_sample(op, dtype, subnormals)
    return samples + ([special] if special is not None else [])


# -- NaN, Inf and friends for the elementwise ops -----------------------------------
_INF, _NAN = math.inf, math.nan
UNARY_SPECIALS = (_NAN, _INF, -_INF, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-3, 1e30, -1e30, 1e-40)
BINARY_SPECIALS = (_NAN, _INF, -_INF, 0.0, -0.0, 1.0, -1.5, 2.0, 1e30)
# Elements in a special sample, the values repeated to fill it. Eager's CPU loops run
# vectorized over all but a tail that does not fill two vectors, and that scalar tail can
# treat NaN otherwise (hardtanh's gradient at NaN is 0 vectorized, 1 in the tail):
# a multiple of 128 leaves no tail for vectors up to 512 bits in any dtype, so every
# element sees the semantics eager gives a tensor of some size.
SPECIAL_LEN = 128
# Triton's interpreter converts a bfloat16 subnormal to float32 wrongly (it normalizes
# the significand, then clamps the exponent at 0: 1e-40 becomes 0), which compiled
# Triton does not: under the interpreter a bfloat16 special sample has no subnormal.
SUBNORMAL, SUBNORMAL_STANDIN = 1e-40, 1e-30
# elementwise activations op_db describes as plain OpInfos rather than unary ufuncs
ELEMENTWISE_EXTRA = ("nn.functional.gelu", "nn.functional.hardswish", "nn.functional.leaky_relu")
# float -> integer conversions of NaN, Inf or out-of-range values are undefined in C++:
# ATen's own scalar and vectorized loops give different integers for them
NO_SPECIALS = {"byte": "float -> uint8 of non-finite values is undefined behaviour",
               "char": "float -> int8 of non-finite values is undefined behaviour",
               "short": "float -> int16 of non-finite values is undefined behaviour",
               "int": "float -> int32 of non-finite values is undefined behaviour",
               "long": "float -> int64 of non-finite values is undefined behaviour"}


def is_elementwise(op) -> Optional[str]:
    """"unary", "binary" or None."""
    from torch.testing._internal.opinfo.core import BinaryUfuncInfo, UnaryUfuncInfo
    if op_key(op) in NO_SPECIALS:
        return None
    if isinstance(op, UnaryUfuncInfo) or op_key(op) in ELEMENTWISE_EXTRA:
        return "unary"
    if isinstance(op, BinaryUfuncInfo):
        return "binary"
    return None


def _filled(t: torch.Tensor) -> torch.Tensor:
    return t.repeat(-(-SPECIAL_LEN // t.numel()))[:SPECIAL_LEN].contiguous()


def special_sample(op, dtype: torch.dtype, subnormals: bool = True):
    """The op's first sample with its float tensor operands replaced by UNARY_SPECIALS (a
    unary op) or by every pair of BINARY_SPECIALS (a binary op whose other operand is a
    float tensor or a number); None for other ops, or where eager rejects the values."""
    from torch.testing._internal.opinfo.core import SampleInput
    kind = is_elementwise(op)
    if kind is None:
        return None
    torch.manual_seed(SEED)
    base = next(iter(op.sample_inputs("cpu", dtype, requires_grad=wants_grad(op, dtype))), None)
    if base is None or not isinstance(base.input, torch.Tensor) or base.input.dtype != dtype:
        return None
    rg = base.input.requires_grad
    args = list(base.args)
    if kind == "unary":
        vals = UNARY_SPECIALS if subnormals else [SUBNORMAL_STANDIN if v == SUBNORMAL else v for v in UNARY_SPECIALS]
        x = _filled(torch.tensor(vals, dtype=dtype))
    else:
        k = len(BINARY_SPECIALS)
        x = _filled(torch.tensor(BINARY_SPECIALS, dtype=dtype).repeat_interleave(k))
        if args and isinstance(args[0], torch.Tensor):
            if args[0].dtype != dtype:
                return None
            args[0] = _filled(torch.tensor(BINARY_SPECIALS, dtype=dtype).repeat(k)).requires_grad_(
                args[0].requires_grad)
        elif not args or not isinstance(args[0], (int, float)):
            return None
    sample = SampleInput(x.requires_grad_(rg), args=tuple(args), kwargs=dict(base.kwargs),
                         output_process_fn_grad=base.output_process_fn_grad)
    try:
        op(sample.input.detach(), *[a.detach() if isinstance(a, torch.Tensor) else a for a in sample.args],
           **sample.kwargs)
    except Exception:   # noqa: BLE001 - eager refuses these values (a domain check): no sample
        return None
    return sample


# -- samples as a function of their tensors ----------------------------------------
class _Leaf:
    __slots__ = ("i",)

    def __init__(self, i: int):
        self.i = i


def _template(x: Any, leaves: list, ids: dict) -> Any:
    """x with every tensor replaced by a _Leaf naming its position in `leaves`
    (a tensor that occurs twice is one leaf, so aliasing is kept)."""
    if isinstance(x, torch.Tensor):
        if id(x) not in ids:
            ids[id(x)] = len(leaves)
            leaves.append(x)
        return _Leaf(ids[id(x)])
    if isinstance(x, (list, tuple)):
        return type(x)(_template(v, leaves, ids) for v in x)
    if isinstance(x, dict):
        return {k: _template(v, leaves, ids) for k, v in x.items()}
    return x


def _fill(t: Any, ts: tuple) -> Any:
    if isinstance(t, _Leaf):
        return ts[t.i]
    if isinstance(t, (list, tuple)):
        return type(t)(_fill(v, ts) for v in t)
    if isinstance(t, dict):
        return {k: _fill(v, ts) for k, v in t.items()}
    return t


class OpCall(torch.nn.Module):
    """The op applied to each sample; its inputs are the samples' tensors."""

    def __init__(self, fn, templates: list):
        super().__init__()
        self.fn = fn
        self.templates = templates

    def forward(self, *ts):
        outs = []
        for inp, args, kwargs in self.templates:
            outs.append(self.fn(_fill(inp, ts), *_fill(args, ts), **_fill(kwargs, ts)))
        return outs


def _fresh(leaves: list, dtype: Optional[torch.dtype] = None) -> list:
    """Independent copies of the leaves (same values, strides and requires_grad);
    with `dtype`, floating leaves of the sample's dtype are cast to it."""
    out = []
    for t in leaves:
        c = t.detach()
        if dtype is not None and c.dtype == t.dtype and c.is_floating_point() and c.dtype != dtype:
            c = c.to(dtype)
        else:
            c = c.clone(memory_format=torch.preserve_format) if c.layout == torch.strided else c.clone()
        out.append(c.requires_grad_(t.requires_grad))
    return out


# -- running and comparing ---------------------------------------------------------
class Mismatch(AssertionError):
    pass


def _grad_targets(outs: list) -> list:
    return [o for o in tree_flatten(outs)[0]
            if isinstance(o, torch.Tensor) and o.requires_grad and (o.is_floating_point() or o.is_complex())
            and o.layout == torch.strided]   # a sparse output's gradient is not a dense weighted sum


def _real(o: torch.Tensor) -> torch.Tensor:
    """A complex value as its real and imaginary parts (a last dim of 2), in float64."""
    return torch.view_as_real(o.to(torch.complex128)) if o.is_complex() else o.to(torch.float64)


def _weights(outs: list) -> list:
    gen = torch.Generator().manual_seed(SEED + 1)
    return [torch.randn(_real(o.detach()).shape, generator=gen, dtype=torch.float64) for o in _grad_targets(outs)]


def _grads(outs: list, leaves: list, weights: list) -> list:
    targets = _grad_targets(outs)
    wrt = [t for t in leaves if t.requires_grad]
    if not targets or not wrt:
        return []
    loss = sum((_real(o) * w).sum() for o, w in zip(targets, weights))
    gs = torch.autograd.grad(loss, wrt, allow_unused=True)
    return [torch.zeros_like(t) if g is None else g for g, t in zip(gs, wrt)]


def _run(module, leaves: list, samples: list) -> tuple[list, list]:
    """(the op's outputs as it returned them, as each sample's output_process_fn_grad sees them)"""
    torch.manual_seed(SEED + 2)   # random ops draw the same numbers in both runs
    outs = module(*leaves)
    return outs, [s.output_process_fn_grad(o) for s, o in zip(samples, outs)]


def _rms(x: torch.Tensor) -> float:
    x = x.to(torch.float64)
    x = torch.where(torch.isfinite(x), x, torch.zeros_like(x))
    return math.sqrt(float((x * x).mean())) if x.numel() else 0.0


def _close(a: torch.Tensor, e: torch.Tensor, rtol: float, atol: float, ref: Optional[torch.Tensor]) -> None:
    try:
        torch.testing.assert_close(a, e, rtol=rtol, atol=atol, equal_nan=True, check_stride=False,
                                   check_device=False)
        return
    except AssertionError:
        if ref is None or not a.is_floating_point():
            raise
    # eager's narrow-dtype result is itself far off: judge both against the wider one
    r = ref.to(torch.float64)
    nonfinite_a, nonfinite_r = ~torch.isfinite(a), ~torch.isfinite(r)
    if not torch.equal(nonfinite_a, nonfinite_r):
        raise Mismatch(f"non-finite values differ from the fp32 reference at "
                       f"{int((nonfinite_a != nonfinite_r).sum())} elements")
    err_a, err_e = _rms(a.to(torch.float64) - r), _rms(e.to(torch.float64) - r)
    if err_a > BF16_ERR_FACTOR * err_e + BF16_ERR_FLOOR * max(1.0, _rms(r)):
        raise Mismatch(f"RMS error against fp32 {err_a:.3g} > {BF16_ERR_FACTOR} x eager bf16's {err_e:.3g}")


def compare(actual, expected, rtol: float, atol: float, what: str, reference=None,
            values: bool = True) -> None:
    fa, _ = tree_flatten(actual)
    fe, _ = tree_flatten(expected)
    fr = tree_flatten(reference)[0] if reference is not None else [None] * len(fe)
    if len(fa) != len(fe):
        raise Mismatch(f"{what}: {len(fa)} values, eager gives {len(fe)}")
    for i, (a, e, r) in enumerate(zip(fa, fe, fr)):
        where = f"{what}[{i}]"
        if isinstance(e, torch.Tensor):
            if not isinstance(a, torch.Tensor):
                raise Mismatch(f"{where}: {type(a).__name__}, eager gives a tensor")
            if a.dtype != e.dtype or a.shape != e.shape:
                raise Mismatch(f"{where}: {a.dtype}{list(a.shape)}, eager gives {e.dtype}{list(e.shape)}")
            if not values:
                continue
            try:
                _close(a.detach(), e.detach(), rtol, atol,
                       r.detach() if isinstance(r, torch.Tensor) and r.shape == e.shape else None)
            except AssertionError as err:
                raise Mismatch(f"{where}: {err}") from None
        elif isinstance(e, float) and isinstance(a, float) and math.isnan(e):
            if not math.isnan(a):
                raise Mismatch(f"{where}: {a}, eager gives nan")
        elif a != e:
            raise Mismatch(f"{where}: {a!r}, eager gives {e!r}")


class Result:
    def __init__(self):
        self.graphs = 0        # graphs bessemer compiled (0: Dynamo captured nothing)
        self.grad_checked = False
        self.n_samples = 0


class Prepared:
    """An op's first samples as one module over their tensors."""

    def __init__(self, key: str, dtype_name: str, n: int = N_SAMPLES, only: Optional[int] = None,
                 subnormals: bool = True):
        self.op = all_ops()[key]
        self.dtype = DTYPES[dtype_name]
        self.samples = first_samples(self.op, self.dtype, n, subnormals)
        if only is not None:
            self.samples = self.samples[only:only + 1]
        self.leaves: list = []
        ids: dict = {}
        self.templates = [(_template(s.input, self.leaves, ids), _template(tuple(s.args), self.leaves, ids),
                           _template(dict(s.kwargs), self.leaves, ids)) for s in self.samples]

    def module(self) -> OpCall:
        return OpCall(self.op.get_op(), self.templates)


def check_opinfo(key: str, dtype_name: str, backend: str, cache_dir: str, n: int = N_SAMPLES) -> Result:
    """Compile op `key` on its first n samples and compare it with eager; raises on
    any difference. Returns what was checked.

    The samples run in one compiled function. Where Dynamo captures no graph of it
    (one sample breaks the graph, e.g. a tensor argument read with .item()), each
    sample is compiled on its own, so the others are still checked."""
    subnormals = not (backend == "triton" and dtype_name == "bf16" and os.environ.get("TRITON_INTERPRET") == "1")
    res = _check(Prepared(key, dtype_name, n, subnormals=subnormals), backend, cache_dir)
    if res.graphs == 0 and res.n_samples > 1:
        for i in range(res.n_samples):
            r = _check(Prepared(key, dtype_name, n, only=i, subnormals=subnormals), backend, cache_dir)
            res.graphs += r.graphs
            res.grad_checked |= r.grad_checked
    return res


def _check(p: Prepared, backend: str, cache_dir: str) -> Result:
    op, dtype, samples, leaves = p.op, p.dtype, p.samples, p.leaves
    res = Result()
    res.n_samples = len(samples)
    if not samples:
        return res
    eager = p.module()
    values = not (op.has_nondeterministic_output or op.skip_correctness_check_compile_vs_eager)

    le = _fresh(leaves)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raw_e, out_e = _run(eager, le, samples)
    ref_leaves, out_r, raw_r = None, None, None
    if dtype != torch.float32:   # the wider reference for narrow dtypes
        ref_leaves = _fresh(leaves, torch.float32)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                raw_r, out_r = _run(eager, ref_leaves, samples)
            except Exception:   # noqa: BLE001 - an op without an fp32 path for these args
                ref_leaves, out_r, raw_r = None, None, None

    torch._dynamo.reset()
    compiled = bessemer.compile(p.module(), cache_dir=cache_dir, fallback="error", backend=backend)
    lc = _fresh(leaves)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            raw_c, out_c = _run(compiled, lc, samples)
        except NothingCompiled:
            # Dynamo captured nothing (the ops of opinfo_tables.NOT_CAPTURED): the first call
            # says so and hands the module its plain compiled forward; run the samples again
            # through it, and the test checks the op is one of those (res.graphs == 0)
            lc = _fresh(leaves)
            raw_c, out_c = _run(compiled, lc, samples)
    res.graphs = len(getattr(compiled.forward, "_bessemer_backend").compiled)
    _no_eager_warning(caught)

    rtol, atol = TOL[dtype]
    compare(out_c, out_e, rtol, atol, "output", _matching(out_r, out_e), values)

    weights = _weights(out_e)
    if len(_grad_targets(out_c)) != len(weights):
        raise Mismatch(f"{len(_grad_targets(out_c))} outputs need a gradient, eager has {len(weights)}")
    if weights and any(t.requires_grad for t in leaves):
        g_e = _grads(out_e, le, weights)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            g_c = _grads(out_c, lc, weights)
        _no_eager_warning(caught)
        g_r = None
        if out_r is not None and len(_grad_targets(out_r)) == len(weights):
            try:
                g_r = _grads(out_r, ref_leaves, weights)
            except Exception:   # noqa: BLE001
                g_r = None
        compare(g_c, g_e, rtol * GRAD_SCALE, atol * GRAD_SCALE, "grad", g_r, values)
        res.grad_checked = True
        # what the forward returned must still be what it was: the backward may write over
        # a saved value only where nobody else holds it
        compare(raw_c, raw_e, rtol, atol, "output after the backward", _matching(raw_r, raw_e), values)
    res.graphs = len(getattr(compiled.forward, "_bessemer_backend").compiled)
    return res


def _matching(ref, expected):
    if ref is None:
        return None
    fr, fe = tree_flatten(ref)[0], tree_flatten(expected)[0]
    return ref if len(fr) == len(fe) else None


def _no_eager_warning(caught) -> None:
    for w in caught:
        msg = str(w.message)
        if msg.startswith("bessemer:") and ("runs eagerly" in msg or "recompiling" in msg):
            raise Mismatch(msg)


# -- the table, outside pytest -----------------------------------------------------
def main(argv: Optional[list] = None) -> int:
    import argparse
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--backend", default="cpp", choices=["cpp", "triton"])
    p.add_argument("--dtype", default="fp32", choices=list(DTYPES))
    p.add_argument("--ops", nargs="*", help="op keys (default: all)")
    p.add_argument("--skip", type=int, default=0, help="start at this op index")
    p.add_argument("--cache-dir", default=None)
    a = p.parse_args(argv)
    if a.backend == "triton":
        os.environ.setdefault("TRITON_INTERPRET", "1")
    cache = a.cache_dir or tempfile.mkdtemp(prefix="bessemer-opinfo-")
    keys = a.ops or ops_for(a.dtype)
    counts = {"pass": 0, "fail": 0, "empty": 0, "nograph": 0}
    for i, key in enumerate(keys[a.skip:], a.skip):
        t0 = time.perf_counter()
        try:
            r = check_opinfo(key, a.dtype, a.backend, cache)
            status = "empty" if r.n_samples == 0 else "nograph" if r.graphs == 0 else "pass"
            detail = f"graphs={r.graphs} grad={int(r.grad_checked)}"
        except Exception as e:   # noqa: BLE001
            status = "fail"
            lines = [ln for ln in str(e).strip().splitlines() if ln.strip()]
            detail = f"{type(e).__name__}: {lines[0] if lines else ''}"[:300]
            if os.environ.get("OPINFO_TRACEBACK"):
                traceback.print_exc()
        counts[status] += 1
        print(f"{i}\t{key}\t{status}\t{time.perf_counter() - t0:.1f}s\t{detail}", flush=True)
    print(f"# {a.backend}/{a.dtype}: " + ", ".join(f"{k} {v}" for k, v in counts.items()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
