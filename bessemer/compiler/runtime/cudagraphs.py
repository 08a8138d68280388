"""Optional CUDA graphs: a compiled graph of static shapes replayed as one launch.

With `cuda_graphs=True`, each compiled forward/backward graph is run once
normally (warm-up: Triton compiles and autotunes its kernels, ATen picks its
algorithms), then captured into a CUDA graph on its second call and replayed
from then on: every kernel and ATen call of the graph becomes one launch.

How inputs are handled: an input whose memory stays at the same address from
call to call (parameters, buffers, optimizer-owned tensors) is read in place;
any other input is copied into a buffer the graph owns before each replay. If a
parameter later moves, the graph is captured again (once; after that the graph
runs without replay, with a warning). Outputs are copied out of the graph's
memory after each replay, because the next replay overwrites that memory while
the caller may still hold the previous outputs (a loss kept for logging, the
saved activations of a backward not yet run): the trade is one device copy of
the outputs for the launch overhead of the whole graph, which pays for graphs
of many small kernels.

Graphs that cannot be captured (an input on the CPU, an op that synchronizes
with the host) run normally with one warning saying why: never a failure.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable, Optional

import torch


class CudaGraphUnavailable(Exception):
    """Why a graph is not replayed as a CUDA graph."""


def check_capturable(example_inputs) -> None:
    for i, t in enumerate(example_inputs):
        if isinstance(t, torch.Tensor) and not t.is_cuda:
            raise CudaGraphUnavailable(f"input {i} is a {t.device.type} tensor (CUDA graphs need every "
                                       f"tensor on the GPU)")
    if not any(isinstance(t, torch.Tensor) for t in example_inputs):
        raise CudaGraphUnavailable("the graph has no tensor inputs")
    if not torch.cuda.is_available():
        raise CudaGraphUnavailable("CUDA is not available")


class CudaGraphRunner:
    """A boxed callable (takes the argument list, as AOTAutograd calls it)."""

    MAX_CAPTURES = 2

    def __init__(self, fn: Callable, name: str):
        self.fn = fn
        self.name = name
        self.calls = 0
        self.captures = 0
        self.disabled: Optional[str] = None
        self.graph: Optional[torch.cuda.CUDAGraph] = None
        self.static_in: list[Any] = []      # per input: the graph's own buffer, or None (read in place)
        self.in_place_ptrs: list[Optional[int]] = []
        self.static_out: list[Any] = []
        self.warm_ptrs: list[Optional[int]] = []
        self._boxed_call = True

    def _ptrs(self, args) -> list[Optional[int]]:
        return [a.data_ptr() if isinstance(a, torch.Tensor) else None for a in args]

    def _disable(self, why: str) -> None:
        self.disabled = why
        self.graph = None
        self.static_in, self.static_out = [], []
        warnings.warn(f"bessemer: CUDA graphs off for graph {self.name}: {why}; it runs kernel by kernel",
                      stacklevel=3)

    def __call__(self, args: list) -> Any:
        self.calls += 1
        if self.disabled is not None:
            return self.fn(args)
        if self.calls == 1:  # warm-up: compile, autotune, and learn which inputs stay put
            self.warm_ptrs = self._ptrs(args)
            return self.fn(args)
        if self.graph is None:
            return self._capture(args)
        return self._replay(args)

    def _capture(self, args: list) -> Any:
        self.captures += 1
        ptrs = self._ptrs(args)
        self.static_in, self.in_place_ptrs = [], []
        for a, p, w in zip(args, ptrs, self.warm_ptrs):
            if isinstance(a, torch.Tensor) and p == w:
                self.static_in.append(None)
                self.in_place_ptrs.append(p)
            elif isinstance(a, torch.Tensor):
                self.static_in.append(torch.empty_strided(a.shape, a.stride(), dtype=a.dtype, device=a.device))
                self.in_place_ptrs.append(None)
            else:
                self.static_in.append(None)
                self.in_place_ptrs.append(None)
        self._load_inputs(args)
        graph_args = [s if s is not None else a for s, a in zip(self.static_in, args)]
        g = torch.cuda.CUDAGraph()
        torch.cuda.synchronize()
        try:
            with torch.cuda.graph(g):
                outs = self.fn(list(graph_args))
        except Exception as e:  # noqa: BLE001 - any capture failure: run without the graph
            torch.cuda.synchronize()
            self._disable(f"capture failed ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})")
            return self.fn(args)
        self.graph = g
        self.static_out = list(outs)
        args.clear()
        return self._run_graph()

    def _load_inputs(self, args) -> None:
        for s, a in zip(self.static_in, args):
            if s is not None:
                s.copy_(a)

    def _run_graph(self) -> list:
        self.graph.replay()
        return [o.clone() if isinstance(o, torch.Tensor) else o for o in self.static_out]

    def _replay(self, args: list) -> Any:
        ptrs = self._ptrs(args)
        moved = [i for i, (want, p) in enumerate(zip(self.in_place_ptrs, ptrs)) if want is not None and p != want]
        if moved:
            if self.captures >= self.MAX_CAPTURES:
                self._disable(f"input {moved[0]} keeps moving in memory")
                return self.fn(args)
            self.warm_ptrs = ptrs
            self.graph = None
            return self._capture(args)
        self._load_inputs(args)
        args.clear()
        return self._run_graph()


def wrap(fn: Callable, name: str, example_inputs) -> Callable:
    """fn replayed as a CUDA graph, or fn itself with a warning saying why not."""
    try:
        check_capturable(example_inputs)
    except CudaGraphUnavailable as e:
        warnings.warn(f"bessemer: CUDA graphs off for graph {name}: {e}; it runs kernel by kernel", stacklevel=3)
        return fn
    return CudaGraphRunner(fn, name)
