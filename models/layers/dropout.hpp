// Inverted dropout: in training each feature is kept with probability 1 - rate and scaled by
// 1 / (1 - rate), so evaluation is the identity.
#pragma once

#include "models/layers/layer.hpp"

namespace dlsim::models::layers {

/// The mask is drawn from the stream passed to forward (the agent's own): each next_u64() gives
/// four 16-bit uniforms u (low bits first), in feature-then-sample order; a feature is kept when
/// u < t = round((1 - rate) * 2^16) and then scaled by 2^16 / t. The keep probability is thus
/// 1 - rate to within 2^-17, and the scale is its exact inverse.
class Dropout final : public Layer {
 public:
  /// Precondition: 0 <= rate < 1.
  Dropout(Shape in, double rate);
  std::string describe() const override;
  void reserve(Index max_batch, Use use) override;
  size_t scratch_bytes() const override {
    return static_cast<size_t>(mask_.size()) * sizeof(float);
  }
  bool is_identity(Phase phase) const override { return phase == Phase::kEval || rate_ == 0.0; }
  void forward(const float* p, ConstAct x, Act y, Phase phase, RandomStream* rng) override;
  void backward(const float* p, ConstAct x, ConstAct y, ConstAct dy, Act* dx,
                const GradientOut& grad) override;
  double forward_flops() const override { return static_cast<double>(input_shape().size()); }
  double backward_flops(bool dx) const override {
    return dx ? static_cast<double>(input_shape().size()) : 0.0;
  }

 private:
  double rate_;
  Eigen::MatrixXf mask_;  // (features, capacity): 0 or 1 / (1 - rate)
};

}  // namespace dlsim::models::layers
