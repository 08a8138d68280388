"""Eager's random draws on a CPU, made faster: dropout's Bernoulli masks.

A compiled dropout must draw eager's mask (the same generator calls, so the same mask for the
same seed, and the generator left where eager leaves it). ATen's CPU `bernoulli_(p)` draws one
element at a time through its Mersenne Twister engine (two 32-bit words per element, made a
53-bit uniform double, compared with p), under the generator's lock, on one thread: about
6 ns an element on the 2-core benchmark machine, 0.19 ms for a [64, 512] mask, more than the
matmul it follows in a small MLP.

`bernoulli_like` makes the same draws in a small native library: the generator's state is read
(`get_state`), the engine advanced block by block (the twist of 624 words, then the tempering of
a block of words as one vector loop), each element's comparison done on integers
(k * 2^-53 < p exactly when k < ceil(p * 2^53), k the 53-bit integer), and the state written
back (`set_state`). Same words, same order, same comparison: the same mask bit for bit, and the
generator where eager's draw leaves it (about 8x faster at [64, 512], get_state and set_state
included).

The library is checked once per process against ATen on two private generators (values and the
state after the draw, across a twist); a torch whose engine or state layout differs fails the
check and every draw stays ATen's, with one warning. The library is called holding the GIL, so no
other Python thread draws from the generator between the read and the write of its state.
"""
from __future__ import annotations

import ctypes
import threading
import warnings
from typing import Optional

import torch

from bessemer.compiler.codegen import build as _build

SOURCE = r"""
#include <stdint.h>
#include <string.h>

// torch's CPU generator state as get_state() writes it (CPUGeneratorImplStateLegacy)
struct bessemer_cpu_rng_state {
  uint64_t seed; int32_t left; int32_t seeded; uint64_t next; uint64_t state[624];
  double normal_x, normal_y, normal_rho; int32_t normal_is_valid;
};
enum { MT_N = 624, MT_M = 397, BLOCK = 2048 };

static inline uint32_t twist(uint32_t u, uint32_t v) {
  return (((u & 0x80000000u) | (v & 0x7fffffffu)) >> 1) ^ ((v & 1u) ? 0x9908b0dfu : 0u);
}
static void next_state(uint32_t* __restrict s) {
  for (int j = 0; j < MT_N - MT_M; j++) s[j] = s[j + MT_M] ^ twist(s[j], s[j + 1]);
  for (int j = MT_N - MT_M; j < MT_N - 1; j++) s[j] = s[j + MT_M - MT_N] ^ twist(s[j], s[j + 1]);
  s[MT_N - 1] = s[MT_M - 1] ^ twist(s[MT_N - 1], s[0]);
}
static inline uint32_t temper(uint32_t y) {
  y ^= (y >> 11); y ^= (y << 7) & 0x9d2c5680u; y ^= (y << 15) & 0xefc60000u; y ^= (y >> 18);
  return y;
}

// n Bernoulli(p) draws as ATen's CPU bernoulli_(p) makes them, written as `one` or 0 in
// elements of `bytes` bytes (4: float, 8: double, 2: bfloat16 / half); the state advanced.
extern "C" int bessemer_bernoulli(void* raw_state, void* out, int64_t n, double p,
                                  int32_t bytes, uint64_t one) {
  if (!(p >= 0.0 && p <= 1.0) || (bytes != 2 && bytes != 4 && bytes != 8)) return 1;
  bessemer_cpu_rng_state* st = (bessemer_cpu_rng_state*)raw_state;
  if (st->left < 1 || st->left > MT_N || st->next > MT_N) return 2;
  alignas(64) uint32_t s[MT_N];
  for (int i = 0; i < MT_N; i++) s[i] = (uint32_t)st->state[i];
  int64_t left = st->left, next = (int64_t)st->next;
  // the uniform double is k * 2^-53 (exact), k the low 53 bits of (word1 << 32 | word2):
  // it is below p exactly when k < ceil(p * 2^53)
  const double two53 = 9007199254740992.0;
  const double pt = p * two53;
  uint64_t limit = (uint64_t)pt;
  if ((double)limit < pt) limit += 1;
  alignas(64) uint32_t w[2 * BLOCK];
  for (int64_t base = 0; base < n; base += BLOCK) {
    const int64_t m = n - base < BLOCK ? n - base : BLOCK;
    const int64_t need = 2 * m;
    int64_t got = 0;
    while (got < need) {
      // the engine's draw: when left falls to 0 it twists (left = N, next = 0), then takes
      // word `next`; so left - 1 words lie ready
      if (left == 1) { next_state(s); left = MT_N + 1; next = 0; }
      int64_t k = left - 1;
      if (k > need - got) k = need - got;
      for (int64_t j = 0; j < k; j++) w[got + j] = temper(s[next + j]);
      got += k; left -= k; next += k;
    }
    if (bytes == 4) {
      uint32_t* o = (uint32_t*)out + base;
      for (int64_t i = 0; i < m; i++)
        o[i] = ((((uint64_t)(w[2 * i] & 0x1fffffu) << 32) | w[2 * i + 1]) < limit) ? (uint32_t)one : 0u;
    } else if (bytes == 8) {
      uint64_t* o = (uint64_t*)out + base;
      for (int64_t i = 0; i < m; i++)
        o[i] = ((((uint64_t)(w[2 * i] & 0x1fffffu) << 32) | w[2 * i + 1]) < limit) ? one : 0u;
    } else {
      uint16_t* o = (uint16_t*)out + base;
      for (int64_t i = 0; i < m; i++)
        o[i] = ((((uint64_t)(w[2 * i] & 0x1fffffu) << 32) | w[2 * i + 1]) < limit) ? (uint16_t)one : 0u;
    }
  }
  for (int i = 0; i < MT_N; i++) st->state[i] = s[i];
  st->left = (int32_t)left;
  st->next = (uint64_t)next;
  return 0;
}
"""

# the bit pattern of 1.0 per dtype, and its element size
_ONE = {torch.float32: (4, 0x3F800000), torch.float64: (8, 0x3FF0000000000000),
        torch.bfloat16: (2, 0x3F80), torch.float16: (2, 0x3C00)}
# get_state()'s size for the layout above (legacy state, then the float normal sample and its flag)
STATE_BYTES = 5056

_lock = threading.Lock()
_native: dict[str, object] = {}      # cache_dir -> the checked function, or None where it failed


def _load(cache_dir: str):
    with _lock:
        if cache_dir in _native:
            return _native[cache_dir]
    fn = None
    try:
        lib, so_path, _ = _build.build(SOURCE, cache_dir, name="rng", symbols=("bessemer_bernoulli",))
        # PyDLL: the call keeps the GIL, so the state read and written back is not raced by
        # another Python thread's draw
        fn = ctypes.PyDLL(so_path, handle=lib._handle).bessemer_bernoulli
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_double, ctypes.c_int32,
                       ctypes.c_uint64]
        problem = _self_check(fn)
        if problem:
            warnings.warn(f"bessemer: dropout masks are drawn by ATen's bernoulli_ ({problem})",
                          RuntimeWarning, stacklevel=3)
            fn = None
    except (OSError, _build.BuildError) as e:
        warnings.warn(f"bessemer: the native random draws did not build ({e}); dropout masks are drawn by "
                      f"ATen's bernoulli_", RuntimeWarning, stacklevel=3)
        fn = None
    with _lock:
        _native[cache_dir] = fn
    return fn


def _draw(fn, out: torch.Tensor, p: float, gen: torch.Generator) -> bool:
    state = gen.get_state()
    if state.numel() != STATE_BYTES:
        return False
    nbytes, one = _ONE[out.dtype]
    if fn(state.data_ptr(), out.data_ptr(), out.numel(), float(p), nbytes, one) != 0:
        return False
    gen.set_state(state)
    return True


def _self_check(fn) -> str:
    """'' when the library draws ATen's masks and leaves the generator as ATen does; else why not."""
    for dtype, n, p, seed in ((torch.float32, 1500, 0.37, 1234), (torch.float64, 700, 0.9, 7),
                              (torch.bfloat16, 333, 0.5, 99)):
        ref_gen, gen = torch.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)
        torch.empty(5).uniform_(generator=ref_gen)
        torch.empty(5).uniform_(generator=gen)
        ref = torch.empty(n, dtype=dtype).bernoulli_(p, generator=ref_gen)
        out = torch.empty(n, dtype=dtype)
        if not _draw(fn, out, p, gen):
            return "the generator's state has a layout this library does not know"
        if not torch.equal(out, ref):
            return "its masks differ from ATen's"
        if not torch.equal(gen.get_state(), ref_gen.get_state()):
            return "it leaves the generator's state other than ATen does"
    return ""


def bernoulli_like(x: torch.Tensor, p: float, cache_dir: str, strides: Optional[tuple] = None) -> torch.Tensor:
    """A new tensor of x's shape and dtype holding Bernoulli(p) draws from the default CPU
    generator: `torch.empty_strided(x.shape, strides).bernoulli_(p)` (contiguous when strides is
    None), drawn by the native library where it passed its check (the same values and generator
    state), by ATen otherwise. ATen draws one element after the other in memory order (a
    nullary TensorIterator over dense memory), as the library does."""
    if strides is None:
        out = torch.empty_like(x, memory_format=torch.contiguous_format)
    else:
        out = torch.empty_strided(tuple(x.shape), tuple(strides), dtype=x.dtype, device=x.device)
    if out.device.type == "cpu" and out.dtype in _ONE and out.numel():
        fn = _load(cache_dir)
        if fn is not None and _draw(fn, out, p, torch.default_generator):
            return out
    return out.bernoulli_(p)
