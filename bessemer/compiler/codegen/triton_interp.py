"""libdevice for Triton's interpreter.

Under TRITON_INTERPRET=1 Triton runs kernels in Python over numpy arrays, but
its libdevice functions (tanh, log1p, pow, ...) have no interpreter version.
Generated Triton modules use this namespace in their place when the interpreter
is on: each function applies numpy's version to the block's data, in the
block's own dtype, as libdevice does on the GPU.

`to_bf16` stands in for `x.to(tl.bfloat16)`: the interpreter truncates fp32 to
bf16 where the GPU rounds to nearest even; this rounds as the GPU (and ATen) do.
"""
from __future__ import annotations

import math

import numpy as np
import torch
import triton.language as tl
from triton.runtime.interpreter import TensorHandle


def _block(fn, out_dtype=None):
    def apply(*args):
        t = next(a for a in args if isinstance(a, tl.tensor))
        data = [a.handle.data if isinstance(a, tl.tensor) else a for a in args]
        with np.errstate(all="ignore"):
            out = np.asarray(fn(*data))
        if out_dtype is None:
            out = out.astype(t.handle.data.dtype)
            return tl.tensor(TensorHandle(out, t.handle.dtype), t.type)
        out = out.astype(np.int32)
        ty = tl.block_type(tl.int32, t.type.shape) if t.type.is_block() else tl.int32
        return tl.tensor(TensorHandle(out, tl.int32), ty)
    apply.__name__ = getattr(fn, "__name__", "fn")
    return apply


_erfc = np.vectorize(math.erfc, otypes=[np.float64])

tanh = _block(np.tanh)
expm1 = _block(np.expm1)
log1p = _block(np.log1p)
log10 = _block(np.log10)
tan = _block(np.tan)
atan = _block(np.arctan)
asin = _block(np.arcsin)
acos = _block(np.arccos)
sinh = _block(np.sinh)
cosh = _block(np.cosh)
asinh = _block(np.arcsinh)
acosh = _block(np.arccosh)
atanh = _block(np.arctanh)
erfc = _block(_erfc)
trunc = _block(np.trunc)
nearbyint = _block(np.rint)
pow = _block(np.power)  # noqa: A001 - libdevice's name
atan2 = _block(np.arctan2)
fmod = _block(np.fmod)
copysign = _block(np.copysign)
sqrt = _block(np.sqrt)
rsqrt = _block(lambda x: 1 / np.sqrt(x))
isinf = _block(np.isinf, out_dtype=np.int32)


def to_bf16(x):
    data = np.ascontiguousarray(x.handle.data, dtype=np.float32)
    bits = torch.from_numpy(data).to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    ty = tl.block_type(tl.bfloat16, x.type.shape) if x.type.is_block() else tl.bfloat16
    return tl.tensor(TensorHandle(bits, tl.bfloat16), ty)


def _index_scalar_arguments() -> None:
    """The interpreter passes a kernel's int arguments as one-element arrays, and
    `range(0, n, RBLOCK)` over such an `n` (a symbolic row length) fails under
    numpy 2 ("only 0-dimensional arrays can be converted"): a one-element tensor
    converts to its element, as a scalar argument does on the GPU."""
    import triton.runtime.interpreter as interp
    original = interp._patch_lang_tensor
    if getattr(original, "_bessemer", False):
        return

    def patch(tensor, scope):
        original(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(self.handle.data.reshape(-1)[0])
                       if self.handle.data.size == 1 else int(self.handle.data))

    patch._bessemer = True
    interp._patch_lang_tensor = patch


_index_scalar_arguments()
