// simd.hpp's AVX-512 backend: 16 floats, 32 registers, masks as lane bits.
#pragma once

#include <immintrin.h>

#include <Eigen/Core>
#include <bit>
#include <cstdint>

namespace dlsim::models::layers::simd {

using Vec = __m512;
inline constexpr int kWidth = 16;
inline constexpr int kRegisters = 32;
inline constexpr bool kFused = true;

struct Tail {
  __mmask16 lanes;
};

inline Vec zero() { return _mm512_setzero_ps(); }
inline Vec set1(float x) { return _mm512_set1_ps(x); }
inline Vec load(const float* p) { return _mm512_loadu_ps(p); }
inline void store(float* p, Vec v) { _mm512_storeu_ps(p, v); }
inline Vec add(Vec a, Vec b) { return _mm512_add_ps(a, b); }
inline Vec sub(Vec a, Vec b) { return _mm512_sub_ps(a, b); }
inline Vec mul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
inline Vec fmadd(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
inline unsigned differs(Vec a, Vec b) { return _mm512_cmp_ps_mask(a, b, _CMP_NEQ_UQ); }
inline unsigned greater(Vec a, Vec b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
inline unsigned equal(Vec a, Vec b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
inline Vec select(unsigned lanes, Vec a, Vec b) {
  return _mm512_mask_mov_ps(b, static_cast<__mmask16>(lanes), a);
}

inline Tail tail(Eigen::Index n) {  // 0 <= n
  return {n >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << n) - 1u)};
}
inline Vec load_tail(const float* p, Tail t) { return _mm512_maskz_loadu_ps(t.lanes, p); }
inline void store_tail(float* p, Vec v, Tail t) { _mm512_mask_storeu_ps(p, t.lanes, v); }
inline Vec load_range(const float* p, Eigen::Index lo, Eigen::Index hi) {
  const auto lanes = static_cast<__mmask16>(((1u << hi) - 1u) & ~((1u << lo) - 1u));
  return _mm512_maskz_loadu_ps(lanes, p);
}

// Compressed in registers and stored whole: compressing stores are slow on AMD.
inline Eigen::Index compress_store(float* dst, Vec v, unsigned lanes) {
  _mm512_storeu_ps(dst, _mm512_maskz_compress_ps(static_cast<__mmask16>(lanes), v));
  return std::popcount(lanes);
}
inline void compress_positions(uint32_t* dst, uint32_t first, unsigned lanes) {
  const __m512i position =
      _mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                       _mm512_set1_epi32(static_cast<int>(first)));
  _mm512_storeu_si512(dst, _mm512_maskz_compress_epi32(static_cast<__mmask16>(lanes), position));
}

inline void deinterleave(Vec a, Vec b, Vec& even, Vec& odd) {
  const __m512i kEven =
      _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i kOdd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  even = _mm512_permutex2var_ps(a, kEven, b);
  odd = _mm512_permutex2var_ps(a, kOdd, b);
}
inline void interleave(Vec even, Vec odd, Vec& lo, Vec& hi) {
  const __m512i kLow = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i kHigh =
      _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  lo = _mm512_permutex2var_ps(even, kLow, odd);
  hi = _mm512_permutex2var_ps(even, kHigh, odd);
}

// The zero-masking conversions: GCC 12 warns about the plain ones' undefined source (a false
// positive inside its own headers).
inline Vec load_int_tail(const int32_t* p, Tail t) {
  return _mm512_maskz_cvtepi32_ps(t.lanes, _mm512_maskz_loadu_epi32(t.lanes, p));
}
inline void store_int_tail(int32_t* p, Vec v, Tail t) {
  _mm512_mask_storeu_epi32(p, t.lanes, _mm512_maskz_cvttps_epi32(t.lanes, v));
}

// In each 128-bit lane L, u[r] gets feature 4L + r; then the lanes are gathered so that out[q]
// holds features 4q .. 4q + 3.
inline void transpose4(const Vec (&d)[4], Vec (&out)[4]) {
  const __m512 t0 = _mm512_unpacklo_ps(d[0], d[1]), t1 = _mm512_unpackhi_ps(d[0], d[1]);
  const __m512 t2 = _mm512_unpacklo_ps(d[2], d[3]), t3 = _mm512_unpackhi_ps(d[2], d[3]);
  auto pairs = [](__m512 a, __m512 b, bool high) {
    return _mm512_castpd_ps(high ? _mm512_unpackhi_pd(_mm512_castps_pd(a), _mm512_castps_pd(b))
                                 : _mm512_unpacklo_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));
  };
  const __m512 u0 = pairs(t0, t2, false), u1 = pairs(t0, t2, true);
  const __m512 u2 = pairs(t1, t3, false), u3 = pairs(t1, t3, true);
  const __m512 lo01 = _mm512_shuffle_f32x4(u0, u1, _MM_SHUFFLE(1, 0, 1, 0));
  const __m512 lo23 = _mm512_shuffle_f32x4(u2, u3, _MM_SHUFFLE(1, 0, 1, 0));
  const __m512 hi01 = _mm512_shuffle_f32x4(u0, u1, _MM_SHUFFLE(3, 2, 3, 2));
  const __m512 hi23 = _mm512_shuffle_f32x4(u2, u3, _MM_SHUFFLE(3, 2, 3, 2));
  out[0] = _mm512_shuffle_f32x4(lo01, lo23, _MM_SHUFFLE(2, 0, 2, 0));
  out[1] = _mm512_shuffle_f32x4(lo01, lo23, _MM_SHUFFLE(3, 1, 3, 1));
  out[2] = _mm512_shuffle_f32x4(hi01, hi23, _MM_SHUFFLE(2, 0, 2, 0));
  out[3] = _mm512_shuffle_f32x4(hi01, hi23, _MM_SHUFFLE(3, 1, 3, 1));
}

inline Eigen::Index compress_quads(float* dst, Vec v, unsigned quads) {
  // Quad bit q spread to its four lanes.
  static constexpr uint16_t kSpread[16] = {0x0000, 0x000f, 0x00f0, 0x00ff, 0x0f00, 0x0f0f,
                                           0x0ff0, 0x0fff, 0xf000, 0xf00f, 0xf0f0, 0xf0ff,
                                           0xff00, 0xff0f, 0xfff0, 0xffff};
  _mm512_storeu_ps(dst, _mm512_maskz_compress_ps(kSpread[quads & 0xfu], v));
  return std::popcount(quads & 0xfu);
}

}  // namespace dlsim::models::layers::simd
