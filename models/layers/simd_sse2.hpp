// simd.hpp's SSE2 backend (every x86-64 processor): 4 floats, 16 registers, no fused multiply-add.
#pragma once

#include <emmintrin.h>

#include <cstdint>

namespace dlsim::models::layers::simd {

using Vec = __m128;
inline constexpr int kWidth = 4;
inline constexpr int kRegisters = 16;
inline constexpr bool kFused = false;

inline Vec zero() { return _mm_setzero_ps(); }
inline Vec set1(float x) { return _mm_set1_ps(x); }
inline Vec load(const float* p) { return _mm_loadu_ps(p); }
inline void store(float* p, Vec v) { _mm_storeu_ps(p, v); }
inline Vec add(Vec a, Vec b) { return _mm_add_ps(a, b); }
inline Vec sub(Vec a, Vec b) { return _mm_sub_ps(a, b); }
inline Vec mul(Vec a, Vec b) { return _mm_mul_ps(a, b); }
inline Vec fmadd(Vec a, Vec b, Vec c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
inline unsigned differs(Vec a, Vec b) {
  return static_cast<unsigned>(_mm_movemask_ps(_mm_cmpneq_ps(a, b)));
}
inline unsigned greater(Vec a, Vec b) {
  return static_cast<unsigned>(_mm_movemask_ps(_mm_cmpgt_ps(a, b)));
}
inline unsigned equal(Vec a, Vec b) {
  return static_cast<unsigned>(_mm_movemask_ps(_mm_cmpeq_ps(a, b)));
}
inline Vec select(unsigned lanes, Vec a, Vec b) {
  const __m128i bit = _mm_setr_epi32(1, 2, 4, 8);
  const __m128 m = _mm_castsi128_ps(
      _mm_cmpeq_epi32(_mm_and_si128(_mm_set1_epi32(static_cast<int>(lanes)), bit), bit));
  return _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b));
}

inline void deinterleave(Vec a, Vec b, Vec& even, Vec& odd) {
  even = _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
  odd = _mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
}
inline void interleave(Vec even, Vec odd, Vec& lo, Vec& hi) {
  lo = _mm_unpacklo_ps(even, odd);
  hi = _mm_unpackhi_ps(even, odd);
}

inline void transpose4(const Vec (&d)[4], Vec (&out)[4]) {
  __m128 r0 = d[0], r1 = d[1], r2 = d[2], r3 = d[3];
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  out[0] = r0;
  out[1] = r1;
  out[2] = r2;
  out[3] = r3;
}

inline Vec ints_to_vec(const int32_t* p) {
  return _mm_cvtepi32_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
inline void vec_to_ints(Vec v, int32_t* p) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_cvttps_epi32(v));
}

}  // namespace dlsim::models::layers::simd

#include "models/layers/simd_narrow.hpp"
