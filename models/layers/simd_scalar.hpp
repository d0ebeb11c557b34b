// simd.hpp's fallback for processors with none of the vector units it knows: 4 floats in an array,
// one lane at a time (the compiler may vectorise the loops itself). No fused multiply-add.
#pragma once

#include <algorithm>
#include <cstdint>

namespace dlsim::models::layers::simd {

struct Vec {
  float lane[4];
};
inline constexpr int kWidth = 4;
inline constexpr int kRegisters = 16;
inline constexpr bool kFused = false;

namespace scalar {
template <class F>
inline Vec map(F f) {
  Vec r;
  for (int i = 0; i < 4; ++i) r.lane[i] = f(i);
  return r;
}
template <class F>
inline unsigned test(F f) {
  unsigned bits = 0;
  for (int i = 0; i < 4; ++i) bits |= f(i) ? 1u << i : 0u;
  return bits;
}
}  // namespace scalar

inline Vec zero() { return Vec{}; }
inline Vec set1(float x) { return Vec{{x, x, x, x}}; }
inline Vec load(const float* p) { return Vec{{p[0], p[1], p[2], p[3]}}; }
inline void store(float* p, Vec v) { std::copy_n(v.lane, 4, p); }
inline Vec add(Vec a, Vec b) {
  return scalar::map([&](int i) { return a.lane[i] + b.lane[i]; });
}
inline Vec sub(Vec a, Vec b) {
  return scalar::map([&](int i) { return a.lane[i] - b.lane[i]; });
}
inline Vec mul(Vec a, Vec b) {
  return scalar::map([&](int i) { return a.lane[i] * b.lane[i]; });
}
inline Vec fmadd(Vec a, Vec b, Vec c) {
  return scalar::map([&](int i) { return a.lane[i] * b.lane[i] + c.lane[i]; });
}
inline unsigned differs(Vec a, Vec b) {
  return scalar::test([&](int i) { return a.lane[i] != b.lane[i]; });
}
inline unsigned greater(Vec a, Vec b) {
  return scalar::test([&](int i) { return a.lane[i] > b.lane[i]; });
}
inline unsigned equal(Vec a, Vec b) {
  return scalar::test([&](int i) { return a.lane[i] == b.lane[i]; });
}
inline Vec select(unsigned lanes, Vec a, Vec b) {
  return scalar::map([&](int i) { return (lanes >> i) & 1u ? a.lane[i] : b.lane[i]; });
}

inline void deinterleave(Vec a, Vec b, Vec& even, Vec& odd) {
  even = Vec{{a.lane[0], a.lane[2], b.lane[0], b.lane[2]}};
  odd = Vec{{a.lane[1], a.lane[3], b.lane[1], b.lane[3]}};
}
inline void interleave(Vec even, Vec odd, Vec& lo, Vec& hi) {
  lo = Vec{{even.lane[0], odd.lane[0], even.lane[1], odd.lane[1]}};
  hi = Vec{{even.lane[2], odd.lane[2], even.lane[3], odd.lane[3]}};
}

inline void transpose4(const Vec (&d)[4], Vec (&out)[4]) {
  for (int q = 0; q < 4; ++q)
    for (int r = 0; r < 4; ++r) out[q].lane[r] = d[r].lane[q];
}

inline Vec ints_to_vec(const int32_t* p) {
  return scalar::map([&](int i) { return static_cast<float>(p[i]); });
}
inline void vec_to_ints(Vec v, int32_t* p) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<int32_t>(v.lane[i]);
}

}  // namespace dlsim::models::layers::simd

#include "models/layers/simd_narrow.hpp"
