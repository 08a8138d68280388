"""What the benchmark measures, and how: step-time statistics, model FLOPs, the
machine's matmul peak, and peak step memory.

Peak memory is measured the same way for every mode:

* CUDA: the caching allocator's peak (`torch.cuda.max_memory_allocated`) over the
  measured step, after resetting it at the step's start. It counts every tensor
  live on the GPU, parameters, gradients and optimizer state included.
* CPU: bytes of live tensor memory from the profiler's allocation events
  (`profile_memory=True`), which report every allocation and free made through
  torch's CPU allocator, including the buffers compiled code allocates itself.
  Recording starts before the first training step, so every allocation of the
  run is seen: activations, gradients, optimizer state, and whatever a compiler
  allocates and keeps between steps. The peak is the largest live total reached
  during the measured step, plus the bytes of the parameters, buffers and input
  batches that existed before recording started. Memory that does not go
  through torch's allocator (Python objects, compiled code, memory a native
  library mallocs itself) is not counted.

A TorchDispatchMode cannot do this job: while a dispatch mode is active, code
compiled by torch.compile does not run (Dynamo runs the model eagerly instead),
so it would measure eager memory for every mode.
"""
from __future__ import annotations

import contextlib
import os
import platform
import statistics
import time
from typing import Any, Callable, Iterable, Optional

import torch

from bessemer.compiler.runtime.step_split import conv_flops

STEP_MARK = "bessemer.bench.measured_step"


# -- time ---------------------------------------------------------------------------
def cpu_name() -> str:
    """The CPU's model name as /proc/cpuinfo gives it (what a bench page names the machine by)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def timed(fn: Callable[[], Any], device: torch.device) -> tuple[Any, float]:
    """Run fn and return (its result, wall seconds), waiting for the device to finish."""
    sync(device)
    t0 = time.perf_counter()
    out = fn()
    sync(device)
    return out, time.perf_counter() - t0


def summarize(times: list[float]) -> dict:
    """Median and spread of step times (seconds)."""
    if not times:
        return {}
    qs = statistics.quantiles(times, n=4, method="inclusive") if len(times) > 1 else [times[0]] * 3
    med = statistics.median(times)
    return {"median": med, "p25": qs[0], "p75": qs[2], "min": min(times), "max": max(times),
            "mean": statistics.fmean(times), "n": len(times),
            # interquartile range relative to the median
            "spread": (qs[2] - qs[0]) / med if med > 0 else 0.0}


class Contention:
    """How much of the machine's CPU other processes used while this one was being timed.

    From /proc/stat (every core's busy time, stolen time included) minus this process's
    own CPU time, as a share of all cores over the wall time. Near 0 on a quiet machine;
    a step timed while other work competes for the cores can be many times slower, and
    its share shows it. None where /proc/stat does not exist.
    Entered more than once (the measured steps in turns), it sums its windows.
    """

    def __init__(self):
        self.share: Optional[float] = None
        self._foreign = 0.0
        self._capacity = 0.0

    def __enter__(self):
        self._start = (_busy_seconds(), _own_cpu_seconds(), time.perf_counter())
        return self

    def __exit__(self, *exc):
        busy0, own0, t0 = self._start
        busy1, own1, t1 = _busy_seconds(), _own_cpu_seconds(), time.perf_counter()
        cores = os.cpu_count() or 1
        if busy0 is not None and busy1 is not None and t1 > t0:
            self._foreign += (busy1 - busy0) - (own1 - own0)
            self._capacity += (t1 - t0) * cores
            self.share = min(max(self._foreign / self._capacity, 0.0), 1.0)
        return False


def _busy_seconds() -> Optional[float]:
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    # user nice system idle iowait irq softirq steal ...: all but idle and iowait are busy
    ticks = [int(x) for x in fields[1:9]]
    busy = sum(ticks) - ticks[3] - ticks[4]
    return busy / os.sysconf("SC_CLK_TCK")


def _own_cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system


# -- FLOPs -----------------------------------------------------------------------------
def _sdpa_flops(query_shape, key_shape, value_shape, *args, out_shape=None, **kwargs) -> int:
    """Q K^T and P V of scaled dot-product attention (query shape: batch, heads, seq, dim)."""
    b, h, sq, d = query_shape
    sk, dv = key_shape[-2], value_shape[-1]
    return 2 * b * h * sq * sk * d + 2 * b * h * sq * sk * dv


def _sdpa_backward_flops(grad_out_shape, query_shape, key_shape, value_shape, *args, out_shape=None,
                         **kwargs) -> int:
    """dQ, dK, dV and dP: twice the forward's matmul work."""
    return 2 * _sdpa_flops(query_shape, key_shape, value_shape)


def _convolution_backward_flops(grad_out_shape, x_shape, w_shape, _bias, _stride, _padding, _dilation,
                                transposed, _output_padding, _groups, output_mask, *args, out_shape=None,
                                **kwargs) -> int:
    """The input's and the weight's gradient (as output_mask asks), each as much work as the
    forward. torch's own formula counts the weight gradient of a grouped convolution as if
    every input channel met every output channel: `groups` times too high (a depthwise conv's
    by its channel count)."""
    forward = conv_flops(x_shape, w_shape, grad_out_shape, bool(transposed))
    return forward * (int(bool(output_mask[0])) + int(bool(output_mask[1])))


def _extra_flop_formulas() -> dict:
    """FLOP formulas for the CPU attention kernels torch's flop counter has none for, and
    a convolution backward that counts grouped convolutions right."""
    aten = torch.ops.aten
    table = {aten.convolution_backward: _convolution_backward_flops}
    for name, fn in (("_scaled_dot_product_flash_attention_for_cpu", _sdpa_flops),
                     ("_scaled_dot_product_flash_attention_for_cpu_backward", _sdpa_backward_flops)):
        if hasattr(aten, name):
            table[getattr(aten, name)] = fn
    return table


def count_flops(fn: Callable[[], Any]) -> int:
    """FLOPs of the matmuls, convolutions and attention fn runs (forward and backward, if it does both)."""
    return _counted(fn)


def _counted(fn: Callable[[], Any]) -> int:
    from torch.utils.flop_counter import FlopCounterMode
    counter = FlopCounterMode(display=False, custom_mapping=_extra_flop_formulas())
    with counter:
        fn()
    return int(counter.get_total_flops())


def _graph_flops(model: torch.nn.Module, loss_of: Callable[[Any], torch.Tensor], prune: bool) -> int:
    """FLOPs inside the Dynamo graphs of one forward of `model` (as loss_of calls it), with the
    rows nothing reads left out or not, plus the whole backward. Dynamo runs no compiled code
    under a dispatch mode, so each graph counts its own ops as it runs."""
    import torch._dynamo
    from bessemer.compiler.capture.rows import prune_rows
    totals = []

    def backend(gm, example_inputs):
        if prune:
            prune_rows(gm)

        def run(*args):
            out = []
            totals.append(_counted(lambda: out.append(gm.forward(*args))))
            return out[0]
        return run
    torch._dynamo.reset()
    try:
        loss = loss_of(torch.compile(model, backend=backend))
        totals.append(_counted(loss.backward))
    finally:
        torch._dynamo.reset()
        model.zero_grad(set_to_none=True)
    return sum(totals)


def count_needed_flops(model: torch.nn.Module, loss_of: Callable[[Any], torch.Tensor], eager_flops: int) -> int:
    """The FLOPs of the work a step's loss depends on: an eager step's count (count_flops) less
    what the compiler's graphs leave out as rows nothing reads (compiler/capture/rows.py: a
    classifier's last layer computes one token's rows). Eager computes those rows; their
    FLOPs are no work the model needs, and an MFU counting them could pass 100%. `model` is
    a fresh copy nobody has compiled."""
    saved = _graph_flops(model, loss_of, False) - _graph_flops(model, loss_of, True)
    return eager_flops - max(0, saved)


# A CPU without native bf16/fp16 arithmetic converts every element: a 2048 bf16 product
# takes about 40 s there, and the probe would take minutes. On such a CPU the peak is
# measured on products of this side instead. Trade: a smaller product reaches a little
# less of the machine's peak, so MFU reads a little high; the probe stays seconds long.
EMULATED_SIDE = 512


def _emulated(dtype: torch.dtype) -> bool:
    """Whether this CPU lacks instructions for `dtype` products (torch then converts
    every element): bf16 needs AVX512-BF16 or AMX, fp16 AMX-FP16."""
    cpu = torch.cpu
    if dtype == torch.bfloat16:
        return not (getattr(cpu, "_is_avx512_bf16_supported", lambda: False)()
                    or getattr(cpu, "_is_amx_tile_supported", lambda: False)())
    if dtype == torch.float16:
        return not getattr(cpu, "_is_amx_fp16_supported", lambda: False)()
    return False


def matmul_peak(device: torch.device, dtype: torch.dtype, seconds: float = 2.0) -> dict:
    """This machine's achievable FLOP/s: the best of repeated square matmuls (the MFU denominator)."""
    g = torch.Generator(device="cpu").manual_seed(0)

    def operands(n):
        return (torch.randn(n, n, generator=g).to(device=device, dtype=dtype),
                torch.randn(n, n, generator=g).to(device=device, dtype=dtype))

    n = 8192 if device.type == "cuda" else 2048
    if device.type == "cpu" and _emulated(dtype):
        n = EMULATED_SIDE
    a, b = operands(n)
    timed(lambda: a @ b, device)  # warm-up: thread pools, kernel selection
    best, spent, reps = float("inf"), 0.0, 0
    while reps < 3 or spent < seconds:
        _, dt = timed(lambda: a @ b, device)
        best, spent, reps = min(best, dt), spent + dt, reps + 1
        if reps >= 50:
            break
    return {"flops_per_s": 2 * n ** 3 / best, "n": n, "dtype": str(dtype).replace("torch.", ""),
            "device": device.type, "best_s": best, "reps": reps}


# -- memory ------------------------------------------------------------------------------
def storage_bytes(tensors: Iterable[torch.Tensor]) -> int:
    """Bytes of the distinct storages behind `tensors` (views and shared weights counted once)."""
    seen, total = set(), 0
    for t in tensors:
        if not isinstance(t, torch.Tensor) or t.device.type == "meta":
            continue
        s = t.untyped_storage()
        key = (s.device.type, s.data_ptr())
        if key not in seen:
            seen.add(key)
            total += s.nbytes()
    return total


class PeakMemory:
    """Peak live tensor bytes during one marked training step (see the module docstring).

        tracker = PeakMemory(device, existing_tensors)
        with tracker:                 # before the first step
            step(); step()
            with tracker.measured_step():
                step()
        tracker.peak_bytes
    """

    def __init__(self, device: torch.device, existing: Iterable[torch.Tensor] = ()):
        self.device = device
        self.base_bytes = storage_bytes(existing) if device.type == "cpu" else 0
        self.peak_bytes: Optional[int] = None
        self._prof = None
        self.method = ("cuda caching allocator peak" if device.type == "cuda"
                       else "profiler allocation events (torch CPU allocator)")

    def __enter__(self):
        if self.device.type == "cpu":
            from torch.profiler import ProfilerActivity, profile
            self._prof = profile(activities=[ProfilerActivity.CPU], profile_memory=True,
                                 record_shapes=False, with_stack=False)
            self._prof.__enter__()
        return self

    @contextlib.contextmanager
    def measured_step(self):
        if self.device.type == "cuda":
            sync(self.device)
            torch.cuda.reset_peak_memory_stats(self.device)
            yield
            sync(self.device)
            self.peak_bytes = int(torch.cuda.max_memory_allocated(self.device))
        else:
            with torch.profiler.record_function(STEP_MARK):
                yield

    def __exit__(self, *exc):
        if self._prof is None:
            return False
        self._prof.__exit__(*exc)
        if exc[0] is None:
            self.peak_bytes = self.base_bytes + _peak_in_marked_region(self._prof)
        return False


def _peak_in_marked_region(prof) -> int:
    """Largest live total (bytes allocated minus freed since recording began) inside STEP_MARK."""
    from torch._C._profiler import _EventType

    allocations: list[tuple[int, int]] = []
    window: Optional[tuple[int, int]] = None
    stack = list(prof.profiler.kineto_results.experimental_event_tree())
    while stack:
        node = stack.pop()
        if node.tag == _EventType.Allocation:
            fields = node.extra_fields
            if fields.device.type == "cpu":
                allocations.append((node.start_time_ns, int(fields.alloc_size)))
        elif node.name == STEP_MARK:
            window = (node.start_time_ns, node.end_time_ns)  # the last one wins: there is one
        stack.extend(node.children)
    if window is None:
        raise RuntimeError("the measured step left no profiler mark")
    allocations.sort()
    live, peak = 0, None
    for t, size in allocations:
        if t > window[1]:
            break
        if t >= window[0] and peak is None:
            peak = live  # live bytes when the step began
        live += size
        if t >= window[0]:
            peak = max(peak, live)
    return peak if peak is not None else live
