"""Per-kernel timing of compiled graphs: achieved memory bandwidth by kernel class, and
the fixed cost of running a compiled graph next to eager's cost per ATen op.

    with kernel_profile(graphs) as prof:
        train_step()
    prof.summary()   # {"pointwise": {"kernels", "bytes", "seconds", "gbps"}, ...}

While the context is open, every kernel launch of the given CompiledGraphs is
timed on its own (CUDA events around it on a GPU, the wall clock around it on a
CPU) and credited with the bytes of the buffers it reads and writes. Fused
pointwise and reduction kernels are limited by memory traffic, so bytes over
time, compared with the device's copy bandwidth, says how close to the roofline
they run. Only kernels are timed; ATen externs run as usual.

    with overhead_profile(graphs) as prof:
        forward_backward()
    prof.summary()   # graph calls, kernels, externs, and the program's own time

times whole graph calls and, inside them, every kernel launch and ATen call: what
is left is the generated program's own work per call (its fixed cost), shown by
the benchmark next to eager's time per ATen op (`eager_op_cost`). On a CPU a
kernel's time includes its launch (a ctypes call); on a GPU, launches are
asynchronous and the times are the host's.
"""
from __future__ import annotations

import contextlib
import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import torch

# Kernels moving less than this are launch-bound, not bandwidth-bound: the summary
# reports them apart ("all" vs "large") so that a few tiny kernels do not hide
# how the big ones stream.
LARGE_BYTES = 4 << 20


@dataclass
class KernelTime:
    graph: str
    kernel: str
    kind: str
    bytes: int
    seconds: float = 0.0


@dataclass
class KernelProfile:
    records: list[KernelTime] = field(default_factory=list)
    _pending: list = field(default_factory=list)   # (record, start event, end event) on a GPU

    def timed(self, graph: str, ks, launch):
        def run(*args):
            rec = KernelTime(graph, ks.name, ks.kind, ks.bytes)
            self.records.append(rec)
            if args and isinstance(args[0], torch.Tensor) and args[0].is_cuda:
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                launch(*args)
                end.record()
                self._pending.append((rec, start, end))
            else:
                t0 = time.perf_counter()
                launch(*args)
                rec.seconds = time.perf_counter() - t0
        return run

    def _resolve(self) -> None:
        if self._pending:
            torch.cuda.synchronize()
            for rec, start, end in self._pending:
                rec.seconds = start.elapsed_time(end) / 1e3
            self._pending.clear()

    def summary(self, large_bytes: int = LARGE_BYTES) -> dict:
        """Per kernel class: count, bytes, seconds and GB/s, over all kernels and
        over the large ones."""
        self._resolve()
        out: dict = {}
        for scope, keep in (("all", lambda r: True), ("large", lambda r: r.bytes >= large_bytes)):
            groups: dict[str, list[KernelTime]] = {}
            for r in self.records:
                if keep(r):
                    groups.setdefault(r.kind, []).append(r)
            out[scope] = {kind: _totals(rs) for kind, rs in sorted(groups.items())}
        return out


def _totals(rs: list[KernelTime]) -> dict:
    b = sum(r.bytes for r in rs)
    s = sum(r.seconds for r in rs)
    return {"kernels": len(rs), "bytes": b, "seconds": s, "gbps": (b / s / 1e9) if s > 0 else 0.0}


@contextlib.contextmanager
def kernel_profile(graphs) -> Iterator[KernelProfile]:
    """Time every kernel launch of `graphs` (CompiledGraph objects) while open."""
    prof = KernelProfile()
    swapped = []
    for cg in graphs:
        env = getattr(cg.fn, "__globals__", None)
        if env is None:
            continue
        for ks in cg.kernels:
            if ks.name in env:
                swapped.append((env, ks.name, env[ks.name]))
                env[ks.name] = prof.timed(getattr(cg, "name", ""), ks, env[ks.name])
    try:
        yield prof
    finally:
        for env, name, launch in swapped:
            env[name] = launch
        prof._resolve()


def copy_bandwidth(device: torch.device, nbytes: int = 256 << 20, repeats: int = 10) -> float:
    """The device's memory bandwidth as a large copy achieves it (GB/s, counting the
    bytes read and the bytes written): the roofline fused kernels are held to."""
    n = nbytes // 4
    src = torch.empty(n, dtype=torch.float32, device=device).fill_(1.0)
    dst = torch.empty_like(src)
    dst.copy_(src)
    if device.type == "cuda":
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(repeats):
            dst.copy_(src)
        end.record()
        torch.cuda.synchronize()
        seconds = start.elapsed_time(end) / 1e3
    else:
        t0 = time.perf_counter()
        for _ in range(repeats):
            dst.copy_(src)
        seconds = time.perf_counter() - t0
    return 2 * n * 4 * repeats / seconds / 1e9


# -- fixed cost of running compiled graphs ---------------------------------------------------
_EXTERN = "_op"      # the wrapper's names for ATen calls: _op0, _op1, ...


@dataclass
class Overhead:
    """Time inside compiled graph calls, split into kernels, ATen calls (externs) and the
    rest: the generated program's own work (layout checks, allocations, views, frees,
    argument passing), which is the fixed cost a graph call adds to its computation."""

    calls: int = 0
    call_seconds: float = 0.0
    kernels: int = 0
    kernel_seconds: float = 0.0
    externs: int = 0
    extern_seconds: float = 0.0
    timer_seconds: float = 0.0          # what one nested timer adds to its caller (calibrated)
    kernel_times: list = field(default_factory=list)

    def summary(self, passes: int = 1) -> dict:
        """Per pass (one forward and backward): counts, times, and the program's own
        time per graph call and per launch (kernel or extern)."""
        passes = max(passes, 1)
        own = self.call_seconds - self.kernel_seconds - self.extern_seconds \
            - self.timer_seconds * (self.kernels + self.externs)
        own = max(own, 0.0)
        launches = self.kernels + self.externs
        kt = sorted(self.kernel_times)
        return {
            "graph_calls": self.calls / passes, "kernels": self.kernels / passes, "externs": self.externs / passes,
            "graph_us": 1e6 * self.call_seconds / passes, "kernel_us": 1e6 * self.kernel_seconds / passes,
            "extern_us": 1e6 * self.extern_seconds / passes, "own_us": 1e6 * own / passes,
            "own_us_per_call": 1e6 * own / self.calls if self.calls else None,
            "own_us_per_launch": 1e6 * own / launches if launches else None,
            "median_kernel_us": 1e6 * kt[len(kt) // 2] if kt else None,
            "fastest_kernel_us": 1e6 * kt[0] if kt else None,
        }


def _timer(bucket: list, inner: Callable) -> Callable:
    clock = time.perf_counter

    def run(*args, **kwargs):
        t0 = clock()
        try:
            return inner(*args, **kwargs)
        finally:
            bucket.append(clock() - t0)
    return run


def _calibrate(n: int = 2000) -> float:
    """Seconds a nested timer adds to the call around it, beyond the time it reports."""
    bucket: list = []
    noop = _timer(bucket, lambda: None)
    best = math.inf
    for _ in range(3):
        bucket.clear()
        t0 = time.perf_counter()
        for _ in range(n):
            noop()
        total = time.perf_counter() - t0
        best = min(best, (total - sum(bucket)) / n)
    return max(best, 0.0)


@contextlib.contextmanager
def overhead_profile(graphs) -> Iterator[Overhead]:
    """Time every call of `graphs` (CompiledGraph objects whose `fn` is a runtime.GraphCall),
    and inside it every kernel launch and every ATen call, while open."""
    from bessemer.compiler.runtime.graph_call import GraphCall
    prof = Overhead(timer_seconds=_calibrate())
    calls: list = []
    kernels: list = []
    externs: list = []
    swapped: list = []
    for cg in graphs:
        entry = cg.fn
        if not isinstance(entry, GraphCall):
            continue
        env = entry.__globals__
        names = {ks.name for ks in cg.kernels}
        for name, value in list(env.items()):
            if name in names:
                swapped.append((env, name, value))
                env[name] = _timer(kernels, value)
            elif name.startswith(_EXTERN) and name[len(_EXTERN):].isdigit():
                swapped.append((env, name, value))
                env[name] = _timer(externs, value)
        swapped.append((entry, "fn", entry.fn))
        entry.fn = _timer(calls, entry.fn)
    try:
        yield prof
    finally:
        for owner, name, value in reversed(swapped):
            if isinstance(owner, dict):
                owner[name] = value
            else:
                setattr(owner, name, value)
        prof.calls, prof.call_seconds = len(calls), sum(calls)
        prof.kernels, prof.kernel_seconds = len(kernels), sum(kernels)
        prof.externs, prof.extern_seconds = len(externs), sum(externs)
        prof.kernel_times = list(kernels)


class _OpCounter:
    """Counts the ATen ops eager PyTorch dispatches (a TorchDispatchMode)."""

    def __init__(self):
        from torch.utils._python_dispatch import TorchDispatchMode

        counter = self

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                counter.ops += 1
                return func(*args, **(kwargs or {}))

        self.ops = 0
        self.mode = Mode()

    def __enter__(self):
        self.mode.__enter__()
        return self

    def __exit__(self, *exc):
        return self.mode.__exit__(*exc)


def eager_op_cost(fn: Callable[[], Any], device: torch.device, repeats: int = 3) -> dict:
    """What eager PyTorch spends per ATen op on `fn` (a forward and backward): the ops it
    dispatches (counted in one extra run) and the median time of `repeats` runs over them.
    At a small problem size this is the dispatcher's cost per op, the cost a graph call's
    launches replace."""
    with _OpCounter() as c:
        fn()
    times = []
    for _ in range(repeats):
        if device.type == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    t = sorted(times)[len(times) // 2]
    return {"aten_ops": c.ops, "fwd_bwd_us": 1e6 * t, "us_per_op": 1e6 * t / c.ops if c.ops else None}
