"""Does a batch fit? An estimate of one eager training step's memory, made before anything runs.

The model is built on the meta device (shapes only, no memory) and a forward and
backward pass run on it under a dispatch mode that adds up the bytes of live
storages. Where a model reads a tensor's value in Python (which meta tensors
cannot do), it runs for real on the CPU at batch 1 instead, and the activations
are scaled by the batch. AdamW keeps two more tensors per parameter.
"""
from __future__ import annotations

import os
import weakref
from typing import Optional

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from .. import zoo


class _LiveBytes(TorchDispatchMode):
    """Bytes of storages created by ops and still alive; the peak of that total."""

    def __init__(self):
        super().__init__()
        self.live = self.peak = 0
        self._seen: set[int] = set()

    def _free(self, key: int, nbytes: int) -> None:
        self._seen.discard(key)
        self.live -= nbytes

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor):
                s = t.untyped_storage()
                key = s._cdata
                if key not in self._seen:
                    self._seen.add(key)
                    self.live += s.nbytes()
                    weakref.finalize(s, self._free, key, s.nbytes())
        self.peak = max(self.peak, self.live)
        return out


def _step_peak(w: zoo.Workload) -> int:
    """Peak bytes created during one forward + backward of `w`."""
    batch = w.make_batch(0)
    tracker = _LiveBytes()
    with tracker:
        w.loss_fn(w.model, batch).backward()
    return tracker.peak


def _param_bytes(model: torch.nn.Module) -> int:
    seen, total = set(), 0
    for t in list(model.parameters()) + list(model.buffers()):
        if id(t) not in seen:
            seen.add(id(t))
            total += t.numel() * t.element_size()
    return total


def estimate_step_bytes(name: str, scale: str, batch: Optional[int], seq: Optional[int],
                        image: Optional[int]) -> Optional[int]:
    """Estimated bytes of one eager AdamW training step, or None when it cannot be estimated."""
    try:
        w = zoo.build(name, scale, batch, seq, image, device="meta")
        params = _param_bytes(w.model)
        return 3 * params + _step_peak(w)
    except zoo.ZooError:
        raise
    except Exception:
        pass
    try:  # a model that reads tensor values: measure batch 1 on the CPU and scale it
        w = zoo.build(name, scale, 1, seq, image, device="cpu")
        params = _param_bytes(w.model)
        peak = _step_peak(w)
        grads = params  # the gradients do not grow with the batch
        full_batch = zoo.resolve(name, scale, batch, seq, image)[1].batch
        return 3 * params + grads + (peak - grads) * full_batch
    except Exception:
        return None


def available_bytes(device: torch.device) -> Optional[int]:
    """Memory a training step may use on `device` now."""
    if device.type == "cuda":
        free, _total = torch.cuda.mem_get_info(device)
        return int(free)
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
