"""What lowering a fused kernel to loops shares between targets: walking its expressions.

A `Walker` turns a member's expression tree into loop-IR statements and values
(ir/loops.py): it decides what is read where. Expressions are walked down to
buffers, reductions and per-row values; every address is first a linear form over
the kernel's *domain* dims (a `DomainIndex`), because which adjacent dims merge into
one loop is known only once every access is seen; `relabel` then rewrites each into
an `Index` over the loop variables. Values that stay the same along the reduced dims
are hoisted out of the inner loop (`hoist`); in a C++ pointwise kernel, values no element
changes go before every loop (`hoist`), and costly ones the same along the innermost loop
before that loop (`row_hoist`).

A Walker is used for one attempt at one kernel: a target that tries one structure
and falls back to another walks the kernel again with a fresh Walker.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Callable, Optional

import torch

from bessemer.compiler.ir.graph import LOW_FLOATS, Group, IndexMap, Kind, Node
from bessemer.compiler.ir.loops import (CodegenError, Const, Index, Indirect, Iota, Let, Load, Op, Param, Range, Round,
                                        Select, Store, Temp, map_tree, walk)
from bessemer.compiler.ir.ops import OPS, is_transcendental
from bessemer.compiler.ir.schedule import Kernel, Role, Schedule, member_role, normalize_map, outer_map
from bessemer.compiler.ir.symbolic import Dim, hint, symbols_in
from bessemer.compiler.ir.views import contiguous_strides, layout_of


# A value the same along a C++ pointwise kernel's inner loop is computed once per row when
# its ops per element reach this (a transcendental counts this much by itself): see
# Walker.worth_hoisting
ROW_HOIST_MIN_OPS = 3


def _int(c):
    return c if isinstance(c, Dim) else int(c)


@dataclass(frozen=True)
class DomainIndex:
    """An address or index while walking: sum(coef[d] * i_d) + const over the domain dims."""
    coef: tuple
    const: object
    id: int          # its place in the walker's list of addresses


class Walker:
    """Backend-neutral expression walking into loop-IR values and statements.

    `name_loads`: every load becomes a named temporary (Triton: a value loaded once
    serves every later use in the tile); otherwise loads stay inline (C++ compilers
    merge repeated loads of restrict pointers)."""

    def __init__(self, k: Kernel, sched: Schedule, name_loads: bool = False):
        self.k = k
        self.sched = sched
        self.D = len(k.shape)
        self.name_loads = name_loads
        self.lins: list[DomainIndex] = []
        self.store_lins: set[int] = set()
        self.params: dict[Node, int] = {}
        self.tmp = 0
        self.acc: dict[Node, object] = {}
        self.row_vals: dict[Node, object] = {}   # per-row members already computed in this row
        self.hoist: Optional[tuple[list, dict]] = None   # where row-invariant values go
        # the dims a hoisted value must not vary along: a reduction kernel's reduced dims (values
        # computed once per row); every dim of a pointwise kernel that hoists (once per call)
        self.hoist_dims: Optional[list] = None
        # a C++ pointwise kernel's second level: values that stay the same along `row_dims` (the
        # innermost loop's) but not along every dim, worth computing once per iteration of the
        # outer loops (`worth_hoisting`), go to `row_hoist` (statements, cache)
        self.row_hoist: Optional[tuple[list, dict]] = None
        self.row_dims: Optional[list] = None
        # every value the same along `row_dims` goes to `row_hoist`, cheap or not (a staged
        # kernel's per-channel values, kernel_plan_staged)
        self.row_all = False
        self.inv_cache: dict = {}
        # temporaries holding a value of a bf16 / fp16 dtype exactly (rounded to it, or loaded):
        # name -> that dtype. A store of one into a buffer of that dtype needs no rounding.
        self.low_exact: dict[str, torch.dtype] = {}
        # inside a pad's argument: the Ranges (over DomainIndexes) of every enclosing pad, all of
        # which must hold for an element to be read; each load there is a masked load
        self.guard: tuple = ()

    # -- addresses ------------------------------------------------------------------------------
    def lin(self, coef, const) -> DomainIndex:
        d = DomainIndex(tuple(_int(c) for c in coef), _int(const), len(self.lins))
        self.lins.append(d)
        return d

    def param(self, n: Node) -> int:
        if n not in self.params:
            self.params[n] = len(self.params)
        return self.params[n]

    def load(self, base: Node, strides, offset, m: IndexMap, dt: torch.dtype, lines: list,
             indirect: Optional[Indirect] = None):
        coef, const = m.map_strides(strides, offset)
        v = Load(self.param(base), self.lin(coef, const), dt, indirect=indirect)
        if self.guard and (indirect is not None or self._guard_reaches(v.index)):
            # what a masked load gives where the guard fails is never used (an enclosing pad
            # selects its fill there); a pad reading the load directly sets it to its fill
            v = replace(v, cond=self.guard, other=False if dt == torch.bool else 0)
        if self.name_loads:
            t = self.new_tmp()
            lines.append(Let(t, dt, v))
            self._note_exact(t, dt)
            return Temp(t)
        return v

    def _note_exact(self, name: str, dt: torch.dtype) -> None:
        if dt in LOW_FLOATS:
            self.low_exact[name] = dt

    def exact_in(self, value, dt: torch.dtype) -> bool:
        """Is `value` already one of the bf16 / fp16 dtype dt's values (so storing it needs no rounding)?"""
        if dt not in LOW_FLOATS:
            return False
        if isinstance(value, Load):
            return value.dtype == dt
        return isinstance(value, Temp) and self.low_exact.get(value.name) == dt

    def store(self, n: Node, value, m_to_node: IndexMap, mask: str = "") -> Store:
        coef, const = m_to_node.map_strides(contiguous_strides(n.shape), 0)
        lin = self.lin(coef, const)
        self.store_lins.add(lin.id)
        # A bf16 value the kernel rounded already is stored as its upper 16 bits: the store's
        # own rounding would be a second one, of no effect, costing as many instructions as
        # the first (a weight's cast to bf16 spent 59 AVX2 instructions per 8 values instead of 35)
        return Store(self.param(n), lin, value, n.dtype, mask, exact=self.exact_in(value, n.dtype))

    # -- expressions ----------------------------------------------------------------------------
    def new_tmp(self) -> str:
        self.tmp += 1
        return f"t{self.tmp}"

    def expr(self, n: Node, m: IndexMap, lines: list, cache: dict, top: bool = False):
        key = (n, _norm(m, n.shape), self.guard)
        if key in cache:
            return cache[key]
        if self.guard and (n, key[1], ()) in cache:
            # computed for this element outside any pad's condition (a member of this kernel,
            # read back through a slice and its pad): valid under the condition too. A load
            # instead would read the kernel's own store before it is written
            return cache[(n, key[1], ())]
        hoisted = False
        if self.hoist is not None and not top:
            if self._invariant(n, m) and self._guard_invariant():
                # the same for every element of the row: computed once, before the loop
                hoisted = True
                lines, cache = self.hoist
            elif self._row_hoists(n, m, key, lines):
                # the same along the innermost loop: once per iteration of the outer loops
                hoisted = True
                lines, cache = self.row_hoist
            if hoisted and key in cache:
                return cache[key]
        r = self._expr(n, m, lines, cache, top)
        if hoisted and self.is_buffer(n) and n not in self.row_vals and n not in self.acc:
            # a load, named before the loop: gcc left a row loop scalar when a row-invariant
            # load (a 0-d loss gradient, b[0]) stayed inside it
            name = self.new_tmp()
            lines.append(Let(name, n.dtype, r))
            if isinstance(r, Load):
                self._note_exact(name, r.dtype)
            r = Temp(name)
        cache[key] = r
        return r

    def remember(self, cache: dict, n: Node, m: IndexMap, value) -> None:
        """Later reads of n at map m (outside any pad's condition) take `value`."""
        cache[(n, _norm(m, n.shape), ())] = value

    def _row_hoists(self, n: Node, m: IndexMap, key, lines: list) -> bool:
        """Does n at m go to the per-row statements (`row_hoist`)? Not from inside them (its
        value is computed there anyway)."""
        if self.row_hoist is None or lines is self.row_hoist[0]:
            return False
        if not (self._invariant(n, m, self.row_dims) and self._guard_invariant(self.row_dims)):
            return False
        return key in self.row_hoist[1] or self.row_all or self.worth_hoisting(n, m)

    def worth_hoisting(self, n: Node, m: IndexMap) -> bool:
        """Is computing n at m once per row instead of once per element worth a value held
        across the inner loop? When it holds a transcendental (exp, log, a division: gcc
        does not move a vector libm call out of a loop) or ROW_HOIST_MIN_OPS cheap ops (a
        bf16 / fp16 result's rounding counts one more). A load and an op or two cost one
        vector instruction per 8 elements, and gcc hoists those itself: moved out of the
        loop, they save nothing. Each (node, map) counts once, as the walk computes it once;
        the count stops at the threshold."""
        cost, seen, stack = 0, set(), [(n, m)]
        while stack and cost < ROW_HOIST_MIN_OPS:
            x, xm = stack.pop()
            if (x, xm) in seen or self.is_buffer(x) or self._invariant(x, xm):
                continue   # a load, or a value computed once before every loop
            seen.add((x, xm))
            if x.kind == Kind.VIEW:
                stack.append((x.args[0], xm.compose(x.index_map)))
            elif x.kind == Kind.PAD:
                cost += 1
                stack.append((x.args[0], xm.compose(x.pad_map())))
            elif x.kind == Kind.GATHER:
                cost += 1
                stack.append((x.args[1], xm))
            elif x.kind == Kind.POINTWISE:
                if not (x.op == "cast" and x.args[0].dtype == x.dtype):   # a copy is its argument
                    cost += ROW_HOIST_MIN_OPS if x.op in OPS and is_transcendental(x.op) else 1
                    if _rounds(x):
                        cost += 1
                stack += [(a, xm) for a in x.args]
        return cost >= ROW_HOIST_MIN_OPS

    def _inner_dims(self) -> list:
        if self.hoist_dims is not None:
            # before every loop: a size-1 dim has its loop too, and an address naming its
            # variable must stay inside it
            return list(self.hoist_dims)
        return [d for d in self.k.red if self.k.shape[d] != 1]

    def _guard_invariant(self, dims: Optional[list] = None) -> bool:
        """Does the current guard stay the same along the reduced dims (or along `dims`)?"""
        inner = self._inner_dims() if dims is None else dims
        return all(r.index.coef[d] == 0 for r in self.guard for d in inner)

    def _guard_reaches(self, lin: DomainIndex) -> bool:
        """Must a load at `lin` under the current guard be masked? Not when its address
        depends on none of the domain dims the guard's Ranges test (a BatchNorm's per-channel
        statistics read in a kernel padding H and W): the address is then the one it has at
        a point where the guard holds, with the same other coordinates, which is read
        there. A Range over no dim (a pad read at a fixed index) masks every load."""
        tested = set()
        for r in self.guard:
            dims = {d for d, c in enumerate(r.index.coef) if c != 0 and self.k.shape[d] != 1}
            if not dims:
                return True
            tested |= dims
        return any(lin.coef[d] != 0 for d in tested)

    def pad_ranges(self, n: Node, m: IndexMap) -> tuple:
        """The Ranges of pad n read at map m: lo <= index < lo + size in each padded dim (a
        bound that always holds, of no padding on that side, is None)."""
        out = []
        for d, (lo, s, t) in enumerate(zip(n.pad_lo, n.args[0].shape, n.shape)):
            hi = lo + s
            if lo == 0 and hi == t:
                continue
            out.append(Range(self.lin(m.coef[d], m.offset[d]), lo if lo else None, hi if hi != t else None))
        return tuple(out)

    def aligned_row(self, n: Node, m: IndexMap) -> bool:
        """Is n read at the current row (so its row-level value can be used)?"""
        want = outer_map(self.k.shape, self.k.red, n.shape)
        return want is not None and normalize_map(want, n.shape) == normalize_map(m, n.shape)

    def _invariant(self, n: Node, m: IndexMap, dims: Optional[list] = None) -> bool:
        """Does the value of n at map m stay the same along the reduced dims (or along `dims`)?"""
        key = (n, m, None if dims is None else tuple(dims))
        if key in self.inv_cache:
            return self.inv_cache[key]
        inner = self._inner_dims() if dims is None else dims

        def free_of_inner(coefs_rows) -> bool:
            return all(row[k] == 0 for row in coefs_rows for k in inner)

        if (n in self.row_vals or n in self.acc) and self.aligned_row(n, m):
            r = True
        elif self.is_buffer(n) or n.kind == Kind.REDUCE:
            # a member this kernel stores is no value before its loops: a load hoisted there
            # would read its buffer before the store (a 0-d kernel's every value is invariant);
            # nor is a reduction this kernel computes. Another kernel's reduction is a buffer.
            own = n.kind == Kind.REDUCE and (n in self.k.members or not self.is_buffer(n))
            r = not own and n not in self.k.stores and free_of_inner(self._read_rows(n, m))
        elif n.kind == Kind.CONST:
            r = True
        elif n.kind == Kind.IOTA:
            r = free_of_inner([m.coef[n.attrs["dim"]]])
        elif n.kind == Kind.VIEW:
            r = self._invariant(n.args[0], m.compose(n.index_map), dims)
        elif n.kind == Kind.REINTERPRET:
            st, _ = m.map_strides(n.view_strides)
            r = all(st[k] == 0 for k in inner)
        elif n.kind == Kind.POINTWISE:
            r = all(self._invariant(a, m, dims) for a in n.args)
        elif n.kind == Kind.PAD:
            padded = [d for d, (s, t) in enumerate(zip(n.args[0].shape, n.shape)) if s != t or n.pad_lo[d]]
            r = free_of_inner([m.coef[d] for d in padded]) and \
                self._invariant(n.args[0], m.compose(n.pad_map()), dims)
        elif n.kind == Kind.GATHER:
            # the same element wherever its position is (its index then is too)
            r = free_of_inner(self._read_rows(n, m))
        else:
            r = False
        self.inv_cache[key] = r
        return r

    def _read_rows(self, n: Node, m: IndexMap) -> list:
        """The rows of m whose loop variables an element of n read at m names: those of n's dims
        of more than one element, and before every loop (a pointwise kernel's hoist) a size-1
        dim's too, whose variable its address still names."""
        return [row for j, row in enumerate(m.coef) if n.shape[j] != 1 or self.hoist_dims is not None]

    def is_buffer(self, n: Node) -> bool:
        return n.kind in Group.BUFFERS or n in self.sched.realized

    def _expr(self, n: Node, m: IndexMap, lines, cache, top):
        if not top and (n in self.row_vals or n in self.acc) and self.aligned_row(n, m):
            return self.row_vals[n] if n in self.row_vals else self.acc[n]
        if not top and self.is_buffer(n):
            _, st, off = layout_of(n, self.sched.realized)
            return self.load(n, st, off, m, n.dtype, lines)
        if n.kind == Kind.CONST:
            return Const(n.attrs["value"], n.dtype)
        if n.kind == Kind.IOTA:
            d = n.attrs["dim"]
            return Iota(n.attrs["start"], n.attrs["step"], self.lin(m.coef[d], m.offset[d]), n.dtype)
        if n.kind == Kind.VIEW:
            return self.expr(n.args[0], m.compose(n.index_map), lines, cache)
        if n.kind == Kind.REINTERPRET:
            base = n.args[0]
            if not self.is_buffer(base):
                raise CodegenError(f"reinterpret of unrealized {base.name}")
            return self.load(base, n.view_strides, n.view_offset, m, base.dtype, lines)
        if n.kind == Kind.POINTWISE:
            if n.op == "cast" and n.args[0].dtype == n.dtype:
                # a copy (a clone, a conversion to the same dtype) is its argument's value: no
                # conversion, and for bf16 no rounding of a value that is bf16 already
                return self.expr(n.args[0], m, lines, cache)
            args = tuple(self.expr(a, m, lines, cache) for a in n.args)
            code = Op(n.op, args, n.dtype, tuple(a.dtype for a in n.args))
            rounded = n.op == "cast"     # a cast to bf16 / fp16 rounds by itself
            rounds = _rounds(n)
            if rounds:
                # A bf16/fp16 op is computed in fp32 and rounded to its type at once, as
                # eager rounds each op's result. So a value is the same whether it is
                # stored or stays in registers, and a forward value the backward
                # recomputes (min-cut rematerialization) equals the one the forward
                # stored. Costs a few integer instructions per low-precision op.
                code = Round(code, n.dtype)
                rounded = True
            t = self.new_tmp()
            lines.append(Let(t, n.dtype, code))
            if rounded or not rounds:
                # rounded, or an exact_in_low op of the dtype's values (a where choosing
                # between a bf16 tensor and a bf16 constant): one of the dtype's values
                self._note_exact(t, n.dtype)
            return Temp(t)
        if n.kind == Kind.PAD:
            return self._pad(n, m, lines, cache)
        if n.kind == Kind.GATHER:
            return self._gather(n, m, lines, cache)
        if n.kind == Kind.REDUCE:
            raise CodegenError(f"reduction {n.name} read before it is computed")
        raise CodegenError(f"cannot render {n.kind} {n.name}")

    def _pad(self, n: Node, m: IndexMap, lines, cache):
        """A pad: its argument computed under the pad's condition (every load it makes masked by
        it and by the enclosing pads'), and its fill where the condition fails."""
        own = self.pad_ranges(n, m)
        fill = Const(n.pad_fill, n.dtype)
        if not own:
            return self.expr(n.args[0], m.compose(n.pad_map()), lines, cache)
        outer = self.guard
        self.guard = outer + own
        try:
            v = self.expr(n.args[0], m.compose(n.pad_map()), lines, cache)
        finally:
            self.guard = outer
        # a pad of memory: one masked load whose `other` is the fill
        if isinstance(v, Load) and v.cond == outer + own:
            return replace(v, other=n.pad_fill)
        if isinstance(v, Temp) and lines and isinstance(lines[-1], Let) and lines[-1].name == v.name and \
                isinstance(lines[-1].value, Load) and lines[-1].value.cond == outer + own:
            # (named loads: the load just made, here alone; other readers of it under the same
            # guard never use its value where the guard fails)
            lines[-1] = replace(lines[-1], value=replace(lines[-1].value, other=n.pad_fill))
            return v
        t = self.new_tmp()
        lines.append(Let(t, n.dtype, Select(own, v, fill, n.dtype)))
        if n.dtype in LOW_FLOATS and (isinstance(v, Load) or self.exact_in(v, n.dtype)):
            self._note_exact(t, n.dtype)   # the fill is one of the dtype's values (lowering rounds it)
        return Temp(t)

    def _gather(self, n: Node, m: IndexMap, lines, cache):
        """A gather: its index computed here, then one load of its source (memory) at the
        address of the element's other coordinates plus the index times the gathered dim's
        stride. The index is in range (lowering proved it); under a pad's guard the load is
        masked as any other."""
        src, d = n.args[0], n.gather_dim
        lay = layout_of(src, self.sched.realized)
        if lay is None:
            raise CodegenError(f"gather from {src.name}, which is not memory")
        base, st, off = lay
        if st[d] == 0:
            # a broadcast along the gathered dim: every index (in range) reads the same element
            return self.load(base, st, off, m.compose(n.gather_map()), src.dtype, lines)
        value = self.expr(n.args[1], m, lines, cache)
        pos, _ = m.map_strides(contiguous_strides(n.shape), 0)
        where = Indirect(value, _int(st[d]), self.lin(pos, 0))
        return self.load(base, st, off, m.compose(n.gather_map()), src.dtype, lines, where)

    def row_map(self, r: Node) -> IndexMap:
        return outer_map(self.k.shape, self.k.red, r.shape)

    def _depends(self, a: Node, b: Node) -> bool:
        """Does member a read member b (through inlined values)?"""
        stack, seen = [a], set()
        while stack:
            x = stack.pop()
            for y in x.args:
                if y is b:
                    return True
                if y in seen or (y is not a and self.is_buffer(y)) or y.kind == Kind.REDUCE:
                    continue
                seen.add(y)
                stack.append(y)
        return False

    # -- loops ----------------------------------------------------------------------------------
    def merge(self, dims: list[int], skip: frozenset = frozenset()) -> list[list[int]]:
        """Merge adjacent loop dims d1, d2 when every access has coef[d1] == coef[d2] * size[d2]
        (but those whose ids are in `skip`, made outside these loops)."""
        groups: list[list[int]] = []
        for d in dims:
            if groups:
                prev = groups[-1]
                last = prev[-1]
                ok = last == d - 1 or all(self.k.shape[x] == 1 for x in range(last + 1, d))
                if ok:
                    for lin in self.lins:
                        if lin.id not in skip and lin.coef[last] != lin.coef[d] * self.k.shape[d]:
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
        if any(m.kind == Kind.SCATTER for m in k.members):
            return "scatter"
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

    # -- from domain to loops ------------------------------------------------------------------
    def lin_terms(self, lin: DomainIndex, var_of) -> dict:
        """A linear form as {loop variable: coefficient} (merged dims use their group's variable)."""
        terms: dict = {}
        for d, c in enumerate(lin.coef):
            if c == 0 or self.k.shape[d] == 1:
                continue
            var, last = var_of[d]
            if d == last:
                terms[var] = terms.get(var, 0) + c
        return terms

    def relabel(self, body, var_of, fn: Optional[Callable] = None):
        """`body` with every DomainIndex rewritten over the loop variables (`var_of`: domain
        dim -> (loop variable, the group's last dim)); `fn(node, terms)` may rewrite a
        node holding an index further (Triton: masks, flat indices)."""
        def conv(lin: DomainIndex) -> Index:
            return Index(tuple(self.lin_terms(lin, var_of).items()), lin.const)

        def visit(x):
            idx = getattr(x, "index", None)
            if isinstance(idx, DomainIndex):
                if fn is not None:
                    return fn(x, idx, conv)
                return replace(x, index=conv(idx))
            return x
        return map_tree(tuple(body), visit)

    def loop_vars(self, groups: list[list[int]], prefix: str, var_of: dict) -> list[tuple[str, object]]:
        """One loop (variable, size) per merged group of dims; records var_of."""
        loops = []
        for gi, grp in enumerate(groups):
            loops.append((f"{prefix}{gi}", math.prod(self.k.shape[d] for d in grp)))
            for d in grp:
                var_of[d] = (f"{prefix}{gi}", grp[-1])
        return loops

    def param_list(self) -> tuple:
        k = self.k
        return tuple(Param(f"b{i}", n.name, n.dtype, n in k.stores, n in k.aliased)
                     for n, i in self.params.items())


def _norm(m: IndexMap, shape) -> IndexMap:
    """m with no coefficient on a size-1 dim of its target: the maps by which a value is read
    at the same element compare equal (a member read through a flip of a size-1 dim is the
    value the kernel computed at that element, as fusion, which joined the two by the same
    normalized maps, assumed: not its buffer, which the kernel stores only later)."""
    return normalize_map(m, shape) if any(d == 1 for d in shape) else m


def symbols_of(*trees) -> tuple:
    """The size symbols the loop IR `trees` use, sorted."""
    found = []
    for t in trees:
        for x in walk(t):
            for f in fields(x):
                v = getattr(x, f.name)
                if isinstance(v, Dim):
                    found.append(str(v))
                elif isinstance(v, tuple):
                    found += [str(y) for y in _flat(v) if isinstance(y, Dim)]
    return tuple(symbols_in(" ".join(found)))


def _flat(t):
    for y in t:
        if isinstance(y, tuple):
            yield from _flat(y)
        else:
            yield y


def _rounds(n: Node) -> bool:
    """Whether the pointwise n, of bf16 / fp16 dtype, rounds its fp32 result to that dtype: all
    but an exact_in_low op whose arguments are all values of the dtype."""
    return n.dtype in LOW_FLOATS and not (n.op in OPS and OPS[n.op].exact_in_low
                                          and all(_low_exact_arg(a, n.dtype) for a in n.args))


def _low_exact_arg(a: Node, dt: torch.dtype) -> bool:
    """Whether an argument of an exact_in_low op of bf16 / fp16 dtype dt holds one of dt's values.
    A constant holds the scalar as the program wrote it (eager's kernels compute with the scalar
    in float: clamp(x, max=0.7) of a bf16 x is 0.7 rounded to bf16, 0.69921875), and an iota
    its integers, which may lie between dt's values; every other value is dt's already."""
    if a.kind == Kind.IOTA:
        return False
    if a.kind != Kind.CONST:
        return True
    try:
        v = float(a.value)
    except (TypeError, ValueError):   # a symbolic value
        return False
    return v != v or v in (float("inf"), float("-inf")) or torch.tensor(v, dtype=torch.float64).to(dt).item() == v
