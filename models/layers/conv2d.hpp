// 2-D convolution (cross-correlation, as in PyTorch) with stride and zero padding, by im2col and
// the in-place GEMM, one sample at a time so that the im2col buffer stays in L2. A following ReLU
// and 2x2 max-pool can be fused in: they then run on each sample while it is in cache, and the
// full-resolution output is never stored (the builder fuses conv -> relu -> maxpool 2).
#pragma once

#include <cstdint>

#include "models/layers/im2col.hpp"
#include "models/layers/layer.hpp"

namespace dlsim::models::layers {

enum class FusedRelu { kNo, kYes };
enum class FusedPool { kNo, kMax2x2 };

/// Input (C, H, W), output (F, Ho, Wo) with Ho = (H + 2*padding - kernel) / stride + 1.
/// Parameters: K (F x C*k*k, column-major) then b (F); the weight of filter f on input channel c
/// at kernel offset (ki, kj) is p[f + F*(c*k*k + ki*k + kj)].
/// Per sample, with P = Ho*Wo positions: cols (P x C*k*k) = im2col(x) (im2col.hpp);
/// z (P x F) = cols * K^T + b, which read column-major is exactly the (F, Ho, Wo) output; the bias
/// rides in the product as a column of ones appended to cols (p is [K b], F x (Ckk+1)).
/// Fused: y = maxpool2x2(relu(z)) (F, Ho/2, Wo/2), or relu(z), or pool(z); the same numbers as
/// the separate layers, bit for bit, in forward and backward.
class Conv2D final : public Layer {
 public:
  /// Precondition: the kernel fits the padded input (checked by the builder).
  Conv2D(Shape in, Index filters, Index kernel, Index stride, Index padding,
         FusedRelu relu = FusedRelu::kNo, FusedPool pool = FusedPool::kNo);
  std::string describe() const override;
  Index parameter_count() const override;
  void initialize(float* p, Init init, RandomStream& rng) const override;
  void reserve(Index max_batch) override;
  void forward(const float* p, ConstAct x, Act y, Phase phase, RandomStream* rng) override;
  void backward(const float* p, ConstAct x, ConstAct y, ConstAct dy, Act* dx,
                const GradientOut& grad) override;
  double forward_flops() const override;
  double backward_flops(bool input_gradient) const override;

  /// Output side length for an input side, or <= 0 when the kernel does not fit.
  static Index output_size(Index in, Index kernel, Index stride, Index padding);

 private:
  // d loss / d z of sample s from dy and y (undoing the fused pool and ReLU); returns (P x F).
  const float* conv_output_gradient(ConstAct y, ConstAct dy, Index s);
  Index filters_, kernel_, stride_, padding_;
  FusedRelu relu_;
  FusedPool pool_;
  Shape conv_shape_;  // (F, Ho, Wo) before pooling
  Index patch_;      // C*k*k
  Index positions_;  // Ho*Wo
  Im2Col im2col_;
  Eigen::MatrixXf cols_;    // (P, Ckk + 1): im2col, then a column of ones for the bias
  Eigen::MatrixXf dy_t_;    // (F, P): one sample's dz transposed
  Eigen::VectorXf dk_;      // (F*Ckk + F): the batch's parameter gradient before scaling
  Eigen::MatrixXf z_;       // (P, F): one sample's conv output before pooling
  Eigen::MatrixXf dz_;      // (P, F): its gradient
  Eigen::VectorXf dy_masked_;  // (F*Ho/2*Wo/2): dy * (y > 0) before un-pooling
  Eigen::Matrix<int32_t, Eigen::Dynamic, Eigen::Dynamic> codes_;  // pooled size x capacity
};

}  // namespace dlsim::models::layers
