// bessemer fused optimizer update: UpdateSpec(kind='adam', dtype='float32', maximize=False, weight_decay='decoupled', momentum=False, nesterov=False, amsgrad=False, step_dtype='float32')
// exported: int bessemer_adam_f32_wd_decoupled(...); returns 0
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>
#include <omp.h>

typedef float scalar_t;

// Below this many elements in a group one thread does the whole update: a
// parallel region costs a few microseconds, about what one core needs for
// 32K elements of Adam (ATen's elementwise grain size is the same 32768).
static const int64_t kParallelGrain = 32768;
// Thread slices start on multiples of 64 elements (one AVX-512 vector of
// doubles is 8, of floats 16; 64 keeps every slice cache-line aligned).
static const int64_t kSliceAlign = 64;

// Adam works in blocks that stay in L1: moments, then the square roots of a
// block in one call, then the parameter update.
static const int64_t kBlock = 512;

// torch's CPU sqrt. On builds with MKL, ATen computes sqrt with MKL's vector
// routine (vsSqrt / vdSqrt, within 1 ulp, not always the IEEE result); the
// caller passes its address so that the update rounds exactly as eager does.
// Null: torch's sqrt is the IEEE one.
typedef void (*sqrt_fn)(int, const scalar_t*, scalar_t*);
static inline void sqrt_block(sqrt_fn fn, const scalar_t* x, scalar_t* out, int64_t len) {
  if (fn) {
    fn((int)len, x, out);
  } else {
    #pragma omp simd
    for (int64_t j = 0; j < len; ++j) out[j] = std::sqrt(x[j]);
  }
}

// The slice [lo, hi) of the concatenation of all tensors that thread t of nt
// updates.
static inline void thread_slice(int64_t total, int t, int nt, int64_t* lo, int64_t* hi) {
  int64_t per = (total + nt - 1) / nt;
  per = (per + kSliceAlign - 1) / kSliceAlign * kSliceAlign;
  *lo = std::min(total, per * t);
  *hi = std::min(total, *lo + per);
}

extern "C" int bessemer_adam_f32_wd_decoupled(
    int64_t n,
    void* const* params,
    void* const* grads,
    void* const* exp_avgs,
    void* const* exp_avg_sqs,
    void* const* max_exp_avg_sqs,
    void* const* steps,
    const int64_t* numels,
    double lr,
    int32_t lr_is_f32,
    double beta1,
    double beta2,
    double weight_decay,
    double eps,
    const void* sqrt_impl) {
  // Per-tensor scalars, as torch computes them in Python floats.
  std::vector<scalar_t> neg_step_size(n), bc2_sqrt(n), decay(n);
  for (int64_t i = 0; i < n; ++i) {
    float* step_t = (float*)steps[i];
    *step_t = *step_t + (float)1;                       // step_t += 1
    const double step = (double)*step_t;
    const double bc1 = 1.0 - std::pow(beta1, step);
    const double bc2 = 1.0 - std::pow(beta2, step);
    bc2_sqrt[i] = (scalar_t)std::pow(bc2, 0.5);          // bias_correction2 ** 0.5
    if (lr_is_f32) {                                    // float32 tensor lr: float32 math
      const float lr_f = (float)lr;
      neg_step_size[i] = (scalar_t)(-(lr_f / (float)bc1));
      decay[i] = (scalar_t)(1.0f - lr_f * (float)weight_decay);
    } else {
      neg_step_size[i] = (scalar_t)(-(lr / bc1));
      decay[i] = (scalar_t)(1.0 - lr * weight_decay);
    }
  }
  const scalar_t wd = (scalar_t)weight_decay;
  const scalar_t w1 = (scalar_t)(1.0 - beta1);                  // lerp weight
  const bool w1_small = std::abs(w1) < 0.5;
  const scalar_t w1_coeff = w1_small ? w1 : w1 - (scalar_t)1;
  const scalar_t b2 = (scalar_t)beta2;
  const scalar_t one_minus_b2 = (scalar_t)(1.0 - beta2);
  const scalar_t eps_s = (scalar_t)eps;
  const sqrt_fn vsqrt = (sqrt_fn)sqrt_impl;
  std::vector<int64_t> offset(n + 1, 0);
  for (int64_t i = 0; i < n; ++i) offset[i + 1] = offset[i] + numels[i];
  const int64_t total = offset[n];
  #pragma omp parallel if (total >= kParallelGrain)
  {
    int64_t lo, hi;
    thread_slice(total, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
    int64_t i = std::upper_bound(offset.begin(), offset.end(), lo) - offset.begin() - 1;
    for (; lo < hi && i < n; ++i) {
      if (offset[i + 1] <= lo) continue;
      const int64_t begin = lo - offset[i];
      const int64_t end = std::min(hi, offset[i + 1]) - offset[i];
      scalar_t* __restrict__ p = (scalar_t*)params[i];
      const scalar_t* __restrict__ g = (const scalar_t*)grads[i];
      scalar_t* __restrict__ m = (scalar_t*)exp_avgs[i];
      scalar_t* __restrict__ v = (scalar_t*)exp_avg_sqs[i];
      const scalar_t ss = neg_step_size[i], bc2s = bc2_sqrt[i];
      const scalar_t dec = decay[i];
      scalar_t root[kBlock];
      for (int64_t j0 = begin; j0 < end; j0 += kBlock) {
        const int64_t j1 = std::min(end, j0 + kBlock);
        #pragma omp simd
        for (int64_t j = j0; j < j1; ++j) {
          scalar_t d = g[j];
          const scalar_t mj = std::fma(w1_coeff, d - m[j], w1_small ? m[j] : d);  // exp_avg.lerp_(grad, 1-beta1)
          m[j] = mj;
          const scalar_t vj = std::fma(one_minus_b2 * d, d, v[j] * b2);  // exp_avg_sq.mul_(b2).addcmul_(g, g, 1-b2)
          v[j] = vj;
        }
        sqrt_block(vsqrt, v + j0, root, j1 - j0);
        #pragma omp simd
        for (int64_t j = j0; j < j1; ++j) {
          scalar_t pj = p[j];
          pj = pj * dec;                               // param.mul_(1 - lr * wd)
          const scalar_t denom = root[j - j0] / bc2s + eps_s;   // (sqrt / bc2_sqrt).add_(eps)
          p[j] = pj + (ss * m[j]) / denom;             // param.addcdiv_(exp_avg, denom, -step_size)
        }
      }
      lo = offset[i + 1];
    }
  }
  return 0;
}
