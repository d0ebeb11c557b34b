// Max pooling over kernel x kernel windows with a stride, no padding; remembers the arg-max of
// each output for the backward pass.
#pragma once

#include <cstdint>

#include "models/layers/layer.hpp"

namespace dlsim::models::layers {

/// Input (C, H, W) -> output (C, Ho, Wo), Ho = (H - kernel) / stride + 1 (trailing rows that
/// fill no window are dropped, as in PyTorch). Ties go to the first maximum in row-major order.
class MaxPool2D final : public Layer {
 public:
  /// Precondition: kernel <= H and kernel <= W (checked by the builder).
  MaxPool2D(Shape in, Index kernel, Index stride);
  std::string describe() const override;
  void reserve(Index max_batch, Use use) override;
  size_t scratch_bytes() const override {
    return static_cast<size_t>(argmax_.size()) * sizeof(int32_t);
  }
  void forward(const float* p, ConstAct x, Act y, Phase phase, RandomStream* rng) override;
  void backward(const float* p, ConstAct x, ConstAct y, ConstAct dy, Act* dx,
                const GradientOut& grad) override;
  double forward_flops() const override;
  double backward_flops(bool input_gradient) const override;

 private:
  void pool_sample(const float* x, float* y, int32_t* arg) const;
  Index kernel_, stride_;
  // (out.size(), capacity): the input feature index (within the sample) each output came from;
  // for 2x2 stride 2, the window element 0..3 instead (pool2x2.hpp).
  Eigen::Matrix<int32_t, Eigen::Dynamic, Eigen::Dynamic> argmax_;
};

}  // namespace dlsim::models::layers
