"""Per-kernel timing of compiled graphs: achieved memory bandwidth by kernel class.

    with kernel_profile(graphs) as prof:
        train_step()
    prof.summary()   # {"pointwise": {"kernels", "bytes", "seconds", "gbps"}, ...}

While the context is open, every kernel launch of the given CompiledGraphs is
timed on its own (CUDA events around it on a GPU, the wall clock around it on a
CPU) and credited with the bytes of the buffers it reads and writes. Fused
pointwise and reduction kernels are limited by memory traffic, so bytes over
time, compared with the device's copy bandwidth, says how close to the roofline
they run. Only kernels are timed; ATen externs run as usual.
"""
from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Iterator

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
