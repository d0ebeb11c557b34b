// simd.hpp's ARM NEON backend (AArch64): 4 floats, 32 registers, fused multiply-add.
// Written against the ACLE intrinsics without an ARM machine: tested on x86 under qemu-aarch64
// (tools/arm_check.sh), never on ARM hardware.
#pragma once

#include <arm_neon.h>

#include <cstdint>

namespace dlsim::models::layers::simd {

using Vec = float32x4_t;
inline constexpr int kWidth = 4;
inline constexpr int kRegisters = 32;
inline constexpr bool kFused = true;

namespace neon {
inline unsigned bits(uint32x4_t m) {
  const uint32_t weights[4] = {1, 2, 4, 8};
  return vaddvq_u32(vandq_u32(m, vld1q_u32(weights)));
}
inline float32x4_t pairs(float32x4_t a, float32x4_t b, bool high) {
  const float64x2_t x = vreinterpretq_f64_f32(a), y = vreinterpretq_f64_f32(b);
  return vreinterpretq_f32_f64(high ? vtrn2q_f64(x, y) : vtrn1q_f64(x, y));
}
}  // namespace neon

inline Vec zero() { return vdupq_n_f32(0.0f); }
inline Vec set1(float x) { return vdupq_n_f32(x); }
inline Vec load(const float* p) { return vld1q_f32(p); }
inline void store(float* p, Vec v) { vst1q_f32(p, v); }
inline Vec add(Vec a, Vec b) { return vaddq_f32(a, b); }
inline Vec sub(Vec a, Vec b) { return vsubq_f32(a, b); }
inline Vec mul(Vec a, Vec b) { return vmulq_f32(a, b); }
inline Vec fmadd(Vec a, Vec b, Vec c) { return vfmaq_f32(c, a, b); }
inline unsigned differs(Vec a, Vec b) { return neon::bits(vmvnq_u32(vceqq_f32(a, b))); }
inline unsigned greater(Vec a, Vec b) { return neon::bits(vcgtq_f32(a, b)); }
inline unsigned equal(Vec a, Vec b) { return neon::bits(vceqq_f32(a, b)); }
inline Vec select(unsigned lanes, Vec a, Vec b) {
  const uint32_t weights[4] = {1, 2, 4, 8};
  return vbslq_f32(vtstq_u32(vdupq_n_u32(lanes), vld1q_u32(weights)), a, b);
}

inline void deinterleave(Vec a, Vec b, Vec& even, Vec& odd) {
  even = vuzp1q_f32(a, b);
  odd = vuzp2q_f32(a, b);
}
inline void interleave(Vec even, Vec odd, Vec& lo, Vec& hi) {
  lo = vzip1q_f32(even, odd);
  hi = vzip2q_f32(even, odd);
}

inline void transpose4(const Vec (&d)[4], Vec (&out)[4]) {
  const float32x4_t r0 = vtrn1q_f32(d[0], d[1]), r1 = vtrn2q_f32(d[0], d[1]);
  const float32x4_t r2 = vtrn1q_f32(d[2], d[3]), r3 = vtrn2q_f32(d[2], d[3]);
  out[0] = neon::pairs(r0, r2, false);
  out[1] = neon::pairs(r1, r3, false);
  out[2] = neon::pairs(r0, r2, true);
  out[3] = neon::pairs(r1, r3, true);
}

inline Vec ints_to_vec(const int32_t* p) { return vcvtq_f32_s32(vld1q_s32(p)); }
inline void vec_to_ints(Vec v, int32_t* p) { vst1q_s32(p, vcvtq_s32_f32(v)); }

}  // namespace dlsim::models::layers::simd

#include "models/layers/simd_narrow.hpp"
