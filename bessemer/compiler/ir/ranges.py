"""The values an integer node of the graph can take: a small value-range analysis.

`value_range(n)` gives (lo, hi) with lo <= every element of n <= hi, either bound None
where nothing is known. It knows constants, iotas, views (a view reads a subset of its
argument's elements), casts between integer types that keep the range, negation,
addition, subtraction, multiplication by a constant, maximum / minimum (clamp, clamp_min,
clamp_max lower to them) and where (either branch). Everything else is unknown: a range
is a proof, so only what is certain is claimed.

A gather reads its source at an address its index computes; it is computed inside a
kernel only where this analysis proves every index in [0, size) (DeBERTa's relative
positions, clamped), since a kernel does not check what eager checks.
"""
from __future__ import annotations

from typing import Optional

import torch

from bessemer.compiler.ir.graph import Kind, Node

Range = tuple[Optional[int], Optional[int]]
_UNKNOWN: Range = (None, None)
# deeper chains of ops are not followed (unknown): the index expressions proved are short
_MAX_DEPTH = 64


def _int_limits(dt: torch.dtype) -> Optional[tuple[int, int]]:
    if dt == torch.bool:
        return 0, 1
    if dt.is_floating_point or dt.is_complex:
        return None
    info = torch.iinfo(dt)
    return info.min, info.max


def _fit(r: Range, dt: torch.dtype) -> Range:
    """r if its known bounds lie in dt's values, else unknown (the op may wrap)."""
    lim = _int_limits(dt)
    if lim is None:
        return _UNKNOWN
    lo, hi = r
    if (lo is not None and not lim[0] <= lo <= lim[1]) or (hi is not None and not lim[0] <= hi <= lim[1]):
        return _UNKNOWN
    return r


def _both(f, a, b):
    return None if a is None or b is None else f(a, b)


def _first(f, a, b):
    """f of the bounds that are known (one bound alone suffices: max(x, 0) >= 0 whatever x is)."""
    known = [v for v in (a, b) if v is not None]
    return f(known) if known else None


def value_range(n: Node, cache: Optional[dict] = None, depth: int = 0) -> Range:
    cache = {} if cache is None else cache
    if n in cache:
        return cache[n]
    r = _UNKNOWN if depth > _MAX_DEPTH or _int_limits(n.dtype) is None else _range(n, cache, depth)
    cache[n] = r
    return r


def _range(n: Node, cache: dict, depth: int) -> Range:
    def arg(i: int) -> Range:
        return value_range(n.args[i], cache, depth + 1)

    k = n.kind
    if k == Kind.CONST:
        v = n.attrs["value"]
        return (int(v), int(v)) if isinstance(v, (bool, int)) else _UNKNOWN
    if k == Kind.IOTA:
        start, step, size = n.attrs["start"], n.attrs["step"], n.shape[n.iota_dim] if n.shape else 1
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, step, size)) or size < 1:
            return _UNKNOWN
        last = start + step * (size - 1)
        return _fit((min(start, last), max(start, last)), n.dtype)
    if k == Kind.VIEW:
        return arg(0) if n.args[0].dtype == n.dtype else _UNKNOWN
    if k != Kind.POINTWISE:
        return _UNKNOWN
    op = n.op
    if op == "cast":
        if _int_limits(n.args[0].dtype) is None or n.dtype == torch.bool:
            return _UNKNOWN
        return _fit(arg(0), n.dtype)
    if op == "neg":
        lo, hi = arg(0)
        return _fit((None if hi is None else -hi, None if lo is None else -lo), n.dtype)
    if op in ("add", "sub"):
        (alo, ahi), (blo, bhi) = arg(0), arg(1)
        if op == "sub":
            blo, bhi = (None if bhi is None else -bhi), (None if blo is None else -blo)
        return _fit((_both(int.__add__, alo, blo), _both(int.__add__, ahi, bhi)), n.dtype)
    if op == "mul":
        (alo, ahi), (blo, bhi) = arg(0), arg(1)
        if None in (alo, ahi, blo, bhi):
            return _UNKNOWN
        ps = [alo * blo, alo * bhi, ahi * blo, ahi * bhi]
        return _fit((min(ps), max(ps)), n.dtype)
    if op == "maximum":
        (alo, ahi), (blo, bhi) = arg(0), arg(1)
        return _fit((_first(max, alo, blo), _both(max, ahi, bhi)), n.dtype)
    if op == "minimum":
        (alo, ahi), (blo, bhi) = arg(0), arg(1)
        return _fit((_both(min, alo, blo), _first(min, ahi, bhi)), n.dtype)
    if op == "where":
        (alo, ahi), (blo, bhi) = arg(1), arg(2)
        return _fit((_both(min, alo, blo), _both(max, ahi, bhi)), n.dtype)
    return _UNKNOWN


def within(n: Node, size) -> bool:
    """Is every element of integer node n provably in [0, size)? (A symbolic size: no.)"""
    if not isinstance(size, int):
        return False
    lo, hi = value_range(n)
    return lo is not None and hi is not None and lo >= 0 and hi < size
