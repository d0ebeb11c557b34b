// Hyperbolic tangent, elementwise.
#pragma once

#include "models/layers/layer.hpp"

namespace dlsim::models::layers {

/// y = tanh(x); dx = dy * (1 - y^2).
class Tanh final : public Layer {
 public:
  explicit Tanh(Shape in) : Layer(in, in) {}
  std::string describe() const override { return "tanh"; }
  void forward(const float* p, ConstAct x, Act y, Phase phase, RandomStream* rng) override;
  void backward(const float* p, ConstAct x, ConstAct y, ConstAct dy, Act* dx,
                const GradientOut& grad) override;
  double forward_flops() const override { return 20.0 * static_cast<double>(input_shape().size()); }
  double backward_flops(bool dx) const override {
    return dx ? 3.0 * static_cast<double>(input_shape().size()) : 0.0;
  }
};

}  // namespace dlsim::models::layers
