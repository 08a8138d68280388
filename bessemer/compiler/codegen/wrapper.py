"""The wrapper writer: a Schedule and its MemoryPlan as a small Python program.

The program allocates buffers (or, per the memory plan, takes over the storage of
a dead one, or writes a kernel's output in place over an input dying in that
kernel), calls each kernel through its backend's launcher, calls ATen for
externs, and drops every buffer after its last use. It is plain Python source, written to the
debug folder next to the kernels it calls, so a reader sees the whole program.
`runtime.load` turns it into the callable; the names it uses beyond the kernels
and the constants it collects are the runtime's support functions (RUNTIME_NAMES).
"""
from __future__ import annotations

from typing import Any, Optional

import torch

from bessemer.compiler.ir.graph import Kind, Node
from bessemer.compiler.ir.loops import CodegenError
from bessemer.compiler.ir.symbolic import Dim
from bessemer.compiler.ir.schedule import Kernel, MemoryPlan, Schedule
from bessemer.compiler.ir.views import contiguous_strides, is_contiguous, layout_of, may_overlap
from bessemer.compiler.codegen.kernel import KernelSource

# The support functions the generated program calls (bound by runtime.load).
RUNTIME_NAMES = ("torch", "_layout", "_as_strided", "_empty", "_reuse", "_sole", "_spare")


class WrapperWriter:
    def __init__(self, sched: Schedule, plan: MemoryPlan, kernels: list[KernelSource], backend,
                 placeholder_names: list[str], size_sources: Optional[dict] = None,
                 conditional: frozenset = frozenset(), written: frozenset = frozenset()):
        self.sched = sched
        self.written = written           # input names the program writes into (input_writes.py)
        self.size_sources = size_sources or {}
        self.plan = plan
        self.kernels = {k.name: k for k in kernels}
        self.backend = backend
        self.placeholder_names = placeholder_names
        self.taken = set(plan.reuse.values())
        self.conditional = conditional   # input names planned over only when _sole at run time
        self.consts: dict[str, Any] = {}
        self.lines: list[str] = []

    def var(self, n: Node) -> str:
        return n.name

    def const(self, value: Any, prefix: str = "_c") -> str:
        name = f"{prefix}{len(self.consts)}"
        self.consts[name] = value
        return name

    def tensor_expr(self, n: Node) -> str:
        """A Python expression giving n as a torch tensor (a view where possible)."""
        lay = layout_of(n, self.sched.realized)
        if lay is None:
            raise RuntimeError(f"{n.name} has no memory")
        base, st, off = lay
        if any(isinstance(x, int) and x < 0 for x in st):
            # a view reading backwards (a flip) is no torch tensor: simplify keeps its copy
            raise CodegenError(f"{n.name} reads its buffer backwards (strides {tuple(st)}): ATen needs a copy")
        if base is n:
            return self.var(n)
        base_st = tuple(layout_of(base, self.sched.realized)[1])
        if tuple(base.shape) == tuple(n.shape) and tuple(st) == base_st and off == 0:
            return self.var(base)
        if not _static(n.shape, st) and off == 0:
            perm = _permutation(tuple(base.shape), base_st, tuple(n.shape), tuple(st))
            if perm is not None:   # the base's own dims reordered (a transpose), sizes unknown here
                return f"{self.var(base)}.permute({perm!r})"
        return f"_as_strided({self.var(base)}, {tuple(n.shape)!r}, {tuple(st)!r}, {off})"

    def arg_expr(self, a: Any) -> str:
        if isinstance(a, Node):
            return self.tensor_expr(a)
        if isinstance(a, Dim):
            return str(a)   # a size expression over the symbols read at the top
        if isinstance(a, list):
            return "[" + ", ".join(self.arg_expr(x) for x in a) + "]"
        if isinstance(a, tuple):
            return "(" + "".join(self.arg_expr(x) + ", " for x in a) + ")"
        if isinstance(a, (int, float, bool, str)) or a is None:
            return repr(a) if not (isinstance(a, float) and (a != a or a in (float("inf"), float("-inf")))) \
                else f"float({str(a)!r})"
        return self.const(a)

    def emit(self, line: str, depth: int = 1):
        self.lines.append("    " * depth + line)

    def write(self) -> str:
        sched, plan = self.sched, self.plan
        g = sched.graph
        inputs = [n for n in g.nodes if n.kind == Kind.INPUT]
        self.lines = []
        self.emit("def call(args):", 0)
        self.emit(f"# planned peak: {plan.peak_bytes} bytes of buffers allocated here, at step {plan.peak_step}")
        # the graph's placeholders include non-tensor inputs; they map by position
        self.emit(f"({', '.join(self.placeholder_names) + ','}) = args" if self.placeholder_names else "pass")
        for sym, (i, kind, d) in sorted(self.size_sources.items()):
            # symbolic sizes: each symbol read from the argument that gives it
            src = self.placeholder_names[i]
            self.emit(f"{sym} = " + {"size": f"{src}.size({d})", "stride": f"{src}.stride({d})",
                                     "offset": f"{src}.storage_offset()", "int": src}[kind])
        self.emit("args.clear()")
        checked = []
        for n in inputs:
            if "constant" in n.attrs:
                self.emit(f"{n.name} = {self.const(n.attrs['constant'])}")
            else:
                checked.append(n)
        if checked:
            # one comparison of every input's strides with the compiled ones; an input laid out
            # otherwise (sizes of 1 aside) is copied into the compiled layout
            got = ", ".join(f"{n.name}.stride()" for n in checked)
            want = ", ".join(repr(tuple(n.stride)) for n in checked)
            back = [n for n in checked if n.name in self.written]
            if back:
                self.emit("_back = []")
            self.emit(f"if ({got},) != ({want},):")
            for n in checked:
                if n in back:
                    # the program writes into this input: a copy in the compiled layout is
                    # written instead and copied into the caller's tensor at the end
                    self.emit(f"_t = {_layout_call(n.name, n)}", 2)
                    self.emit(f"if _t is not {n.name}: _back.append(({n.name}, _t))", 2)
                    self.emit(f"{n.name} = _t", 2)
                else:
                    self.emit(f"{n.name} = {_layout_call(n.name, n)}", 2)
        # inputs planned over only if nobody else holds them: asked once, before any view of them
        for n in inputs:
            if n.name in self.conditional and (n in plan.inplace.values() or n in self.taken):
                self.emit(f"{n.name}_sole = _sole({n.name})")
        for i, s in enumerate(sched.steps):
            if isinstance(s, Kernel):
                ks = self.kernels[s.name]
                for m in s.stores:
                    if m in plan.inplace:     # written over an input that dies in this kernel
                        src = plan.inplace[m]
                        d = src.name
                        if d in self.conditional:
                            d = f"({d} if {d}_sole else torch.empty_like({d}))"
                        self.emit(f"{m.name} = {_viewed(d, src, m, sched.realized)}")
                    elif m in plan.reuse:
                        old = plan.reuse[m]
                        if old in sched.realized and old.dtype == m.dtype and old.numel() == m.numel():
                            self.emit(f"{m.name} = {_viewed(old.name, old, m, sched.realized)}; del {old.name}")
                        else:                 # another dead storage of the same size class
                            src = old.name
                            if src in self.conditional:
                                src = f"({src} if {src}_sole else _spare({src}))"
                            self.emit(f"{m.name} = _reuse({src}, {_empty_args(m)}); del {old.name}")
                    else:
                        self.emit(f"{m.name} = _empty({_empty_args(m)})")
                self.emit(self.backend.call(ks, [a.name for a in ks.args]))
            else:
                self.emit(self.extern_call(s))
            for b in plan.free_after.get(i, []):
                if b in self.taken:
                    continue
                self.emit(f"del {b.name}")
        outs = self.output_exprs(g.output_node)
        if any(n.name in self.written for n in checked):
            self.emit("for _dst, _src in _back: _dst.copy_(_src)")
        self.emit(f"return [{', '.join(outs)}]")
        return "\n".join(self.lines) + "\n"

    def output_exprs(self, out: Node) -> list[str]:
        """The returned values. Outputs that eager computes afresh (a root, see
        lowering) but that read an input's memory, or memory another root's outputs
        return, are read from a private copy of that memory, one per root: the caller
        may update an output in place."""
        outs = out.attrs["outs"]
        roots = out.attrs.get("roots") or [None] * len(outs)
        joined = self._rejoin(outs, roots, out.attrs.get("eager_views") or [None] * len(outs))
        owner: dict = {}       # base buffer -> the root whose outputs return it
        private: dict = {}     # (root, base) -> name of the copy
        exprs = []
        for i, (o, root) in enumerate(zip(outs, roots)):
            if not isinstance(o, Node):
                exprs.append(self.arg_expr(o))
                continue
            if i in joined:
                exprs.append(joined[i])
                continue
            lay = layout_of(o, self.sched.realized)
            if root is None or lay is None:
                exprs.append(self.tensor_expr(o))
                continue
            base, st, off = lay
            aliased = _aliased_base(base, self.sched.realized)
            if aliased is not base:
                # an ATen view op's result (unfold, diagonal) shares its argument's memory
                if aliased is not None and aliased.kind != Kind.INPUT and owner.setdefault(aliased, root) == root:
                    exprs.append(self.tensor_expr(o))
                else:
                    exprs.append(f"{self.tensor_expr(o)}.clone()")
                continue
            if base.kind != Kind.INPUT and owner.setdefault(base, root) == root:
                exprs.append(self.tensor_expr(o))
                continue
            if _broadcast_input(base):
                # a broadcast input cannot be copied with its strides: this output alone
                exprs.append(f"{self.tensor_expr(o)}.clone()")
                continue
            if (root, base) not in private:
                name = f"_own{len(private)}"
                private[(root, base)] = name
                b = self.var(base)
                self.emit(f"{name} = {b}.new_empty_strided({b}.size(), {b}.stride()).copy_({b})")
            exprs.append(f"_as_strided({private[(root, base)]}, {tuple(o.shape)!r}, {tuple(st)!r}, {off})")
        return exprs

    def _rejoin(self, outs: list, roots: list, views: list) -> dict[int, str]:
        """Outputs that are views of one root in eager but that came out of different buffers
        (simplification folds each view of a constant into a constant of its own): written
        into one new buffer at eager's strides and offsets, and returned as views of it, so
        that an update of one through the caller is seen through the others, as in eager.
        {output index: its expression}."""
        by_root: dict = {}
        for i, (o, root) in enumerate(zip(outs, roots)):
            if isinstance(o, Node) and root is not None:
                by_root.setdefault(root, []).append(i)
        joined: dict[int, str] = {}
        for idx in by_root.values():
            if len(idx) < 2 or any(views[i] is None or may_overlap(*_written(*views[i][:2])) for i in idx) \
                    or len({outs[i].dtype for i in idx}) > 1:
                continue      # (an overlapping view cannot be written through: sharing stays lost)
            bases = set()
            for i in idx:
                lay = layout_of(outs[i], self.sched.realized)
                bases.add(_aliased_base(lay[0], self.sched.realized) if lay is not None else None)
            if len(bases) == 1 and None not in bases and not _broadcast_input(next(iter(bases))):
                continue      # views of one buffer already (a broadcast input is copied per output)
            extent = 1 + max(off + sum((n - 1) * st for n, st in zip(shape, stride) if n > 0)
                             if 0 not in shape else off for shape, stride, off in (views[i] for i in idx))
            name = f"_join{idx[0]}"
            self.emit(f"{name} = _empty(({extent},), {outs[idx[0]].dtype}, (1,))")
            for i in idx:
                shape, stride, off = views[i]
                view = f"_as_strided({name}, {shape!r}, {stride!r}, {off})"
                # a broadcast dim (stride 0) is written once, from its first element
                src = self.tensor_expr(outs[i]) + "".join(
                    f".narrow({d}, 0, 1)" for d, (n, st) in enumerate(zip(shape, stride)) if st == 0 and n > 1)
                self.emit(f"_as_strided({name}, {_written(shape, stride)[0]!r}, {stride!r}, {off}).copy_({src})")
                joined[i] = view
        return joined

    def extern_call(self, s: Node) -> str:
        t = s.attrs["target"]
        tname = self.const(t, "_op")
        args = ", ".join(self.arg_expr(a) for a in s.attrs["args"])
        kw = ", ".join(f"{k}={self.arg_expr(v)}" for k, v in s.attrs["kwargs"].items())
        call = f"{tname}({args}{', ' if args and kw else ''}{kw})"
        if s.attrs["n_outputs"]:
            lines = [f"{s.name} = {call}"]
            for u in self._getitems(s):
                item = f"{s.name}[{u.attrs['index']}]"
                lines.append(f"{u.name} = {_layout_call(item, u)}")
            return "; ".join(lines)
        if (getattr(t, "overloadpacket", None) in _CONTIGUOUS_RESULT or getattr(t, "contiguous_result", False)) \
                and _contiguous_at_every_size(s):
            return f"{s.name} = {call}"
        return f"{s.name} = {_layout_call(call, s)}"

    def _getitems(self, s: Node):
        return [n for n in self.sched.graph.nodes if n.kind == Kind.GETITEM and n.args[0] is s]


# ATen ops whose result is always a new contiguous tensor (their meta functions allocate it
# with default strides): a result planned contiguous needs no layout check (nor that of a
# runtime callable marked `contiguous_result`, runtime/gemm.py)
_CONTIGUOUS_RESULT = frozenset({torch.ops.aten.mm, torch.ops.aten.addmm, torch.ops.aten.bmm,
                                torch.ops.aten.baddbmm})


def _broadcast_input(n: Node) -> bool:
    """An input with a broadcast dim (stride 0, more than one element): no copy of it keeps its
    strides, so outputs reading it are copied one by one, or rejoined (`_rejoin`)."""
    return n.kind == Kind.INPUT and any(st == 0 and size > 1 for st, size in zip(n.stride or (), n.shape))


def _contiguous_at_every_size(n: Node) -> bool:
    """views.is_contiguous, asked only of static sizes and strides: a node with a symbolic one
    counts as not, so the program takes its general path (the layout call) instead of recording
    a guard on sizes here, after the graph's guards are settled."""
    return all(isinstance(x, int) for x in (*n.shape, *n.stride)) and is_contiguous(n.shape, n.stride)


def _permutation(base_shape: tuple, base_stride: tuple, shape: tuple, stride: tuple):
    """The dims order p with shape[i] == base_shape[p[i]] and stride[i] == base_stride[p[i]],
    if there is one (a view that only reorders its base's dims); None otherwise."""
    if len(shape) != len(base_shape) or not all(isinstance(x, int) for x in (*shape, *stride, *base_shape,
                                                                               *base_stride)):
        return None
    free = list(range(len(base_shape)))
    perm = []
    for size, st in zip(shape, stride):
        d = next((d for d in free if base_shape[d] == size and (base_stride[d] == st or size == 1)), None)
        if d is None:
            return None
        free.remove(d)
        perm.append(d)
    return tuple(perm)


def _viewed(name: str, src: Node, n: Node, realized=frozenset()) -> str:
    """`name` (src's memory) viewed with n's shape and dtype: the tensor itself where both
    agree. An in-place write may take a buffer of another dtype of the same element size
    (a float gradient over a saved int32 exponent): its bits are then read as n's dtype.
    Static sizes over a contiguous src: the view is made with the runtime's `_as_strided`
    (about 0.7 us against 1.5 us for `Tensor.view`, which goes through the dispatcher and
    checks the strides at run time; the program knows them)."""
    if src.dtype != n.dtype:
        name = f"{name}.view({_dt(n.dtype)})"
    if tuple(src.shape) == tuple(n.shape):
        return name
    lay = layout_of(src, realized) if src.dtype == n.dtype else None
    if lay is not None and lay[0] is src and lay[2] == 0 and _static(src.shape, lay[1]) \
            and _static(n.shape, ()) and is_contiguous(src.shape, lay[1]):
        shape = tuple(n.shape)
        return f"_as_strided({name}, {shape!r}, {contiguous_strides(shape)!r}, 0)"
    return f"{name}.view({tuple(n.shape)!r})"


def _static(shape, stride) -> bool:
    """Whether every size and stride is a number (no symbol): the program may then spell
    a view out instead of asking torch to work it out at run time."""
    return all(type(x) is int for x in (*shape, *stride))


def _layout_call(expr: str, n: Node) -> str:
    """`expr` as a tensor with exactly n's strides (dims of size 1 may differ)."""
    sig = tuple(d for d, x in enumerate(n.shape) if x != 1)
    return f"_layout({expr}, {tuple(n.shape)!r}, {tuple(n.stride)!r}, {sig!r})"


def _empty_args(n: Node) -> str:
    """The arguments of `_empty` for buffer n: shape, dtype, and for a static shape its
    contiguous strides."""
    shape = tuple(n.shape)
    if all(type(d) is int for d in shape):
        return f"{shape!r}, {_dt(n.dtype)}, {contiguous_strides(shape)!r}"
    return f"{shape!r}, {_dt(n.dtype)}"


def _dt(dt: torch.dtype) -> str:
    return f"torch.{str(dt).replace('torch.', '')}"


def write_wrapper(sched: Schedule, plan: MemoryPlan, kernels: list[KernelSource], backend,
                  placeholder_names: list[str], size_sources: Optional[dict] = None,
                  conditional: frozenset = frozenset(), written: frozenset = frozenset()) -> tuple[str, dict[str, Any]]:
    """(the program's source, the constants it refers to by name). `size_sources`: for a
    graph with symbolic sizes, where each size symbol is read from the arguments.
    `conditional`: inputs the plan may write over, which the program does only where it
    finds them held by nobody else (a saved value the forward also returned). `written`: inputs
    the program writes into (a kernel's store or a copy_), which must reach the caller's tensor."""
    w = WrapperWriter(sched, plan, kernels, backend, placeholder_names, size_sources, conditional, written)
    src = w.write()
    return src, w.consts


def _aliased_base(base: Node, realized) -> Optional[Node]:
    """The buffer whose memory `base` is: itself, unless it is the result of an ATen call
    whose schema returns a view of its first argument; then that argument's buffer (None
    where that is not known)."""
    seen = 0
    while base.kind in (Kind.EXTERN, Kind.GETITEM) and seen < 64:
        call = base.args[0] if base.kind == Kind.GETITEM else base
        target = call.attrs.get("target")
        schema = getattr(target, "_schema", None)
        if schema is None or not any(r.alias_info is not None for r in schema.returns):
            return base
        args = call.attrs.get("args") or []
        if not args or not isinstance(args[0], Node):
            return None
        lay = layout_of(args[0], realized)
        if lay is None:
            return None
        base, seen = lay[0], seen + 1
    return base


def _written(shape: tuple, stride: tuple) -> tuple[tuple, tuple]:
    """The view's shape and strides with each broadcast dim (stride 0) cut to one element."""
    return tuple(1 if st == 0 and n > 1 else n for n, st in zip(shape, stride)), tuple(stride)
