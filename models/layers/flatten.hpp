// Flatten (C, H, W) to (C*H*W, 1, 1). Activations are already flat columns in channel-major
// order, so this only changes the shape that later layers see: the network passes the buffer on.
#pragma once

#include "models/layers/layer.hpp"

namespace dlsim::models::layers {

class Flatten final : public Layer {
 public:
  explicit Flatten(Shape in) : Layer(in, Shape{in.size(), 1, 1}) {}
  std::string describe() const override { return "flatten"; }
  bool is_identity(Phase) const override { return true; }
  void forward(const float*, ConstAct x, Act y, Phase, RandomStream*) override { y = x; }
  void backward(const float*, ConstAct, ConstAct, ConstAct dy, Act* dx,
                const GradientOut&) override {
    if (dx != nullptr) *dx = dy;
  }
  double forward_flops() const override { return 0.0; }
  double backward_flops(bool) const override { return 0.0; }
};

}  // namespace dlsim::models::layers
