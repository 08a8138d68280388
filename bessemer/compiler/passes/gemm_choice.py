"""How each float32 matrix product on the CPU is computed: ATen's BLAS in one call, oneDNN,
or ATen's BLAS in blocks of columns.

A scheduled `mm(a, b)` or `addmm(bias, a, b)` (beta = alpha = 1, a [N] bias) whose `a` is
row-major and whose `b` is row- or column-major, with static sizes and at least MIN_FLOPS
of work, is timed every way once per process and per (sizes, b's order, bias, threads), on
fresh tensors of the same layout, and runs the fastest way (runtime/gemm.py: onednn_mm,
blocked_mm, which the pipeline hands in) where that beat ATen's one call by at least MARGIN.
The choice is made at compile time and written into the program.

oneDNN. Measured on this project's AMD EPYC (2 cores, torch 2.13's MKL and oneDNN 3.12;
GFLOP/s, ATen / oneDNN): a linear's forward [1024, 256] x [256, 256]^T 166 / 187, [1024, 256] x
[256, 1024]^T 140 / 190, [1024, 1024] x [1024, 256]^T 156 / 196, an LM head [1024, 256] x
[256, 8192]^T 114 / 130; its input gradient [1024, 256] x [256, 256] 167 / 208; but its
weight gradient (`a` column-major) [1024, 1024] x [1024, 256] 177 / 135, which is why `a`
must be row-major and why each product is measured rather than assumed. Whole training
steps, the two libraries alternating in one process (16 rounds of 3 steps, median): BERT
small 156.3 -> 146.0 ms, GPT-2 small 229.9 -> 212.8 ms.

Blocks of columns (a result at least MIN_BLOCKED_COLUMNS wide). An LM head's forward
[1024, 256] x [256, 8192]^T on an AVX2 EPYC, 2 threads, median of 15 calls into retained
memory: ATen 30.3 ms, oneDNN 30.1, ATen in blocks of 512 / 1024 / 2048 columns 28.1 / 27.0 /
27.4 (blocks of rows: 34-36). Whole steps, the LM head's product alternating between oneDNN
and the blocks in one process (12 rounds of 3 steps, median): DistilGPT-2 small 176.6 ->
171.3 ms, GPT-2 small 256.4 -> 252.2 ms.

`config.gemm = "aten"` keeps every product on ATen's one call (its products bit for bit
eager's; the others agree with them to float32 rounding).
"""
from __future__ import annotations

import time
from typing import Callable, Optional

import torch

from bessemer.compiler.ir.graph import Kind, Node
from bessemer.compiler.ir.schedule import Kernel, Schedule
from bessemer.compiler.ir.views import layout_of

aten = torch.ops.aten

# Below this many FLOPs (about 0.1 ms here) a product is left to ATen untimed: the gain is
# small beside the call's fixed cost, and timing every small product would slow compiles.
MIN_FLOPS = 1 << 24
# oneDNN must beat ATen by this share to be chosen: a timing that calls the two even keeps
# eager's own library (and its results bit for bit). The trade: a wide margin misses real
# gains, a narrow one lets noise pick either library where they are level (harmless to speed).
# One process measured BERT small's products ten times each (oneDNN's best over ATen's, 7
# rounds): a forward with bias [1024, 256] x [256, 256]^T 0.939-0.954, the forward
# [1024, 256] x [1024, 256]^T 0.916-0.966, the input gradient [1024, 256] x [256, 1024]
# 0.882-0.954; at 5% the first went to ATen in most compiles and the others in some.
MARGIN = 0.02
# Timing rounds (one call of each library per round, interleaved; the best of each counts):
# as many as fit TIME_BUDGET seconds per product, from MIN_REPEATS to REPEATS. A transformer's
# products at 1-3 ms get all 7; an LM head's (13 ms) 2 or 3: the whole choice for GPT-2
# small's two graphs took 1.2 s of its compile at 7 rounds each.
REPEATS = 7
MIN_REPEATS = 2
TIME_BUDGET = 0.08

# Products whose result is at least this wide are also timed in blocks of columns (two blocks
# of runtime/gemm.BLOCK_COLUMNS or more); narrower ones have nothing to gain from it, and
# every candidate timed costs compile time.
MIN_BLOCKED_COLUMNS = 2048

_decisions: dict[tuple, Optional[str]] = {}


def choose_gemms(sched: Schedule, device: torch.device, mode: str = "auto",
                 onednn_mm: Optional[Callable] = None, blocked_mm: Optional[Callable] = None,
                 before_timing: Optional[Callable[[], None]] = None) -> list[str]:
    """Rewrites the products of `sched` that run faster another way to `onednn_mm(a, b[, bias])`
    (None where this torch has no oneDNN) or `blocked_mm(a, b[, bias])`; the rewritten steps,
    each as "name (way)". `before_timing` is called once before the first product is timed
    (the pipeline waits there for kernel builds still running)."""
    ways = {k: fn for k, fn in (("onednn", onednn_mm), ("blocked", blocked_mm)) if fn is not None}
    if mode != "auto" or torch.device(device).type != "cpu" or not ways:
        return []
    chosen = []
    for s in sched.steps:
        if isinstance(s, Kernel) or s.kind != Kind.EXTERN:
            continue
        form = _product(s, sched.realized)
        if form is None:
            continue
        a, b, bias, key = form
        offered = {k: fn for k, fn in ways.items() if k != "blocked" or key[2] >= MIN_BLOCKED_COLUMNS}
        dkey = (*key, tuple(offered))
        if dkey not in _decisions:
            if before_timing is not None:
                before_timing()
                before_timing = None
            _decisions[dkey] = _fastest(*key, ways=offered)
        way = _decisions[dkey]
        if way is not None:
            s.attrs["target"] = offered[way]
            s.attrs["args"] = (a, b) if bias is None else (a, b, bias)
            s.attrs["kwargs"] = {}
            chosen.append(f"{s.name} ({way})")
    return chosen


def _static(*xs) -> bool:
    return all(isinstance(x, int) for x in xs)


def _product(s: Node, realized) -> Optional[tuple]:
    """(a, b, bias, timing key) of a product oneDNN can compute, else None."""
    t = s.attrs.get("target")
    args, kwargs = tuple(s.attrs.get("args", ())), dict(s.attrs.get("kwargs", {}))
    if t is aten.mm.default and len(args) == 2 and not kwargs:
        bias, (a, b) = None, args
    elif t is aten.addmm.default and len(args) == 3:
        bias, a, b = args
        if kwargs.get("beta", 1) != 1 or kwargs.get("alpha", 1) != 1 or set(kwargs) - {"beta", "alpha"}:
            return None
    else:
        return None
    if not all(isinstance(x, Node) for x in (a, b)) or (bias is not None and not isinstance(bias, Node)):
        return None
    if s.dtype != torch.float32 or any(x.dtype != torch.float32 for x in (a, b)) or \
            (bias is not None and bias.dtype != torch.float32):
        return None
    la, lb = layout_of(a, realized), layout_of(b, realized)
    if la is None or lb is None or len(a.shape) != 2 or len(b.shape) != 2:
        return None
    (m, k), (k2, n) = a.shape, b.shape
    if not _static(m, k, k2, n, *la[1], *lb[1]) or k != k2 or min(m, k, n) < 2:
        return None
    if tuple(la[1]) != (k, 1):
        return None                       # a column-major `a` is slower on oneDNN (see above)
    if tuple(lb[1]) == (n, 1):
        b_col = False
    elif tuple(lb[1]) == (1, k):
        b_col = True
    else:
        return None
    if bias is not None:
        lc = layout_of(bias, realized)
        if lc is None or tuple(bias.shape) != (n,) or tuple(lc[1]) != (1,):
            return None
    if 2 * m * k * n < MIN_FLOPS:
        return None
    return a, b, bias, (m, k, n, b_col, bias is not None, torch.get_num_threads())


def _fastest(m: int, k: int, n: int, b_col: bool, has_bias: bool, threads: int, *,
             ways: dict[str, Callable]) -> Optional[str]:
    """Time ATen's product and each of `ways` on fresh tensors of this layout, interleaved, best
    of MIN_REPEATS to REPEATS rounds each (TIME_BUDGET): the fastest way that beat ATen by
    MARGIN, or None (ATen's)."""
    # real tensors, whatever tracing modes the compile runs under (a fake tensor mode would
    # time nothing), from a generator of its own (never the user's random stream)
    with torch._subclasses.fake_tensor.unset_fake_temporarily(), _no_modes():
        return _time_all(m, k, n, b_col, has_bias, ways)


def _no_modes():
    from torch.utils._python_dispatch import _disable_current_modes
    return _disable_current_modes()


def _time_all(m: int, k: int, n: int, b_col: bool, has_bias: bool, ways: dict[str, Callable]) -> Optional[str]:
    gen = torch.Generator().manual_seed(0)

    def rand(*size):
        return torch.randn(*size, generator=gen)
    with torch.no_grad():
        a = rand(m, k)
        b = rand(n, k).t() if b_col else rand(k, n)
        bias = rand(n) if has_bias else None
        if has_bias:
            def aten_one_call():
                return aten.addmm.default(bias, a, b)
        else:
            def aten_one_call():
                return aten.mm.default(a, b)
        # each way's first call is timed as its first round, but oneDNN's (which builds its
        # primitive then): that call is repeated
        fns = {None: aten_one_call}
        best = {}
        t0 = time.perf_counter()
        aten_one_call()
        best[None] = round_s = time.perf_counter() - t0
        for way, fn in ways.items():
            try:
                if way == "onednn":
                    fn(a, b, bias)
                t0 = time.perf_counter()
                fn(a, b, bias)
            except RuntimeError:
                continue
            best[way] = time.perf_counter() - t0
            round_s += best[way]
            fns[way] = (lambda fn=fn: fn(a, b, bias))
        if len(fns) == 1:
            return None
        for _ in range(max(MIN_REPEATS, min(REPEATS, int(TIME_BUDGET / round_s))) - 1):
            for way, fn in fns.items():
                t0 = time.perf_counter()
                fn()
                best[way] = min(best[way], time.perf_counter() - t0)
    way = min((w for w in best if w is not None), key=best.__getitem__)
    return way if best[way] < best[None] * (1 - MARGIN) else None
