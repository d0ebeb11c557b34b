// Short strided row copies and adds for im2col, col2im and pooling. Rows are 5 to 30 floats, too
// short for the compiler's vector loops (they start at 16 floats) and for a memcpy call, so the
// unit-stride case uses AVX-512 when compiled for it. The "slack" variants touch up to 15 floats
// past the row (reads, and writes of unchanged or soon-overwritten values): callers give them
// buffers with kRowSlack spare floats at the end.
#pragma once

#include <Eigen/Core>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace dlsim::models::layers {

inline constexpr Eigen::Index kRowSlack = 16;

#if defined(__AVX512F__)
inline __mmask16 tail_mask(Eigen::Index count) {
  return static_cast<__mmask16>((1u << count) - 1u);
}
#endif

/// dst[i] = src[i * stride] for i < count; touches nothing else.
inline void copy_row(const float* src, Eigen::Index stride, Eigen::Index count, float* dst) {
#if defined(__AVX512F__)
  if (stride == 1) {
    Eigen::Index i = 0;
    for (; i + 16 <= count; i += 16) _mm512_storeu_ps(dst + i, _mm512_loadu_ps(src + i));
    const __mmask16 m = tail_mask(count - i);
    _mm512_mask_storeu_ps(dst + i, m, _mm512_maskz_loadu_ps(m, src + i));
    return;
  }
#endif
  for (Eigen::Index i = 0; i < count; ++i) dst[i] = src[i * stride];
}

/// As copy_row, but may read src and write dst up to 15 floats past count: for rows written in
/// increasing address order, where the next row overwrites the spill (masked stores are slow).
inline void copy_row_slack(const float* src, Eigen::Index stride, Eigen::Index count, float* dst) {
#if defined(__AVX512F__)
  if (stride == 1) {
    for (Eigen::Index i = 0; i < count; i += 16)
      _mm512_storeu_ps(dst + i, _mm512_loadu_ps(src + i));
    return;
  }
#endif
  for (Eigen::Index i = 0; i < count; ++i) dst[i] = src[i * stride];
}

/// dst[i * stride] += src[i] for i < count; with stride 1 it may read src and dst and rewrite dst
/// (adding zero) up to 15 floats past count.
inline void add_row_slack(const float* src, Eigen::Index count, Eigen::Index stride, float* dst) {
#if defined(__AVX512F__)
  if (stride == 1) {
    for (Eigen::Index i = 0; i < count; i += 16) {
      const __m512 s = _mm512_maskz_loadu_ps(
          count - i >= 16 ? __mmask16(0xffff) : tail_mask(count - i), src + i);
      _mm512_storeu_ps(dst + i, _mm512_add_ps(_mm512_loadu_ps(dst + i), s));
    }
    return;
  }
#endif
  for (Eigen::Index i = 0; i < count; ++i) dst[i * stride] += src[i];
}

}  // namespace dlsim::models::layers
