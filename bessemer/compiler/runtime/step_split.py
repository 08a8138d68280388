"""Where a training step's time goes: one profiled step, split into parts.

    with step_profile(graphs, device) as prof:
        with prof.step():
            opt.zero_grad(); loss_fn(model, batch).backward()
            with prof.update():
                opt.step()
    prof.summary()   # ms per part, matmul FLOPs, the kernels' bytes

While the context is open, every call of the given CompiledGraphs is timed, and
inside it every fused-kernel launch and every ATen call. The ATen calls are split
into the matmul class (mm, bmm, addmm, baddbmm, convolution and its backward,
scaled-dot-product attention and its backward, linear, and the products the compiler put on
oneDNN), each credited with the
FLOPs its argument shapes imply (MATMUL_FLOPS), and the others, named by op. With
the optimizer update timed as a whole (`update()`) the step splits into:

    matmuls        matmul-class ATen calls inside graph calls
    other ATen     the other ATen calls inside graph calls
    kernels        the fused kernels
    own            the rest of the graph calls: the generated programs' own work
    update         the optimizer update (clipping included where the caller puts it inside)
    timers         what the profile's own timers added (calibrated per timer)
    rest           the step outside graph calls and the update: autograd's engine between
                   graph calls, Dynamo's frame entry, Python in the model and the loop

The parts add up to the step's wall time: `rest` is the remainder. On a CPU every
span is the wall clock around the call; on a GPU spans are CUDA events on the
current stream (device time, launches being asynchronous), the timers add no device
time, and `own` is the time the device waits inside a graph call for the host.

A graph call made inside `update()` counts as the update's, not as a graph call's.
"""
from __future__ import annotations

import contextlib
import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Optional

import torch

# the wrapper's names for ATen calls: _op0, _op1, ... (codegen/wrapper.py extern_call)
EXTERN_PREFIX = "_op"
# the "other ATen" op names the summary keeps, by time
TOP_OTHER = 3


# -- FLOPs of the matmul-class ATen ops, from their arguments ---------------------------------
def _numel(shape) -> int:
    return math.prod(int(s) for s in shape)


def _mm(args, kwargs, out) -> int:
    a, b = args[0], args[1]
    return 2 * a.shape[0] * a.shape[1] * b.shape[1]


def _addmm(args, kwargs, out) -> int:
    return _mm(args[1:], kwargs, out)


def _bmm(args, kwargs, out) -> int:
    a, b = args[0], args[1]
    return 2 * a.shape[0] * a.shape[1] * a.shape[2] * b.shape[2]


def _baddbmm(args, kwargs, out) -> int:
    return _bmm(args[1:], kwargs, out)


def _linear(args, kwargs, out) -> int:
    x, w = args[0], args[1]
    return 2 * _numel(x.shape) * w.shape[0]


def conv_flops(x_shape, w_shape, out_shape, transposed: bool) -> int:
    """A convolution's multiply-adds times two. Each output element of a convolution sums
    the products of one group's input channels with the kernel: prod(out) * prod(w[1:]).
    A transposed convolution scatters each input element over prod(w[1:]) outputs (its weight
    is in, out per group, kernel): prod(x) * prod(w[1:])."""
    return 2 * _numel(x_shape if transposed else out_shape) * _numel(w_shape[1:])


def _convolution(args, kwargs, out) -> int:
    x, w = args[0], args[1]
    transposed = bool(args[6]) if len(args) > 6 else bool(kwargs.get("transposed", False))
    return conv_flops(x.shape, w.shape, out.shape, transposed)


def _convolution_backward(args, kwargs, out) -> int:
    """grad_input and grad_weight, each as much work as the forward (as output_mask asks);
    the bias gradient is a sum, not a matmul."""
    grad_out, x, w = args[0], args[1], args[2]
    transposed = bool(args[7]) if len(args) > 7 else bool(kwargs.get("transposed", False))
    mask = args[10] if len(args) > 10 else kwargs.get("output_mask", (True, True, True))
    forward = conv_flops(x.shape, w.shape, grad_out.shape, transposed)
    return forward * (int(bool(mask[0])) + int(bool(mask[1])))


def _attention(q_shape, k_shape, v_shape, heads_second: bool) -> int:
    """Q K^T and P V. Layout (batch, heads, seq, dim) for the scaled_dot_product ops, (batch,
    seq, heads, dim) for _efficient_attention_* and _flash_attention_*."""
    if heads_second:
        batch, lq, lk = _numel(q_shape[:-2]), q_shape[-2], k_shape[-2]
    else:
        batch, lq, lk = q_shape[0] * q_shape[2], q_shape[1], k_shape[1]
    return 2 * batch * lq * lk * q_shape[-1] + 2 * batch * lq * lk * v_shape[-1]


def _sdpa(heads_second: bool) -> Callable:
    def flops(args, kwargs, out) -> int:
        return _attention(args[0].shape, args[1].shape, args[2].shape, heads_second)
    return flops


def _sdpa_backward(heads_second: bool) -> Callable:
    """dQ, dK, dV and dP (arguments: grad_out, q, k, v, ...): twice the forward's matmuls.
    A flash backward also recomputes Q K^T; that recomputation is not counted, so the
    count stays the model's FLOPs (those the bench's MFU divides)."""
    def flops(args, kwargs, out) -> int:
        return 2 * _attention(args[1].shape, args[2].shape, args[3].shape, heads_second)
    return flops


# by op name (the overload packet's): the FLOPs of one call from (args, kwargs, result)
MATMUL_FLOPS: dict[str, Callable[[tuple, dict, Any], int]] = {
    "mm": _mm, "addmm": _addmm, "bmm": _bmm, "baddbmm": _baddbmm, "linear": _linear,
    "onednn_mm": _mm,     # runtime/gemm.py: (a, b[, bias]), a product the compiler put on oneDNN
    "blocked_mm": _mm,    # runtime/gemm.py: the same, on ATen in blocks of columns
    "convolution": _convolution, "convolution_backward": _convolution_backward,
    **{name: _sdpa(True) for name in (
        "scaled_dot_product_attention", "_scaled_dot_product_flash_attention",
        "_scaled_dot_product_flash_attention_for_cpu", "_scaled_dot_product_efficient_attention",
        "_scaled_dot_product_cudnn_attention", "_scaled_dot_product_fused_attention_overrideable")},
    **{name: _sdpa_backward(True) for name in (
        "_scaled_dot_product_flash_attention_backward", "_scaled_dot_product_flash_attention_for_cpu_backward",
        "_scaled_dot_product_efficient_attention_backward", "_scaled_dot_product_cudnn_attention_backward",
        "_scaled_dot_product_fused_attention_overrideable_backward")},
    "_efficient_attention_forward": _sdpa(False), "_flash_attention_forward": _sdpa(False),
    "_efficient_attention_backward": _sdpa_backward(False), "_flash_attention_backward": _sdpa_backward(False),
}


def op_name(op: Any) -> str:
    """An ATen op's name without namespace and overload: aten.mm.default -> mm."""
    packet = getattr(op, "overloadpacket", None)
    return getattr(packet, "__name__", None) or getattr(op, "__name__", None) or str(op)


def matmul_flops(op: Any, args: tuple, kwargs: Optional[dict] = None, out: Any = None) -> Optional[int]:
    """FLOPs of one call of `op` if it is of the matmul class, else None."""
    formula = MATMUL_FLOPS.get(op_name(op))
    return None if formula is None else int(formula(args, kwargs or {}, out))


# -- the profile -------------------------------------------------------------------------------
@dataclass
class _Launch:
    kind: str            # "kernel" | "matmul" | "aten"
    name: str
    start: Any
    end: Any
    flops: int = 0
    bytes: int = 0


class StepProfile:
    def __init__(self, device: torch.device, timer_seconds: Optional[float] = None):
        self.cuda = torch.device(device).type == "cuda"
        self.launches: list[_Launch] = []
        self.calls: list[tuple] = []
        self.updates: list[tuple] = []
        self.step_span: Optional[tuple] = None
        self.counting_seconds = 0.0     # host time spent counting FLOPs inside graph calls
        self._in_update = False
        if timer_seconds is None:
            timer_seconds = 0.0 if self.cuda else _calibrate()
        self.timer_seconds = timer_seconds

    # a point in time: the wall clock on a CPU, an event on the current stream on a GPU
    def _mark(self) -> Any:
        if self.cuda:
            e = torch.cuda.Event(enable_timing=True)
            e.record()
            return e
        return time.perf_counter()

    def _seconds(self, span: tuple) -> float:
        a, b = span
        return a.elapsed_time(b) / 1e3 if self.cuda else b - a

    # -- the timers the context swaps in
    def time_call(self, inner: Callable) -> Callable:
        def run(args):
            if self._in_update:
                return inner(args)
            t0 = self._mark()
            out = inner(args)
            self.calls.append((t0, self._mark()))
            return out
        return run

    def time_kernel(self, name: str, nbytes: int, inner: Callable) -> Callable:
        def run(*args):
            if self._in_update:
                return inner(*args)
            t0 = self._mark()
            out = inner(*args)
            self.launches.append(_Launch("kernel", name, t0, self._mark(), bytes=nbytes))
            return out
        return run

    def time_extern(self, op: Any, inner: Callable) -> Callable:
        name = op_name(op)
        formula = MATMUL_FLOPS.get(name)

        def run(*args, **kwargs):
            if self._in_update:
                return inner(*args, **kwargs)
            t0 = self._mark()
            out = inner(*args, **kwargs)
            t1 = self._mark()
            if formula is None:
                self.launches.append(_Launch("aten", name, t0, t1))
            else:
                c0 = time.perf_counter()
                self.launches.append(_Launch("matmul", name, t0, t1, flops=int(formula(args, kwargs, out))))
                self.counting_seconds += time.perf_counter() - c0
            return out
        return run

    # -- the regions the caller marks
    @contextlib.contextmanager
    def step(self) -> Iterator[None]:
        """The whole step (the device is synchronized at both ends)."""
        if self.cuda:
            torch.cuda.synchronize()
        t0 = self._mark()
        yield
        t1 = self._mark()
        if self.cuda:
            torch.cuda.synchronize()
        self.step_span = (t0, t1)

    @contextlib.contextmanager
    def update(self) -> Iterator[None]:
        """The optimizer update, timed as a whole."""
        t0 = self._mark()
        self._in_update = True
        try:
            yield
        finally:
            self._in_update = False
            self.updates.append((t0, self._mark()))

    def summary(self) -> dict:
        """The step's parts in ms (they add up to step_ms), the matmuls' FLOPs, the fused
        kernels' bytes, and the other ATen calls' TOP_OTHER ops by time."""
        if self.step_span is None:
            raise RuntimeError("step_profile: no step was marked (wrap the step in prof.step())")
        if self.cuda:
            torch.cuda.synchronize()
        step = self._seconds(self.step_span)
        calls = sum(self._seconds(s) for s in self.calls)
        update = sum(self._seconds(s) for s in self.updates)
        seconds = {"kernel": 0.0, "matmul": 0.0, "aten": 0.0}
        counts = {"kernel": 0, "matmul": 0, "aten": 0}
        flops = nbytes = 0
        others: dict[str, list] = {}
        for ln in self.launches:
            s = self._seconds((ln.start, ln.end))
            seconds[ln.kind] += s
            counts[ln.kind] += 1
            flops += ln.flops
            nbytes += ln.bytes
            if ln.kind == "aten":
                o = others.setdefault(ln.name, [0.0, 0])
                o[0] += s
                o[1] += 1
        # the timers' cost inside graph calls comes out of the programs' own time, that of
        # the timers around graph calls and the update out of the rest
        inside = calls - sum(seconds.values())
        timers_in = min(max(inside, 0.0), self.timer_seconds * len(self.launches) + self.counting_seconds)
        outside = step - calls - update
        timers_out = min(max(outside, 0.0), self.timer_seconds * (len(self.calls) + len(self.updates)))
        top = sorted(others.items(), key=lambda kv: -kv[1][0])[:TOP_OTHER]
        ms = 1e3
        return {
            "step_ms": ms * step, "graph_calls": len(self.calls), "graph_ms": ms * calls,
            "matmul_ms": ms * seconds["matmul"], "matmul_calls": counts["matmul"], "matmul_flops": flops,
            "other_aten_ms": ms * seconds["aten"], "other_aten_calls": counts["aten"],
            "other_aten_top": [{"op": name, "ms": ms * s, "calls": n} for name, (s, n) in top],
            "kernel_ms": ms * seconds["kernel"], "kernels": counts["kernel"], "kernel_bytes": nbytes,
            "own_ms": ms * max(inside - timers_in, 0.0),
            "update_ms": ms * update,
            "timers_ms": ms * (timers_in + timers_out),
            "rest_ms": ms * max(outside - timers_out, 0.0),
        }


def median_step(summaries: list[dict]) -> dict:
    """Of several profiled steps' summaries, the step of median wall time (the lower middle
    of an even count), whole: its parts add up to its step_ms, which a per-part median would
    not; `profiled_steps` says how many it was chosen from."""
    if not summaries:
        raise ValueError("median_step: no profiled step")
    ranked = sorted(summaries, key=lambda s: s["step_ms"])
    return {**ranked[(len(ranked) - 1) // 2], "profiled_steps": len(ranked)}


PARTS = ("matmul_ms", "other_aten_ms", "kernel_ms", "own_ms", "update_ms", "timers_ms", "rest_ms")


def _calibrate(n: int = 2000) -> float:
    """Seconds one timer adds to the span around it, beyond the span it records."""
    scratch = StepProfile(torch.device("cpu"), timer_seconds=0.0)
    noop = scratch.time_kernel("noop", 0, lambda: None)
    best = math.inf
    for _ in range(3):
        scratch.launches.clear()
        t0 = time.perf_counter()
        for _ in range(n):
            noop()
        total = time.perf_counter() - t0
        recorded = sum(ln.end - ln.start for ln in scratch.launches)
        best = min(best, (total - recorded) / n)
    return max(best, 0.0)


@contextlib.contextmanager
def step_profile(graphs, device: torch.device) -> Iterator[StepProfile]:
    """Time every call of `graphs` (CompiledGraph objects whose `fn` is a runtime.GraphCall), and
    inside it every kernel launch and ATen call, while open; the caller marks the step and the
    update on the profile it yields."""
    from bessemer.compiler.runtime.graph_call import GraphCall
    prof = StepProfile(device)
    swapped: list = []
    seen: set = set()     # GraphCalls and namespaces already timed (each is timed once)
    for cg in graphs:
        entry = cg.fn
        if not isinstance(entry, GraphCall) or id(entry) in seen or id(entry.__globals__) in seen:
            continue
        env = entry.__globals__
        seen.update((id(entry), id(env)))
        sizes = {ks.name: ks.bytes for ks in cg.kernels}
        for name, value in list(env.items()):
            if name in sizes:
                swapped.append((env, name, value))
                env[name] = prof.time_kernel(name, sizes[name], value)
            elif name.startswith(EXTERN_PREFIX) and name[len(EXTERN_PREFIX):].isdigit():
                swapped.append((env, name, value))
                env[name] = prof.time_extern(value, value)
        swapped.append((entry, "fn", entry.fn))
        entry.fn = prof.time_call(entry.fn)
    try:
        yield prof
    finally:
        for owner, name, value in reversed(swapped):
            if isinstance(owner, dict):
                owner[name] = value
            else:
                setattr(owner, name, value)
