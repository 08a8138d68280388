"""Launching Triton kernels: block sizes per kernel, autotuned once, cached on disk.

Each kernel gets a few candidate configurations (XBLOCK, RBLOCK, num_warps) from
its tiling (TritonMeta). On a GPU, the first call times each candidate on the
real arguments and keeps the fastest; the winners are written next to the
kernel module (`<module>.tune.json`, keyed by the GPU's name), so a later
process skips the timing. A kernel is safe to run repeatedly on the same
arguments: the memory plan never lets a kernel's output share memory with its
inputs. Under Triton's interpreter there is nothing to time: the launcher takes
the candidate with the fewest programs, since each program costs interpreter time.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import os
import threading
from dataclasses import dataclass
from typing import Any, Callable, Optional

import torch

from bessemer.fsutil import PRIVATE_FILE_MODE, atomic_write_text
from bessemer.compiler.ir.symbolic import evaluate
from bessemer.compiler.codegen.triton import TritonMeta

_lock = threading.Lock()

# Kernels moving less than this are not timed: they are launch-bound, so their
# block size barely matters, while timing each candidate costs a Triton compile
# (about a second) per candidate. They take the first candidate.
AUTOTUNE_MIN_BYTES = 4 << 20


@dataclass(frozen=True)
class LaunchConfig:
    XBLOCK: int
    RBLOCK: int
    num_warps: int

    def as_list(self) -> list:
        return [self.XBLOCK, self.RBLOCK, self.num_warps]


def _pow2(n: int) -> int:
    return 1 << max(0, (int(n) - 1).bit_length())


def candidates(meta: TritonMeta) -> list[LaunchConfig]:
    """The configurations worth timing for a kernel of this tiling.

    Pointwise: 1-2K elements per program balances enough programs to fill every
    SM against per-program overhead. Persistent rows: the tile holds whole rows,
    and several short rows share a program so it has enough work. Looped rows: a
    wide chunk per step; column reductions: a wide block of columns so each row
    step reads contiguous memory."""
    out: list[LaunchConfig] = []
    if meta.kind == "pointwise":
        cap = max(16, _pow2(meta.numel))
        for xb, nw in ((1024, 4), (512, 4), (2048, 8)):
            out.append(LaunchConfig(min(xb, cap), 1, nw))
    elif meta.persistent:
        rb = max(1, _pow2(meta.rlen))
        rows_cap = _pow2(meta.rows)
        for tile in (1024, 4096, rb):
            xb = max(1, min(tile // rb, rows_cap, 64))
            nw = 4 if xb * rb <= 2048 else 8
            out.append(LaunchConfig(xb, rb, nw))
    elif meta.column:
        rcap = max(1, _pow2(meta.rlen))
        for xb, rb, nw in ((64, 32, 4), (128, 16, 4), (32, 64, 4)):
            out.append(LaunchConfig(min(xb, _pow2(meta.rows)), min(rb, rcap), nw))
    else:
        for xb, rb, nw in ((1, 2048, 8), (1, 4096, 8), (2, 1024, 4)):
            out.append(LaunchConfig(min(xb, _pow2(meta.rows)), rb, nw))
    seen, uniq = set(), []
    for c in out:
        if c not in seen:
            seen.add(c)
            uniq.append(c)
    return uniq


def interpreter_config(meta: TritonMeta) -> LaunchConfig:
    """Few, large programs: the interpreter runs each program as Python."""
    if meta.kind == "pointwise":
        return LaunchConfig(min(_pow2(meta.numel), 1 << 14), 1, 4)
    if meta.persistent:
        rb = _pow2(meta.rlen)
        return LaunchConfig(max(1, min(_pow2(meta.rows), (1 << 14) // rb)), rb, 4)
    rb = min(_pow2(meta.rlen), 1024)
    if meta.split:
        rb = min(rb, 64)
    return LaunchConfig(max(1, min(_pow2(meta.rows), (1 << 14) // rb)), rb, 4)


def grid_of(meta: TritonMeta, cfg: LaunchConfig) -> tuple:
    blocks = max(1, -(-meta.rows // cfg.XBLOCK))
    return (blocks, meta.split) if meta.split else (blocks,)


class TuneCache:
    """Winning configurations of one kernel module, on disk beside it."""

    def __init__(self, path: Optional[str]):
        self.path = path
        self.data: dict[str, dict[str, list]] = {}
        if path and os.path.exists(path):
            try:
                with open(path) as f:
                    self.data = json.load(f)
            except (OSError, ValueError):
                self.data = {}

    def get(self, device: str, kernel: str) -> Optional[LaunchConfig]:
        v = self.data.get(device, {}).get(kernel)
        return LaunchConfig(*v) if v else None

    def put(self, device: str, kernel: str, cfg: LaunchConfig) -> None:
        self.data.setdefault(device, {})[kernel] = cfg.as_list()
        if not self.path:
            return
        with _lock:
            atomic_write_text(self.path, json.dumps(self.data, indent=1, sort_keys=True), mode=PRIVATE_FILE_MODE)


class TritonLauncher:
    """Calls one Triton kernel with the configuration chosen for it."""

    def __init__(self, fn: Any, name: str, meta: TritonMeta, tune: TuneCache, interpret: bool,
                 fin: Any = None, syms: tuple = ()):
        self.fn = fn
        # symbolic sizes: the kernel's last len(syms) arguments are the size symbols; the
        # tiling is evaluated from them, and a launcher is kept per distinct size
        self.syms = syms
        self._per_size: dict[tuple, "TritonLauncher"] = {}
        self.fin = fin   # a split reduction's second function (combines the chunks)
        self.name = name
        self.meta = meta
        self.tune = tune
        self.interpret = interpret
        self.cfg: Optional[LaunchConfig] = None
        self.grid: tuple = ()
        self.timings: dict = {}   # candidate -> ms, when this process timed them

    def _set(self, cfg: LaunchConfig) -> None:
        self.cfg = cfg
        self.grid = grid_of(self.meta, cfg)
        # what fn[grid](*args, **meta) does, without building the proxy on every launch
        # a split reduction compiled with symbolic sizes takes its number of chunks
        split = {"NSPLIT": self.meta.split, "SBLOCK": _pow2(self.meta.split)} if self.meta.chunk else {}
        self._run = functools.partial(self.fn.run, grid=self.grid, warmup=False, XBLOCK=cfg.XBLOCK,
                                      RBLOCK=cfg.RBLOCK, num_warps=cfg.num_warps, **split)
        if self.fin is not None:
            self._run = functools.partial(self._run_split, self._run, functools.partial(
                self.fin.run, grid=self.grid[:1], warmup=False, XBLOCK=cfg.XBLOCK, RBLOCK=cfg.RBLOCK,
                num_warps=cfg.num_warps, **split))

    def _run_split(self, part, fin, *args) -> None:
        ws = torch.empty(self.meta.n_acc * self.meta.split * self.meta.rows, dtype=torch.float32,
                         device=args[0].device)
        part(*args, ws)
        fin(*args, ws)

    def _launch(self, cfg: LaunchConfig, args) -> None:
        self._set(cfg)
        self._run(*args)

    def choose(self, args) -> LaunchConfig:
        if self.interpret:
            return interpreter_config(self.meta)
        cands = candidates(self.meta)
        device = torch.cuda.get_device_name(args[0].device) if args and args[0].is_cuda else "cpu"
        hit = self.tune.get(device, self.name)
        if hit is not None:
            return hit
        if len(cands) == 1 or self.meta.bytes < AUTOTUNE_MIN_BYTES:
            best = cands[0]
        else:
            from triton.testing import do_bench
            for c in cands:
                self.timings[c] = do_bench(lambda c=c: self._launch(c, args), warmup=3, rep=10)
            best = min(self.timings, key=self.timings.get)
            self.cfg = None
        self.tune.put(device, self.name, best)
        return best

    def at_sizes(self, values: tuple) -> "TritonLauncher":
        """The launcher of this kernel at one assignment of its size symbols."""
        got = self._per_size.get(values)
        if got is None:
            env = dict(zip(self.syms, values))
            meta = dataclasses.replace(self.meta, **{f: evaluate(getattr(self.meta, f), env)
                                                      for f in ("numel", "rows", "rlen")})
            if meta.chunk:   # a split reduction: its chunks of `chunk` rows cover this row length
                meta = dataclasses.replace(meta, split=-(-meta.rlen // meta.chunk))
            size = "x".join(str(v) for v in values)
            got = self._per_size[values] = TritonLauncher(self.fn, f"{self.name}@{size}", meta, self.tune,
                                                          self.interpret, self.fin)
        return got

    def __call__(self, *args) -> None:
        if self.syms:
            self.at_sizes(args[len(args) - len(self.syms):])(*args)
            return
        if self.cfg is None:
            self._set(self.choose(args))
        self._run(*args)


def make_launchers(module: Any, kernels: list, tune_path: Optional[str], interpret: bool) -> dict[str, Callable]:
    """kernel name -> launcher; kernels sharing a function share its launcher (and
    so its autotuning)."""
    tune = TuneCache(tune_path)
    by_fn: dict[str, TritonLauncher] = {}
    out = {}
    for k in kernels:
        fn = k.meta.fn_name
        if fn not in by_fn:
            fin = getattr(module, fn + "_fin") if k.meta.split else None
            by_fn[fn] = TritonLauncher(getattr(module, fn), fn, k.meta, tune, interpret, fin, tuple(k.syms))
        out[k.name] = by_fn[fn]
    return out
