// The one matrix product the layers use: C = alpha * A * B (+ C), single-threaded, allocation
// free. A is column-major and read in place (never packed: in our products A is a weight matrix or
// an im2col buffer already laid out for it); B may be column- or row-major. A register-tile kernel
// written over simd.hpp's vectors runs it: 32 x 14 with AVX-512, 16 x 6 with AVX2, 8 x 6 with SSE2.
#pragma once

#include <Eigen/Core>

#include "models/layers/layer.hpp"

namespace dlsim::models::layers {

enum class Layout { kColMajor, kRowMajor, kRowOffsets };

/// A read-only (rows x cols) operand: element (r, c) at data[r + c*ld] (column-major),
/// data[r*ld + c] (row-major; a row-major view of X is X^T for free) or
/// data[row_offsets[r] + c] (rows anywhere: a convolution reads its input rows in place).
struct Operand {
  const float* data;
  Index ld;
  Layout layout = Layout::kColMajor;
  const Index* row_offsets = nullptr;
};

/// C (m x n, column-major, leading dimension ldc) = alpha * A * B, added to C when
/// acc == kYes. A: (m x k) column-major with leading dimension lda; B: (k x n).
/// C must not overlap A or B. k == 0 leaves C (kYes) or zeroes it (kNo).
void gemm(Index m, Index n, Index k, float alpha, const float* a, Index lda, Operand b, float* c,
          Index ldc, Accumulate acc);

/// dst (cols x rows, column-major) = src^T for src (rows x cols, column-major). No overlap.
void transpose(const float* src, Index rows, Index cols, float* dst);

enum class Rectify { kNo, kYes };

/// dst(j, i) = src(i, j) + row_bias[i], then max(., 0) when rectify: a transpose that also adds a
/// bias per source row and applies a ReLU, in one pass.
void transpose_add(const float* src, Index rows, Index cols, const float* row_bias, Rectify rectify,
                   float* dst);

}  // namespace dlsim::models::layers
