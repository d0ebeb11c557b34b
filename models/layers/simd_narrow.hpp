// The partial-vector and compressing operations of simd.hpp for the 4-lane backends (SSE2, NEON,
// plain arrays), which have no masked loads, stores or compress instructions: through a small
// buffer, one lane at a time. Included at the end of those backends, after load, store and the
// 4-lane integer conversions ints_to_vec and vec_to_ints.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cstdint>

namespace dlsim::models::layers::simd {

struct Tail {
  int lanes;  // 0..4
};

inline Tail tail(Eigen::Index n) { return {static_cast<int>(std::clamp<Eigen::Index>(n, 0, 4))}; }

inline Vec load_tail(const float* p, Tail t) {
  if (t.lanes == 4) return load(p);
  alignas(16) float b[4] = {};
  for (int i = 0; i < t.lanes; ++i) b[i] = p[i];
  return load(b);
}

inline void store_tail(float* p, Vec v, Tail t) {
  if (t.lanes == 4) return store(p, v);
  alignas(16) float b[4];
  store(b, v);
  for (int i = 0; i < t.lanes; ++i) p[i] = b[i];
}

inline Vec load_range(const float* p, Eigen::Index lo, Eigen::Index hi) {
  alignas(16) float b[4] = {};
  for (Eigen::Index i = lo; i < hi; ++i) b[i] = p[i];
  return load(b);
}

// Every lane is written and the count advanced only past the wanted ones (no branch to mispredict).
inline Eigen::Index compress_store(float* dst, Vec v, unsigned lanes) {
  alignas(16) float b[4];
  store(b, v);
  Eigen::Index count = 0;
  for (int i = 0; i < 4; ++i) {
    dst[count] = b[i];
    count += (lanes >> i) & 1u;
  }
  return count;
}

inline void compress_positions(uint32_t* dst, uint32_t first, unsigned lanes) {
  Eigen::Index count = 0;
  for (uint32_t i = 0; i < 4; ++i) {
    dst[count] = first + i;
    count += (lanes >> i) & 1u;
  }
}

inline Vec load_int_tail(const int32_t* p, Tail t) {
  alignas(16) int32_t b[4] = {};
  for (int i = 0; i < t.lanes; ++i) b[i] = p[i];
  return ints_to_vec(b);
}

inline void store_int_tail(int32_t* p, Vec v, Tail t) {
  alignas(16) int32_t b[4];
  vec_to_ints(v, b);
  for (int i = 0; i < t.lanes; ++i) p[i] = b[i];
}

// One quad per vector.
inline Eigen::Index compress_quads(float* dst, Vec v, unsigned quads) {
  store(dst, v);
  return quads & 1u;
}

}  // namespace dlsim::models::layers::simd
