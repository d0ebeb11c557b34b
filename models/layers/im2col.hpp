// im2col and its transpose for Conv2D, one sample at a time.
// cols (P x C*k*k, column-major, leading dimension P = Ho*Wo): column c*k*k + ki*k + kj holds
// input (c, oh*stride - padding + ki, ow*stride - padding + kj) at row oh*Wo + ow (0 outside).
#pragma once

#include <Eigen/Core>

#include "models/layers/layer.hpp"

namespace dlsim::models::layers {

class Im2Col {
 public:
  Im2Col(Shape in, Index kernel, Index stride, Index padding, Index out_height, Index out_width);

  /// cols = im2col(x); x: (C*H*W). Writes exactly the P*C*k*k floats of cols.
  void expand(const float* x, float* cols);
  /// dx (C*H*W) = im2col^T(dcols): every input gets the sum of the column entries that read it
  /// (in a fixed order). dcols must be in dcols_buffer().
  void fold(float* dx);
  /// Where the caller writes dcols (P x C*k*k, leading dimension P); padded on both sides so
  /// that fold() may read a few floats around it.
  float* dcols_buffer() { return dcols_.data() + kPad; }

 private:
  static constexpr Index kPad = 16;
  void fold_scatter(float* dx);  // any stride
  Shape in_;
  Index kernel_, stride_, padding_, ho_, wo_;
  Eigen::VectorXf padded_;   // (C, H+2p, W+2p): the sample inside a zero border, + kPad
  Eigen::VectorXf dpadded_;  // same, for fold_scatter
  Eigen::VectorXf dcols_;    // kPad + P*C*k*k + kPad
};

}  // namespace dlsim::models::layers
