"""What every kernel renderer shares: walking a fused kernel's expressions.

A renderer (C++ in cpp.py, Triton in triton.py) subclasses KernelBuilder and
supplies the syntax: literals, loads, stores, temporaries and the pointwise ops.
The builder decides what is read where: a member's expression tree is walked
down to buffers, reductions and per-row values; every address is a linear form
over the kernel's domain dims (an `AffineIndex`, left in the code as an `@A<n>@` token
until the renderer knows its loop variables); values that stay the same along
the reduced dims are hoisted out of the inner loop; adjacent dims that every
access walks the same way are merged into one loop.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import torch

from bessemer.compiler.ir.graph import Group, IndexMap, Kind, Node
from bessemer.compiler.ir.symbolic import Dim, hint
from bessemer.compiler.ir.views import layout_of
from bessemer.compiler.ir.schedule import Kernel, Role, Schedule, member_role, normalize_map, outer_map


LOW_FLOATS = (torch.bfloat16, torch.float16)
# ops whose result is exactly representable in the type of their arguments (and
# casts, which round by themselves): no rounding needed
EXACT_IN_LOW = {"cast", "neg", "abs", "maximum", "minimum", "where", "relu", "sign", "floor", "ceil",
                "trunc", "round", "copysign"}


class CodegenError(Exception):
    """The renderer cannot express this graph (the graph then runs eagerly)."""


@dataclass
class AffineIndex:
    """An address or index: sum(coef[d] * i_d) + const over the domain dims."""
    coef: tuple
    const: int


@dataclass
class KernelSource:
    name: str
    code: str
    args: list[Node]          # buffers, in parameter order
    writes: list[Node]
    meta: Any = None          # what the backend's launcher needs (Triton: the tiling)
    kind: str = ""            # "pointwise" | "row reduction" | "column reduction"
    bytes: int = 0            # bytes of the buffers it reads and writes (for achieved bandwidth)
    syms: tuple = ()          # the size symbols it takes after the buffers (symbolic sizes)



def _int(c):
    return c if isinstance(c, Dim) else int(c)


def format_terms(terms: dict[str, int], const: int) -> str:
    """{variable: coefficient} + const as source text: (4*o0 + r0 + 2)."""
    parts = [f"{c}*{v}" if c != 1 else v for v, c in terms.items()]
    if const or not parts:
        parts.append(str(const))
    return "(" + " + ".join(parts) + ")"


class KernelBuilder:
    """Backend-neutral expression walking; subclasses render the syntax."""

    def __init__(self, k: Kernel, sched: Schedule):
        self.k = k
        self.sched = sched
        self.D = len(k.shape)
        self.lins: list[AffineIndex] = []
        self.params: dict[Node, str] = {}
        self.tmp = 0
        self.acc: dict[Node, str] = {}
        self.row_vals: dict[Node, str] = {}   # per-row members already computed in this row
        self.hoist: Optional[tuple[list, dict]] = None   # where row-invariant values go
        self.inv_cache: dict = {}

    # -- addresses ---------------------------------------------------------------
    def _lin_token(self, coef, const) -> str:
        self.lins.append(AffineIndex(tuple(_int(c) for c in coef), _int(const)))
        return f"@A{len(self.lins) - 1}@"

    def param(self, n: Node) -> str:
        if n not in self.params:
            self.params[n] = f"b{len(self.params)}"
        return self.params[n]

    def layout(self, n: Node):
        """Strides and offset of a buffer-backed node's own memory."""
        _, st, off = layout_of(n, self.sched.realized)
        return st, off

    def address(self, n: Node, strides, offset, m: IndexMap) -> str:
        coef, const = m.map_strides(strides, offset)
        return self._lin_token(coef, const)

    # -- syntax hooks (each renderer defines these) -------------------------------------
    def literal(self, v, dt: torch.dtype) -> str:
        raise NotImplementedError

    def load(self, base: Node, strides, offset, m: IndexMap, dt: torch.dtype) -> str:
        raise NotImplementedError

    def iota(self, n: Node, index: str) -> str:
        raise NotImplementedError

    def pointwise(self, n: Node, args: list[str]) -> str:
        raise NotImplementedError

    def declare(self, name: str, dt: torch.dtype, code: str) -> str:
        raise NotImplementedError

    def round_low(self, code: str, dt: torch.dtype) -> str:
        """`code` (computed in fp32) rounded to bf16/fp16, still as an fp32 value."""
        raise NotImplementedError

    def bind_load(self, code: str, lines: list[str]) -> str:
        """A load as used by expressions: inline (C++ compilers merge repeated loads
        of restrict pointers) unless a renderer names it."""
        return code

    # -- expressions ---------------------------------------------------------------
    def new_tmp(self) -> str:
        self.tmp += 1
        return f"t{self.tmp}"

    def expr(self, n: Node, m: IndexMap, lines: list[str], cache: dict, top: bool = False) -> str:
        key = (n, m)
        if key in cache:
            return cache[key]
        hoisted = self.hoist is not None and not top and self._invariant(n, m)
        if hoisted:
            # the same for every element of the row: computed once, before the loop
            lines, cache = self.hoist
            if key in cache:
                return cache[key]
        r = self._expr(n, m, lines, cache, top)
        if hoisted and self._is_buffer(n) and n not in self.row_vals and n not in self.acc:
            # a load, named before the loop: gcc left a row loop scalar when a row-invariant
            # load (a 0-d loss gradient, b[0]) stayed inside it
            name = self.new_tmp()
            lines.append(self.declare(name, n.dtype, r))
            r = name
        cache[key] = r
        return r

    def _aligned_row(self, n: Node, m: IndexMap) -> bool:
        """Is n read at the current row (so its row-level value can be used)?"""
        want = outer_map(self.k.shape, self.k.red, n.shape)
        return want is not None and normalize_map(want, n.shape) == normalize_map(m, n.shape)

    def _invariant(self, n: Node, m: IndexMap) -> bool:
        """Does the value of n at map m stay the same along the reduced dims?"""
        key = (n, m)
        if key in self.inv_cache:
            return self.inv_cache[key]
        inner = [d for d in self.k.red if self.k.shape[d] != 1]

        def free_of_inner(coefs_rows) -> bool:
            return all(row[k] == 0 for row in coefs_rows for k in inner)

        if (n in self.row_vals or n in self.acc) and self._aligned_row(n, m):
            r = True
        elif self._is_buffer(n) or n.kind == Kind.REDUCE:
            r = n.kind != Kind.REDUCE and free_of_inner(
                [row for j, row in enumerate(m.coef) if n.shape[j] != 1])
        elif n.kind == Kind.CONST:
            r = True
        elif n.kind == Kind.IOTA:
            r = free_of_inner([m.coef[n.attrs["dim"]]])
        elif n.kind == Kind.VIEW:
            r = self._invariant(n.args[0], m.compose(n.index_map))
        elif n.kind == Kind.REINTERPRET:
            st, _ = m.map_strides(n.view_strides)
            r = all(st[k] == 0 for k in inner)
        elif n.kind == Kind.POINTWISE:
            r = all(self._invariant(a, m) for a in n.args)
        else:
            r = False
        self.inv_cache[key] = r
        return r

    def _is_buffer(self, n: Node) -> bool:
        return n.kind in Group.BUFFERS or n in self.sched.realized

    def _expr(self, n: Node, m: IndexMap, lines, cache, top) -> str:
        if not top and (n in self.row_vals or n in self.acc) and self._aligned_row(n, m):
            return self.row_vals[n] if n in self.row_vals else self.acc[n]
        if not top and self._is_buffer(n):
            st, off = self.layout(n)
            return self.bind_load(self.load(n, st, off, m, n.dtype), lines)
        if n.kind == Kind.CONST:
            return self.literal(n.attrs["value"], n.dtype)
        if n.kind == Kind.IOTA:
            d = n.attrs["dim"]
            idx = self._lin_token(m.coef[d], m.offset[d])
            return self.iota(n, idx)
        if n.kind == Kind.VIEW:
            return self.expr(n.args[0], m.compose(n.index_map), lines, cache)
        if n.kind == Kind.REINTERPRET:
            base = n.args[0]
            if not self._is_buffer(base):
                raise CodegenError(f"reinterpret of unrealized {base.name}")
            return self.bind_load(self.load(base, n.view_strides, n.view_offset, m, base.dtype), lines)
        if n.kind == Kind.POINTWISE:
            args = [self.expr(a, m, lines, cache) for a in n.args]
            code = self.pointwise(n, args)
            if n.dtype in LOW_FLOATS and n.op not in EXACT_IN_LOW:
                # A bf16/fp16 op is computed in fp32 and rounded to its type at once, as
                # eager rounds each op's result. So a value is the same whether it is
                # stored or stays in registers, and a forward value the backward
                # recomputes (min-cut rematerialization) equals the one the forward
                # stored. Costs a few integer instructions per low-precision op.
                code = self.round_low(code, n.dtype)
            t = self.new_tmp()
            lines.append(self.declare(t, n.dtype, code))
            return t
        if n.kind == Kind.REDUCE:
            raise CodegenError(f"reduction {n.name} read before it is computed")
        raise CodegenError(f"cannot render {n.kind} {n.name}")

    def lin_terms(self, lin: AffineIndex, var_of) -> dict[str, int]:
        """A linear form as {loop variable: coefficient} (merged dims use their group's variable)."""
        terms: dict[str, int] = {}
        for d, c in enumerate(lin.coef):
            if c == 0 or self.k.shape[d] == 1:
                continue
            var, last = var_of[d]
            if d == last:
                terms[var] = terms.get(var, 0) + c
        return terms

    def render_lin(self, lin: AffineIndex, var_of) -> str:
        return format_terms(self.lin_terms(lin, var_of), lin.const)

    def _substituter(self, var_of):
        def subst(s: str) -> str:
            out, i = [], 0
            while True:
                j = s.find("@A", i)
                if j < 0:
                    out.append(s[i:])
                    break
                e = s.find("@", j + 2)
                out.append(s[i:j])
                out.append(self.render_lin(self.lins[int(s[j + 2:e])], var_of))
                i = e + 1
            return "".join(out)
        return subst

    def _row_map(self, r: Node) -> IndexMap:
        return outer_map(self.k.shape, self.k.red, r.shape)

    def _depends(self, a: Node, b: Node) -> bool:
        """Does member a read member b (through inlined values)?"""
        stack, seen = [a], set()
        while stack:
            x = stack.pop()
            for y in x.args:
                if y is b:
                    return True
                if y in seen or (y is not a and self._is_buffer(y)) or y.kind == Kind.REDUCE:
                    continue
                seen.add(y)
                stack.append(y)
        return False

    # -- loops ---------------------------------------------------------------------------
    def _merge(self, dims: list[int]) -> list[list[int]]:
        """Merge adjacent loop dims d1, d2 when every access has coef[d1] == coef[d2] * size[d2]."""
        groups: list[list[int]] = []
        for d in dims:
            if groups:
                prev = groups[-1]
                last = prev[-1]
                ok = last == d - 1 or all(self.k.shape[x] == 1 for x in range(last + 1, d))
                if ok:
                    for lin in self.lins:
                        if lin.coef[last] != lin.coef[d] * self.k.shape[d]:
                            ok = False
                            break
                if ok:
                    prev.append(d)
                    continue
            groups.append([d])
        return groups

    def kind(self) -> str:
        """The kernel's class, as bandwidth reports group kernels."""
        k = self.k
        if not k.red:
            return "pointwise"
        dims = [d for d, n in enumerate(k.shape) if n != 1]
        return "column reduction" if dims and dims[-1] not in k.red else "row reduction"

    def bytes_moved(self) -> int:
        # at the compiled shape: a report, not a decision
        return hint(sum(n.numel() * n.dtype.itemsize for n in self.params))

    def phases(self) -> list[tuple[Role, list[Node]]]:
        """A reduction kernel's members in order, grouped into phases of one kind
        (reduce / full / outer) that do not read each other."""
        phases: list[tuple[Role, list[Node]]] = []
        for mbr in self.k.members:
            role = member_role(self.k, mbr)
            if phases and phases[-1][0] == role and role != Role.OUTER and \
                    not any(self._depends(mbr, other) for other in phases[-1][1]):
                phases[-1][1].append(mbr)
            else:
                phases.append((role, [mbr]))
        return phases
