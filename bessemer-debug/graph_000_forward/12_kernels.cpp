#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <limits>
#include <omp.h>

extern "C" {
#pragma omp declare simd notinbranch
float expf(float) noexcept __attribute__((const));
#pragma omp declare simd notinbranch
float logf(float) noexcept __attribute__((const));
#pragma omp declare simd notinbranch
float sinf(float) noexcept __attribute__((const));
#pragma omp declare simd notinbranch
float cosf(float) noexcept __attribute__((const));
#pragma omp declare simd notinbranch
float tanhf(float) noexcept __attribute__((const));
#pragma omp declare simd notinbranch
float erff(float) noexcept __attribute__((const));
#pragma omp declare simd notinbranch
float erfcf(float) noexcept __attribute__((const));
#pragma omp declare simd notinbranch
float expm1f(float) noexcept __attribute__((const));
#pragma omp declare simd notinbranch
float log1pf(float) noexcept __attribute__((const));
#pragma omp declare simd notinbranch
float log2f(float) noexcept __attribute__((const));
#pragma omp declare simd notinbranch
float log10f(float) noexcept __attribute__((const));
#pragma omp declare simd notinbranch
float exp2f(float) noexcept __attribute__((const));
#pragma omp declare simd notinbranch
float tanf(float) noexcept __attribute__((const));
#pragma omp declare simd notinbranch
float atanf(float) noexcept __attribute__((const));
#pragma omp declare simd notinbranch
float asinf(float) noexcept __attribute__((const));
#pragma omp declare simd notinbranch
float acosf(float) noexcept __attribute__((const));
#pragma omp declare simd notinbranch
float sinhf(float) noexcept __attribute__((const));
#pragma omp declare simd notinbranch
float coshf(float) noexcept __attribute__((const));
#pragma omp declare simd notinbranch
float asinhf(float) noexcept __attribute__((const));
#pragma omp declare simd notinbranch
float acoshf(float) noexcept __attribute__((const));
#pragma omp declare simd notinbranch
float atanhf(float) noexcept __attribute__((const));
#pragma omp declare simd notinbranch
float powf(float, float) noexcept __attribute__((const));
#pragma omp declare simd notinbranch
float atan2f(float, float) noexcept __attribute__((const));
}

static inline float bf16_load(uint16_t v) { uint32_t u = ((uint32_t)v) << 16; float f; std::memcpy(&f, &u, 4); return f; }
static inline uint16_t bf16_store(float f) {
  uint32_t u; std::memcpy(&u, &f, 4);
  if (f != f) return (uint16_t)0x7fc0;
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}
static inline float bf16_round(float f) { return bf16_load(bf16_store(f)); }
// a float that is a bf16 value already (rounded, or loaded): its upper half
static inline uint16_t bf16_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return (uint16_t)(u >> 16); }
// fp16 is stored as _Float16 (gcc: IEEE half, round-to-nearest-even conversions, as c10::Half)
static inline float fp16_round(float f) { return (float)(_Float16)f; }
template <typename T> static inline T maximum_(T a, T b) { return (a > b || a != a) ? a : b; }
template <typename T> static inline T minimum_(T a, T b) { return (a < b || a != a) ? a : b; }
template <typename T> static inline T floordiv_f(T a, T b) {
  if (b == 0) return a / b;
  T mod = std::fmod(a, b); T div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
  T fl;
  if (div != 0) { fl = std::floor(div); if (div - fl > (T)0.5) fl += 1; } else { fl = std::copysign((T)0, a / b); }
  return fl;
}
template <typename T> static inline T floordiv_i(T a, T b) {
  T q = a / b; if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1; return q;
}
template <typename T> static inline T remainder_f(T a, T b) {
  T m = std::fmod(a, b); if (m != 0 && ((b < 0) != (m < 0))) m += b; return m;
}
template <typename T> static inline T remainder_i(T a, T b) {
  T m = a % b; if (m != 0 && ((b < 0) != (m < 0))) m += b; return m;
}
template <typename T> static inline T sign_(T a) { return (T)((a > 0) - (a < 0)); }

// erf as ATen's vectorized CPU kernels compute it (Vectorized<float>::erf, what eager's
// erf, GELU and GELU backward use): Abramowitz & Stegun 7.1.26, absolute error < 1.5e-7.
// gcc vectorizes it inline (a GELU over [1576, 1024] at 512 bits: 0.61 ms, libmvec's erff 0.82).
static inline float erf_aten(float x) {
  float a = std::fabs(x);
  float t = 1.0f / fmaf(0.3275911f, a, 1.0f);
  float r = fmaf(fmaf(fmaf(fmaf(1.061405429f, t, -1.453152027f), t, 1.421413741f), t, -0.284496736f), t,
                 0.254829592f);
  return std::copysign(fmaf(-expf(-(x * x)) * t, r, 1.0f), x);
}


extern "C" void k1(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 1024; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 3; o2++) {
        b1[(3072*o0 + 3*o1 + o2)] = (float)(b0[(3072*o0 + o1 + 1024*o2)]);
      }
    }
  }
}

extern "C" void k0(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 16; o0++) {
    for (int64_t o1 = 0; o1 < 9; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 3; o2++) {
        b1[(27*o0 + 3*o1 + o2)] = (float)(b0[(27*o0 + o1 + 9*o2)]);
      }
    }
  }
}

extern "C" void k2(const float* __restrict__ b0, float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, const float* __restrict__ b6, float* __restrict__ b7) {
  for (int64_t o0 = 0; o0 < 16; o0++) {
    for (int64_t o1 = 0; o1 < 9; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 16; o2++) {
        b1[(144*o0 + 16*o1 + o2)] = (float)(b0[(144*o0 + o1 + 9*o2)]);
        b3[(144*o0 + 16*o1 + o2)] = (float)(b2[(144*o0 + o1 + 9*o2)]);
        b5[(144*o0 + 16*o1 + o2)] = (float)(b4[(144*o0 + o1 + 9*o2)]);
        b7[(144*o0 + 16*o1 + o2)] = (float)(b6[(144*o0 + o1 + 9*o2)]);
      }
    }
  }
}

extern "C" void k3(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 32; o0++) {
    for (int64_t o1 = 0; o1 < 9; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 16; o2++) {
        b1[(144*o0 + 16*o1 + o2)] = (float)(b0[(144*o0 + o1 + 9*o2)]);
      }
    }
  }
}

extern "C" void k4(const float* __restrict__ b0, float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, const float* __restrict__ b6, float* __restrict__ b7) {
  for (int64_t o0 = 0; o0 < 32; o0++) {
    for (int64_t o1 = 0; o1 < 9; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 32; o2++) {
        b1[(288*o0 + 32*o1 + o2)] = (float)(b0[(288*o0 + o1 + 9*o2)]);
        b3[(288*o0 + 32*o1 + o2)] = (float)(b2[(288*o0 + o1 + 9*o2)]);
        b5[(288*o0 + 32*o1 + o2)] = (float)(b4[(288*o0 + o1 + 9*o2)]);
        b7[(288*o0 + 32*o1 + o2)] = (float)(b6[(288*o0 + o1 + 9*o2)]);
      }
    }
  }
}

extern "C" void k5(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 64; o0++) {
    for (int64_t o1 = 0; o1 < 9; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 32; o2++) {
        b1[(288*o0 + 32*o1 + o2)] = (float)(b0[(288*o0 + o1 + 9*o2)]);
      }
    }
  }
}

extern "C" void k6(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 64; o0++) {
    for (int64_t o1 = 0; o1 < 4; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 32; o2++) {
        b1[(128*o0 + 32*o1 + o2)] = (float)(b0[(128*o0 + o1 + 4*o2)]);
      }
    }
  }
}

extern "C" void k7(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 32; o0++) {
    for (int64_t o1 = 0; o1 < 4; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 16; o2++) {
        b1[(64*o0 + 16*o1 + o2)] = (float)(b0[(64*o0 + o1 + 4*o2)]);
      }
    }
  }
}

extern "C" void k8(const float* __restrict__ b0, double* __restrict__ b1, float* __restrict__ b2) {
  #pragma omp parallel for
  for (int64_t g0 = 0; g0 < 4; g0++) {
    for (int64_t ob = 0; ob < 16; ob += 64) {
      const int64_t oe = std::min<int64_t>(ob + 64, 16);
      double acc_r48[64]; for (int i = 0; i < 64; i++) acc_r48[i] = (double)0;
      for (int64_t r0 = 0; r0 < 1024; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          float t1 = (b0[(16384*g0 + o0 + 16*r0)] - b0[(16384*g0 + o0)]);
          acc_r48[o0 - ob] += (double)t1;
        }
      }
      double acc_r55[64]; for (int i = 0; i < 64; i++) acc_r55[i] = (double)0;
      for (int64_t r0 = 0; r0 < 1024; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          float t2 = (b0[(16384*g0 + o0 + 16*r0)] - b0[(16384*g0 + o0)]);
          float t3 = (((float)acc_r48[o0 - ob]) / ((float)1024.0));
          float t4 = (t2 - t3);
          float t5 = (t4 * t4);
          double t6 = ((double)(t5));
          acc_r55[o0 - ob] += (double)t6;
        }
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        b1[(16*g0 + o0)] = (double)(acc_r55[o0 - ob]);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t7 = (((float)acc_r48[o0 - ob]) / ((float)1024.0));
        float t8 = (t7 + b0[(16384*g0 + o0)]);
        b2[(16*g0 + o0)] = (float)(t8);
      }
    }
  }
}

extern "C" void k9(const float* __restrict__ b0, float* __restrict__ b1, const double* __restrict__ b2, float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, const float* __restrict__ b6, float* __restrict__ b7) {
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 8; o1++) {
      double acc_r60 = (double)0;
      float t1 = b0[(16*o0 + 2*o1)];
      #pragma omp simd reduction(+:acc_r60)
      for (int64_t r0 = 0; r0 < 2; r0++) {
        float t2 = (b0[(16*o0 + 2*o1 + r0)] - t1);
        acc_r60 += (double)t2;
      }
      float t3 = (((float)acc_r60) / ((float)2.0));
      float t4 = (t3 + t1);
      b1[(8*o0 + o1)] = (float)(t4);
      double acc_r68 = (double)0;
      double acc_r70 = (double)0;
      double t6 = ((double)(t4));
      #pragma omp simd reduction(+:acc_r68) reduction(+:acc_r70)
      for (int64_t r0 = 0; r0 < 2; r0++) {
        acc_r68 += (double)b2[(16*o0 + 2*o1 + r0)];
        double t5 = ((double)(b0[(16*o0 + 2*o1 + r0)]));
        double t7 = (t5 - t6);
        double t8 = (t7 * t7);
        acc_r70 += (double)t8;
      }
      double t9 = (((double)acc_r70) * ((double)1024.0));
      double t10 = (((double)acc_r68) + t9);
      float t11 = ((float)(t10));
      float t12 = (t11 / ((float)2048.0));
      b3[(8*o0 + o1)] = (float)(t12);
      float t13 = (t12 + ((float)1e-05));
      float t14 = ((float)1 / sqrtf(t13));
      #pragma omp simd
      for (int64_t r0 = 0; r0 < 2; r0++) {
        float t15 = (t14 * b4[(2*o1 + r0)]);
        b5[(16*o0 + 2*o1 + r0)] = (float)(t15);
      }
      float t16 = (-t4);
      #pragma omp simd
      for (int64_t r0 = 0; r0 < 2; r0++) {
        float t17 = (t16 * b5[(16*o0 + 2*o1 + r0)]);
        float t18 = (t17 + b6[(2*o1 + r0)]);
        b7[(16*o0 + 2*o1 + r0)] = (float)(t18);
      }
    }
  }
}

extern "C" void k10(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3) {
  #pragma omp parallel for collapse(2)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 1024; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 16; o2++) {
        float t1 = (b0[(16384*o0 + 16*o1 + o2)] * b1[(16*o0 + o2)]);
        float t2 = (t1 + b2[(16*o0 + o2)]);
        float t3 = ((float)1 / ((float)1 + expf(-t2)));
        float t4 = (t2 * t3);
        b3[(16384*o0 + 16*o1 + o2)] = (float)(t4);
      }
    }
  }
}

extern "C" void k11(const float* __restrict__ b0, double* __restrict__ b1, float* __restrict__ b2) {
  #pragma omp parallel for
  for (int64_t g0 = 0; g0 < 4; g0++) {
    for (int64_t ob = 0; ob < 16; ob += 64) {
      const int64_t oe = std::min<int64_t>(ob + 64, 16);
      double acc_r122[64]; for (int i = 0; i < 64; i++) acc_r122[i] = (double)0;
      for (int64_t r0 = 0; r0 < 1024; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          float t1 = (b0[(16384*g0 + o0 + 16*r0)] - b0[(16384*g0 + o0)]);
          acc_r122[o0 - ob] += (double)t1;
        }
      }
      double acc_r129[64]; for (int i = 0; i < 64; i++) acc_r129[i] = (double)0;
      for (int64_t r0 = 0; r0 < 1024; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          float t2 = (b0[(16384*g0 + o0 + 16*r0)] - b0[(16384*g0 + o0)]);
          float t3 = (((float)acc_r122[o0 - ob]) / ((float)1024.0));
          float t4 = (t2 - t3);
          float t5 = (t4 * t4);
          double t6 = ((double)(t5));
          acc_r129[o0 - ob] += (double)t6;
        }
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        b1[(16*g0 + o0)] = (double)(acc_r129[o0 - ob]);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t7 = (((float)acc_r122[o0 - ob]) / ((float)1024.0));
        float t8 = (t7 + b0[(16384*g0 + o0)]);
        b2[(16*g0 + o0)] = (float)(t8);
      }
    }
  }
}

extern "C" void k12(const float* __restrict__ b0, float* __restrict__ b1, const double* __restrict__ b2, float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, const float* __restrict__ b6, float* __restrict__ b7) {
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 8; o1++) {
      double acc_r134 = (double)0;
      float t1 = b0[(16*o0 + 2*o1)];
      #pragma omp simd reduction(+:acc_r134)
      for (int64_t r0 = 0; r0 < 2; r0++) {
        float t2 = (b0[(16*o0 + 2*o1 + r0)] - t1);
        acc_r134 += (double)t2;
      }
      float t3 = (((float)acc_r134) / ((float)2.0));
      float t4 = (t3 + t1);
      b1[(8*o0 + o1)] = (float)(t4);
      double acc_r142 = (double)0;
      double acc_r144 = (double)0;
      double t6 = ((double)(t4));
      #pragma omp simd reduction(+:acc_r142) reduction(+:acc_r144)
      for (int64_t r0 = 0; r0 < 2; r0++) {
        acc_r142 += (double)b2[(16*o0 + 2*o1 + r0)];
        double t5 = ((double)(b0[(16*o0 + 2*o1 + r0)]));
        double t7 = (t5 - t6);
        double t8 = (t7 * t7);
        acc_r144 += (double)t8;
      }
      double t9 = (((double)acc_r144) * ((double)1024.0));
      double t10 = (((double)acc_r142) + t9);
      float t11 = ((float)(t10));
      float t12 = (t11 / ((float)2048.0));
      b3[(8*o0 + o1)] = (float)(t12);
      float t13 = (t12 + ((float)1e-05));
      float t14 = ((float)1 / sqrtf(t13));
      #pragma omp simd
      for (int64_t r0 = 0; r0 < 2; r0++) {
        float t15 = (t14 * b4[(2*o1 + r0)]);
        b5[(16*o0 + 2*o1 + r0)] = (float)(t15);
      }
      float t16 = (-t4);
      #pragma omp simd
      for (int64_t r0 = 0; r0 < 2; r0++) {
        float t17 = (t16 * b5[(16*o0 + 2*o1 + r0)]);
        float t18 = (t17 + b6[(2*o1 + r0)]);
        b7[(16*o0 + 2*o1 + r0)] = (float)(t18);
      }
    }
  }
}

extern "C" void k13(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3) {
  #pragma omp parallel for collapse(2)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 1024; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 16; o2++) {
        float t1 = (b0[(16384*o0 + 16*o1 + o2)] * b1[(16*o0 + o2)]);
        float t2 = (t1 + b2[(16*o0 + o2)]);
        float t3 = ((float)1 / ((float)1 + expf(-t2)));
        float t4 = (t2 * t3);
        b3[(16384*o0 + 16*o1 + o2)] = (float)(t4);
      }
    }
  }
}

extern "C" void k14(const float* __restrict__ b0, double* __restrict__ b1, float* __restrict__ b2) {
  #pragma omp parallel for
  for (int64_t g0 = 0; g0 < 4; g0++) {
    for (int64_t ob = 0; ob < 32; ob += 64) {
      const int64_t oe = std::min<int64_t>(ob + 64, 32);
      double acc_r197[64]; for (int i = 0; i < 64; i++) acc_r197[i] = (double)0;
      for (int64_t r0 = 0; r0 < 256; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          float t1 = (b0[(8192*g0 + o0 + 32*r0)] - b0[(8192*g0 + o0)]);
          acc_r197[o0 - ob] += (double)t1;
        }
      }
      double acc_r204[64]; for (int i = 0; i < 64; i++) acc_r204[i] = (double)0;
      for (int64_t r0 = 0; r0 < 256; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          float t2 = (b0[(8192*g0 + o0 + 32*r0)] - b0[(8192*g0 + o0)]);
          float t3 = (((float)acc_r197[o0 - ob]) / ((float)256.0));
          float t4 = (t2 - t3);
          float t5 = (t4 * t4);
          double t6 = ((double)(t5));
          acc_r204[o0 - ob] += (double)t6;
        }
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        b1[(32*g0 + o0)] = (double)(acc_r204[o0 - ob]);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t7 = (((float)acc_r197[o0 - ob]) / ((float)256.0));
        float t8 = (t7 + b0[(8192*g0 + o0)]);
        b2[(32*g0 + o0)] = (float)(t8);
      }
    }
  }
}

extern "C" void k15(const float* __restrict__ b0, float* __restrict__ b1, const double* __restrict__ b2, float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, const float* __restrict__ b6, float* __restrict__ b7) {
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 8; o1++) {
      double acc_r209 = (double)0;
      float t1 = b0[(32*o0 + 4*o1)];
      #pragma omp simd reduction(+:acc_r209)
      for (int64_t r0 = 0; r0 < 4; r0++) {
        float t2 = (b0[(32*o0 + 4*o1 + r0)] - t1);
        acc_r209 += (double)t2;
      }
      float t3 = (((float)acc_r209) / ((float)4.0));
      float t4 = (t3 + t1);
      b1[(8*o0 + o1)] = (float)(t4);
      double acc_r217 = (double)0;
      double acc_r219 = (double)0;
      double t6 = ((double)(t4));
      #pragma omp simd reduction(+:acc_r217) reduction(+:acc_r219)
      for (int64_t r0 = 0; r0 < 4; r0++) {
        acc_r217 += (double)b2[(32*o0 + 4*o1 + r0)];
        double t5 = ((double)(b0[(32*o0 + 4*o1 + r0)]));
        double t7 = (t5 - t6);
        double t8 = (t7 * t7);
        acc_r219 += (double)t8;
      }
      double t9 = (((double)acc_r219) * ((double)256.0));
      double t10 = (((double)acc_r217) + t9);
      float t11 = ((float)(t10));
      float t12 = (t11 / ((float)1024.0));
      b3[(8*o0 + o1)] = (float)(t12);
      float t13 = (t12 + ((float)1e-05));
      float t14 = ((float)1 / sqrtf(t13));
      #pragma omp simd
      for (int64_t r0 = 0; r0 < 4; r0++) {
        float t15 = (t14 * b4[(4*o1 + r0)]);
        b5[(32*o0 + 4*o1 + r0)] = (float)(t15);
      }
      float t16 = (-t4);
      #pragma omp simd
      for (int64_t r0 = 0; r0 < 4; r0++) {
        float t17 = (t16 * b5[(32*o0 + 4*o1 + r0)]);
        float t18 = (t17 + b6[(4*o1 + r0)]);
        b7[(32*o0 + 4*o1 + r0)] = (float)(t18);
      }
    }
  }
}

extern "C" void k16(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3) {
  #pragma omp parallel for collapse(2)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 256; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 32; o2++) {
        float t1 = (b0[(8192*o0 + 32*o1 + o2)] * b1[(32*o0 + o2)]);
        float t2 = (t1 + b2[(32*o0 + o2)]);
        float t3 = ((float)1 / ((float)1 + expf(-t2)));
        float t4 = (t2 * t3);
        b3[(8192*o0 + 32*o1 + o2)] = (float)(t4);
      }
    }
  }
}

extern "C" void k17(const float* __restrict__ b0, double* __restrict__ b1, float* __restrict__ b2) {
  #pragma omp parallel for
  for (int64_t g0 = 0; g0 < 4; g0++) {
    for (int64_t ob = 0; ob < 32; ob += 64) {
      const int64_t oe = std::min<int64_t>(ob + 64, 32);
      double acc_r271[64]; for (int i = 0; i < 64; i++) acc_r271[i] = (double)0;
      for (int64_t r0 = 0; r0 < 256; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          float t1 = (b0[(8192*g0 + o0 + 32*r0)] - b0[(8192*g0 + o0)]);
          acc_r271[o0 - ob] += (double)t1;
        }
      }
      double acc_r278[64]; for (int i = 0; i < 64; i++) acc_r278[i] = (double)0;
      for (int64_t r0 = 0; r0 < 256; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          float t2 = (b0[(8192*g0 + o0 + 32*r0)] - b0[(8192*g0 + o0)]);
          float t3 = (((float)acc_r271[o0 - ob]) / ((float)256.0));
          float t4 = (t2 - t3);
          float t5 = (t4 * t4);
          double t6 = ((double)(t5));
          acc_r278[o0 - ob] += (double)t6;
        }
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        b1[(32*g0 + o0)] = (double)(acc_r278[o0 - ob]);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t7 = (((float)acc_r271[o0 - ob]) / ((float)256.0));
        float t8 = (t7 + b0[(8192*g0 + o0)]);
        b2[(32*g0 + o0)] = (float)(t8);
      }
    }
  }
}

extern "C" void k18(const float* __restrict__ b0, float* __restrict__ b1, const double* __restrict__ b2, float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, const float* __restrict__ b6, float* __restrict__ b7) {
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 8; o1++) {
      double acc_r283 = (double)0;
      float t1 = b0[(32*o0 + 4*o1)];
      #pragma omp simd reduction(+:acc_r283)
      for (int64_t r0 = 0; r0 < 4; r0++) {
        float t2 = (b0[(32*o0 + 4*o1 + r0)] - t1);
        acc_r283 += (double)t2;
      }
      float t3 = (((float)acc_r283) / ((float)4.0));
      float t4 = (t3 + t1);
      b1[(8*o0 + o1)] = (float)(t4);
      double acc_r291 = (double)0;
      double acc_r293 = (double)0;
      double t6 = ((double)(t4));
      #pragma omp simd reduction(+:acc_r291) reduction(+:acc_r293)
      for (int64_t r0 = 0; r0 < 4; r0++) {
        acc_r291 += (double)b2[(32*o0 + 4*o1 + r0)];
        double t5 = ((double)(b0[(32*o0 + 4*o1 + r0)]));
        double t7 = (t5 - t6);
        double t8 = (t7 * t7);
        acc_r293 += (double)t8;
      }
      double t9 = (((double)acc_r293) * ((double)256.0));
      double t10 = (((double)acc_r291) + t9);
      float t11 = ((float)(t10));
      float t12 = (t11 / ((float)1024.0));
      b3[(8*o0 + o1)] = (float)(t12);
      float t13 = (t12 + ((float)1e-05));
      float t14 = ((float)1 / sqrtf(t13));
      #pragma omp simd
      for (int64_t r0 = 0; r0 < 4; r0++) {
        float t15 = (t14 * b4[(4*o1 + r0)]);
        b5[(32*o0 + 4*o1 + r0)] = (float)(t15);
      }
      float t16 = (-t4);
      #pragma omp simd
      for (int64_t r0 = 0; r0 < 4; r0++) {
        float t17 = (t16 * b5[(32*o0 + 4*o1 + r0)]);
        float t18 = (t17 + b6[(4*o1 + r0)]);
        b7[(32*o0 + 4*o1 + r0)] = (float)(t18);
      }
    }
  }
}

extern "C" void k19(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3) {
  #pragma omp parallel for collapse(2)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 256; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 32; o2++) {
        float t1 = (b0[(8192*o0 + 32*o1 + o2)] * b1[(32*o0 + o2)]);
        float t2 = (t1 + b2[(32*o0 + o2)]);
        float t3 = ((float)1 / ((float)1 + expf(-t2)));
        float t4 = (t2 * t3);
        b3[(8192*o0 + 32*o1 + o2)] = (float)(t4);
      }
    }
  }
}

extern "C" void k20(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1b = 0; o1b < 64; o1b += 16) {
      for (int64_t o2b = 0; o2b < 64; o2b += 32) {
        const int64_t o1e = std::min<int64_t>(o1b + 16, 64), o2e = std::min<int64_t>(o2b + 32, 64);
        float tile0[32][16];
        for (int64_t o2 = o2b; o2 < o2e; o2++) {
          #pragma omp simd
          for (int64_t o1 = o1b; o1 < o1e; o1++) {
            tile0[o2 - o2b][o1 - o1b] = (float)(b0[(4096*o0 + o1 + 64*o2)]);
          }
        }
        for (int64_t o1 = o1b; o1 < o1e; o1++) {
          #pragma omp simd
          for (int64_t o2 = o2b; o2 < o2e; o2++) {
            b1[(4096*o0 + 64*o1 + o2)] = tile0[o2 - o2b][o1 - o1b];
          }
        }
      }
    }
  }
}

extern "C" void k21(const float* __restrict__ b0, float* __restrict__ b1, float* __restrict__ b2) {
  for (int64_t o0 = 0; o0 < 32; o0++) {
    double acc_r348 = (double)0;
    #pragma omp simd reduction(+:acc_r348)
    for (int64_t r0 = 0; r0 < 512; r0++) {
      float t1 = (b0[(512*o0 + r0)] - b0[(512*o0)]);
      acc_r348 += (double)t1;
    }
    double acc_r354 = (double)0;
    float t3 = (((float)acc_r348) / ((float)512.0));
    #pragma omp simd reduction(+:acc_r354)
    for (int64_t r0 = 0; r0 < 512; r0++) {
      float t2 = (b0[(512*o0 + r0)] - b0[(512*o0)]);
      float t4 = (t2 - t3);
      float t5 = (t4 * t4);
      acc_r354 += (double)t5;
    }
    float t6 = (t3 + b0[(512*o0)]);
    b1[(o0)] = (float)(t6);
    float t7 = (((float)acc_r354) / ((float)512.0));
    b2[(o0)] = (float)(t7);
  }
}

extern "C" void k22(const float* __restrict__ b0, const float* __restrict__ b1, float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5) {
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 8; o1++) {
      float t1 = (b0[(8*o0 + o1)] + ((float)1e-05));
      float t2 = ((float)1 / sqrtf(t1));
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 8; o2++) {
        float t3 = (t2 * b1[(8*o1 + o2)]);
        b2[(64*o0 + 8*o1 + o2)] = (float)(t3);
        float t4 = (-b3[(8*o0 + o1)]);
        float t5 = (t4 * t3);
        float t6 = (t5 + b4[(8*o1 + o2)]);
        b5[(64*o0 + 8*o1 + o2)] = (float)(t6);
      }
    }
  }
}

extern "C" void k23(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3) {
  for (int64_t o0 = 0; o0 < 256; o0++) {
    #pragma omp simd
    for (int64_t o1 = 0; o1 < 64; o1++) {
      float t1 = (b0[(64*o0 + o1)] * b1[(o0)]);
      float t2 = (t1 + b2[(o0)]);
      float t3 = ((float)1 / ((float)1 + expf(-t2)));
      float t4 = (t2 * t3);
      b3[(64*o0 + o1)] = (float)(t4);
    }
  }
}

extern "C" void k24(const float* __restrict__ b0, float* __restrict__ b1, float* __restrict__ b2) {
  for (int64_t o0 = 0; o0 < 32; o0++) {
    double acc_r389 = (double)0;
    #pragma omp simd reduction(+:acc_r389)
    for (int64_t r0 = 0; r0 < 512; r0++) {
      float t1 = (b0[(512*o0 + r0)] - b0[(512*o0)]);
      acc_r389 += (double)t1;
    }
    double acc_r395 = (double)0;
    float t3 = (((float)acc_r389) / ((float)512.0));
    #pragma omp simd reduction(+:acc_r395)
    for (int64_t r0 = 0; r0 < 512; r0++) {
      float t2 = (b0[(512*o0 + r0)] - b0[(512*o0)]);
      float t4 = (t2 - t3);
      float t5 = (t4 * t4);
      acc_r395 += (double)t5;
    }
    float t6 = (t3 + b0[(512*o0)]);
    b1[(o0)] = (float)(t6);
    float t7 = (((float)acc_r395) / ((float)512.0));
    b2[(o0)] = (float)(t7);
  }
}

extern "C" void k25(const float* __restrict__ b0, const float* __restrict__ b1, float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5) {
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 8; o1++) {
      float t1 = (b0[(8*o0 + o1)] + ((float)1e-05));
      float t2 = ((float)1 / sqrtf(t1));
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 8; o2++) {
        float t3 = (t2 * b1[(8*o1 + o2)]);
        b2[(64*o0 + 8*o1 + o2)] = (float)(t3);
        float t4 = (-b3[(8*o0 + o1)]);
        float t5 = (t4 * t3);
        float t6 = (t5 + b4[(8*o1 + o2)]);
        b5[(64*o0 + 8*o1 + o2)] = (float)(t6);
      }
    }
  }
}

extern "C" void k26(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3) {
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1b = 0; o1b < 64; o1b += 16) {
      for (int64_t o2b = 0; o2b < 64; o2b += 32) {
        const int64_t o1e = std::min<int64_t>(o1b + 16, 64), o2e = std::min<int64_t>(o2b + 32, 64);
        float tile0[32][16];
        for (int64_t o2 = o2b; o2 < o2e; o2++) {
          #pragma omp simd
          for (int64_t o1 = o1b; o1 < o1e; o1++) {
            float t1 = (b0[(4096*o0 + o1 + 64*o2)] * b1[(64*o0 + o2)]);
            float t2 = (t1 + b2[(64*o0 + o2)]);
            float t3 = ((float)1 / ((float)1 + expf(-t2)));
            float t4 = (t2 * t3);
            tile0[o2 - o2b][o1 - o1b] = (float)(t4);
          }
        }
        for (int64_t o1 = o1b; o1 < o1e; o1++) {
          #pragma omp simd
          for (int64_t o2 = o2b; o2 < o2e; o2++) {
            b3[(4096*o0 + 64*o1 + o2)] = tile0[o2 - o2b][o1 - o1b];
          }
        }
      }
    }
  }
}

extern "C" void k27(const float* __restrict__ b0, const float* b1, float* b2) {
  #pragma omp parallel for simd
  for (int64_t o0 = 0; o0 < 32768; o0++) {
    float t1 = (b0[(o0)] + b1[(o0)]);
    b2[(o0)] = (float)(t1);
  }
}

extern "C" void k28(const float* __restrict__ b0, double* __restrict__ b1, float* __restrict__ b2) {
  #pragma omp parallel for
  for (int64_t g0 = 0; g0 < 4; g0++) {
    for (int64_t ob = 0; ob < 32; ob += 64) {
      const int64_t oe = std::min<int64_t>(ob + 64, 32);
      double acc_r440[64]; for (int i = 0; i < 64; i++) acc_r440[i] = (double)0;
      for (int64_t r0 = 0; r0 < 256; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          float t1 = (b0[(8192*g0 + o0 + 32*r0)] - b0[(8192*g0 + o0)]);
          acc_r440[o0 - ob] += (double)t1;
        }
      }
      double acc_r447[64]; for (int i = 0; i < 64; i++) acc_r447[i] = (double)0;
      for (int64_t r0 = 0; r0 < 256; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          float t2 = (b0[(8192*g0 + o0 + 32*r0)] - b0[(8192*g0 + o0)]);
          float t3 = (((float)acc_r440[o0 - ob]) / ((float)256.0));
          float t4 = (t2 - t3);
          float t5 = (t4 * t4);
          double t6 = ((double)(t5));
          acc_r447[o0 - ob] += (double)t6;
        }
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        b1[(32*g0 + o0)] = (double)(acc_r447[o0 - ob]);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t7 = (((float)acc_r440[o0 - ob]) / ((float)256.0));
        float t8 = (t7 + b0[(8192*g0 + o0)]);
        b2[(32*g0 + o0)] = (float)(t8);
      }
    }
  }
}

extern "C" void k29(const float* __restrict__ b0, float* __restrict__ b1, const double* __restrict__ b2, float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, const float* __restrict__ b6, float* __restrict__ b7) {
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 8; o1++) {
      double acc_r452 = (double)0;
      float t1 = b0[(32*o0 + 4*o1)];
      #pragma omp simd reduction(+:acc_r452)
      for (int64_t r0 = 0; r0 < 4; r0++) {
        float t2 = (b0[(32*o0 + 4*o1 + r0)] - t1);
        acc_r452 += (double)t2;
      }
      float t3 = (((float)acc_r452) / ((float)4.0));
      float t4 = (t3 + t1);
      b1[(8*o0 + o1)] = (float)(t4);
      double acc_r460 = (double)0;
      double acc_r462 = (double)0;
      double t6 = ((double)(t4));
      #pragma omp simd reduction(+:acc_r460) reduction(+:acc_r462)
      for (int64_t r0 = 0; r0 < 4; r0++) {
        acc_r460 += (double)b2[(32*o0 + 4*o1 + r0)];
        double t5 = ((double)(b0[(32*o0 + 4*o1 + r0)]));
        double t7 = (t5 - t6);
        double t8 = (t7 * t7);
        acc_r462 += (double)t8;
      }
      double t9 = (((double)acc_r462) * ((double)256.0));
      double t10 = (((double)acc_r460) + t9);
      float t11 = ((float)(t10));
      float t12 = (t11 / ((float)1024.0));
      b3[(8*o0 + o1)] = (float)(t12);
      float t13 = (t12 + ((float)1e-05));
      float t14 = ((float)1 / sqrtf(t13));
      #pragma omp simd
      for (int64_t r0 = 0; r0 < 4; r0++) {
        float t15 = (t14 * b4[(4*o1 + r0)]);
        b5[(32*o0 + 4*o1 + r0)] = (float)(t15);
      }
      float t16 = (-t4);
      #pragma omp simd
      for (int64_t r0 = 0; r0 < 4; r0++) {
        float t17 = (t16 * b5[(32*o0 + 4*o1 + r0)]);
        float t18 = (t17 + b6[(4*o1 + r0)]);
        b7[(32*o0 + 4*o1 + r0)] = (float)(t18);
      }
    }
  }
}

extern "C" void k30(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3) {
  #pragma omp parallel for collapse(2)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 256; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 32; o2++) {
        float t1 = (b0[(8192*o0 + 32*o1 + o2)] * b1[(32*o0 + o2)]);
        float t2 = (t1 + b2[(32*o0 + o2)]);
        float t3 = ((float)1 / ((float)1 + expf(-t2)));
        float t4 = (t2 * t3);
        b3[(8192*o0 + 32*o1 + o2)] = (float)(t4);
      }
    }
  }
}

extern "C" void k31(const float* __restrict__ b0, double* __restrict__ b1, float* __restrict__ b2) {
  #pragma omp parallel for
  for (int64_t g0 = 0; g0 < 4; g0++) {
    for (int64_t ob = 0; ob < 32; ob += 64) {
      const int64_t oe = std::min<int64_t>(ob + 64, 32);
      double acc_r514[64]; for (int i = 0; i < 64; i++) acc_r514[i] = (double)0;
      for (int64_t r0 = 0; r0 < 256; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          float t1 = (b0[(8192*g0 + o0 + 32*r0)] - b0[(8192*g0 + o0)]);
          acc_r514[o0 - ob] += (double)t1;
        }
      }
      double acc_r521[64]; for (int i = 0; i < 64; i++) acc_r521[i] = (double)0;
      for (int64_t r0 = 0; r0 < 256; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          float t2 = (b0[(8192*g0 + o0 + 32*r0)] - b0[(8192*g0 + o0)]);
          float t3 = (((float)acc_r514[o0 - ob]) / ((float)256.0));
          float t4 = (t2 - t3);
          float t5 = (t4 * t4);
          double t6 = ((double)(t5));
          acc_r521[o0 - ob] += (double)t6;
        }
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        b1[(32*g0 + o0)] = (double)(acc_r521[o0 - ob]);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t7 = (((float)acc_r514[o0 - ob]) / ((float)256.0));
        float t8 = (t7 + b0[(8192*g0 + o0)]);
        b2[(32*g0 + o0)] = (float)(t8);
      }
    }
  }
}

extern "C" void k32(const float* __restrict__ b0, float* __restrict__ b1, const double* __restrict__ b2, float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, const float* __restrict__ b6, float* __restrict__ b7) {
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 8; o1++) {
      double acc_r526 = (double)0;
      float t1 = b0[(32*o0 + 4*o1)];
      #pragma omp simd reduction(+:acc_r526)
      for (int64_t r0 = 0; r0 < 4; r0++) {
        float t2 = (b0[(32*o0 + 4*o1 + r0)] - t1);
        acc_r526 += (double)t2;
      }
      float t3 = (((float)acc_r526) / ((float)4.0));
      float t4 = (t3 + t1);
      b1[(8*o0 + o1)] = (float)(t4);
      double acc_r534 = (double)0;
      double acc_r536 = (double)0;
      double t6 = ((double)(t4));
      #pragma omp simd reduction(+:acc_r534) reduction(+:acc_r536)
      for (int64_t r0 = 0; r0 < 4; r0++) {
        acc_r534 += (double)b2[(32*o0 + 4*o1 + r0)];
        double t5 = ((double)(b0[(32*o0 + 4*o1 + r0)]));
        double t7 = (t5 - t6);
        double t8 = (t7 * t7);
        acc_r536 += (double)t8;
      }
      double t9 = (((double)acc_r536) * ((double)256.0));
      double t10 = (((double)acc_r534) + t9);
      float t11 = ((float)(t10));
      float t12 = (t11 / ((float)1024.0));
      b3[(8*o0 + o1)] = (float)(t12);
      float t13 = (t12 + ((float)1e-05));
      float t14 = ((float)1 / sqrtf(t13));
      #pragma omp simd
      for (int64_t r0 = 0; r0 < 4; r0++) {
        float t15 = (t14 * b4[(4*o1 + r0)]);
        b5[(32*o0 + 4*o1 + r0)] = (float)(t15);
      }
      float t16 = (-t4);
      #pragma omp simd
      for (int64_t r0 = 0; r0 < 4; r0++) {
        float t17 = (t16 * b5[(32*o0 + 4*o1 + r0)]);
        float t18 = (t17 + b6[(4*o1 + r0)]);
        b7[(32*o0 + 4*o1 + r0)] = (float)(t18);
      }
    }
  }
}

extern "C" void k33(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3) {
  #pragma omp parallel for collapse(2)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 256; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 32; o2++) {
        float t1 = (b0[(8192*o0 + 32*o1 + o2)] * b1[(32*o0 + o2)]);
        float t2 = (t1 + b2[(32*o0 + o2)]);
        float t3 = ((float)1 / ((float)1 + expf(-t2)));
        float t4 = (t2 * t3);
        b3[(8192*o0 + 32*o1 + o2)] = (float)(t4);
      }
    }
  }
}

extern "C" void k34(const float* __restrict__ b0, const float* b1, float* b2) {
  #pragma omp parallel for simd
  for (int64_t o0 = 0; o0 < 65536; o0++) {
    float t1 = (b0[(o0)] + b1[(o0)]);
    b2[(o0)] = (float)(t1);
  }
}

extern "C" void k35(const float* __restrict__ b0, double* __restrict__ b1, float* __restrict__ b2) {
  #pragma omp parallel for
  for (int64_t g0 = 0; g0 < 4; g0++) {
    for (int64_t ob = 0; ob < 16; ob += 64) {
      const int64_t oe = std::min<int64_t>(ob + 64, 16);
      double acc_r596[64]; for (int i = 0; i < 64; i++) acc_r596[i] = (double)0;
      for (int64_t r0 = 0; r0 < 1024; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          float t1 = (b0[(16384*g0 + o0 + 16*r0)] - b0[(16384*g0 + o0)]);
          acc_r596[o0 - ob] += (double)t1;
        }
      }
      double acc_r603[64]; for (int i = 0; i < 64; i++) acc_r603[i] = (double)0;
      for (int64_t r0 = 0; r0 < 1024; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          float t2 = (b0[(16384*g0 + o0 + 16*r0)] - b0[(16384*g0 + o0)]);
          float t3 = (((float)acc_r596[o0 - ob]) / ((float)1024.0));
          float t4 = (t2 - t3);
          float t5 = (t4 * t4);
          double t6 = ((double)(t5));
          acc_r603[o0 - ob] += (double)t6;
        }
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        b1[(16*g0 + o0)] = (double)(acc_r603[o0 - ob]);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t7 = (((float)acc_r596[o0 - ob]) / ((float)1024.0));
        float t8 = (t7 + b0[(16384*g0 + o0)]);
        b2[(16*g0 + o0)] = (float)(t8);
      }
    }
  }
}

extern "C" void k36(const float* __restrict__ b0, float* __restrict__ b1, const double* __restrict__ b2, float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, const float* __restrict__ b6, float* __restrict__ b7) {
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 8; o1++) {
      double acc_r608 = (double)0;
      float t1 = b0[(16*o0 + 2*o1)];
      #pragma omp simd reduction(+:acc_r608)
      for (int64_t r0 = 0; r0 < 2; r0++) {
        float t2 = (b0[(16*o0 + 2*o1 + r0)] - t1);
        acc_r608 += (double)t2;
      }
      float t3 = (((float)acc_r608) / ((float)2.0));
      float t4 = (t3 + t1);
      b1[(8*o0 + o1)] = (float)(t4);
      double acc_r616 = (double)0;
      double acc_r618 = (double)0;
      double t6 = ((double)(t4));
      #pragma omp simd reduction(+:acc_r616) reduction(+:acc_r618)
      for (int64_t r0 = 0; r0 < 2; r0++) {
        acc_r616 += (double)b2[(16*o0 + 2*o1 + r0)];
        double t5 = ((double)(b0[(16*o0 + 2*o1 + r0)]));
        double t7 = (t5 - t6);
        double t8 = (t7 * t7);
        acc_r618 += (double)t8;
      }
      double t9 = (((double)acc_r618) * ((double)1024.0));
      double t10 = (((double)acc_r616) + t9);
      float t11 = ((float)(t10));
      float t12 = (t11 / ((float)2048.0));
      b3[(8*o0 + o1)] = (float)(t12);
      float t13 = (t12 + ((float)1e-05));
      float t14 = ((float)1 / sqrtf(t13));
      #pragma omp simd
      for (int64_t r0 = 0; r0 < 2; r0++) {
        float t15 = (t14 * b4[(2*o1 + r0)]);
        b5[(16*o0 + 2*o1 + r0)] = (float)(t15);
      }
      float t16 = (-t4);
      #pragma omp simd
      for (int64_t r0 = 0; r0 < 2; r0++) {
        float t17 = (t16 * b5[(16*o0 + 2*o1 + r0)]);
        float t18 = (t17 + b6[(2*o1 + r0)]);
        b7[(16*o0 + 2*o1 + r0)] = (float)(t18);
      }
    }
  }
}

extern "C" void k37(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3) {
  #pragma omp parallel for collapse(2)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 1024; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 16; o2++) {
        float t1 = (b0[(16384*o0 + 16*o1 + o2)] * b1[(16*o0 + o2)]);
        float t2 = (t1 + b2[(16*o0 + o2)]);
        float t3 = ((float)1 / ((float)1 + expf(-t2)));
        float t4 = (t2 * t3);
        b3[(16384*o0 + 16*o1 + o2)] = (float)(t4);
      }
    }
  }
}

extern "C" void k38(const float* __restrict__ b0, double* __restrict__ b1, float* __restrict__ b2) {
  #pragma omp parallel for
  for (int64_t g0 = 0; g0 < 4; g0++) {
    for (int64_t ob = 0; ob < 16; ob += 64) {
      const int64_t oe = std::min<int64_t>(ob + 64, 16);
      double acc_r670[64]; for (int i = 0; i < 64; i++) acc_r670[i] = (double)0;
      for (int64_t r0 = 0; r0 < 1024; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          float t1 = (b0[(16384*g0 + o0 + 16*r0)] - b0[(16384*g0 + o0)]);
          acc_r670[o0 - ob] += (double)t1;
        }
      }
      double acc_r677[64]; for (int i = 0; i < 64; i++) acc_r677[i] = (double)0;
      for (int64_t r0 = 0; r0 < 1024; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          float t2 = (b0[(16384*g0 + o0 + 16*r0)] - b0[(16384*g0 + o0)]);
          float t3 = (((float)acc_r670[o0 - ob]) / ((float)1024.0));
          float t4 = (t2 - t3);
          float t5 = (t4 * t4);
          double t6 = ((double)(t5));
          acc_r677[o0 - ob] += (double)t6;
        }
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        b1[(16*g0 + o0)] = (double)(acc_r677[o0 - ob]);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t7 = (((float)acc_r670[o0 - ob]) / ((float)1024.0));
        float t8 = (t7 + b0[(16384*g0 + o0)]);
        b2[(16*g0 + o0)] = (float)(t8);
      }
    }
  }
}

extern "C" void k39(const float* __restrict__ b0, float* __restrict__ b1, const double* __restrict__ b2, float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, const float* __restrict__ b6, float* __restrict__ b7) {
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 8; o1++) {
      double acc_r682 = (double)0;
      float t1 = b0[(16*o0 + 2*o1)];
      #pragma omp simd reduction(+:acc_r682)
      for (int64_t r0 = 0; r0 < 2; r0++) {
        float t2 = (b0[(16*o0 + 2*o1 + r0)] - t1);
        acc_r682 += (double)t2;
      }
      float t3 = (((float)acc_r682) / ((float)2.0));
      float t4 = (t3 + t1);
      b1[(8*o0 + o1)] = (float)(t4);
      double acc_r690 = (double)0;
      double acc_r692 = (double)0;
      double t6 = ((double)(t4));
      #pragma omp simd reduction(+:acc_r690) reduction(+:acc_r692)
      for (int64_t r0 = 0; r0 < 2; r0++) {
        acc_r690 += (double)b2[(16*o0 + 2*o1 + r0)];
        double t5 = ((double)(b0[(16*o0 + 2*o1 + r0)]));
        double t7 = (t5 - t6);
        double t8 = (t7 * t7);
        acc_r692 += (double)t8;
      }
      double t9 = (((double)acc_r692) * ((double)1024.0));
      double t10 = (((double)acc_r690) + t9);
      float t11 = ((float)(t10));
      float t12 = (t11 / ((float)2048.0));
      b3[(8*o0 + o1)] = (float)(t12);
      float t13 = (t12 + ((float)1e-05));
      float t14 = ((float)1 / sqrtf(t13));
      #pragma omp simd
      for (int64_t r0 = 0; r0 < 2; r0++) {
        float t15 = (t14 * b4[(2*o1 + r0)]);
        b5[(16*o0 + 2*o1 + r0)] = (float)(t15);
      }
      float t16 = (-t4);
      #pragma omp simd
      for (int64_t r0 = 0; r0 < 2; r0++) {
        float t17 = (t16 * b5[(16*o0 + 2*o1 + r0)]);
        float t18 = (t17 + b6[(2*o1 + r0)]);
        b7[(16*o0 + 2*o1 + r0)] = (float)(t18);
      }
    }
  }
}

extern "C" void k40(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3) {
  #pragma omp parallel for collapse(2)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 1024; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 16; o2++) {
        float t1 = (b0[(16384*o0 + 16*o1 + o2)] * b1[(16*o0 + o2)]);
        float t2 = (t1 + b2[(16*o0 + o2)]);
        float t3 = ((float)1 / ((float)1 + expf(-t2)));
        float t4 = (t2 * t3);
        b3[(16384*o0 + 16*o1 + o2)] = (float)(t4);
      }
    }
  }
}

extern "C" void k41(const float* __restrict__ b0, const float* __restrict__ b1, float* __restrict__ b2) {
  double acc_r749 = (double)0;
  for (int64_t r0 = 0; r0 < 4; r0++) {
    for (int64_t r1 = 0; r1 < 3; r1++) {
      #pragma omp simd reduction(+:acc_r749)
      for (int64_t r2 = 0; r2 < 1024; r2++) {
        float t1 = (b0[(3072*r0 + r1 + 3*r2)] - b1[(3072*r0 + 1024*r1 + r2)]);
        float t2 = (t1 * t1);
        acc_r749 += (double)t2;
      }
    }
  }
  float t3 = (((float)acc_r749) / ((float)12288.0));
  b2[(0)] = (float)(t3);
}

extern "C" void k42(const float* __restrict__ b0, const float* __restrict__ b1, float* __restrict__ b2) {
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 1024; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 3; o2++) {
        float t1 = (b0[(3072*o0 + 3*o1 + o2)] - b1[(3072*o0 + o1 + 1024*o2)]);
        float t2 = (t1 * ((float)0.00016276041666666666));
        b2[(3072*o0 + 3*o1 + o2)] = (float)(t2);
      }
    }
  }
}
