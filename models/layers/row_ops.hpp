// Short strided row copies and adds for im2col, col2im and pooling. Rows are 5 to 30 floats, too
// short for the compiler's vector loops (they start at 16 floats) and for a memcpy call, so the
// unit-stride case uses simd.hpp's vectors. The "slack" variants touch up to 15 floats
// past the row (reads, and writes of unchanged or soon-overwritten values): callers give them
// buffers with kRowSlack spare floats at the end.
#pragma once

#include <Eigen/Core>

#include "models/layers/simd.hpp"

namespace dlsim::models::layers {

inline constexpr Eigen::Index kRowSlack = 16;
static_assert(simd::kWidth <= kRowSlack, "a vector's overshoot must fit in the slack");

/// dst[i] = src[i * stride] for i < count; touches nothing else.
inline void copy_row(const float* src, Eigen::Index stride, Eigen::Index count, float* dst) {
  if (stride == 1) {
    constexpr Eigen::Index kW = simd::kWidth;
    Eigen::Index i = 0;
    for (; i + kW <= count; i += kW) simd::store(dst + i, simd::load(src + i));
    if (i < count) {
      const simd::Tail t = simd::tail(count - i);
      simd::store_tail(dst + i, simd::load_tail(src + i, t), t);
    }
    return;
  }
  for (Eigen::Index i = 0; i < count; ++i) dst[i] = src[i * stride];
}

/// As copy_row, but may read src and write dst up to 15 floats past count: for rows written in
/// increasing address order, where the next row overwrites the spill (masked stores are slow).
inline void copy_row_slack(const float* src, Eigen::Index stride, Eigen::Index count, float* dst) {
  if (stride == 1) {
    for (Eigen::Index i = 0; i < count; i += simd::kWidth)
      simd::store(dst + i, simd::load(src + i));
    return;
  }
  for (Eigen::Index i = 0; i < count; ++i) dst[i] = src[i * stride];
}

/// dst[i * stride] += src[i] for i < count; with stride 1 it may read src and dst and rewrite dst
/// (adding zero) up to 15 floats past count.
inline void add_row_slack(const float* src, Eigen::Index count, Eigen::Index stride, float* dst) {
  if (stride == 1) {
    for (Eigen::Index i = 0; i < count; i += simd::kWidth)
      simd::store(dst + i, simd::add(simd::load(dst + i), simd::load_first(src + i, count - i)));
    return;
  }
  for (Eigen::Index i = 0; i < count; ++i) dst[i * stride] += src[i];
}

}  // namespace dlsim::models::layers
