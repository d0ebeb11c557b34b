// 2-D convolution (cross-correlation, as in PyTorch) with stride and zero padding, one sample at a
// time so that everything a product reads is in L1 or L2. Stride 1 convolves in place: the GEMM
// reads the rows of im2col^T straight out of a zero-bordered copy of the input, and the input
// gradient is the full convolution of the output gradient with the flipped kernel, done the same
// way. A following ReLU and 2x2 max-pool can be fused in (the builder fuses conv -> relu ->
// maxpool 2): they then run on each sample while it is in cache, and the full-resolution output
// is never stored.
#pragma once

#include <cstdint>

#include "models/layers/im2col.hpp"
#include "models/layers/layer.hpp"

namespace dlsim::models::layers {

enum class FusedRelu { kNo, kYes };
enum class FusedPool { kNo, kMax2x2 };

/// Input (C, H, W), output (F, Ho, Wo) with Ho = (H + 2*padding - kernel) / stride + 1.
/// Parameters: K (F x C*k*k, column-major) then b (F); the weight of filter f on input channel c
/// at kernel offset (ki, kj) is p[f + F*(c*k*k + ki*k + kj)] (p is [K b], F x (C*k*k + 1)).
/// With P = Ho*Wo positions and cols (P x C*k*k) = im2col(x) (im2col.hpp):
/// z (P x F) = cols * K^T + b, which read column-major is exactly the (F, Ho, Wo) output.
/// Fused: y = maxpool2x2(relu(z)) (F, Ho/2, Wo/2), or relu(z), or pool(z), with the numbers of
/// the separate layers.
class Conv2D final : public Layer {
 public:
  /// Precondition: the kernel fits the padded input (checked by the builder).
  Conv2D(Shape in, Index filters, Index kernel, Index stride, Index padding,
         FusedRelu relu = FusedRelu::kNo, FusedPool pool = FusedPool::kNo);
  std::string describe() const override;
  Index parameter_count() const override;
  Index bias_count() const override { return filters_; }
  void initialize(float* p, Init init, RandomStream& rng) const override;
  void reserve(Index max_batch, Use use) override;
  size_t scratch_bytes() const override;
  void forward(const float* p, ConstAct x, Act y, Phase phase, RandomStream* rng) override;
  void backward(const float* p, ConstAct x, ConstAct y, ConstAct dy, Act* dx,
                const GradientOut& grad) override;
  double forward_flops() const override;
  double backward_flops(bool input_gradient) const override;

  /// Output side length for an input side, or <= 0 when the kernel does not fit.
  static Index output_size(Index in, Index kernel, Index stride, Index padding);

 private:
  static constexpr Index kTileColumns = 14;   // = the widest GEMM register tile
  static constexpr Index kFoldColumns = 300;  // dcols columns folded at once (235 KiB at P=196)
  void convolve_sample(const float* p, const float* x, float* z);  // z (P x F), bias included
  // d loss / d z of sample s from dy and y (undoing the fused pool and ReLU); returns (P x F).
  const float* conv_output_gradient(ConstAct y, ConstAct dy, Index s);
  void kernel_gradient(const float* dz, bool first);  // dk_ (+)= this sample's [dK db]
  void input_gradient(const float* p, const float* dz, float* dx);  // dx (C*H*W) of one sample

  Index filters_, kernel_, stride_, padding_;
  FusedRelu relu_;
  FusedPool pool_;
  Shape conv_shape_;  // (F, Ho, Wo) before pooling
  Index patch_;       // C*k*k
  Index positions_;   // Ho*Wo
  bool in_place_;     // stride 1 and padding < kernel: no im2col copies
  Im2Col im2col_;     // the input plane
  Im2Col dz_plane_;   // in place only: dz plane padded by kernel-1-padding, for the input gradient
  Eigen::MatrixXf cols_;       // (P, Ckk + 1) unless in place: im2col, then ones (the bias)
  Eigen::VectorXf col_tile_;   // (P x 12) + slack: backward's im2col columns
  Eigen::MatrixXf dy_t_;       // (F, P): one sample's dz transposed
  Eigen::VectorXf dk_;         // (F*Ckk + F): the batch's [dK db] before scaling
  Eigen::MatrixXf z_;          // (P, F): one sample's conv output before pooling
  Eigen::MatrixXf z_t_;        // (F, P): the same transposed, as the in-place product makes it
  Eigen::MatrixXf dz_;         // (P, F): its gradient
  Eigen::VectorXf dy_masked_;  // (F*Ho/2*Wo/2): dy * (y > 0) before un-pooling
  Eigen::Matrix<int32_t, Eigen::Dynamic, Eigen::Dynamic> codes_;  // pooled size x capacity
  Eigen::MatrixXf k_flipped_;  // in place: (C, F*k*k), K rotated by 180 degrees, per backward
  Eigen::MatrixXf dx_t_;       // in place: (C, H*W), one sample's input gradient transposed
};

}  // namespace dlsim::models::layers
