// im2col and its transpose for Conv2D, one sample at a time and a few columns at a time, so that
// what a product reads is still in L1 or L2.
// cols (P x C*k*k, column-major, leading dimension P = Ho*Wo): column c*k*k + ki*k + kj holds
// input (c, oh*stride - padding + ki, ow*stride - padding + kj) at row oh*Wo + ow (0 outside).
#pragma once

#include <Eigen/Core>

#include "models/layers/layer.hpp"

namespace dlsim::models::layers {

/// Whether columns() may write up to kRowSlack floats past its last column (to be overwritten).
enum class Spill { kAllowed, kNo };

class Im2Col {
 public:
  /// fold_channels: how many input channels fold() takes at once (sizes dcols_buffer()).
  Im2Col(Shape in, Index kernel, Index stride, Index padding, Index out_height, Index out_width,
         Index fold_channels);

  /// Takes sample x: (C*H*W) for the following columns() calls.
  void load(const float* x);
  /// dst (P x count, leading dimension P) = columns [q0, q0 + count) of im2col(loaded sample).
  void columns(Index q0, Index count, float* dst, Spill spill) const;
  /// Stride 1 only: row q of im2col(loaded sample)^T restricted to output row oh, columns
  /// [ow0, ow0 + w), is the contiguous window(oh, ow0) + row_offsets()[q], w floats: a product
  /// can read the transposed im2col in place (Layout::kRowOffsets), with nothing copied.
  const float* window(Index oh, Index ow0) const {
    return padded_.data() + oh * (in_.width + 2 * padding_) + ow0;
  }
  const Index* row_offsets() const { return row_offsets_.data(); }
  /// Floats of scratch held.
  Index floats() const { return padded_.size() + dpadded_.size() + dcols_.size(); }
  /// Where the caller writes the dcols of channels [c0, c1) for fold(): (P x (c1-c0)*k*k).
  float* dcols_buffer() { return dcols_.data() + kPad; }
  /// dx channels [c0, c1) of (C*H*W) = im2col^T(dcols_buffer()): every input gets the sum of the
  /// column entries that read it, in a fixed order. c1 - c0 <= fold_channels.
  void fold(Index c0, Index c1, float* dx);

 private:
  static constexpr Index kPad = 16;
  void fold_scatter(Index c0, Index c1, float* dx);  // any stride
  Shape in_;
  Index kernel_, stride_, padding_, ho_, wo_;
  Eigen::VectorXf padded_;   // (C, H+2p, W+2p): the sample inside a zero border, + kPad
  Eigen::VectorXf dpadded_;  // (H+2p, W+2p) + kPad: fold_scatter's accumulator for one channel
  Eigen::VectorXf dcols_;    // kPad + P*fold_channels*k*k + kPad
  Eigen::Matrix<Index, Eigen::Dynamic, 1> row_offsets_;  // C*k*k: c*(H+2p)*(W+2p) + ki*(W+2p) + kj
};

}  // namespace dlsim::models::layers
