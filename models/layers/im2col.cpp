#include "models/layers/im2col.hpp"

#include <algorithm>

#include "models/layers/row_ops.hpp"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace dlsim::models::layers {

#if defined(__AVX512F__)
namespace {
// Lanes [lo, hi) set; 0 <= lo <= hi <= 16.
__mmask16 range_mask(Index lo, Index hi) {
  return static_cast<__mmask16>(((1u << hi) - 1u) & ~((1u << lo) - 1u));
}
}  // namespace
#endif

Im2Col::Im2Col(Shape in, Index kernel, Index stride, Index padding, Index out_height,
               Index out_width)
    : in_(in),
      kernel_(kernel),
      stride_(stride),
      padding_(padding),
      ho_(out_height),
      wo_(out_width),
      padded_(Eigen::VectorXf::Zero(in.channels * (in.height + 2 * padding) *
                                        (in.width + 2 * padding) + kPad)),
      dpadded_(padded_.size()),
      dcols_(Eigen::VectorXf::Zero(2 * kPad + ho_ * wo_ * in.channels * kernel * kernel)) {}

// The sample is first copied into the interior of a zero-bordered plane, so that every column
// is a plain strided copy with no bounds tests (masked loads straight from x measured slower).
void Im2Col::expand(const float* x, float* cols) {
  const Index hp = in_.height + 2 * padding_, wp = in_.width + 2 * padding_;
  for (Index c = 0; c < in_.channels; ++c)
    for (Index h = 0; h < in_.height; ++h)
      copy_row(x + (c * in_.height + h) * in_.width, 1, in_.width,
               padded_.data() + (c * hp + h + padding_) * wp + padding_);
  float* col = cols;  // column (c, ki, kj), position oh*wo + ow
  const float* end = cols + ho_ * wo_ * in_.channels * kernel_ * kernel_;
  for (Index c = 0; c < in_.channels; ++c)
    for (Index ki = 0; ki < kernel_; ++ki)
      for (Index kj = 0; kj < kernel_; ++kj)
        for (Index oh = 0; oh < ho_; ++oh, col += wo_) {
          const float* src = padded_.data() + (c * hp + oh * stride_ + ki) * wp + kj;
          // Rows are written in address order, so a row may spill into the next; not past end.
          if (col + kRowSlack <= end) {
            copy_row_slack(src, stride_, wo_, col);
          } else {
            copy_row(src, stride_, wo_, col);
          }
        }
}

void Im2Col::fold_scatter(float* dx) {
  const Index hp = in_.height + 2 * padding_, wp = in_.width + 2 * padding_;
  dpadded_.setZero();
  const float* col = dcols_buffer();
  for (Index c = 0; c < in_.channels; ++c)
    for (Index ki = 0; ki < kernel_; ++ki)
      for (Index kj = 0; kj < kernel_; ++kj)
        for (Index oh = 0; oh < ho_; ++oh, col += wo_)
          add_row_slack(col, wo_, stride_, dpadded_.data() + (c * hp + oh * stride_ + ki) * wp + kj);
  for (Index c = 0; c < in_.channels; ++c)
    for (Index h = 0; h < in_.height; ++h)
      copy_row(dpadded_.data() + (c * hp + h + padding_) * wp + padding_, 1, in_.width,
               dx + (c * in_.height + h) * in_.width);
}

// Stride 1: each input row gathers its (up to) k*k shifted column rows in registers and is
// stored once, instead of k*k read-modify-writes of a padded plane.
void Im2Col::fold(float* dx) {
#if defined(__AVX512F__)
  if (stride_ == 1) {
    const Index p_size = ho_ * wo_, k2 = kernel_ * kernel_;
    const float* dcols = dcols_buffer();
    for (Index c = 0; c < in_.channels; ++c) {
      for (Index ih = 0; ih < in_.height; ++ih) {
        float* out = dx + (c * in_.height + ih) * in_.width;
        for (Index w0 = 0; w0 < in_.width; w0 += 16) {
          const Index lanes = std::min<Index>(16, in_.width - w0);
          // One accumulator per ki (mod 4), added at the end: short dependency chains.
          __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(),
                           _mm512_setzero_ps()};
          for (Index ki = 0; ki < kernel_; ++ki) {
            const Index oh = ih + padding_ - ki;
            if (oh < 0 || oh >= ho_) continue;
            for (Index kj = 0; kj < kernel_; ++kj) {
              // Input column w0 + lane reads output column ow = w0 + lane + padding - kj.
              const Index first = w0 + padding_ - kj;
              const Index lo = std::max<Index>(0, -first), hi = std::min<Index>(lanes, wo_ - first);
              if (lo >= hi) continue;
              const float* row = dcols + (c * k2 + ki * kernel_ + kj) * p_size + oh * wo_;
              acc[ki % 4] = _mm512_add_ps(acc[ki % 4], _mm512_maskz_loadu_ps(range_mask(lo, hi), row + first));
            }
          }
          const __m512 sum = _mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3]));
          _mm512_mask_storeu_ps(out + w0, range_mask(0, lanes), sum);
        }
      }
    }
    return;
  }
#endif
  fold_scatter(dx);
}

}  // namespace dlsim::models::layers
