#include "models/layers/im2col.hpp"

#include <algorithm>

#include "models/layers/row_ops.hpp"
#include "models/layers/simd.hpp"

namespace dlsim::models::layers {

Im2Col::Im2Col(Shape in, Index kernel, Index stride, Index padding, Index out_height,
               Index out_width, Index fold_channels)
    : in_(in),
      kernel_(kernel),
      stride_(stride),
      padding_(padding),
      ho_(out_height),
      wo_(out_width),
      padded_(Eigen::VectorXf::Zero(
          in.channels * (in.height + 2 * padding) * (in.width + 2 * padding) + kPad)),
      dpadded_((in.height + 2 * padding) * (in.width + 2 * padding) + kPad),
      dcols_(Eigen::VectorXf::Zero(2 * kPad + ho_ * wo_ * fold_channels * kernel * kernel)),
      row_offsets_(in.channels * kernel * kernel) {
  const Index hp = in.height + 2 * padding, wp = in.width + 2 * padding;
  for (Index c = 0, q = 0; c < in.channels; ++c)
    for (Index ki = 0; ki < kernel; ++ki)
      for (Index kj = 0; kj < kernel; ++kj) row_offsets_[q++] = (c * hp + ki) * wp + kj;
}

// The sample goes into the interior of a zero-bordered plane, so that every column is a plain
// strided copy with no bounds tests, cheaper than masked loads straight from x.
void Im2Col::load(const float* x) {
  const Index hp = in_.height + 2 * padding_, wp = in_.width + 2 * padding_;
  for (Index c = 0; c < in_.channels; ++c)
    for (Index h = 0; h < in_.height; ++h)
      copy_row(x + (c * in_.height + h) * in_.width, 1, in_.width,
               padded_.data() + (c * hp + h + padding_) * wp + padding_);
}

void Im2Col::columns(Index q0, Index count, float* dst, Spill spill) const {
  const Index hp = in_.height + 2 * padding_, wp = in_.width + 2 * padding_;
  const Index k2 = kernel_ * kernel_;
  const float* end = dst + count * ho_ * wo_;
  float* col = dst;
  for (Index q = q0; q < q0 + count; ++q) {
    const Index c = q / k2, ki = q % k2 / kernel_, kj = q % kernel_;
    for (Index oh = 0; oh < ho_; ++oh, col += wo_) {
      const float* src = padded_.data() + (c * hp + oh * stride_ + ki) * wp + kj;
      // Rows are written in address order, so a row may spill into the next one.
      if (spill == Spill::kAllowed || col + kRowSlack <= end) {
        copy_row_slack(src, stride_, wo_, col);
      } else {
        copy_row(src, stride_, wo_, col);
      }
    }
  }
}

void Im2Col::fold_scatter(Index c0, Index c1, float* dx) {
  const Index hp = in_.height + 2 * padding_, wp = in_.width + 2 * padding_;
  const float* col = dcols_buffer();
  for (Index c = c0; c < c1; ++c) {
    dpadded_.setZero();
    for (Index ki = 0; ki < kernel_; ++ki)
      for (Index kj = 0; kj < kernel_; ++kj)
        for (Index oh = 0; oh < ho_; ++oh, col += wo_)
          add_row_slack(col, wo_, stride_, dpadded_.data() + (oh * stride_ + ki) * wp + kj);
    for (Index h = 0; h < in_.height; ++h)
      copy_row(dpadded_.data() + (h + padding_) * wp + padding_, 1, in_.width,
               dx + (c * in_.height + h) * in_.width);
  }
  (void)hp;
}

// Stride 1: each input row gathers its (up to) k*k shifted column rows in registers and is
// stored once, instead of k*k read-modify-writes of a padded plane.
void Im2Col::fold(Index c0, Index c1, float* dx) {
  if (stride_ == 1) {
    constexpr Index kW = simd::kWidth;
    const Index p_size = ho_ * wo_, k2 = kernel_ * kernel_;
    const float* dcols = dcols_buffer();
    for (Index c = c0; c < c1; ++c) {
      for (Index ih = 0; ih < in_.height; ++ih) {
        float* out = dx + (c * in_.height + ih) * in_.width;
        for (Index w0 = 0; w0 < in_.width; w0 += kW) {
          const Index lanes = std::min<Index>(kW, in_.width - w0);
          // One accumulator per ki (mod 4), added at the end: short dependency chains.
          simd::Vec acc[4] = {simd::zero(), simd::zero(), simd::zero(), simd::zero()};
          for (Index ki = 0; ki < kernel_; ++ki) {
            const Index oh = ih + padding_ - ki;
            if (oh < 0 || oh >= ho_) continue;
            for (Index kj = 0; kj < kernel_; ++kj) {
              // Input column w0 + lane reads output column ow = w0 + lane + padding - kj.
              const Index first = w0 + padding_ - kj;
              const Index lo = std::max<Index>(0, -first), hi = std::min<Index>(lanes, wo_ - first);
              if (lo >= hi) continue;
              const float* row = dcols + ((c - c0) * k2 + ki * kernel_ + kj) * p_size + oh * wo_;
              acc[ki % 4] = simd::add(acc[ki % 4], simd::load_range(row + first, lo, hi));
            }
          }
          simd::store_first(out + w0,
                            simd::add(simd::add(acc[0], acc[1]), simd::add(acc[2], acc[3])), lanes);
        }
      }
    }
    return;
  }
  fold_scatter(c0, c1, dx);
}

}  // namespace dlsim::models::layers
