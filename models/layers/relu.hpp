// Rectified linear unit, y = max(x, 0), elementwise.
#pragma once

#include "models/layers/layer.hpp"

namespace dlsim::models::layers {

/// dx = dy where y > 0, else 0 (the subgradient 0 at x = 0, as PyTorch).
class Relu final : public Layer {
 public:
  explicit Relu(Shape in) : Layer(in, in) {}
  std::string describe() const override { return "relu"; }
  void forward(const float* p, ConstAct x, Act y, Phase phase, RandomStream* rng) override;
  void backward(const float* p, ConstAct x, ConstAct y, ConstAct dy, Act* dx,
                const GradientOut& grad) override;
  double forward_flops() const override { return static_cast<double>(input_shape().size()); }
  double backward_flops(bool dx) const override {
    return dx ? static_cast<double>(input_shape().size()) : 0.0;
  }
};

}  // namespace dlsim::models::layers
