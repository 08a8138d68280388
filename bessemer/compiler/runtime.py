"""Runtime: the compiled graph as a small generated Python function.

The wrapper allocates buffers (or takes over dead ones, per the memory plan),
calls each kernel through its backend's launcher (ctypes with raw data pointers
for C++, a Triton launch for Triton), calls ATen for externs,
and drops every buffer after its last use. It is plain Python source, written to
the debug folder next to the C++ it calls, so a reader sees the whole program.
"""
from __future__ import annotations

from typing import Any, Callable

import torch

from .codegen.backends import Built
from .codegen.kernel import KernelSource
from .ir import Node
from .passes.fuse import Kernel, Schedule
from .passes.memory import MemoryPlan


def _layout(t: torch.Tensor, size: tuple, stride: tuple, significant: tuple) -> torch.Tensor:
    """t with exactly the strides the kernels were compiled for (copy if needed)."""
    st = t.stride()
    if st == stride:
        return t
    if all(st[d] == stride[d] for d in significant) and tuple(t.shape) == size:
        return t
    out = torch.empty_strided(size, stride, dtype=t.dtype, device=t.device)
    out.copy_(t)
    return out


def _strided_layout(n: Node, realized: set):
    """(base buffer, strides, offset) for a node that reads memory through views."""
    if n.kind in ("input", "extern", "getitem"):
        return n, tuple(n.stride), 0
    if n in realized:
        from .views import contiguous_strides
        return n, contiguous_strides(n.shape), 0
    if n.kind == "view":
        inner = _strided_layout(n.args[0], realized)
        if inner is None:
            return None
        base, st, off = inner
        if "strides" in n.attrs:
            return base, n.attrs["strides"], n.attrs["offset"]
        m = n.attrs["map"]
        new = tuple(sum(st[j] * m.coef[j][k] for j in range(m.in_rank)) for k in range(m.out_rank))
        return base, new, off + sum(st[j] * m.offset[j] for j in range(m.in_rank))
    return None


class WrapperWriter:
    def __init__(self, sched: Schedule, plan: MemoryPlan, kernels: list[KernelSource]):
        self.sched = sched
        self.plan = plan
        self.kernels = {k.name: k for k in kernels}
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
        lay = _strided_layout(n, self.sched.realized)
        if lay is None:
            raise RuntimeError(f"{n.name} has no memory")
        base, st, off = lay
        if base is n:
            return self.var(n)
        if tuple(base.shape) == tuple(n.shape) and tuple(st) == tuple(_strided_layout(base, self.sched.realized)[1]) \
                and off == 0:
            return self.var(base)
        return f"_as_strided({self.var(base)}, {tuple(n.shape)!r}, {tuple(st)!r}, {off})"

    def arg_expr(self, a: Any) -> str:
        if isinstance(a, Node):
            return self.tensor_expr(a)
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
        inputs = [n for n in g.nodes if n.kind == "input"]
        self.lines = []
        self.emit("def call(args):", 0)
        # the graph's placeholders include non-tensor inputs; they map by position
        self.emit(f"({', '.join(self.placeholder_names) + ','}) = args" if self.placeholder_names else "pass")
        self.emit("args.clear()")
        for n in inputs:
            if "constant" in n.attrs:
                self.emit(f"{n.name} = {self.const(n.attrs['constant'])}")
                continue
            sig = tuple(d for d, s in enumerate(n.shape) if s != 1)
            self.emit(f"{n.name} = _layout({n.name}, {tuple(n.shape)!r}, {tuple(n.stride)!r}, {sig!r})")
        for i, s in enumerate(sched.steps):
            if isinstance(s, Kernel):
                ks = self.kernels[s.name]
                for m in s.stores:
                    if m in plan.reuse:
                        old = plan.reuse[m]
                        self.emit(f"{m.name} = {old.name}.view({tuple(m.shape)!r}); del {old.name}")
                    else:
                        self.emit(f"{m.name} = _empty({tuple(m.shape)!r}, {self._dt(m.dtype)})")
                self.emit(self.backend.call(ks, [a.name for a in ks.args]))
            else:
                call = self.extern_call(s)
                self.emit(call)
            for b in plan.free_after.get(i, []):
                if b in self._taken:
                    continue
                self.emit(f"del {b.name}")
        outs = g.output_node.attrs["outs"]
        exprs = []
        for o in outs:
            if isinstance(o, Node):
                exprs.append(self.tensor_expr(o))
            else:
                exprs.append(self.arg_expr(o))
        self.emit(f"return [{', '.join(exprs)}]")
        return "\n".join(self.lines) + "\n"

    def _dt(self, dt: torch.dtype) -> str:
        return f"torch.{str(dt).replace('torch.', '')}"

    def extern_call(self, s: Node) -> str:
        t = s.attrs["target"]
        tname = self.const(t, "_op")
        args = ", ".join(self.arg_expr(a) for a in s.attrs["args"])
        kw = ", ".join(f"{k}={self.arg_expr(v)}" for k, v in s.attrs["kwargs"].items())
        call = f"{tname}({args}{', ' if args and kw else ''}{kw})"
        if s.attrs["n_outputs"]:
            lines = [f"{s.name} = {call}"]
            for u in self._getitems(s):
                sig = tuple(d for d, x in enumerate(u.shape) if x != 1)
                lines.append(f"{u.name} = _layout({s.name}[{u.attrs['index']}], {tuple(u.shape)!r}, "
                             f"{tuple(u.stride)!r}, {sig!r})")
            return "; ".join(lines)
        sig = tuple(d for d, x in enumerate(s.shape) if x != 1)
        return f"{s.name} = _layout({call}, {tuple(s.shape)!r}, {tuple(s.stride)!r}, {sig!r})"

    def _getitems(self, s: Node):
        return [n for n in self.sched.graph.nodes if n.kind == "getitem" and n.args[0] is s]


def make_callable(sched: Schedule, plan: MemoryPlan, kernels: list[KernelSource], built: Built, backend,
                  placeholder_names: list[str], device: torch.device) -> tuple[Callable, str]:
    w = WrapperWriter(sched, plan, kernels)
    w.backend = backend
    w.placeholder_names = placeholder_names
    w._taken = set(plan.reuse.values())
    src = w.write()
    env: dict[str, Any] = {
        "torch": torch, "_layout": _layout, "_as_strided": torch.as_strided,
        "_empty": _allocator(device),
    }
    env.update(w.consts)
    env.update(built.launchers)
    code = compile(src, "<bessemer wrapper>", "exec")
    exec(code, env)
    return env["call"], src


def _allocator(device: torch.device) -> Callable:
    if device.type == "cpu":
        def _empty(shape, dtype):
            return torch.empty(shape, dtype=dtype)
    else:
        def _empty(shape, dtype):
            return torch.empty(shape, dtype=dtype, device=device)
    return _empty
