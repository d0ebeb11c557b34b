// simd.hpp's AVX2 backend: 8 floats, 16 registers; fused multiply-adds when FMA is on (every
// AVX2 processor but a few VIA ones has it). Partial loads use vmaskmovps; partial stores do too,
// but only for a partial tail (the masked store is microcoded on AMD processors).
#pragma once

#include <immintrin.h>

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

namespace dlsim::models::layers::simd {

using Vec = __m256;
inline constexpr int kWidth = 8;
inline constexpr int kRegisters = 16;
#if defined(__FMA__)
inline constexpr bool kFused = true;
#else
inline constexpr bool kFused = false;
#endif

struct Tail {
  __m256i lanes;
  bool full;
};

namespace avx2 {
inline __m256i iota() { return _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7); }
inline unsigned bits(__m256 m) { return static_cast<unsigned>(_mm256_movemask_ps(m)); }
// Per lane-mask byte: the indices of its set lanes, in order, one byte each (vpermps indices).
inline constexpr std::array<uint64_t, 256> kCompress = [] {
  std::array<uint64_t, 256> table{};
  for (unsigned m = 0; m < 256; ++m)
    for (unsigned lane = 0, k = 0; lane < 8; ++lane)
      if ((m >> lane) & 1u) table[m] |= uint64_t{lane} << (8 * k++);
  return table;
}();
inline __m256i compress_indices(unsigned lanes) {
  return _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(kCompress[lanes & 0xffu])));
}
}  // namespace avx2

inline Vec zero() { return _mm256_setzero_ps(); }
inline Vec set1(float x) { return _mm256_set1_ps(x); }
inline Vec load(const float* p) { return _mm256_loadu_ps(p); }
inline void store(float* p, Vec v) { _mm256_storeu_ps(p, v); }
inline Vec add(Vec a, Vec b) { return _mm256_add_ps(a, b); }
inline Vec sub(Vec a, Vec b) { return _mm256_sub_ps(a, b); }
inline Vec mul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
inline Vec fmadd(Vec a, Vec b, Vec c) {
#if defined(__FMA__)
  return _mm256_fmadd_ps(a, b, c);
#else
  return _mm256_add_ps(_mm256_mul_ps(a, b), c);
#endif
}
inline unsigned differs(Vec a, Vec b) { return avx2::bits(_mm256_cmp_ps(a, b, _CMP_NEQ_UQ)); }
inline unsigned greater(Vec a, Vec b) { return avx2::bits(_mm256_cmp_ps(a, b, _CMP_GT_OQ)); }
inline unsigned equal(Vec a, Vec b) { return avx2::bits(_mm256_cmp_ps(a, b, _CMP_EQ_OQ)); }
inline Vec select(unsigned lanes, Vec a, Vec b) {
  const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  const __m256i m =
      _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(static_cast<int>(lanes)), bit), bit);
  return _mm256_blendv_ps(b, a, _mm256_castsi256_ps(m));
}

inline Tail tail(Eigen::Index n) {
  const auto count = static_cast<int>(std::min<Eigen::Index>(n, 8));
  return {_mm256_cmpgt_epi32(_mm256_set1_epi32(count), avx2::iota()), count == 8};
}
inline Vec load_tail(const float* p, Tail t) { return _mm256_maskload_ps(p, t.lanes); }
inline void store_tail(float* p, Vec v, Tail t) {
  if (t.full) {
    _mm256_storeu_ps(p, v);
  } else {
    _mm256_maskstore_ps(p, t.lanes, v);
  }
}
inline Vec load_range(const float* p, Eigen::Index lo, Eigen::Index hi) {
  const __m256i below_hi =
      _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(hi)), avx2::iota());
  const __m256i below_lo =
      _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(lo)), avx2::iota());
  return _mm256_maskload_ps(p, _mm256_andnot_si256(below_lo, below_hi));
}

inline Eigen::Index compress_store(float* dst, Vec v, unsigned lanes) {
  _mm256_storeu_ps(dst, _mm256_permutevar8x32_ps(v, avx2::compress_indices(lanes)));
  return std::popcount(lanes & 0xffu);
}
inline void compress_positions(uint32_t* dst, uint32_t first, unsigned lanes) {
  const __m256i position =
      _mm256_add_epi32(avx2::iota(), _mm256_set1_epi32(static_cast<int>(first)));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst),
                      _mm256_permutevar8x32_epi32(position, avx2::compress_indices(lanes)));
}

// 64-bit pairs of (a, b)'s even elements are [a0 a2, b0 b2, a4 a6, b4 b6]: swap the middle two.
inline void deinterleave(Vec a, Vec b, Vec& even, Vec& odd) {
  auto order = [](__m256 v) {
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), _MM_SHUFFLE(3, 1, 2, 0)));
  };
  even = order(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)));
  odd = order(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
}
inline void interleave(Vec even, Vec odd, Vec& lo, Vec& hi) {
  const __m256 l = _mm256_unpacklo_ps(even, odd), h = _mm256_unpackhi_ps(even, odd);
  lo = _mm256_permute2f128_ps(l, h, 0x20);
  hi = _mm256_permute2f128_ps(l, h, 0x31);
}

inline Vec load_int_tail(const int32_t* p, Tail t) {
  return _mm256_cvtepi32_ps(_mm256_maskload_epi32(reinterpret_cast<const int*>(p), t.lanes));
}
inline void store_int_tail(int32_t* p, Vec v, Tail t) {
  const __m256i i = _mm256_cvttps_epi32(v);
  if (t.full) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), i);
  } else {
    _mm256_maskstore_epi32(reinterpret_cast<int*>(p), t.lanes, i);
  }
}

// u0..u3 hold features (0, 4), (1, 5), (2, 6), (3, 7) as 4 samples per 128-bit lane.
inline void transpose4(const Vec (&d)[4], Vec (&out)[4]) {
  const __m256 t0 = _mm256_unpacklo_ps(d[0], d[1]), t1 = _mm256_unpackhi_ps(d[0], d[1]);
  const __m256 t2 = _mm256_unpacklo_ps(d[2], d[3]), t3 = _mm256_unpackhi_ps(d[2], d[3]);
  auto pairs = [](__m256 a, __m256 b, bool high) {
    return _mm256_castpd_ps(high ? _mm256_unpackhi_pd(_mm256_castps_pd(a), _mm256_castps_pd(b))
                                 : _mm256_unpacklo_pd(_mm256_castps_pd(a), _mm256_castps_pd(b)));
  };
  const __m256 u0 = pairs(t0, t2, false), u1 = pairs(t0, t2, true);
  const __m256 u2 = pairs(t1, t3, false), u3 = pairs(t1, t3, true);
  out[0] = _mm256_permute2f128_ps(u0, u1, 0x20);
  out[1] = _mm256_permute2f128_ps(u2, u3, 0x20);
  out[2] = _mm256_permute2f128_ps(u0, u1, 0x31);
  out[3] = _mm256_permute2f128_ps(u2, u3, 0x31);
}

// Both quads stored, the second over the first when the first is not wanted.
inline Eigen::Index compress_quads(float* dst, Vec v, unsigned quads) {
  const Eigen::Index first = quads & 1u;
  _mm_storeu_ps(dst, _mm256_castps256_ps128(v));
  _mm_storeu_ps(dst + 4 * first, _mm256_extractf128_ps(v, 1));
  return first + ((quads >> 1) & 1u);
}

}  // namespace dlsim::models::layers::simd
