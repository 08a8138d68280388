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


extern "C" void k0(const float* __restrict__ b0, const float* __restrict__ b1, float* __restrict__ b2) {
  float t1 = b1[(0)];
  #pragma omp simd
  for (int64_t o0 = 0; o0 < 12288; o0++) {
    float t2 = (b0[(o0)] * t1);
    b2[(o0)] = (float)(t2);
  }
}

extern "C" void k10(const float* __restrict__ b0, float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, const float* __restrict__ b6, float* __restrict__ b7) {
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

extern "C" void k21(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 32; o0++) {
    for (int64_t o1 = 0; o1 < 4; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 16; o2++) {
        b1[(64*o0 + 16*o1 + o2)] = (float)(b0[(64*o0 + o1 + 4*o2)]);
      }
    }
  }
}

extern "C" void k29(const float* __restrict__ b0, float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, const float* __restrict__ b6, float* __restrict__ b7) {
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

extern "C" void k40(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 64; o0++) {
    for (int64_t o1 = 0; o1 < 4; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 32; o2++) {
        b1[(128*o0 + 32*o1 + o2)] = (float)(b0[(128*o0 + o1 + 4*o2)]);
      }
    }
  }
}

extern "C" void k56(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 64; o0++) {
    for (int64_t o1 = 0; o1 < 9; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 32; o2++) {
        b1[(288*o0 + 32*o1 + o2)] = (float)(b0[(288*o0 + o1 + 9*o2)]);
      }
    }
  }
}

extern "C" void k72(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 32; o0++) {
    for (int64_t o1 = 0; o1 < 9; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 16; o2++) {
        b1[(144*o0 + 16*o1 + o2)] = (float)(b0[(144*o0 + o1 + 9*o2)]);
      }
    }
  }
}

extern "C" void k88(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 16; o0++) {
    for (int64_t o1 = 0; o1 < 9; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 3; o2++) {
        b1[(27*o0 + 3*o1 + o2)] = (float)(b0[(27*o0 + o1 + 9*o2)]);
      }
    }
  }
}

extern "C" void k1(const float* __restrict__ b0, const float* __restrict__ b1, float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, const float* __restrict__ b6, const float* __restrict__ b7, float* __restrict__ b8, const float* __restrict__ b9, const float* __restrict__ b10, float* __restrict__ b11, const float* __restrict__ b12, const float* __restrict__ b13, float* __restrict__ b14, const float* __restrict__ b15, const float* __restrict__ b16, float* __restrict__ b17, const float* __restrict__ b18, const float* __restrict__ b19, float* __restrict__ b20, const float* __restrict__ b21, const float* __restrict__ b22, float* __restrict__ b23) {
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 8; o1++) {
      float t1 = (b0[(8*o0 + o1)] + ((float)1e-05));
      float t2 = ((float)1 / sqrtf(t1));
      float t7 = (b6[(8*o0 + o1)] + ((float)1e-05));
      float t8 = ((float)1 / sqrtf(t7));
      float t13 = (b12[(8*o0 + o1)] + ((float)1e-05));
      float t14 = ((float)1 / sqrtf(t13));
      float t19 = (b18[(8*o0 + o1)] + ((float)1e-05));
      float t20 = ((float)1 / sqrtf(t19));
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 2; o2++) {
        float t3 = (t2 * b1[(2*o1 + o2)]);
        b2[(16*o0 + 2*o1 + o2)] = (float)(t3);
        float t4 = (-b3[(8*o0 + o1)]);
        float t5 = (t4 * t3);
        float t6 = (t5 + b4[(2*o1 + o2)]);
        b5[(16*o0 + 2*o1 + o2)] = (float)(t6);
        float t9 = (t8 * b7[(2*o1 + o2)]);
        b8[(16*o0 + 2*o1 + o2)] = (float)(t9);
        float t10 = (-b9[(8*o0 + o1)]);
        float t11 = (t10 * t9);
        float t12 = (t11 + b10[(2*o1 + o2)]);
        b11[(16*o0 + 2*o1 + o2)] = (float)(t12);
        float t15 = (t14 * b13[(2*o1 + o2)]);
        b14[(16*o0 + 2*o1 + o2)] = (float)(t15);
        float t16 = (-b15[(8*o0 + o1)]);
        float t17 = (t16 * t15);
        float t18 = (t17 + b16[(2*o1 + o2)]);
        b17[(16*o0 + 2*o1 + o2)] = (float)(t18);
        float t21 = (t20 * b19[(2*o1 + o2)]);
        b20[(16*o0 + 2*o1 + o2)] = (float)(t21);
        float t22 = (-b21[(8*o0 + o1)]);
        float t23 = (t22 * t21);
        float t24 = (t23 + b22[(2*o1 + o2)]);
        b23[(16*o0 + 2*o1 + o2)] = (float)(t24);
      }
    }
  }
}

extern "C" void k2(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3) {
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

extern "C" void k3(const float* __restrict__ b0, float* __restrict__ b1) {
  #pragma omp simd
  for (int64_t o0 = 0; o0 < 48; o0++) {
    b1[(o0)] = (float)(b0[(o0)]);
  }
}

extern "C" void k4(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, float* __restrict__ b4, float* __restrict__ b5, const float* __restrict__ b6, const float* __restrict__ b7, const float* __restrict__ b8, float* __restrict__ b9) {
  #pragma omp parallel for collapse(2)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 1024; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 16; o2++) {
        float t1 = (b1[(16384*o0 + 16*o1 + o2)] * b2[(16*o0 + o2)]);
        float t2 = (t1 + b3[(16*o0 + o2)]);
        float t3 = ((float)1 / ((float)1 + expf(-t2)));
        float t4 = (b0[(16384*o0 + 16*o1 + o2)] * t3);
        float t5 = (((float)1.0) - t3);
        float t6 = (t2 * t5);
        float t7 = (t6 + ((float)1.0));
        float t8 = (t4 * t7);
        b4[(16384*o0 + 16*o1 + o2)] = (float)(t8);
        float t9 = (t8 * b1[(16384*o0 + 16*o1 + o2)]);
        b5[(16384*o0 + 16*o1 + o2)] = (float)(t9);
        float t10 = (b6[(16384*o0 + 16*o1 + o2)] * b7[(16*o0 + o2)]);
        float t11 = (t10 + b8[(16*o0 + o2)]);
        float t12 = ((float)1 / ((float)1 + expf(-t11)));
        float t13 = (t11 * t12);
        b9[(16384*o0 + 16*o1 + o2)] = (float)(t13);
      }
    }
  }
}

extern "C" void k5(const float* __restrict__ b0, float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, float* __restrict__ b6) {
  #pragma omp parallel for
  for (int64_t g0 = 0; g0 < 4; g0++) {
    for (int64_t ob = 0; ob < 16; ob += 64) {
      const int64_t oe = std::min<int64_t>(ob + 64, 16);
      double acc_r84[64]; for (int i = 0; i < 64; i++) acc_r84[i] = (double)0;
      double acc_r86[64]; for (int i = 0; i < 64; i++) acc_r86[i] = (double)0;
      for (int64_t r0 = 0; r0 < 1024; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          acc_r84[o0 - ob] += (double)b0[(16384*g0 + o0 + 16*r0)];
          acc_r86[o0 - ob] += (double)b2[(16384*g0 + o0 + 16*r0)];
        }
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        b1[(16*g0 + o0)] = (float)(acc_r84[o0 - ob]);
        b3[(16*g0 + o0)] = (float)(acc_r86[o0 - ob]);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t1 = (((float)acc_r84[o0 - ob]) * b4[(o0)]);
        b5[(16*g0 + o0)] = (float)(t1);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t2 = (((float)acc_r86[o0 - ob]) * b4[(o0)]);
        b6[(16*g0 + o0)] = (float)(t2);
      }
    }
  }
}

extern "C" void k6(const float* __restrict__ b0, const float* __restrict__ b1, float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5) {
  for (int64_t o0 = 0; o0 < 32; o0++) {
    double acc_r91 = (double)0;
    double acc_r96 = (double)0;
    #pragma omp simd reduction(+:acc_r91) reduction(+:acc_r96)
    for (int64_t r0 = 0; r0 < 2; r0++) {
      acc_r91 += (double)b0[(2*o0 + r0)];
      acc_r96 += (double)b1[(2*o0 + r0)];
    }
    b2[(o0)] = (float)(acc_r96);
    float t1 = (((float)acc_r96) * b3[(o0)]);
    float t2 = (t1 - ((float)acc_r91));
    float t3 = (b4[(o0)] + ((float)1e-05));
    float t4 = ((float)1 / sqrtf(t3));
    float t5 = (t2 * t4);
    float t6 = (t5 * t4);
    float t7 = (t6 * t4);
    float t8 = (t7 * ((float)0.00048828125));
    b5[(o0)] = (float)(t8);
  }
}

extern "C" void k7(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, const float* __restrict__ b5, const float* __restrict__ b6, float* __restrict__ b7) {
  #pragma omp parallel for collapse(3)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 1024; o1++) {
      for (int64_t o2 = 0; o2 < 8; o2++) {
        float t1 = (b1[(8*o0 + o2)] + ((float)1e-05));
        float t2 = ((float)1 / sqrtf(t1));
        #pragma omp simd
        for (int64_t o3 = 0; o3 < 2; o3++) {
          float t3 = (t2 * b2[(2*o2 + o3)]);
          float t4 = (b0[(16384*o0 + 16*o1 + 2*o2 + o3)] * t3);
          float t5 = (b3[(16384*o0 + 16*o1 + 2*o2 + o3)] * b4[(8*o0 + o2)]);
          float t6 = (t4 + t5);
          float t7 = (-b4[(8*o0 + o2)]);
          float t8 = (t7 * b5[(8*o0 + o2)]);
          float t9 = (b6[(8*o0 + o2)] * t2);
          float t10 = (t9 * ((float)0.00048828125));
          float t11 = (t8 - t10);
          float t12 = (t6 + t11);
          b7[(16384*o0 + 16*o1 + 2*o2 + o3)] = (float)(t12);
        }
      }
    }
  }
}

extern "C" void k8(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, float* __restrict__ b4) {
  for (int64_t o0 = 0; o0 < 8; o0++) {
    for (int64_t o1 = 0; o1 < 2; o1++) {
      double acc_r158 = (double)0;
      #pragma omp simd reduction(+:acc_r158)
      for (int64_t r0 = 0; r0 < 4; r0++) {
        float t1 = (b1[(16*r0 + 2*o0 + o1)] * b2[(8*r0 + o0)]);
        float t2 = (b0[(16*r0 + 2*o0 + o1)] - t1);
        float t3 = (b3[(8*r0 + o0)] + ((float)1e-05));
        float t4 = ((float)1 / sqrtf(t3));
        float t5 = (t2 * t4);
        acc_r158 += (double)t5;
      }
      b4[(2*o0 + o1)] = (float)(acc_r158);
    }
  }
}

extern "C" void k9(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t ob = 0; ob < 16; ob += 64) {
    const int64_t oe = std::min<int64_t>(ob + 64, 16);
    double acc_r160[64]; for (int i = 0; i < 64; i++) acc_r160[i] = (double)0;
    for (int64_t r0 = 0; r0 < 4; r0++) {
      #pragma omp simd
      for (int64_t o0 = ob; o0 < oe; o0++) {
        acc_r160[o0 - ob] += (double)b0[(16*r0 + o0)];
      }
    }
    for (int64_t o0 = ob; o0 < oe; o0++) {
      b1[(o0)] = (float)(acc_r160[o0 - ob]);
    }
  }
}

extern "C" void k11(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 16; o0++) {
    for (int64_t o1 = 0; o1 < 16; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 9; o2++) {
        b1[(144*o0 + 9*o1 + o2)] = (float)(b0[(144*o0 + o1 + 16*o2)]);
      }
    }
  }
}

extern "C" void k12(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, float* __restrict__ b4, float* __restrict__ b5, const float* __restrict__ b6, const float* __restrict__ b7, const float* __restrict__ b8, float* __restrict__ b9) {
  #pragma omp parallel for collapse(2)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 1024; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 16; o2++) {
        float t1 = (b1[(16384*o0 + 16*o1 + o2)] * b2[(16*o0 + o2)]);
        float t2 = (t1 + b3[(16*o0 + o2)]);
        float t3 = ((float)1 / ((float)1 + expf(-t2)));
        float t4 = (b0[(16384*o0 + 16*o1 + o2)] * t3);
        float t5 = (((float)1.0) - t3);
        float t6 = (t2 * t5);
        float t7 = (t6 + ((float)1.0));
        float t8 = (t4 * t7);
        b4[(16384*o0 + 16*o1 + o2)] = (float)(t8);
        float t9 = (t8 * b1[(16384*o0 + 16*o1 + o2)]);
        b5[(16384*o0 + 16*o1 + o2)] = (float)(t9);
        float t10 = (b6[(16384*o0 + 16*o1 + o2)] * b7[(16*o0 + o2)]);
        float t11 = (t10 + b8[(16*o0 + o2)]);
        float t12 = ((float)1 / ((float)1 + expf(-t11)));
        float t13 = (t11 * t12);
        b9[(16384*o0 + 16*o1 + o2)] = (float)(t13);
      }
    }
  }
}

extern "C" void k13(const float* __restrict__ b0, float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, float* __restrict__ b6) {
  #pragma omp parallel for
  for (int64_t g0 = 0; g0 < 4; g0++) {
    for (int64_t ob = 0; ob < 16; ob += 64) {
      const int64_t oe = std::min<int64_t>(ob + 64, 16);
      double acc_r240[64]; for (int i = 0; i < 64; i++) acc_r240[i] = (double)0;
      double acc_r242[64]; for (int i = 0; i < 64; i++) acc_r242[i] = (double)0;
      for (int64_t r0 = 0; r0 < 1024; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          acc_r240[o0 - ob] += (double)b0[(16384*g0 + o0 + 16*r0)];
          acc_r242[o0 - ob] += (double)b2[(16384*g0 + o0 + 16*r0)];
        }
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        b1[(16*g0 + o0)] = (float)(acc_r240[o0 - ob]);
        b3[(16*g0 + o0)] = (float)(acc_r242[o0 - ob]);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t1 = (((float)acc_r240[o0 - ob]) * b4[(o0)]);
        b5[(16*g0 + o0)] = (float)(t1);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t2 = (((float)acc_r242[o0 - ob]) * b4[(o0)]);
        b6[(16*g0 + o0)] = (float)(t2);
      }
    }
  }
}

extern "C" void k14(const float* __restrict__ b0, const float* __restrict__ b1, float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5) {
  for (int64_t o0 = 0; o0 < 32; o0++) {
    double acc_r247 = (double)0;
    double acc_r252 = (double)0;
    #pragma omp simd reduction(+:acc_r247) reduction(+:acc_r252)
    for (int64_t r0 = 0; r0 < 2; r0++) {
      acc_r247 += (double)b0[(2*o0 + r0)];
      acc_r252 += (double)b1[(2*o0 + r0)];
    }
    b2[(o0)] = (float)(acc_r252);
    float t1 = (((float)acc_r252) * b3[(o0)]);
    float t2 = (t1 - ((float)acc_r247));
    float t3 = (b4[(o0)] + ((float)1e-05));
    float t4 = ((float)1 / sqrtf(t3));
    float t5 = (t2 * t4);
    float t6 = (t5 * t4);
    float t7 = (t6 * t4);
    float t8 = (t7 * ((float)0.00048828125));
    b5[(o0)] = (float)(t8);
  }
}

extern "C" void k15(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, const float* __restrict__ b5, const float* __restrict__ b6, float* __restrict__ b7) {
  #pragma omp parallel for collapse(3)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 1024; o1++) {
      for (int64_t o2 = 0; o2 < 8; o2++) {
        float t1 = (b1[(8*o0 + o2)] + ((float)1e-05));
        float t2 = ((float)1 / sqrtf(t1));
        #pragma omp simd
        for (int64_t o3 = 0; o3 < 2; o3++) {
          float t3 = (t2 * b2[(2*o2 + o3)]);
          float t4 = (b0[(16384*o0 + 16*o1 + 2*o2 + o3)] * t3);
          float t5 = (b3[(16384*o0 + 16*o1 + 2*o2 + o3)] * b4[(8*o0 + o2)]);
          float t6 = (t4 + t5);
          float t7 = (-b4[(8*o0 + o2)]);
          float t8 = (t7 * b5[(8*o0 + o2)]);
          float t9 = (b6[(8*o0 + o2)] * t2);
          float t10 = (t9 * ((float)0.00048828125));
          float t11 = (t8 - t10);
          float t12 = (t6 + t11);
          b7[(16384*o0 + 16*o1 + 2*o2 + o3)] = (float)(t12);
        }
      }
    }
  }
}

extern "C" void k16(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, float* __restrict__ b4) {
  for (int64_t o0 = 0; o0 < 8; o0++) {
    for (int64_t o1 = 0; o1 < 2; o1++) {
      double acc_r314 = (double)0;
      #pragma omp simd reduction(+:acc_r314)
      for (int64_t r0 = 0; r0 < 4; r0++) {
        float t1 = (b1[(16*r0 + 2*o0 + o1)] * b2[(8*r0 + o0)]);
        float t2 = (b0[(16*r0 + 2*o0 + o1)] - t1);
        float t3 = (b3[(8*r0 + o0)] + ((float)1e-05));
        float t4 = ((float)1 / sqrtf(t3));
        float t5 = (t2 * t4);
        acc_r314 += (double)t5;
      }
      b4[(2*o0 + o1)] = (float)(acc_r314);
    }
  }
}

extern "C" void k17(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t ob = 0; ob < 16; ob += 64) {
    const int64_t oe = std::min<int64_t>(ob + 64, 16);
    double acc_r316[64]; for (int i = 0; i < 64; i++) acc_r316[i] = (double)0;
    for (int64_t r0 = 0; r0 < 4; r0++) {
      #pragma omp simd
      for (int64_t o0 = ob; o0 < oe; o0++) {
        acc_r316[o0 - ob] += (double)b0[(16*r0 + o0)];
      }
    }
    for (int64_t o0 = ob; o0 < oe; o0++) {
      b1[(o0)] = (float)(acc_r316[o0 - ob]);
    }
  }
}

extern "C" void k18(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 16; o0++) {
    for (int64_t o1 = 0; o1 < 16; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 9; o2++) {
        b1[(144*o0 + 9*o1 + o2)] = (float)(b0[(144*o0 + o1 + 16*o2)]);
      }
    }
  }
}

extern "C" void k19(const float* __restrict__ b0, const float* __restrict__ b1, float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, const float* __restrict__ b6, const float* __restrict__ b7, float* __restrict__ b8, const float* __restrict__ b9, const float* __restrict__ b10, float* __restrict__ b11, const float* __restrict__ b12, const float* __restrict__ b13, float* __restrict__ b14, const float* __restrict__ b15, const float* __restrict__ b16, float* __restrict__ b17, const float* __restrict__ b18, const float* __restrict__ b19, float* __restrict__ b20, const float* __restrict__ b21, const float* __restrict__ b22, float* __restrict__ b23) {
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 8; o1++) {
      float t1 = (b0[(8*o0 + o1)] + ((float)1e-05));
      float t2 = ((float)1 / sqrtf(t1));
      float t7 = (b6[(8*o0 + o1)] + ((float)1e-05));
      float t8 = ((float)1 / sqrtf(t7));
      float t13 = (b12[(8*o0 + o1)] + ((float)1e-05));
      float t14 = ((float)1 / sqrtf(t13));
      float t19 = (b18[(8*o0 + o1)] + ((float)1e-05));
      float t20 = ((float)1 / sqrtf(t19));
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 4; o2++) {
        float t3 = (t2 * b1[(4*o1 + o2)]);
        b2[(32*o0 + 4*o1 + o2)] = (float)(t3);
        float t4 = (-b3[(8*o0 + o1)]);
        float t5 = (t4 * t3);
        float t6 = (t5 + b4[(4*o1 + o2)]);
        b5[(32*o0 + 4*o1 + o2)] = (float)(t6);
        float t9 = (t8 * b7[(4*o1 + o2)]);
        b8[(32*o0 + 4*o1 + o2)] = (float)(t9);
        float t10 = (-b9[(8*o0 + o1)]);
        float t11 = (t10 * t9);
        float t12 = (t11 + b10[(4*o1 + o2)]);
        b11[(32*o0 + 4*o1 + o2)] = (float)(t12);
        float t15 = (t14 * b13[(4*o1 + o2)]);
        b14[(32*o0 + 4*o1 + o2)] = (float)(t15);
        float t16 = (-b15[(8*o0 + o1)]);
        float t17 = (t16 * t15);
        float t18 = (t17 + b16[(4*o1 + o2)]);
        b17[(32*o0 + 4*o1 + o2)] = (float)(t18);
        float t21 = (t20 * b19[(4*o1 + o2)]);
        b20[(32*o0 + 4*o1 + o2)] = (float)(t21);
        float t22 = (-b21[(8*o0 + o1)]);
        float t23 = (t22 * t21);
        float t24 = (t23 + b22[(4*o1 + o2)]);
        b23[(32*o0 + 4*o1 + o2)] = (float)(t24);
      }
    }
  }
}

extern "C" void k20(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3) {
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

extern "C" void k22(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 32; o0++) {
    for (int64_t o1 = 0; o1 < 16; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 4; o2++) {
        b1[(64*o0 + 4*o1 + o2)] = (float)(b0[(64*o0 + o1 + 16*o2)]);
      }
    }
  }
}

extern "C" void k23(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, float* __restrict__ b4, float* __restrict__ b5, const float* __restrict__ b6, const float* __restrict__ b7, const float* __restrict__ b8, float* __restrict__ b9) {
  #pragma omp parallel for collapse(2)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 256; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 32; o2++) {
        float t1 = (b1[(8192*o0 + 32*o1 + o2)] * b2[(32*o0 + o2)]);
        float t2 = (t1 + b3[(32*o0 + o2)]);
        float t3 = ((float)1 / ((float)1 + expf(-t2)));
        float t4 = (b0[(8192*o0 + 32*o1 + o2)] * t3);
        float t5 = (((float)1.0) - t3);
        float t6 = (t2 * t5);
        float t7 = (t6 + ((float)1.0));
        float t8 = (t4 * t7);
        b4[(8192*o0 + 32*o1 + o2)] = (float)(t8);
        float t9 = (t8 * b1[(8192*o0 + 32*o1 + o2)]);
        b5[(8192*o0 + 32*o1 + o2)] = (float)(t9);
        float t10 = (b6[(8192*o0 + 32*o1 + o2)] * b7[(32*o0 + o2)]);
        float t11 = (t10 + b8[(32*o0 + o2)]);
        float t12 = ((float)1 / ((float)1 + expf(-t11)));
        float t13 = (t11 * t12);
        b9[(8192*o0 + 32*o1 + o2)] = (float)(t13);
      }
    }
  }
}

extern "C" void k24(const float* __restrict__ b0, float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, float* __restrict__ b6) {
  #pragma omp parallel for
  for (int64_t g0 = 0; g0 < 4; g0++) {
    for (int64_t ob = 0; ob < 32; ob += 64) {
      const int64_t oe = std::min<int64_t>(ob + 64, 32);
      double acc_r404[64]; for (int i = 0; i < 64; i++) acc_r404[i] = (double)0;
      double acc_r406[64]; for (int i = 0; i < 64; i++) acc_r406[i] = (double)0;
      for (int64_t r0 = 0; r0 < 256; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          acc_r404[o0 - ob] += (double)b0[(8192*g0 + o0 + 32*r0)];
          acc_r406[o0 - ob] += (double)b2[(8192*g0 + o0 + 32*r0)];
        }
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        b1[(32*g0 + o0)] = (float)(acc_r404[o0 - ob]);
        b3[(32*g0 + o0)] = (float)(acc_r406[o0 - ob]);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t1 = (((float)acc_r404[o0 - ob]) * b4[(o0)]);
        b5[(32*g0 + o0)] = (float)(t1);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t2 = (((float)acc_r406[o0 - ob]) * b4[(o0)]);
        b6[(32*g0 + o0)] = (float)(t2);
      }
    }
  }
}

extern "C" void k25(const float* __restrict__ b0, const float* __restrict__ b1, float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5) {
  for (int64_t o0 = 0; o0 < 32; o0++) {
    double acc_r411 = (double)0;
    double acc_r416 = (double)0;
    #pragma omp simd reduction(+:acc_r411) reduction(+:acc_r416)
    for (int64_t r0 = 0; r0 < 4; r0++) {
      acc_r411 += (double)b0[(4*o0 + r0)];
      acc_r416 += (double)b1[(4*o0 + r0)];
    }
    b2[(o0)] = (float)(acc_r416);
    float t1 = (((float)acc_r416) * b3[(o0)]);
    float t2 = (t1 - ((float)acc_r411));
    float t3 = (b4[(o0)] + ((float)1e-05));
    float t4 = ((float)1 / sqrtf(t3));
    float t5 = (t2 * t4);
    float t6 = (t5 * t4);
    float t7 = (t6 * t4);
    float t8 = (t7 * ((float)0.0009765625));
    b5[(o0)] = (float)(t8);
  }
}

extern "C" void k26(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, const float* __restrict__ b5, const float* __restrict__ b6, float* __restrict__ b7) {
  #pragma omp parallel for collapse(3)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 256; o1++) {
      for (int64_t o2 = 0; o2 < 8; o2++) {
        float t1 = (b1[(8*o0 + o2)] + ((float)1e-05));
        float t2 = ((float)1 / sqrtf(t1));
        #pragma omp simd
        for (int64_t o3 = 0; o3 < 4; o3++) {
          float t3 = (t2 * b2[(4*o2 + o3)]);
          float t4 = (b0[(8192*o0 + 32*o1 + 4*o2 + o3)] * t3);
          float t5 = (b3[(8192*o0 + 32*o1 + 4*o2 + o3)] * b4[(8*o0 + o2)]);
          float t6 = (t4 + t5);
          float t7 = (-b4[(8*o0 + o2)]);
          float t8 = (t7 * b5[(8*o0 + o2)]);
          float t9 = (b6[(8*o0 + o2)] * t2);
          float t10 = (t9 * ((float)0.0009765625));
          float t11 = (t8 - t10);
          float t12 = (t6 + t11);
          b7[(8192*o0 + 32*o1 + 4*o2 + o3)] = (float)(t12);
        }
      }
    }
  }
}

extern "C" void k27(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, float* __restrict__ b4) {
  for (int64_t o0 = 0; o0 < 8; o0++) {
    for (int64_t o1 = 0; o1 < 4; o1++) {
      double acc_r478 = (double)0;
      #pragma omp simd reduction(+:acc_r478)
      for (int64_t r0 = 0; r0 < 4; r0++) {
        float t1 = (b1[(32*r0 + 4*o0 + o1)] * b2[(8*r0 + o0)]);
        float t2 = (b0[(32*r0 + 4*o0 + o1)] - t1);
        float t3 = (b3[(8*r0 + o0)] + ((float)1e-05));
        float t4 = ((float)1 / sqrtf(t3));
        float t5 = (t2 * t4);
        acc_r478 += (double)t5;
      }
      b4[(4*o0 + o1)] = (float)(acc_r478);
    }
  }
}

extern "C" void k28(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t ob = 0; ob < 32; ob += 64) {
    const int64_t oe = std::min<int64_t>(ob + 64, 32);
    double acc_r480[64]; for (int i = 0; i < 64; i++) acc_r480[i] = (double)0;
    for (int64_t r0 = 0; r0 < 4; r0++) {
      #pragma omp simd
      for (int64_t o0 = ob; o0 < oe; o0++) {
        acc_r480[o0 - ob] += (double)b0[(32*r0 + o0)];
      }
    }
    for (int64_t o0 = ob; o0 < oe; o0++) {
      b1[(o0)] = (float)(acc_r480[o0 - ob]);
    }
  }
}

extern "C" void k30(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 32; o0++) {
    for (int64_t o1 = 0; o1 < 32; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 9; o2++) {
        b1[(288*o0 + 9*o1 + o2)] = (float)(b0[(288*o0 + o1 + 32*o2)]);
      }
    }
  }
}

extern "C" void k31(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, float* __restrict__ b4, float* __restrict__ b5, const float* __restrict__ b6, const float* __restrict__ b7, const float* __restrict__ b8, float* __restrict__ b9) {
  #pragma omp parallel for collapse(2)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 256; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 32; o2++) {
        float t1 = (b1[(8192*o0 + 32*o1 + o2)] * b2[(32*o0 + o2)]);
        float t2 = (t1 + b3[(32*o0 + o2)]);
        float t3 = ((float)1 / ((float)1 + expf(-t2)));
        float t4 = (b0[(8192*o0 + 32*o1 + o2)] * t3);
        float t5 = (((float)1.0) - t3);
        float t6 = (t2 * t5);
        float t7 = (t6 + ((float)1.0));
        float t8 = (t4 * t7);
        b4[(8192*o0 + 32*o1 + o2)] = (float)(t8);
        float t9 = (t8 * b1[(8192*o0 + 32*o1 + o2)]);
        b5[(8192*o0 + 32*o1 + o2)] = (float)(t9);
        float t10 = (b6[(8192*o0 + 32*o1 + o2)] * b7[(32*o0 + o2)]);
        float t11 = (t10 + b8[(32*o0 + o2)]);
        float t12 = ((float)1 / ((float)1 + expf(-t11)));
        float t13 = (t11 * t12);
        b9[(8192*o0 + 32*o1 + o2)] = (float)(t13);
      }
    }
  }
}

extern "C" void k32(const float* __restrict__ b0, float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, float* __restrict__ b6) {
  #pragma omp parallel for
  for (int64_t g0 = 0; g0 < 4; g0++) {
    for (int64_t ob = 0; ob < 32; ob += 64) {
      const int64_t oe = std::min<int64_t>(ob + 64, 32);
      double acc_r560[64]; for (int i = 0; i < 64; i++) acc_r560[i] = (double)0;
      double acc_r562[64]; for (int i = 0; i < 64; i++) acc_r562[i] = (double)0;
      for (int64_t r0 = 0; r0 < 256; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          acc_r560[o0 - ob] += (double)b0[(8192*g0 + o0 + 32*r0)];
          acc_r562[o0 - ob] += (double)b2[(8192*g0 + o0 + 32*r0)];
        }
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        b1[(32*g0 + o0)] = (float)(acc_r560[o0 - ob]);
        b3[(32*g0 + o0)] = (float)(acc_r562[o0 - ob]);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t1 = (((float)acc_r560[o0 - ob]) * b4[(o0)]);
        b5[(32*g0 + o0)] = (float)(t1);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t2 = (((float)acc_r562[o0 - ob]) * b4[(o0)]);
        b6[(32*g0 + o0)] = (float)(t2);
      }
    }
  }
}

extern "C" void k33(const float* __restrict__ b0, const float* __restrict__ b1, float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5) {
  for (int64_t o0 = 0; o0 < 32; o0++) {
    double acc_r567 = (double)0;
    double acc_r572 = (double)0;
    #pragma omp simd reduction(+:acc_r567) reduction(+:acc_r572)
    for (int64_t r0 = 0; r0 < 4; r0++) {
      acc_r567 += (double)b0[(4*o0 + r0)];
      acc_r572 += (double)b1[(4*o0 + r0)];
    }
    b2[(o0)] = (float)(acc_r572);
    float t1 = (((float)acc_r572) * b3[(o0)]);
    float t2 = (t1 - ((float)acc_r567));
    float t3 = (b4[(o0)] + ((float)1e-05));
    float t4 = ((float)1 / sqrtf(t3));
    float t5 = (t2 * t4);
    float t6 = (t5 * t4);
    float t7 = (t6 * t4);
    float t8 = (t7 * ((float)0.0009765625));
    b5[(o0)] = (float)(t8);
  }
}

extern "C" void k34(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, const float* __restrict__ b5, const float* __restrict__ b6, float* __restrict__ b7) {
  #pragma omp parallel for collapse(3)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 256; o1++) {
      for (int64_t o2 = 0; o2 < 8; o2++) {
        float t1 = (b1[(8*o0 + o2)] + ((float)1e-05));
        float t2 = ((float)1 / sqrtf(t1));
        #pragma omp simd
        for (int64_t o3 = 0; o3 < 4; o3++) {
          float t3 = (t2 * b2[(4*o2 + o3)]);
          float t4 = (b0[(8192*o0 + 32*o1 + 4*o2 + o3)] * t3);
          float t5 = (b3[(8192*o0 + 32*o1 + 4*o2 + o3)] * b4[(8*o0 + o2)]);
          float t6 = (t4 + t5);
          float t7 = (-b4[(8*o0 + o2)]);
          float t8 = (t7 * b5[(8*o0 + o2)]);
          float t9 = (b6[(8*o0 + o2)] * t2);
          float t10 = (t9 * ((float)0.0009765625));
          float t11 = (t8 - t10);
          float t12 = (t6 + t11);
          b7[(8192*o0 + 32*o1 + 4*o2 + o3)] = (float)(t12);
        }
      }
    }
  }
}

extern "C" void k35(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, float* __restrict__ b4) {
  for (int64_t o0 = 0; o0 < 8; o0++) {
    for (int64_t o1 = 0; o1 < 4; o1++) {
      double acc_r634 = (double)0;
      #pragma omp simd reduction(+:acc_r634)
      for (int64_t r0 = 0; r0 < 4; r0++) {
        float t1 = (b1[(32*r0 + 4*o0 + o1)] * b2[(8*r0 + o0)]);
        float t2 = (b0[(32*r0 + 4*o0 + o1)] - t1);
        float t3 = (b3[(8*r0 + o0)] + ((float)1e-05));
        float t4 = ((float)1 / sqrtf(t3));
        float t5 = (t2 * t4);
        acc_r634 += (double)t5;
      }
      b4[(4*o0 + o1)] = (float)(acc_r634);
    }
  }
}

extern "C" void k36(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t ob = 0; ob < 32; ob += 64) {
    const int64_t oe = std::min<int64_t>(ob + 64, 32);
    double acc_r636[64]; for (int i = 0; i < 64; i++) acc_r636[i] = (double)0;
    for (int64_t r0 = 0; r0 < 4; r0++) {
      #pragma omp simd
      for (int64_t o0 = ob; o0 < oe; o0++) {
        acc_r636[o0 - ob] += (double)b0[(32*r0 + o0)];
      }
    }
    for (int64_t o0 = ob; o0 < oe; o0++) {
      b1[(o0)] = (float)(acc_r636[o0 - ob]);
    }
  }
}

extern "C" void k37(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 32; o0++) {
    for (int64_t o1 = 0; o1 < 32; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 9; o2++) {
        b1[(288*o0 + 9*o1 + o2)] = (float)(b0[(288*o0 + o1 + 32*o2)]);
      }
    }
  }
}

extern "C" void k38(const float* __restrict__ b0, const float* __restrict__ b1, float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, const float* __restrict__ b6, const float* __restrict__ b7, float* __restrict__ b8, const float* __restrict__ b9, const float* __restrict__ b10, float* __restrict__ b11) {
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 8; o1++) {
      float t1 = (b0[(8*o0 + o1)] + ((float)1e-05));
      float t2 = ((float)1 / sqrtf(t1));
      float t7 = (b6[(8*o0 + o1)] + ((float)1e-05));
      float t8 = ((float)1 / sqrtf(t7));
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 8; o2++) {
        float t3 = (t2 * b1[(8*o1 + o2)]);
        b2[(64*o0 + 8*o1 + o2)] = (float)(t3);
        float t4 = (-b3[(8*o0 + o1)]);
        float t5 = (t4 * t3);
        float t6 = (t5 + b4[(8*o1 + o2)]);
        b5[(64*o0 + 8*o1 + o2)] = (float)(t6);
        float t9 = (t8 * b7[(8*o1 + o2)]);
        b8[(64*o0 + 8*o1 + o2)] = (float)(t9);
        float t10 = (-b9[(8*o0 + o1)]);
        float t11 = (t10 * t9);
        float t12 = (t11 + b10[(8*o1 + o2)]);
        b11[(64*o0 + 8*o1 + o2)] = (float)(t12);
      }
    }
  }
}

extern "C" void k39(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3) {
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

extern "C" void k41(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 64; o0++) {
    for (int64_t o1 = 0; o1 < 32; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 4; o2++) {
        b1[(128*o0 + 4*o1 + o2)] = (float)(b0[(128*o0 + o1 + 32*o2)]);
      }
    }
  }
}

extern "C" void k42(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, float* __restrict__ b4, float* __restrict__ b5) {
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1b = 0; o1b < 64; o1b += 16) {
      for (int64_t o2b = 0; o2b < 64; o2b += 32) {
        const int64_t o1e = std::min<int64_t>(o1b + 16, 64), o2e = std::min<int64_t>(o2b + 32, 64);
        float tile0[32][16];
        float tile1[32][16];
        float tile2[32][16];
        for (int64_t o1 = o1b; o1 < o1e; o1++) {
          #pragma omp simd
          for (int64_t o2 = o2b; o2 < o2e; o2++) {
            tile2[o2 - o2b][o1 - o1b] = (float)(b0[(4096*o0 + 64*o1 + o2)]);
          }
        }
        for (int64_t o2 = o2b; o2 < o2e; o2++) {
          #pragma omp simd
          for (int64_t o1 = o1b; o1 < o1e; o1++) {
            float t1 = (b1[(4096*o0 + o1 + 64*o2)] * b2[(64*o0 + o2)]);
            float t2 = (t1 + b3[(64*o0 + o2)]);
            float t3 = ((float)1 / ((float)1 + expf(-t2)));
            float t4 = (tile2[o2 - o2b][o1 - o1b] * t3);
            float t5 = (((float)1.0) - t3);
            float t6 = (t2 * t5);
            float t7 = (t6 + ((float)1.0));
            float t8 = (t4 * t7);
            tile0[o2 - o2b][o1 - o1b] = (float)(t8);
            float t9 = (t8 * b1[(4096*o0 + o1 + 64*o2)]);
            tile1[o2 - o2b][o1 - o1b] = (float)(t9);
          }
        }
        for (int64_t o1 = o1b; o1 < o1e; o1++) {
          #pragma omp simd
          for (int64_t o2 = o2b; o2 < o2e; o2++) {
            b4[(4096*o0 + 64*o1 + o2)] = tile0[o2 - o2b][o1 - o1b];
            b5[(4096*o0 + 64*o1 + o2)] = tile1[o2 - o2b][o1 - o1b];
          }
        }
      }
    }
  }
}

extern "C" void k43(const float* __restrict__ b0, float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, float* __restrict__ b6) {
  for (int64_t g0 = 0; g0 < 4; g0++) {
    for (int64_t ob = 0; ob < 64; ob += 64) {
      const int64_t oe = std::min<int64_t>(ob + 64, 64);
      double acc_r700[64]; for (int i = 0; i < 64; i++) acc_r700[i] = (double)0;
      double acc_r702[64]; for (int i = 0; i < 64; i++) acc_r702[i] = (double)0;
      for (int64_t r0 = 0; r0 < 64; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          acc_r700[o0 - ob] += (double)b0[(4096*g0 + o0 + 64*r0)];
          acc_r702[o0 - ob] += (double)b2[(4096*g0 + o0 + 64*r0)];
        }
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        b1[(64*g0 + o0)] = (float)(acc_r700[o0 - ob]);
        b3[(64*g0 + o0)] = (float)(acc_r702[o0 - ob]);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t1 = (((float)acc_r700[o0 - ob]) * b4[(o0)]);
        b5[(64*g0 + o0)] = (float)(t1);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t2 = (((float)acc_r702[o0 - ob]) * b4[(o0)]);
        b6[(64*g0 + o0)] = (float)(t2);
      }
    }
  }
}

extern "C" void k44(const float* __restrict__ b0, const float* __restrict__ b1, float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5) {
  for (int64_t o0 = 0; o0 < 32; o0++) {
    double acc_r707 = (double)0;
    double acc_r712 = (double)0;
    #pragma omp simd reduction(+:acc_r707) reduction(+:acc_r712)
    for (int64_t r0 = 0; r0 < 8; r0++) {
      acc_r707 += (double)b0[(8*o0 + r0)];
      acc_r712 += (double)b1[(8*o0 + r0)];
    }
    b2[(o0)] = (float)(acc_r712);
    float t1 = (((float)acc_r712) * b3[(o0)]);
    float t2 = (t1 - ((float)acc_r707));
    float t3 = (b4[(o0)] + ((float)1e-05));
    float t4 = ((float)1 / sqrtf(t3));
    float t5 = (t2 * t4);
    float t6 = (t5 * t4);
    float t7 = (t6 * t4);
    float t8 = (t7 * ((float)0.001953125));
    b5[(o0)] = (float)(t8);
  }
}

extern "C" void k45(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* b3, const float* __restrict__ b4, const float* __restrict__ b5, const float* __restrict__ b6, float* b7) {
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 8; o1++) {
      for (int64_t o2 = 0; o2 < 8; o2++) {
        float t1 = (b1[(8*o0 + o1)] + ((float)1e-05));
        float t2 = ((float)1 / sqrtf(t1));
        float t3 = (t2 * b2[(8*o1 + o2)]);
        #pragma omp simd
        for (int64_t o3 = 0; o3 < 64; o3++) {
          float t4 = (b0[(4096*o0 + 8*o1 + o2 + 64*o3)] * t3);
          float t5 = (b3[(4096*o0 + 512*o1 + 64*o2 + o3)] * b4[(8*o0 + o1)]);
          float t6 = (t4 + t5);
          float t7 = (-b4[(8*o0 + o1)]);
          float t8 = (t7 * b5[(8*o0 + o1)]);
          float t9 = (b6[(8*o0 + o1)] * t2);
          float t10 = (t9 * ((float)0.001953125));
          float t11 = (t8 - t10);
          float t12 = (t6 + t11);
          b7[(4096*o0 + 512*o1 + 64*o2 + o3)] = (float)(t12);
        }
      }
    }
  }
}

extern "C" void k46(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, float* __restrict__ b4) {
  for (int64_t o0 = 0; o0 < 8; o0++) {
    for (int64_t o1 = 0; o1 < 8; o1++) {
      double acc_r769 = (double)0;
      #pragma omp simd reduction(+:acc_r769)
      for (int64_t r0 = 0; r0 < 4; r0++) {
        float t1 = (b1[(64*r0 + 8*o0 + o1)] * b2[(8*r0 + o0)]);
        float t2 = (b0[(64*r0 + 8*o0 + o1)] - t1);
        float t3 = (b3[(8*r0 + o0)] + ((float)1e-05));
        float t4 = ((float)1 / sqrtf(t3));
        float t5 = (t2 * t4);
        acc_r769 += (double)t5;
      }
      b4[(8*o0 + o1)] = (float)(acc_r769);
    }
  }
}

extern "C" void k47(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t ob = 0; ob < 64; ob += 64) {
    const int64_t oe = std::min<int64_t>(ob + 64, 64);
    double acc_r771[64]; for (int i = 0; i < 64; i++) acc_r771[i] = (double)0;
    for (int64_t r0 = 0; r0 < 4; r0++) {
      #pragma omp simd
      for (int64_t o0 = ob; o0 < oe; o0++) {
        acc_r771[o0 - ob] += (double)b0[(64*r0 + o0)];
      }
    }
    for (int64_t o0 = ob; o0 < oe; o0++) {
      b1[(o0)] = (float)(acc_r771[o0 - ob]);
    }
  }
}

extern "C" void k48(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3) {
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

extern "C" void k49(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, float* __restrict__ b4, float* __restrict__ b5) {
  for (int64_t o0 = 0; o0 < 256; o0++) {
    #pragma omp simd
    for (int64_t o1 = 0; o1 < 64; o1++) {
      float t1 = (b1[(64*o0 + o1)] * b2[(o0)]);
      float t2 = (t1 + b3[(o0)]);
      float t3 = ((float)1 / ((float)1 + expf(-t2)));
      float t4 = (b0[(64*o0 + o1)] * t3);
      float t5 = (((float)1.0) - t3);
      float t6 = (t2 * t5);
      float t7 = (t6 + ((float)1.0));
      float t8 = (t4 * t7);
      b4[(64*o0 + o1)] = (float)(t8);
      float t9 = (t8 * b1[(64*o0 + o1)]);
      b5[(64*o0 + o1)] = (float)(t9);
    }
  }
}

extern "C" void k50(const float* __restrict__ b0, float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, float* __restrict__ b6) {
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 64; o1++) {
      double acc_r811 = (double)0;
      double acc_r813 = (double)0;
      #pragma omp simd reduction(+:acc_r811) reduction(+:acc_r813)
      for (int64_t r0 = 0; r0 < 64; r0++) {
        acc_r811 += (double)b0[(4096*o0 + 64*o1 + r0)];
        acc_r813 += (double)b2[(4096*o0 + 64*o1 + r0)];
      }
      b1[(64*o0 + o1)] = (float)(acc_r811);
      b3[(64*o0 + o1)] = (float)(acc_r813);
      float t1 = (((float)acc_r811) * b4[(o1)]);
      b5[(64*o0 + o1)] = (float)(t1);
      float t2 = (((float)acc_r813) * b4[(o1)]);
      b6[(64*o0 + o1)] = (float)(t2);
    }
  }
}

extern "C" void k51(const float* __restrict__ b0, const float* __restrict__ b1, float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5) {
  for (int64_t o0 = 0; o0 < 32; o0++) {
    double acc_r818 = (double)0;
    double acc_r823 = (double)0;
    #pragma omp simd reduction(+:acc_r818) reduction(+:acc_r823)
    for (int64_t r0 = 0; r0 < 8; r0++) {
      acc_r818 += (double)b0[(8*o0 + r0)];
      acc_r823 += (double)b1[(8*o0 + r0)];
    }
    b2[(o0)] = (float)(acc_r823);
    float t1 = (((float)acc_r823) * b3[(o0)]);
    float t2 = (t1 - ((float)acc_r818));
    float t3 = (b4[(o0)] + ((float)1e-05));
    float t4 = ((float)1 / sqrtf(t3));
    float t5 = (t2 * t4);
    float t6 = (t5 * t4);
    float t7 = (t6 * t4);
    float t8 = (t7 * ((float)0.001953125));
    b5[(o0)] = (float)(t8);
  }
}

extern "C" void k52(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* b3, const float* __restrict__ b4, const float* __restrict__ b5, const float* __restrict__ b6, float* b7) {
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 8; o1++) {
      for (int64_t o2 = 0; o2 < 8; o2++) {
        float t1 = (b1[(8*o0 + o1)] + ((float)1e-05));
        float t2 = ((float)1 / sqrtf(t1));
        float t3 = (t2 * b2[(8*o1 + o2)]);
        #pragma omp simd
        for (int64_t o3 = 0; o3 < 64; o3++) {
          float t4 = (b0[(4096*o0 + 512*o1 + 64*o2 + o3)] * t3);
          float t5 = (b3[(4096*o0 + 512*o1 + 64*o2 + o3)] * b4[(8*o0 + o1)]);
          float t6 = (t4 + t5);
          float t7 = (-b4[(8*o0 + o1)]);
          float t8 = (t7 * b5[(8*o0 + o1)]);
          float t9 = (b6[(8*o0 + o1)] * t2);
          float t10 = (t9 * ((float)0.001953125));
          float t11 = (t8 - t10);
          float t12 = (t6 + t11);
          b7[(4096*o0 + 512*o1 + 64*o2 + o3)] = (float)(t12);
        }
      }
    }
  }
}

extern "C" void k53(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, float* __restrict__ b4) {
  for (int64_t o0 = 0; o0 < 8; o0++) {
    for (int64_t o1 = 0; o1 < 8; o1++) {
      double acc_r870 = (double)0;
      #pragma omp simd reduction(+:acc_r870)
      for (int64_t r0 = 0; r0 < 4; r0++) {
        float t1 = (b1[(64*r0 + 8*o0 + o1)] * b2[(8*r0 + o0)]);
        float t2 = (b0[(64*r0 + 8*o0 + o1)] - t1);
        float t3 = (b3[(8*r0 + o0)] + ((float)1e-05));
        float t4 = ((float)1 / sqrtf(t3));
        float t5 = (t2 * t4);
        acc_r870 += (double)t5;
      }
      b4[(8*o0 + o1)] = (float)(acc_r870);
    }
  }
}

extern "C" void k54(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t ob = 0; ob < 64; ob += 64) {
    const int64_t oe = std::min<int64_t>(ob + 64, 64);
    double acc_r872[64]; for (int i = 0; i < 64; i++) acc_r872[i] = (double)0;
    for (int64_t r0 = 0; r0 < 4; r0++) {
      #pragma omp simd
      for (int64_t o0 = ob; o0 < oe; o0++) {
        acc_r872[o0 - ob] += (double)b0[(64*r0 + o0)];
      }
    }
    for (int64_t o0 = ob; o0 < oe; o0++) {
      b1[(o0)] = (float)(acc_r872[o0 - ob]);
    }
  }
}

extern "C" void k55(const float* __restrict__ b0, float* __restrict__ b1) {
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

extern "C" void k57(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 64; o0++) {
    for (int64_t o1 = 0; o1 < 32; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 9; o2++) {
        b1[(288*o0 + 9*o1 + o2)] = (float)(b0[(288*o0 + o1 + 32*o2)]);
      }
    }
  }
}

extern "C" void k58(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, float* __restrict__ b6, const float* __restrict__ b7, const float* __restrict__ b8, const float* __restrict__ b9, float* __restrict__ b10) {
  #pragma omp parallel for collapse(2)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 256; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 32; o2++) {
        float t1 = (b0[(8192*o0 + 32*o1 + o2)] + b1[(8192*o0 + 32*o1 + o2)]);
        float t2 = (b2[(8192*o0 + 32*o1 + o2)] * b3[(32*o0 + o2)]);
        float t3 = (t2 + b4[(32*o0 + o2)]);
        float t4 = ((float)1 / ((float)1 + expf(-t3)));
        float t5 = (t1 * t4);
        float t6 = (((float)1.0) - t4);
        float t7 = (t3 * t6);
        float t8 = (t7 + ((float)1.0));
        float t9 = (t5 * t8);
        b5[(8192*o0 + 32*o1 + o2)] = (float)(t9);
        float t10 = (t9 * b2[(8192*o0 + 32*o1 + o2)]);
        b6[(8192*o0 + 32*o1 + o2)] = (float)(t10);
        float t11 = (b7[(8192*o0 + 32*o1 + o2)] * b8[(32*o0 + o2)]);
        float t12 = (t11 + b9[(32*o0 + o2)]);
        float t13 = ((float)1 / ((float)1 + expf(-t12)));
        float t14 = (t12 * t13);
        b10[(8192*o0 + 32*o1 + o2)] = (float)(t14);
      }
    }
  }
}

extern "C" void k59(const float* __restrict__ b0, float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, float* __restrict__ b6) {
  #pragma omp parallel for
  for (int64_t g0 = 0; g0 < 4; g0++) {
    for (int64_t ob = 0; ob < 32; ob += 64) {
      const int64_t oe = std::min<int64_t>(ob + 64, 32);
      double acc_r963[64]; for (int i = 0; i < 64; i++) acc_r963[i] = (double)0;
      double acc_r965[64]; for (int i = 0; i < 64; i++) acc_r965[i] = (double)0;
      for (int64_t r0 = 0; r0 < 256; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          acc_r963[o0 - ob] += (double)b0[(8192*g0 + o0 + 32*r0)];
          acc_r965[o0 - ob] += (double)b2[(8192*g0 + o0 + 32*r0)];
        }
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        b1[(32*g0 + o0)] = (float)(acc_r963[o0 - ob]);
        b3[(32*g0 + o0)] = (float)(acc_r965[o0 - ob]);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t1 = (((float)acc_r963[o0 - ob]) * b4[(o0)]);
        b5[(32*g0 + o0)] = (float)(t1);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t2 = (((float)acc_r965[o0 - ob]) * b4[(o0)]);
        b6[(32*g0 + o0)] = (float)(t2);
      }
    }
  }
}

extern "C" void k60(const float* __restrict__ b0, const float* __restrict__ b1, float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5) {
  for (int64_t o0 = 0; o0 < 32; o0++) {
    double acc_r970 = (double)0;
    double acc_r975 = (double)0;
    #pragma omp simd reduction(+:acc_r970) reduction(+:acc_r975)
    for (int64_t r0 = 0; r0 < 4; r0++) {
      acc_r970 += (double)b0[(4*o0 + r0)];
      acc_r975 += (double)b1[(4*o0 + r0)];
    }
    b2[(o0)] = (float)(acc_r975);
    float t1 = (((float)acc_r975) * b3[(o0)]);
    float t2 = (t1 - ((float)acc_r970));
    float t3 = (b4[(o0)] + ((float)1e-05));
    float t4 = ((float)1 / sqrtf(t3));
    float t5 = (t2 * t4);
    float t6 = (t5 * t4);
    float t7 = (t6 * t4);
    float t8 = (t7 * ((float)0.0009765625));
    b5[(o0)] = (float)(t8);
  }
}

extern "C" void k61(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, const float* __restrict__ b5, const float* __restrict__ b6, float* __restrict__ b7) {
  #pragma omp parallel for collapse(3)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 256; o1++) {
      for (int64_t o2 = 0; o2 < 8; o2++) {
        float t1 = (b1[(8*o0 + o2)] + ((float)1e-05));
        float t2 = ((float)1 / sqrtf(t1));
        #pragma omp simd
        for (int64_t o3 = 0; o3 < 4; o3++) {
          float t3 = (t2 * b2[(4*o2 + o3)]);
          float t4 = (b0[(8192*o0 + 32*o1 + 4*o2 + o3)] * t3);
          float t5 = (b3[(8192*o0 + 32*o1 + 4*o2 + o3)] * b4[(8*o0 + o2)]);
          float t6 = (t4 + t5);
          float t7 = (-b4[(8*o0 + o2)]);
          float t8 = (t7 * b5[(8*o0 + o2)]);
          float t9 = (b6[(8*o0 + o2)] * t2);
          float t10 = (t9 * ((float)0.0009765625));
          float t11 = (t8 - t10);
          float t12 = (t6 + t11);
          b7[(8192*o0 + 32*o1 + 4*o2 + o3)] = (float)(t12);
        }
      }
    }
  }
}

extern "C" void k62(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, float* __restrict__ b4) {
  for (int64_t o0 = 0; o0 < 8; o0++) {
    for (int64_t o1 = 0; o1 < 4; o1++) {
      double acc_r1037 = (double)0;
      #pragma omp simd reduction(+:acc_r1037)
      for (int64_t r0 = 0; r0 < 4; r0++) {
        float t1 = (b1[(32*r0 + 4*o0 + o1)] * b2[(8*r0 + o0)]);
        float t2 = (b0[(32*r0 + 4*o0 + o1)] - t1);
        float t3 = (b3[(8*r0 + o0)] + ((float)1e-05));
        float t4 = ((float)1 / sqrtf(t3));
        float t5 = (t2 * t4);
        acc_r1037 += (double)t5;
      }
      b4[(4*o0 + o1)] = (float)(acc_r1037);
    }
  }
}

extern "C" void k63(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t ob = 0; ob < 32; ob += 64) {
    const int64_t oe = std::min<int64_t>(ob + 64, 32);
    double acc_r1039[64]; for (int i = 0; i < 64; i++) acc_r1039[i] = (double)0;
    for (int64_t r0 = 0; r0 < 4; r0++) {
      #pragma omp simd
      for (int64_t o0 = ob; o0 < oe; o0++) {
        acc_r1039[o0 - ob] += (double)b0[(32*r0 + o0)];
      }
    }
    for (int64_t o0 = ob; o0 < oe; o0++) {
      b1[(o0)] = (float)(acc_r1039[o0 - ob]);
    }
  }
}

extern "C" void k64(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 32; o0++) {
    for (int64_t o1 = 0; o1 < 32; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 9; o2++) {
        b1[(288*o0 + 9*o1 + o2)] = (float)(b0[(288*o0 + o1 + 32*o2)]);
      }
    }
  }
}

extern "C" void k65(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, float* __restrict__ b4, float* __restrict__ b5) {
  #pragma omp parallel for collapse(2)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 256; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 32; o2++) {
        float t1 = (b1[(8192*o0 + 32*o1 + o2)] * b2[(32*o0 + o2)]);
        float t2 = (t1 + b3[(32*o0 + o2)]);
        float t3 = ((float)1 / ((float)1 + expf(-t2)));
        float t4 = (b0[(8192*o0 + 32*o1 + o2)] * t3);
        float t5 = (((float)1.0) - t3);
        float t6 = (t2 * t5);
        float t7 = (t6 + ((float)1.0));
        float t8 = (t4 * t7);
        b4[(8192*o0 + 32*o1 + o2)] = (float)(t8);
        float t9 = (t8 * b1[(8192*o0 + 32*o1 + o2)]);
        b5[(8192*o0 + 32*o1 + o2)] = (float)(t9);
      }
    }
  }
}

extern "C" void k66(const float* __restrict__ b0, float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, float* __restrict__ b6) {
  #pragma omp parallel for
  for (int64_t g0 = 0; g0 < 4; g0++) {
    for (int64_t ob = 0; ob < 32; ob += 64) {
      const int64_t oe = std::min<int64_t>(ob + 64, 32);
      double acc_r1119[64]; for (int i = 0; i < 64; i++) acc_r1119[i] = (double)0;
      double acc_r1121[64]; for (int i = 0; i < 64; i++) acc_r1121[i] = (double)0;
      for (int64_t r0 = 0; r0 < 256; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          acc_r1119[o0 - ob] += (double)b0[(8192*g0 + o0 + 32*r0)];
          acc_r1121[o0 - ob] += (double)b2[(8192*g0 + o0 + 32*r0)];
        }
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        b1[(32*g0 + o0)] = (float)(acc_r1119[o0 - ob]);
        b3[(32*g0 + o0)] = (float)(acc_r1121[o0 - ob]);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t1 = (((float)acc_r1119[o0 - ob]) * b4[(o0)]);
        b5[(32*g0 + o0)] = (float)(t1);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t2 = (((float)acc_r1121[o0 - ob]) * b4[(o0)]);
        b6[(32*g0 + o0)] = (float)(t2);
      }
    }
  }
}

extern "C" void k67(const float* __restrict__ b0, const float* __restrict__ b1, float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5) {
  for (int64_t o0 = 0; o0 < 32; o0++) {
    double acc_r1126 = (double)0;
    double acc_r1131 = (double)0;
    #pragma omp simd reduction(+:acc_r1126) reduction(+:acc_r1131)
    for (int64_t r0 = 0; r0 < 4; r0++) {
      acc_r1126 += (double)b0[(4*o0 + r0)];
      acc_r1131 += (double)b1[(4*o0 + r0)];
    }
    b2[(o0)] = (float)(acc_r1131);
    float t1 = (((float)acc_r1131) * b3[(o0)]);
    float t2 = (t1 - ((float)acc_r1126));
    float t3 = (b4[(o0)] + ((float)1e-05));
    float t4 = ((float)1 / sqrtf(t3));
    float t5 = (t2 * t4);
    float t6 = (t5 * t4);
    float t7 = (t6 * t4);
    float t8 = (t7 * ((float)0.0009765625));
    b5[(o0)] = (float)(t8);
  }
}

extern "C" void k68(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, const float* __restrict__ b5, const float* __restrict__ b6, float* __restrict__ b7) {
  #pragma omp parallel for collapse(3)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 256; o1++) {
      for (int64_t o2 = 0; o2 < 8; o2++) {
        float t1 = (b1[(8*o0 + o2)] + ((float)1e-05));
        float t2 = ((float)1 / sqrtf(t1));
        #pragma omp simd
        for (int64_t o3 = 0; o3 < 4; o3++) {
          float t3 = (t2 * b2[(4*o2 + o3)]);
          float t4 = (b0[(8192*o0 + 32*o1 + 4*o2 + o3)] * t3);
          float t5 = (b3[(8192*o0 + 32*o1 + 4*o2 + o3)] * b4[(8*o0 + o2)]);
          float t6 = (t4 + t5);
          float t7 = (-b4[(8*o0 + o2)]);
          float t8 = (t7 * b5[(8*o0 + o2)]);
          float t9 = (b6[(8*o0 + o2)] * t2);
          float t10 = (t9 * ((float)0.0009765625));
          float t11 = (t8 - t10);
          float t12 = (t6 + t11);
          b7[(8192*o0 + 32*o1 + 4*o2 + o3)] = (float)(t12);
        }
      }
    }
  }
}

extern "C" void k69(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, float* __restrict__ b4) {
  for (int64_t o0 = 0; o0 < 8; o0++) {
    for (int64_t o1 = 0; o1 < 4; o1++) {
      double acc_r1193 = (double)0;
      #pragma omp simd reduction(+:acc_r1193)
      for (int64_t r0 = 0; r0 < 4; r0++) {
        float t1 = (b1[(32*r0 + 4*o0 + o1)] * b2[(8*r0 + o0)]);
        float t2 = (b0[(32*r0 + 4*o0 + o1)] - t1);
        float t3 = (b3[(8*r0 + o0)] + ((float)1e-05));
        float t4 = ((float)1 / sqrtf(t3));
        float t5 = (t2 * t4);
        acc_r1193 += (double)t5;
      }
      b4[(4*o0 + o1)] = (float)(acc_r1193);
    }
  }
}

extern "C" void k70(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t ob = 0; ob < 32; ob += 64) {
    const int64_t oe = std::min<int64_t>(ob + 64, 32);
    double acc_r1195[64]; for (int i = 0; i < 64; i++) acc_r1195[i] = (double)0;
    for (int64_t r0 = 0; r0 < 4; r0++) {
      #pragma omp simd
      for (int64_t o0 = ob; o0 < oe; o0++) {
        acc_r1195[o0 - ob] += (double)b0[(32*r0 + o0)];
      }
    }
    for (int64_t o0 = ob; o0 < oe; o0++) {
      b1[(o0)] = (float)(acc_r1195[o0 - ob]);
    }
  }
}

extern "C" void k71(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 32; o0++) {
    for (int64_t o1 = 0; o1 < 32; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 9; o2++) {
        b1[(288*o0 + 9*o1 + o2)] = (float)(b0[(288*o0 + o1 + 32*o2)]);
      }
    }
  }
}

extern "C" void k73(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 32; o0++) {
    for (int64_t o1 = 0; o1 < 16; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 9; o2++) {
        b1[(144*o0 + 9*o1 + o2)] = (float)(b0[(144*o0 + o1 + 16*o2)]);
      }
    }
  }
}

extern "C" void k74(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, float* __restrict__ b6, const float* __restrict__ b7, const float* __restrict__ b8, const float* __restrict__ b9, float* __restrict__ b10) {
  #pragma omp parallel for collapse(2)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 1024; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 16; o2++) {
        float t1 = (b0[(16384*o0 + 16*o1 + o2)] + b1[(16384*o0 + 16*o1 + o2)]);
        float t2 = (b2[(16384*o0 + 16*o1 + o2)] * b3[(16*o0 + o2)]);
        float t3 = (t2 + b4[(16*o0 + o2)]);
        float t4 = ((float)1 / ((float)1 + expf(-t3)));
        float t5 = (t1 * t4);
        float t6 = (((float)1.0) - t4);
        float t7 = (t3 * t6);
        float t8 = (t7 + ((float)1.0));
        float t9 = (t5 * t8);
        b5[(16384*o0 + 16*o1 + o2)] = (float)(t9);
        float t10 = (t9 * b2[(16384*o0 + 16*o1 + o2)]);
        b6[(16384*o0 + 16*o1 + o2)] = (float)(t10);
        float t11 = (b7[(16384*o0 + 16*o1 + o2)] * b8[(16*o0 + o2)]);
        float t12 = (t11 + b9[(16*o0 + o2)]);
        float t13 = ((float)1 / ((float)1 + expf(-t12)));
        float t14 = (t12 * t13);
        b10[(16384*o0 + 16*o1 + o2)] = (float)(t14);
      }
    }
  }
}

extern "C" void k75(const float* __restrict__ b0, float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, float* __restrict__ b6) {
  #pragma omp parallel for
  for (int64_t g0 = 0; g0 < 4; g0++) {
    for (int64_t ob = 0; ob < 16; ob += 64) {
      const int64_t oe = std::min<int64_t>(ob + 64, 16);
      double acc_r1287[64]; for (int i = 0; i < 64; i++) acc_r1287[i] = (double)0;
      double acc_r1289[64]; for (int i = 0; i < 64; i++) acc_r1289[i] = (double)0;
      for (int64_t r0 = 0; r0 < 1024; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          acc_r1287[o0 - ob] += (double)b0[(16384*g0 + o0 + 16*r0)];
          acc_r1289[o0 - ob] += (double)b2[(16384*g0 + o0 + 16*r0)];
        }
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        b1[(16*g0 + o0)] = (float)(acc_r1287[o0 - ob]);
        b3[(16*g0 + o0)] = (float)(acc_r1289[o0 - ob]);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t1 = (((float)acc_r1287[o0 - ob]) * b4[(o0)]);
        b5[(16*g0 + o0)] = (float)(t1);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t2 = (((float)acc_r1289[o0 - ob]) * b4[(o0)]);
        b6[(16*g0 + o0)] = (float)(t2);
      }
    }
  }
}

extern "C" void k76(const float* __restrict__ b0, const float* __restrict__ b1, float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5) {
  for (int64_t o0 = 0; o0 < 32; o0++) {
    double acc_r1294 = (double)0;
    double acc_r1299 = (double)0;
    #pragma omp simd reduction(+:acc_r1294) reduction(+:acc_r1299)
    for (int64_t r0 = 0; r0 < 2; r0++) {
      acc_r1294 += (double)b0[(2*o0 + r0)];
      acc_r1299 += (double)b1[(2*o0 + r0)];
    }
    b2[(o0)] = (float)(acc_r1299);
    float t1 = (((float)acc_r1299) * b3[(o0)]);
    float t2 = (t1 - ((float)acc_r1294));
    float t3 = (b4[(o0)] + ((float)1e-05));
    float t4 = ((float)1 / sqrtf(t3));
    float t5 = (t2 * t4);
    float t6 = (t5 * t4);
    float t7 = (t6 * t4);
    float t8 = (t7 * ((float)0.00048828125));
    b5[(o0)] = (float)(t8);
  }
}

extern "C" void k77(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, const float* __restrict__ b5, const float* __restrict__ b6, float* __restrict__ b7) {
  #pragma omp parallel for collapse(3)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 1024; o1++) {
      for (int64_t o2 = 0; o2 < 8; o2++) {
        float t1 = (b1[(8*o0 + o2)] + ((float)1e-05));
        float t2 = ((float)1 / sqrtf(t1));
        #pragma omp simd
        for (int64_t o3 = 0; o3 < 2; o3++) {
          float t3 = (t2 * b2[(2*o2 + o3)]);
          float t4 = (b0[(16384*o0 + 16*o1 + 2*o2 + o3)] * t3);
          float t5 = (b3[(16384*o0 + 16*o1 + 2*o2 + o3)] * b4[(8*o0 + o2)]);
          float t6 = (t4 + t5);
          float t7 = (-b4[(8*o0 + o2)]);
          float t8 = (t7 * b5[(8*o0 + o2)]);
          float t9 = (b6[(8*o0 + o2)] * t2);
          float t10 = (t9 * ((float)0.00048828125));
          float t11 = (t8 - t10);
          float t12 = (t6 + t11);
          b7[(16384*o0 + 16*o1 + 2*o2 + o3)] = (float)(t12);
        }
      }
    }
  }
}

extern "C" void k78(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, float* __restrict__ b4) {
  for (int64_t o0 = 0; o0 < 8; o0++) {
    for (int64_t o1 = 0; o1 < 2; o1++) {
      double acc_r1361 = (double)0;
      #pragma omp simd reduction(+:acc_r1361)
      for (int64_t r0 = 0; r0 < 4; r0++) {
        float t1 = (b1[(16*r0 + 2*o0 + o1)] * b2[(8*r0 + o0)]);
        float t2 = (b0[(16*r0 + 2*o0 + o1)] - t1);
        float t3 = (b3[(8*r0 + o0)] + ((float)1e-05));
        float t4 = ((float)1 / sqrtf(t3));
        float t5 = (t2 * t4);
        acc_r1361 += (double)t5;
      }
      b4[(2*o0 + o1)] = (float)(acc_r1361);
    }
  }
}

extern "C" void k79(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t ob = 0; ob < 16; ob += 64) {
    const int64_t oe = std::min<int64_t>(ob + 64, 16);
    double acc_r1363[64]; for (int i = 0; i < 64; i++) acc_r1363[i] = (double)0;
    for (int64_t r0 = 0; r0 < 4; r0++) {
      #pragma omp simd
      for (int64_t o0 = ob; o0 < oe; o0++) {
        acc_r1363[o0 - ob] += (double)b0[(16*r0 + o0)];
      }
    }
    for (int64_t o0 = ob; o0 < oe; o0++) {
      b1[(o0)] = (float)(acc_r1363[o0 - ob]);
    }
  }
}

extern "C" void k80(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 16; o0++) {
    for (int64_t o1 = 0; o1 < 16; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 9; o2++) {
        b1[(144*o0 + 9*o1 + o2)] = (float)(b0[(144*o0 + o1 + 16*o2)]);
      }
    }
  }
}

extern "C" void k81(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, float* __restrict__ b4, float* __restrict__ b5) {
  #pragma omp parallel for collapse(2)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 1024; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 16; o2++) {
        float t1 = (b1[(16384*o0 + 16*o1 + o2)] * b2[(16*o0 + o2)]);
        float t2 = (t1 + b3[(16*o0 + o2)]);
        float t3 = ((float)1 / ((float)1 + expf(-t2)));
        float t4 = (b0[(16384*o0 + 16*o1 + o2)] * t3);
        float t5 = (((float)1.0) - t3);
        float t6 = (t2 * t5);
        float t7 = (t6 + ((float)1.0));
        float t8 = (t4 * t7);
        b4[(16384*o0 + 16*o1 + o2)] = (float)(t8);
        float t9 = (t8 * b1[(16384*o0 + 16*o1 + o2)]);
        b5[(16384*o0 + 16*o1 + o2)] = (float)(t9);
      }
    }
  }
}

extern "C" void k82(const float* __restrict__ b0, float* __restrict__ b1, const float* __restrict__ b2, float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5, float* __restrict__ b6) {
  #pragma omp parallel for
  for (int64_t g0 = 0; g0 < 4; g0++) {
    for (int64_t ob = 0; ob < 16; ob += 64) {
      const int64_t oe = std::min<int64_t>(ob + 64, 16);
      double acc_r1443[64]; for (int i = 0; i < 64; i++) acc_r1443[i] = (double)0;
      double acc_r1445[64]; for (int i = 0; i < 64; i++) acc_r1445[i] = (double)0;
      for (int64_t r0 = 0; r0 < 1024; r0++) {
        #pragma omp simd
        for (int64_t o0 = ob; o0 < oe; o0++) {
          acc_r1443[o0 - ob] += (double)b0[(16384*g0 + o0 + 16*r0)];
          acc_r1445[o0 - ob] += (double)b2[(16384*g0 + o0 + 16*r0)];
        }
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        b1[(16*g0 + o0)] = (float)(acc_r1443[o0 - ob]);
        b3[(16*g0 + o0)] = (float)(acc_r1445[o0 - ob]);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t1 = (((float)acc_r1443[o0 - ob]) * b4[(o0)]);
        b5[(16*g0 + o0)] = (float)(t1);
      }
      for (int64_t o0 = ob; o0 < oe; o0++) {
        float t2 = (((float)acc_r1445[o0 - ob]) * b4[(o0)]);
        b6[(16*g0 + o0)] = (float)(t2);
      }
    }
  }
}

extern "C" void k83(const float* __restrict__ b0, const float* __restrict__ b1, float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, float* __restrict__ b5) {
  for (int64_t o0 = 0; o0 < 32; o0++) {
    double acc_r1450 = (double)0;
    double acc_r1455 = (double)0;
    #pragma omp simd reduction(+:acc_r1450) reduction(+:acc_r1455)
    for (int64_t r0 = 0; r0 < 2; r0++) {
      acc_r1450 += (double)b0[(2*o0 + r0)];
      acc_r1455 += (double)b1[(2*o0 + r0)];
    }
    b2[(o0)] = (float)(acc_r1455);
    float t1 = (((float)acc_r1455) * b3[(o0)]);
    float t2 = (t1 - ((float)acc_r1450));
    float t3 = (b4[(o0)] + ((float)1e-05));
    float t4 = ((float)1 / sqrtf(t3));
    float t5 = (t2 * t4);
    float t6 = (t5 * t4);
    float t7 = (t6 * t4);
    float t8 = (t7 * ((float)0.00048828125));
    b5[(o0)] = (float)(t8);
  }
}

extern "C" void k84(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, const float* __restrict__ b4, const float* __restrict__ b5, const float* __restrict__ b6, float* __restrict__ b7) {
  #pragma omp parallel for collapse(3)
  for (int64_t o0 = 0; o0 < 4; o0++) {
    for (int64_t o1 = 0; o1 < 1024; o1++) {
      for (int64_t o2 = 0; o2 < 8; o2++) {
        float t1 = (b1[(8*o0 + o2)] + ((float)1e-05));
        float t2 = ((float)1 / sqrtf(t1));
        #pragma omp simd
        for (int64_t o3 = 0; o3 < 2; o3++) {
          float t3 = (t2 * b2[(2*o2 + o3)]);
          float t4 = (b0[(16384*o0 + 16*o1 + 2*o2 + o3)] * t3);
          float t5 = (b3[(16384*o0 + 16*o1 + 2*o2 + o3)] * b4[(8*o0 + o2)]);
          float t6 = (t4 + t5);
          float t7 = (-b4[(8*o0 + o2)]);
          float t8 = (t7 * b5[(8*o0 + o2)]);
          float t9 = (b6[(8*o0 + o2)] * t2);
          float t10 = (t9 * ((float)0.00048828125));
          float t11 = (t8 - t10);
          float t12 = (t6 + t11);
          b7[(16384*o0 + 16*o1 + 2*o2 + o3)] = (float)(t12);
        }
      }
    }
  }
}

extern "C" void k85(const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2, const float* __restrict__ b3, float* __restrict__ b4) {
  for (int64_t o0 = 0; o0 < 8; o0++) {
    for (int64_t o1 = 0; o1 < 2; o1++) {
      double acc_r1517 = (double)0;
      #pragma omp simd reduction(+:acc_r1517)
      for (int64_t r0 = 0; r0 < 4; r0++) {
        float t1 = (b1[(16*r0 + 2*o0 + o1)] * b2[(8*r0 + o0)]);
        float t2 = (b0[(16*r0 + 2*o0 + o1)] - t1);
        float t3 = (b3[(8*r0 + o0)] + ((float)1e-05));
        float t4 = ((float)1 / sqrtf(t3));
        float t5 = (t2 * t4);
        acc_r1517 += (double)t5;
      }
      b4[(2*o0 + o1)] = (float)(acc_r1517);
    }
  }
}

extern "C" void k86(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t ob = 0; ob < 16; ob += 64) {
    const int64_t oe = std::min<int64_t>(ob + 64, 16);
    double acc_r1519[64]; for (int i = 0; i < 64; i++) acc_r1519[i] = (double)0;
    for (int64_t r0 = 0; r0 < 4; r0++) {
      #pragma omp simd
      for (int64_t o0 = ob; o0 < oe; o0++) {
        acc_r1519[o0 - ob] += (double)b0[(16*r0 + o0)];
      }
    }
    for (int64_t o0 = ob; o0 < oe; o0++) {
      b1[(o0)] = (float)(acc_r1519[o0 - ob]);
    }
  }
}

extern "C" void k87(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 16; o0++) {
    for (int64_t o1 = 0; o1 < 16; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 9; o2++) {
        b1[(144*o0 + 9*o1 + o2)] = (float)(b0[(144*o0 + o1 + 16*o2)]);
      }
    }
  }
}

extern "C" void k89(const float* __restrict__ b0, float* __restrict__ b1) {
  for (int64_t o0 = 0; o0 < 16; o0++) {
    for (int64_t o1 = 0; o1 < 3; o1++) {
      #pragma omp simd
      for (int64_t o2 = 0; o2 < 9; o2++) {
        b1[(27*o0 + 9*o1 + o2)] = (float)(b0[(27*o0 + o1 + 3*o2)]);
      }
    }
  }
}
