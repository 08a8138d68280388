"""`torch.nn.utils.clip_grad_norm_` over a compiled optimizer's parameters, with its scaling native.

A training loop clips between `backward()` and `opt.step()`; torch's function runs as Python and
foreach ATen calls: the gradients grouped by device and dtype, one norm per gradient
(`_foreach_norm`), a stack and a vector norm, a division, a clamp, a copy and `_foreach_mul_`:
about 0.2 ms a step for a small model's 50 gradients on the 2-core benchmark machine, a few
percent of its step. Once `bessemer.compile(model, optimizer=opt)` compiled the update
(config.compile_optimizer), a call whose parameters are all that optimizer's (float32, contiguous
CPU gradients, the 2-norm) is served here: the total norm is ATen's own (`_foreach_norm`, then
the vector norm of their stack: eager's value bit for bit), and one native call computes eager's
coefficient in float32 as torch does (`max_norm / (total + 1e-6)`, as a reciprocal times
max_norm, clamped at 1; NaN stays NaN) and scales every gradient in place, in parallel. The
gradients are scaled before the call returns, as eager's are: anything reading them between the
clip and the step sees eager's values. Any other call (another norm, a parameter of no compiled
optimizer, a GPU, bf16 gradients, a gradient that requires grad, `error_if_nonfinite` with a
norm that is not finite) is torch's own function, unchanged.

`clip_grad_norm_` is replaced in `torch.nn.utils` and `torch.nn.utils.clip_grad` at the first
compiled optimizer (a name imported from there before that keeps torch's function: correct, not
faster).
"""
from __future__ import annotations

import ctypes
import functools
import threading
import warnings
import weakref
from typing import Any, Optional

import torch

from bessemer.compiler.codegen import build as _build

SOURCE = r"""
#include <stdint.h>

extern "C" {

// eager's coefficient, in float32: min(max_norm / (total + 1e-6), 1), the division as
// reciprocal times max_norm (Tensor.__rtruediv__); every gradient times it, in place
void bessemer_clip_scale(float* const* g, const int64_t* n, int64_t count, float total, double max_norm) {
  float d = total + (float)1e-6;
  float coef = (1.0f / d) * (float)max_norm;
  if (coef > 1.0f) coef = 1.0f;
  if (coef == 1.0f) return;  // a product with 1 is the gradient itself
  #pragma omp parallel for schedule(dynamic, 1)
  for (int64_t t = 0; t < count; t++) {
    float* p = g[t];
    const int64_t m = n[t];
    for (int64_t i = 0; i < m; i++) p[i] = p[i] * coef;
  }
}

}
"""

_lock = threading.Lock()
# the compiled optimizers' parameters: id -> a weak reference (a tensor's == is elementwise, so
# no set of tensors), and the kernel cache the library is built in
_params: dict[int, weakref.ref] = {}
_cache_dir: Optional[str] = None
_original: Optional[Any] = None
calls = {"native": 0, "torch": 0}              # how the calls were served (tests)


@functools.cache
def _load(cache_dir: str):
    """The scaling function of the library in this cache, or None where it did not build (two
    threads loading at once build it once: build() locks the cache entry)."""
    try:
        lib, _, _ = _build.build(SOURCE, cache_dir, name="clip", symbols=("bessemer_clip_scale",))
    except (OSError, _build.BuildError) as e:
        warnings.warn(f"bessemer: the native gradient clipping did not build ({e}); clip_grad_norm_ stays "
                      f"torch's", RuntimeWarning, stacklevel=3)
        return None
    fn = lib.bessemer_clip_scale
    fn.restype = None
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_float, ctypes.c_double]
    return fn


def register(optimizer: torch.optim.Optimizer, cache_dir: str) -> None:
    """Serve clip_grad_norm_ calls over this optimizer's parameters natively (see the module)."""
    global _original, _cache_dir
    with _lock:
        for k in [k for k, r in _params.items() if r() is None]:
            del _params[k]
        for group in optimizer.param_groups:
            for p in group["params"]:
                if isinstance(p, torch.Tensor):
                    _params[id(p)] = weakref.ref(p)
        _cache_dir = cache_dir
        if _original is not None:
            return
        import torch.nn.utils as utils
        import torch.nn.utils.clip_grad as clip_grad
        _original = clip_grad.clip_grad_norm_
        replacement = functools.wraps(_original)(clip_grad_norm_)
        clip_grad.clip_grad_norm_ = replacement
        utils.clip_grad_norm_ = replacement


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach: Optional[bool] = None) -> torch.Tensor:
    params = [parameters] if isinstance(parameters, torch.Tensor) else list(parameters)
    total = _native_clip(params, max_norm, norm_type, error_if_nonfinite)
    if total is not None:
        calls["native"] += 1
        return total
    calls["torch"] += 1
    return _original(params, max_norm, norm_type, error_if_nonfinite, foreach)


def _native_clip(params: list, max_norm, norm_type, error_if_nonfinite: bool) -> Optional[torch.Tensor]:
    """The total norm, the gradients scaled; None where torch's function must serve the call."""
    try:
        if float(norm_type) != 2.0:
            return None
        max_norm = float(max_norm)
    except (TypeError, ValueError):
        return None
    grads = []
    for p in params:
        ref = _params.get(id(p))
        if ref is None or ref() is not p:
            return None
        g = p.grad
        if g is None:
            continue
        # (a gradient that requires grad, from create_graph=True, keeps ATen's in-place update
        # and its version counter)
        if g.dtype != torch.float32 or g.device.type != "cpu" or g.layout != torch.strided \
                or not g.is_contiguous() or g.requires_grad:
            return None
        grads.append(g)
    if not grads or _cache_dir is None:
        return None
    scale = _load(_cache_dir)
    if scale is None:
        return None
    # the norms as eager computes them (ATen's, bit for bit), the rest in one native call
    total = torch.linalg.vector_norm(torch.stack(torch._foreach_norm(grads, 2)), 2)
    if error_if_nonfinite and not bool(torch.isfinite(total)):
        return None      # torch's function raises its own error, nothing scaled
    n = len(grads)
    scale((ctypes.c_void_p * n)(*[g.data_ptr() for g in grads]), (ctypes.c_int64 * n)(*[g.numel() for g in grads]),
          n, float(total), max_norm)
    return total
