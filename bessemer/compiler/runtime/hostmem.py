"""Host memory kept in the process between training steps.

A CPU training step allocates and frees the same large buffers every step: activations,
saved values, gradients, the outputs of ATen's matmuls. With glibc's default malloc
settings many of them go back to the operating system when freed -- blocks above the
mmap threshold are unmapped, and free memory at the top of the heap is trimmed -- and
the next step gets fresh pages, each faulted in and zeroed by the kernel on first touch.
Measured on the 2-core machine of the benchmarks: writing a fresh 64 MiB buffer takes
3.4x as long as writing one already mapped (about 1.1 us per 4 KiB page), and a GPT-2
step (small scale) faulted in 9,000-19,000 pages, eager's 32,000.

`retain()` raises the two thresholds once per process (`mallopt`), so freed blocks stay
in malloc's heap and the next step reuses them: the host counterpart of a GPU caching
allocator. The trade is the same as that allocator's: the process's resident memory
stays at its high-water mark instead of shrinking between steps (what is live at the
peak does not change). TrainingCompilerConfig(retain_host_memory=False) leaves malloc
alone. Other C libraries (musl, macOS, Windows) are left as they are.
"""
from __future__ import annotations

import ctypes
import logging
import sys
import threading

log = logging.getLogger("bessemer")

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
# mallopt takes an int. Blocks above 1 GiB are still mapped and unmapped on their own
# (one such block is a few faults per MiB moved, not worth holding forever); the heap
# gives back what lies free at its top only beyond 2 GiB.
MMAP_THRESHOLD = 1 << 30
TRIM_THRESHOLD = (1 << 31) - 1

_lock = threading.Lock()
_state: dict = {"done": False, "retained": False}


def _glibc():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        version = libc.gnu_get_libc_version
    except (OSError, AttributeError):
        return None
    version.restype = ctypes.c_char_p
    return libc


def retain() -> bool:
    """Keep freed host memory in the process (once per process); True where it applies."""
    with _lock:
        if _state["done"]:
            return _state["retained"]
        _state["done"] = True
        libc = _glibc()
        if libc is None:
            log.debug("bessemer: not glibc; host memory left to the C library's defaults")
            return False
        ok = (libc.mallopt(_M_MMAP_THRESHOLD, ctypes.c_int(MMAP_THRESHOLD)) == 1
              and libc.mallopt(_M_TRIM_THRESHOLD, ctypes.c_int(TRIM_THRESHOLD)) == 1)
        if not ok:
            log.debug("bessemer: mallopt refused the thresholds; host memory left as it was")
        _state["retained"] = ok
        return ok


def retained() -> bool:
    """Whether this process's freed host memory is kept (retain() took effect)."""
    return _state["retained"]
