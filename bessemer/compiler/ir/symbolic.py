"""Symbolic sizes: integers that are polynomials over a graph's size symbols.

A graph Dynamo traced with symbolic sizes is compiled once for a region of
shapes rather than once per shape. Its sizes enter the IR as `Dim`s: a
polynomial with integer coefficients over the size symbols (`_s0`, `_s1`, ...)
together with its value at the shape being compiled (the hint). Every pass works
on them as on ints: `+ - *` build new polynomials, exact `//` and `%` by a
constant stay polynomials, and the renderers print a Dim as source text
(`(768*_s0*_s1)`, valid C++ and Python), so kernels and the wrapper compute
sizes from the symbols they are given at run time.

A decision that depends on a size -- an order comparison, a branch, an `int()`
-- is taken at the hint and recorded as a guard (`Guards`), unless it holds for
every size (`_s0*_s1 > _s0` holds for all sizes >= MIN_SIZE). The compiled
graph then serves exactly the shapes on which every guard gives the same answer;
any other shape is compiled again. Equality is structural and takes no guard
(see Dim.__eq__). With BESSEMER_DEBUG_GUARDS=1 the log names where each guard
was taken. Whatever cannot be kept symbolic (a float derived from a
size, a non-exact division, a size handed to a C function through __index__)
falls back to the hint with a guard that pins the expression to its value:
always correct, only less general. So the generic path never produces a kernel
that is wrong at another shape; at worst it is specialized.
"""
from __future__ import annotations

import os
import re
import threading
import traceback
from typing import Any, Optional

Mono = tuple   # sorted symbol names, repeated for powers; () is the constant term


def _mul_mono(a: Mono, b: Mono) -> Mono:
    return tuple(sorted(a + b)) if a and b else (a or b)


class Guards:
    """The decisions taken on symbolic sizes during one compile: (polynomial, test,
    expected) where test is "==" (poly == 0) or ">" (poly > 0)."""

    def __init__(self):
        self.items: list[tuple[dict, str, bool]] = []
        self._seen: set = set()
        self.where: list[str] = []    # with BESSEMER_DEBUG_GUARDS: where each guard was taken
        self.trace = bool(os.environ.get("BESSEMER_DEBUG_GUARDS"))

    def add(self, poly: dict, test: str, expected: bool, why: str) -> None:
        key = (tuple(sorted(poly.items())), test)
        if key in self._seen:
            return
        self._seen.add(key)
        self.items.append((dict(poly), test, expected))
        if self.trace:
            stack = "".join(traceback.format_stack(limit=6)[:-2])
            self.where.append(f"{why}: {_fmt(poly)} {test} 0 is {expected}\n{stack}")

    def check(self, values: dict[str, int]) -> bool:
        """Do all decisions come out the same at these symbol values?"""
        for poly, test, expected in self.items:
            v = _eval(poly, values)
            if (v == 0 if test == "==" else v > 0) != expected:
                return False
        return True

    def specialized(self) -> list[str]:
        """The expressions pinned to one value (what keeps this compile from being general)."""
        return [_fmt(p) for p, t, e in self.items if t == "==" and e]

    def __len__(self) -> int:
        return len(self.items)


_local = threading.local()


def _active() -> Optional[Guards]:
    return getattr(_local, "guards", None)


class recording:
    """Context: the guards of a symbolic compile are recorded into `guards`."""

    def __init__(self, guards: Guards):
        self.guards = guards

    def __enter__(self):
        # recording(None): decisions in between (checks, reports) are taken without a guard
        self.prev = _active()
        _local.guards = self.guards
        return self.guards

    def __exit__(self, *exc):
        _local.guards = self.prev
        return False


def _eval(poly: dict, values: dict[str, int]) -> int:
    total = 0
    for mono, c in poly.items():
        t = c
        for s in mono:
            t *= values[s]
        total += t
    return total


def _fmt(poly: dict) -> str:
    parts = []
    for mono, c in sorted(poly.items(), key=lambda kv: (-len(kv[0]), kv[0])):
        if not mono:
            parts.append(str(c))
        else:
            parts.append("*".join(([str(c)] if c != 1 else []) + list(mono)))
    return "(" + " + ".join(parts) + ")" if parts else "0"


def _poly(x) -> dict:
    if isinstance(x, Dim):
        return x.poly
    return {(): int(x)} if x else {}


def _accumulate(out: dict, m: Mono, c: int) -> None:
    """out[m] += c, dropping a term that cancels to 0."""
    v = out.get(m, 0) + c
    if v:
        out[m] = v
    else:
        out.pop(m, None)


def _add(a: dict, b: dict, sign: int = 1) -> dict:
    out = dict(a)
    for m, c in b.items():
        _accumulate(out, m, sign * c)
    return out


def _mul(a: dict, b: dict) -> dict:
    out: dict = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            _accumulate(out, _mul_mono(ma, mb), ca * cb)
    return out


def _div_mono(poly: dict, divisor: dict) -> Optional[dict]:
    """poly / (c * monomial) when every term divides exactly, else None."""
    (dm, dc), = divisor.items()
    out = {}
    for m, c in poly.items():
        rest = list(m)
        for s in dm:
            if s not in rest:
                return None
            rest.remove(s)
        if c % dc:
            return None
        out[tuple(rest)] = c // dc
    return out


def make(poly: dict, hint: int):
    """A Dim, or a plain int when the polynomial is a constant."""
    if not poly:
        return 0
    if len(poly) == 1 and () in poly:
        return poly[()]
    return Dim(poly, hint)


# Every size symbol is at least this. Dynamo specializes sizes 0 and 1, so a size
# it makes symbolic is >= 2; a compile is reused only where every symbol is (MIN_SIZE).
MIN_SIZE = 2


def _shifted(poly: dict) -> dict:
    """poly with every symbol s written as MIN_SIZE + t (t >= 0), expanded over the t's."""
    out: dict = {}
    for mono, c in poly.items():
        term = {(): c}
        for s in mono:
            term = _mul(term, {(s,): 1, (): MIN_SIZE})
        out = _add(out, term)
    return out


def _sign(poly: dict) -> Optional[int]:
    """+1 / 0 / -1 when the sign of poly is the same for all symbol values >= MIN_SIZE, else
    None. Sound, not complete: after the shift s = MIN_SIZE + t, a polynomial whose
    coefficients all have one sign, with a nonzero constant of that sign, keeps it."""
    if not poly:
        return 0
    p = _shifted(poly)
    const = p.get((), 0)
    coefs = [c for m, c in p.items() if m]
    if const > 0 and all(c >= 0 for c in coefs):
        return 1
    if const < 0 and all(c <= 0 for c in coefs):
        return -1
    return None


def _decide(poly: dict, test: str, hint_value: int, why: str) -> bool:
    """poly == 0 / poly > 0, decided at the hint and recorded unless it holds for every size."""
    result = (hint_value == 0) if test == "==" else (hint_value > 0)
    s = _sign(poly)
    if s is not None:
        static = (s == 0) if test == "==" else (s > 0)
        assert static == result, (poly, test, hint_value)
        return result
    g = _active()
    if g is not None:
        g.add(poly, test, result, why)
    return result


class Dim:
    """A size: a polynomial over size symbols, with its value at the compiled shape."""

    __slots__ = ("poly", "hint")

    def __init__(self, poly: dict, hint: int):
        self.poly = poly
        self.hint = int(hint)

    # -- arithmetic (exact: results stay symbolic) ------------------------------------
    def __add__(self, o):
        if isinstance(o, (Dim, int)) and not isinstance(o, bool):
            return make(_add(self.poly, _poly(o)), self.hint + hint(o))
        return self._concrete("add") + o

    __radd__ = __add__

    def __sub__(self, o):
        if isinstance(o, (Dim, int)) and not isinstance(o, bool):
            return make(_add(self.poly, _poly(o), -1), self.hint - hint(o))
        return self._concrete("sub") - o

    def __rsub__(self, o):
        if isinstance(o, (Dim, int)) and not isinstance(o, bool):
            return make(_add(_poly(o), self.poly, -1), hint(o) - self.hint)
        return o - self._concrete("sub")

    def __mul__(self, o):
        if isinstance(o, (Dim, int)) and not isinstance(o, bool):
            return make(_mul(self.poly, _poly(o)), self.hint * hint(o))
        return self._concrete("mul") * o

    __rmul__ = __mul__

    def __neg__(self):
        return make({m: -c for m, c in self.poly.items()}, -self.hint)

    def __pos__(self):
        return self

    def __floordiv__(self, o):
        if isinstance(o, int) and not isinstance(o, bool) and o > 0 and \
                all(c % o == 0 for c in self.poly.values()):
            return make({m: c // o for m, c in self.poly.items()}, self.hint // o)
        if isinstance(o, Dim) and o.poly == self.poly:
            return 1
        if isinstance(o, Dim) and len(o.poly) == 1:
            q = _div_mono(self.poly, o.poly)
            if q is not None:
                return make(q, self.hint // o.hint)
        return self._concrete("floordiv") // concrete(o, "floordiv")

    def __rfloordiv__(self, o):
        return o // self._concrete("floordiv")

    def __mod__(self, o):
        if isinstance(o, int) and not isinstance(o, bool) and o > 0 and \
                all(c % o == 0 for m, c in self.poly.items() if m):
            return self.poly.get((), 0) % o
        if isinstance(o, Dim) and o.poly == self.poly:
            return 0
        return self._concrete("mod") % concrete(o, "mod")

    def __rmod__(self, o):
        return o % self._concrete("mod")

    def __truediv__(self, o):
        return self._concrete("truediv") / concrete(o, "truediv")

    def __rtruediv__(self, o):
        return o / self._concrete("truediv")

    def __pow__(self, o):
        if isinstance(o, int) and not isinstance(o, bool) and o >= 0:
            r = 1
            for _ in range(o):
                r = r * self
            return r
        return self._concrete("pow") ** o

    def __abs__(self):
        return self if self >= 0 else -self

    # -- comparisons (decisions: recorded as guards) -----------------------------------------
    def _cmp(self, o) -> Optional[tuple[dict, int]]:
        if isinstance(o, (Dim, int)) and not isinstance(o, bool):
            return _add(self.poly, _poly(o), -1), self.hint - hint(o)
        return None

    def __eq__(self, o):
        # Equality is structural: two sizes are equal when their polynomials are. Sizes
        # equal at some shapes only (a sequence length that happens to be 8, like some
        # other dim) count as different, with no guard: every test of equality in the
        # compiler (same shape? same stride? same bytes?) then takes its general path
        # (a broadcast view, no fusion across the two domains, no storage reuse), which
        # is correct at every shape, also where they happen to agree.
        d = self._cmp(o)
        if d is None:
            return self._concrete("eq") == o if isinstance(o, float) else NotImplemented
        return not d[0]

    def __ne__(self, o):
        r = self.__eq__(o)
        return r if r is NotImplemented else not r

    def __gt__(self, o):
        d = self._cmp(o)
        if d is None:
            return self._concrete("gt") > o
        return _decide(d[0], ">", d[1], ">")

    def __lt__(self, o):
        d = self._cmp(o)
        if d is None:
            return self._concrete("lt") < o
        return _decide({m: -c for m, c in d[0].items()}, ">", -d[1], "<")

    def __ge__(self, o):
        return not self.__lt__(o)

    def __le__(self, o):
        return not self.__gt__(o)

    def __bool__(self):
        return not _decide(self.poly, "==", self.hint, "bool")

    def __hash__(self):
        return hash(self.hint)

    # -- leaving the symbolic world: pinned to the hint ------------------------------------
    def _concrete(self, why: str) -> int:
        g = _active()
        if g is not None:
            g.add(_add(self.poly, {(): self.hint}, -1), "==", True, why)
        return self.hint

    def __int__(self):
        return self._concrete("int")

    def __index__(self):
        return self._concrete("index")

    def __float__(self):
        return float(self._concrete("float"))

    def __round__(self, n=None):
        return self._concrete("round")

    def __trunc__(self):
        return self._concrete("trunc")

    # -- source text ---------------------------------------------------------------------
    def __str__(self) -> str:
        return _fmt(self.poly)

    __repr__ = __str__

    def __format__(self, spec: str) -> str:
        return str(self) if not spec else format(self._concrete("format"), spec)

    def __reduce__(self):
        # a Dim never outlives its compile: pickling (a cache key, a deep copy) pins it
        return (int, (self._concrete("pickle"),))


def known_le(a, b) -> bool:
    """a <= b at every shape (no guard; False where it depends on the sizes)."""
    if not isinstance(a, Dim) and not isinstance(b, Dim):
        return a <= b
    s = _sign(_add(_poly(b), _poly(a), -1))
    return s is not None and s >= 0


def serves(values: dict[str, int], guards: Guards) -> bool:
    """Does a symbolic compile with these guards serve these symbol values? (Every
    symbol must also be >= MIN_SIZE: decisions were taken for such sizes.)"""
    return all(v >= MIN_SIZE for v in values.values()) and guards.check(values)


def hint(x) -> Any:
    """The value at the compiled shape, without a guard: for reports and for
    heuristics whose either outcome is correct (say so where it is used)."""
    if isinstance(x, Dim):
        return x.hint
    if isinstance(x, (tuple, list)):
        return type(x)(hint(y) for y in x)
    return x


def evaluate(x, values: dict[str, int]) -> Any:
    """x at the symbol values `values` (a run-time size)."""
    return _eval(x.poly, values) if isinstance(x, Dim) else x


def pin(symbols, values: dict[str, int], why: str) -> None:
    """Pin each of these torch size symbols to its value (a guard each): what a value
    computed from them that cannot stay symbolic asks for."""
    g = _active()
    if g is not None:
        for s in symbols:
            name = symbol_name(s)
            g.add({(name,): 1, (): -values[name]}, "==", True, why)


def concrete(x, why: str = "concrete"):
    """x as a plain int (a Dim is pinned to its value by a guard)."""
    return x._concrete(why) if isinstance(x, Dim) else x


def is_symbolic(x) -> bool:
    if isinstance(x, Dim):
        return True
    if isinstance(x, (tuple, list)):
        return any(is_symbolic(y) for y in x)
    return False


def symbols_in(text: str) -> list[str]:
    """The size symbols a piece of generated source uses, sorted."""
    return sorted(set(_SYM_RE.findall(text)), key=lambda s: int(s[2:]))


_SYM_RE = re.compile(r"\b(_s\d+)\b")


def symbol_name(sym) -> str:
    """Our name of a torch size symbol (sympy Symbol "s3" -> "_s3")."""
    name = str(sym)
    if not re.fullmatch(r"s\d+", name):
        raise ValueError(f"size symbol {name} is not one the arguments give")
    return "_" + name


def from_sympy(expr, values: dict[str, int], sym_values: dict) -> Any:
    """A torch size expression (sympy, over torch's symbols) as a Dim or int. `values`:
    our symbol name -> value; `sym_values`: sympy Symbol -> value. An expression that is
    not a polynomial is pinned: each of its symbols to its value."""
    import sympy
    if isinstance(expr, (int,)) or getattr(expr, "is_Integer", False):
        return int(expr)

    def conv(e):
        if e.is_Integer:
            return {(): int(e)} if int(e) else {}
        if e.is_Symbol:
            return {(symbol_name(e),): 1}
        if e.is_Add:
            out: dict = {}
            for a in e.args:
                out = _add(out, conv(a))
            return out
        if e.is_Mul:
            out = {(): 1}
            for a in e.args:
                out = _mul(out, conv(a))
            return out
        if e.is_Pow and e.exp.is_Integer and int(e.exp) >= 0:
            out = {(): 1}
            base = conv(e.base)
            for _ in range(int(e.exp)):
                out = _mul(out, base)
            return out
        raise ValueError(e)

    value = int(expr.xreplace(sym_values))
    try:
        poly = conv(sympy.expand(expr))
    except ValueError:
        pin(expr.free_symbols, values, f"not a polynomial: {expr}")
        return value
    assert _eval(poly, values) == value, (expr, poly)
    return make(poly, value)

