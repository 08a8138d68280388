"""Render fused optimizer updates as C++.

One exported function per `UpdateSpec` (optimizer kind, static options, dtype)
updates every tensor of a parameter group in one call: it takes arrays of
pointers (params, grads, state buffers) and element counts, splits the
concatenated elements evenly over the OpenMP threads, and runs one
vectorizable loop per tensor slice, so each element is read and written once.

The arithmetic mirrors torch's single-tensor implementations on CPU
(torch/optim/sgd.py, adam.py), which is what torch runs there by default,
operation by operation and with the same float rounding:

    torch op                              element formula (x86 ATen, fp32/fp64)
    a.add(b, alpha=s)                     fma(b, s, a)
    a.lerp(b, w), |w| < 0.5               fma(w, b - a, a)
    a.lerp(b, w), |w| >= 0.5              fma(w - 1, b - a, b)
    a.addcmul(t1, t2, value=s)            fma(s * t1, t2, a)
    a.addcdiv(t1, t2, value=s)            a + (s * t1) / t2
    a / s, a.mul(s), a.add(s)             one rounding each, s cast to the dtype
    a.sqrt()                              MKL's vsSqrt/vdSqrt where ATen uses it
    torch.maximum(a, b)                   NaN if either is NaN

The build runs with -ffp-contract=off, so every fma above is written out and
nothing else is fused. Per-tensor scalars (bias corrections, step sizes) are
computed in double exactly as torch computes them in Python floats, then cast
to the tensor dtype where torch casts a Python scalar.
"""
from __future__ import annotations

from dataclasses import dataclass

# torch dtype name -> C++ type. bf16/fp16 are not here on purpose: ATen's
# reduced-precision kernels round the scalar `alpha` to bf16 in the vector
# body but not in the scalar tail, so which elements see which rounding depends
# on how ATen splits the tensor among threads; a fused kernel cannot match that.
CTYPES = {"float32": "float", "float64": "double"}

KINDS = ("sgd", "adam")
WEIGHT_DECAY = ("none", "l2", "decoupled")


@dataclass(frozen=True)
class UpdateSpec:
    """The static shape of one fused update; every field changes the generated code.

    kind          "sgd" or "adam" (AdamW is adam with weight_decay="decoupled")
    dtype         parameter, gradient and state dtype: "float32" or "float64"
    maximize      ascend instead of descend (the gradient is negated)
    weight_decay  "none", "l2" (added to the gradient) or "decoupled" (adam only:
                  the parameter is scaled by 1 - lr * weight_decay)
    momentum      sgd: keep a momentum buffer
    nesterov      sgd: Nesterov momentum (needs momentum)
    amsgrad       adam: keep the running maximum of exp_avg_sq
    step_dtype    adam: dtype of state["step"] ("float32", or "float64" when
                  torch's default dtype was float64 as the state was made)
    """

    kind: str
    dtype: str
    maximize: bool = False
    weight_decay: str = "none"
    momentum: bool = False
    nesterov: bool = False
    amsgrad: bool = False
    step_dtype: str = "float32"

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"UpdateSpec.kind must be one of {KINDS}, got {self.kind!r}")
        if self.dtype not in CTYPES:
            raise ValueError(f"UpdateSpec.dtype must be one of {sorted(CTYPES)}, got {self.dtype!r}")
        if self.step_dtype not in CTYPES:
            raise ValueError(f"UpdateSpec.step_dtype must be one of {sorted(CTYPES)}, got {self.step_dtype!r}")
        if self.weight_decay not in WEIGHT_DECAY:
            raise ValueError(f"UpdateSpec.weight_decay must be one of {WEIGHT_DECAY}, got {self.weight_decay!r}")
        if self.kind == "sgd" and (self.amsgrad or self.weight_decay == "decoupled"):
            raise ValueError("UpdateSpec: amsgrad and decoupled weight decay are adam options")
        if self.kind == "adam" and (self.momentum or self.nesterov):
            raise ValueError("UpdateSpec: momentum and nesterov are sgd options")
        if self.nesterov and not self.momentum:
            raise ValueError("UpdateSpec: nesterov needs momentum")

    @property
    def symbol(self) -> str:
        """The exported C name, e.g. bessemer_adam_f32_amsgrad_wd_decoupled."""
        parts = ["bessemer", self.kind, "f32" if self.dtype == "float32" else "f64"]
        if self.kind == "adam" and self.step_dtype != "float32":
            parts.append("step_f64")
        if self.maximize:
            parts.append("maximize")
        if self.weight_decay != "none":
            parts.append(f"wd_{self.weight_decay}")
        if self.momentum:
            parts.append("momentum")
        if self.nesterov:
            parts.append("nesterov")
        if self.amsgrad:
            parts.append("amsgrad")
        return "_".join(parts)


# Signatures as the loader declares them (ctypes argtypes): each entry is
# (C declaration, ctypes type name).
SGD_ARGS = (
    ("int64_t n", "c_int64"),
    ("void* const* params", "c_void_p"),
    ("void* const* grads", "c_void_p"),
    ("void* const* bufs", "c_void_p"),          # momentum buffers (unused without momentum)
    ("const uint8_t* fresh", "c_void_p"),       # 1: buffer is new, set it to the gradient
    ("const int64_t* numels", "c_void_p"),
    ("double lr", "c_double"),
    ("double weight_decay", "c_double"),
    ("double momentum", "c_double"),
    ("double dampening", "c_double"),
)
ADAM_ARGS = (
    ("int64_t n", "c_int64"),
    ("void* const* params", "c_void_p"),
    ("void* const* grads", "c_void_p"),
    ("void* const* exp_avgs", "c_void_p"),
    ("void* const* exp_avg_sqs", "c_void_p"),
    ("void* const* max_exp_avg_sqs", "c_void_p"),  # unused without amsgrad
    ("void* const* steps", "c_void_p"),            # 0-d step tensors, incremented here
    ("const int64_t* numels", "c_void_p"),
    ("double lr", "c_double"),
    ("int32_t lr_is_f32", "c_int32"),              # lr is a float32 tensor: its math is float32
    ("double beta1", "c_double"),
    ("double beta2", "c_double"),
    ("double weight_decay", "c_double"),
    ("double eps", "c_double"),
    ("const void* sqrt_impl", "c_void_p"),        # torch's vector sqrt, or null: std::sqrt
    ("const void* threads_local", "c_void_p"),    # MKL's mkl_set_num_threads_local, or null
)


def signature(spec: UpdateSpec) -> tuple[tuple[str, str], ...]:
    return SGD_ARGS if spec.kind == "sgd" else ADAM_ARGS


_PRELUDE = """\
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>
#include <omp.h>

typedef {scalar} scalar_t;

// Below this many elements in a group one thread does the whole update: a
// parallel region costs a few microseconds, about what one core needs for
// 32K elements of Adam (ATen's elementwise grain size is the same 32768).
static const int64_t kParallelGrain = 32768;
// Thread slices start on multiples of 64 elements (one AVX-512 vector of
// doubles is 8, of floats 16; 64 keeps every slice cache-line aligned).
static const int64_t kSliceAlign = 64;

// Adam works in blocks that stay in L1: moments, then the square roots of a
// block in one call, then the parameter update; each thread holds two block
// buffers (the roots, and MKL's scratch below). Blocks of 256 to 16384 elements
// were measured (scripts/optim_blocks.py): all within 1 ms of each other.
static const int64_t kBlock = 512;

// torch's CPU sqrt. On builds with MKL, ATen computes sqrt with MKL's vector
// routine (vsSqrt / vdSqrt, within 1 ulp, not always the IEEE result); the
// caller passes its address so that the update rounds exactly as eager does.
// Null: torch's sqrt is the IEEE one.
//
// MKL's vector sqrt takes a slow path on zeros: a block of zeros costs it 6x a block
// of other values (2M floats, one thread: 6.9 ms against 1.1). An embedding's rows
// that no batch has touched keep exp_avg_sq at 0 (88% of BERT small's word
// embedding after a few steps), so zeros are common; they are answered here
// (sqrt(+-0) = +-0, in MKL as in IEEE) and MKL sees only the other values. The
// check is one pass over a block that is in cache; `scratch` holds a block.
typedef void (*sqrt_fn)(int, const scalar_t*, scalar_t*);
// MKL's mkl_set_num_threads_local. torch.set_num_threads turns MKL's dynamic threading
// off, so MKL called on a thread of this loop's team (whose MKL thread count is the
// global one) opens a nested parallel region of its own on every call; each thread
// sets its count to 1 for the update and puts it back after (the update of GPT-2
// small's parameters in training, 5.3M floats, 2 threads: 11.0 ms without, 6.2 ms
// with; DeBERTa small's 8.6 and 4.3 ms: scripts/optim_blocks.py).
typedef int (*threads_local_fn)(int);
static inline void sqrt_block(sqrt_fn fn, const scalar_t* x, scalar_t* out, int64_t len,
                              scalar_t* scratch) {{
  if (fn) {{
    int64_t zeros = 0;
    #pragma omp simd reduction(+:zeros)
    for (int64_t j = 0; j < len; ++j) zeros += (x[j] == (scalar_t)0);
    if (zeros == 0) {{
      fn((int)len, x, out);
    }} else if (zeros == len) {{
      #pragma omp simd
      for (int64_t j = 0; j < len; ++j) out[j] = x[j];
    }} else {{
      scalar_t* __restrict__ nonzero = scratch;
      #pragma omp simd
      for (int64_t j = 0; j < len; ++j) nonzero[j] = x[j] == (scalar_t)0 ? (scalar_t)1 : x[j];
      fn((int)len, nonzero, out);
      #pragma omp simd
      for (int64_t j = 0; j < len; ++j) out[j] = x[j] == (scalar_t)0 ? x[j] : out[j];
    }}
  }} else {{
    #pragma omp simd
    for (int64_t j = 0; j < len; ++j) out[j] = std::sqrt(x[j]);
  }}
}}

// The slice [lo, hi) of the concatenation of all tensors that thread t of nt
// updates.
static inline void thread_slice(int64_t total, int t, int nt, int64_t* lo, int64_t* hi) {{
  int64_t per = (total + nt - 1) / nt;
  per = (per + kSliceAlign - 1) / kSliceAlign * kSliceAlign;
  *lo = std::min(total, per * t);
  *hi = std::min(total, *lo + per);
}}
"""

# The driver shared by both kinds: prefix offsets, then each thread walks the
# tensors overlapping its slice and calls UPDATE(i, begin, end) on each part.
_DRIVER = """\
  std::vector<int64_t> offset(n + 1, 0);
  for (int64_t i = 0; i < n; ++i) offset[i + 1] = offset[i] + numels[i];
  const int64_t total = offset[n];
  #pragma omp parallel if (total >= kParallelGrain)
  {{
    int64_t lo, hi;
    thread_slice(total, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
{thread_setup}
    int64_t i = std::upper_bound(offset.begin(), offset.end(), lo) - offset.begin() - 1;
    for (; lo < hi && i < n; ++i) {{
      if (offset[i + 1] <= lo) continue;
      const int64_t begin = lo - offset[i];
      const int64_t end = std::min(hi, offset[i + 1]) - offset[i];
{body}
      lo = offset[i + 1];
    }}
{thread_teardown}
  }}
"""


def _indent(lines: list[str], n: int) -> str:
    return "\n".join((" " * n + ln) if ln else "" for ln in lines)


def _render_sgd(spec: UpdateSpec) -> str:
    s = "scalar_t"
    head = [
        f"  const {s} lr_neg = ({s})(-lr);",
        f"  const {s} wd = ({s})weight_decay;",
        f"  const {s} mom = ({s})momentum;",
        f"  const {s} one_minus_damp = ({s})(1.0 - dampening);",
    ]
    body = [
        f"{s}* __restrict__ p = ({s}*)params[i];",
        f"const {s}* __restrict__ g = (const {s}*)grads[i];",
    ]
    if spec.momentum:
        body += [f"{s}* __restrict__ buf = ({s}*)bufs[i];",
                 "const bool is_fresh = fresh[i] != 0;"]
    loop = ["#pragma omp simd", "for (int64_t j = begin; j < end; ++j) {",
            f"  {s} d = {'-g[j]' if spec.maximize else 'g[j]'};"]
    if spec.weight_decay == "l2":
        loop.append("  d = std::fma(p[j], wd, d);                    // grad.add(param, alpha=wd)")
    if spec.momentum:
        loop += [
            f"  const {s} b = is_fresh ? d                          // buf = grad.clone()",
            "      : std::fma(d, one_minus_damp, buf[j] * mom);      // buf.mul_(m).add_(grad, alpha=1-damp)",
            "  buf[j] = b;",
        ]
        if spec.nesterov:
            loop.append("  d = std::fma(b, mom, d);                      // grad.add(buf, alpha=momentum)")
        else:
            loop.append("  d = b;")
    loop += ["  p[j] = std::fma(d, lr_neg, p[j]);               // param.add_(grad, alpha=-lr)", "}"]
    body += loop
    return _function(spec, head, body)


def _render_adam(spec: UpdateSpec) -> str:
    s = "scalar_t"
    st = CTYPES[spec.step_dtype]
    head = [
        "  // Per-tensor scalars, as torch computes them in Python floats.",
        f"  std::vector<{s}> neg_step_size(n), bc2_sqrt(n), decay(n);",
        "  for (int64_t i = 0; i < n; ++i) {",
        f"    {st}* step_t = ({st}*)steps[i];",
        f"    *step_t = *step_t + ({st})1;                       // step_t += 1",
        "    const double step = (double)*step_t;",
        "    const double bc1 = 1.0 - std::pow(beta1, step);",
        "    const double bc2 = 1.0 - std::pow(beta2, step);",
        f"    bc2_sqrt[i] = ({s})std::pow(bc2, 0.5);          // bias_correction2 ** 0.5",
        "    if (lr_is_f32) {                                    // float32 tensor lr: float32 math",
        "      const float lr_f = (float)lr;",
        f"      neg_step_size[i] = ({s})(-(lr_f / (float)bc1));",
        f"      decay[i] = ({s})(1.0f - lr_f * (float)weight_decay);",
        "    } else {",
        f"      neg_step_size[i] = ({s})(-(lr / bc1));",
        f"      decay[i] = ({s})(1.0 - lr * weight_decay);",
        "    }",
        "  }",
        f"  const {s} wd = ({s})weight_decay;",
        f"  const {s} w1 = ({s})(1.0 - beta1);                  // lerp weight",
        "  const bool w1_small = std::abs(w1) < 0.5;",
        f"  const {s} w1_coeff = w1_small ? w1 : w1 - ({s})1;",
        f"  const {s} b2 = ({s})beta2;",
        f"  const {s} one_minus_b2 = ({s})(1.0 - beta2);",
        f"  const {s} eps_s = ({s})eps;",
        "  const sqrt_fn vsqrt = (sqrt_fn)sqrt_impl;",
    ]
    body = [
        f"{s}* __restrict__ p = ({s}*)params[i];",
        f"const {s}* __restrict__ g = (const {s}*)grads[i];",
        f"{s}* __restrict__ m = ({s}*)exp_avgs[i];",
        f"{s}* __restrict__ v = ({s}*)exp_avg_sqs[i];",
    ]
    if spec.amsgrad:
        body.append(f"{s}* __restrict__ vmax = ({s}*)max_exp_avg_sqs[i];")
    body += [f"const {s} ss = neg_step_size[i], bc2s = bc2_sqrt[i];"]
    if spec.weight_decay == "decoupled":
        body.append(f"const {s} dec = decay[i];")
    grad = "-g[j]" if spec.maximize else "g[j]"
    # Pass 1 over a block: the moments.
    body += [
        "for (int64_t j0 = begin; j0 < end; j0 += kBlock) {",
        "  const int64_t j1 = std::min(end, j0 + kBlock);",
        "  #pragma omp simd",
        "  for (int64_t j = j0; j < j1; ++j) {",
        f"    {s} d = {grad};",
    ]
    if spec.weight_decay == "l2":
        body.append("    d = std::fma(p[j], wd, d);                   // grad.add(param, alpha=wd)")
    body += [
        f"    const {s} mj = std::fma(w1_coeff, d - m[j], w1_small ? m[j] : d);  // exp_avg.lerp_(grad, 1-beta1)",
        "    m[j] = mj;",
        f"    const {s} vj = std::fma(one_minus_b2 * d, d, v[j] * b2);  // exp_avg_sq.mul_(b2).addcmul_(g, g, 1-b2)",
        "    v[j] = vj;",
    ]
    src = "v"
    if spec.amsgrad:
        body += [
            f"    const {s} old = vmax[j];",
            "    vmax[j] = (old > vj || old != old) ? old : vj;  // torch.maximum (NaN wins)",
        ]
        src = "vmax"
    # torch's sqrt, from L1 (see sqrt_impl), then pass 2: the parameter.
    body += [
        "  }",
        f"  sqrt_block(vsqrt, {src} + j0, root, j1 - j0, root + kBlock);",
        "  #pragma omp simd",
        "  for (int64_t j = j0; j < j1; ++j) {",
        f"    {s} pj = p[j];",
    ]
    if spec.weight_decay == "decoupled":
        body.append("    pj = pj * dec;                               // param.mul_(1 - lr * wd)")
    body += [
        f"    const {s} denom = root[j - j0] / bc2s + eps_s;   // (sqrt / bc2_sqrt).add_(eps)",
        "    p[j] = pj + (ss * m[j]) / denom;             // param.addcdiv_(exp_avg, denom, -step_size)",
        "  }",
        "}",
    ]
    # Each thread's block buffers, once per step: the roots, and MKL's scratch.
    setup = [f"std::vector<{s}> buffers(2 * kBlock);",
             f"{s}* __restrict__ root = buffers.data();",
             "const threads_local_fn mkl_threads = vsqrt ? (threads_local_fn)threads_local : nullptr;",
             "const int mkl_threads_before = mkl_threads ? mkl_threads(1) : 0;"]
    teardown = ["if (mkl_threads) mkl_threads(mkl_threads_before);"]
    return _function(spec, head, body, setup, teardown)


def _function(spec: UpdateSpec, head: list[str], body: list[str], thread_setup: list[str] = (),
              thread_teardown: list[str] = ()) -> str:
    args = ",\n    ".join(decl for decl, _ in signature(spec))
    driver = _DRIVER.format(body=_indent(body, 6), thread_setup=_indent(list(thread_setup), 4),
                            thread_teardown=_indent(list(thread_teardown), 4))
    return (f'extern "C" int {spec.symbol}(\n    {args}) {{\n'
            + "\n".join(head) + "\n" + driver + "  return 0;\n}\n")


def render(spec: UpdateSpec) -> str:
    """The C++ source of the fused update for `spec` (one exported function)."""
    header = (f"// bessemer fused optimizer update: {spec}\n"
              f"// exported: int {spec.symbol}(...); returns 0\n")
    fn = _render_sgd(spec) if spec.kind == "sgd" else _render_adam(spec)
    return header + _PRELUDE.format(scalar=CTYPES[spec.dtype]) + "\n" + fn
