// Fully connected layer y = W x + b on (features, n) activations.
#pragma once

#include "models/layers/layer.hpp"

namespace dlsim::models::layers {

/// Parameters: W (out x in, column-major: W(o, i) at p[o + out*i]) then b (out).
/// Backward scratch: dy^T (n x out) and dx^T (n x in), so that dx = W^T dy runs as
/// dx^T = dy^T W, a product that reads W in place once.
class Dense final : public Layer {
 public:
  Dense(Shape in, Index units);
  std::string describe() const override;
  Index parameter_count() const override;
  void initialize(float* p, Init init, RandomStream& rng) const override;
  void reserve(Index max_batch) override;
  size_t scratch_bytes() const override {
    return static_cast<size_t>(dy_t_.size() + dx_t_.size() + column_sum_.size()) * sizeof(float);
  }
  void forward(const float* p, ConstAct x, Act y, Phase phase, RandomStream* rng) override;
  void backward(const float* p, ConstAct x, ConstAct y, ConstAct dy, Act* dx,
                const GradientOut& grad) override;
  double forward_flops() const override;
  double backward_flops(bool input_gradient) const override;

 private:
  Index in_size_;
  Index out_size_;
  Eigen::MatrixXf dy_t_;        // (capacity, out)
  Eigen::MatrixXf dx_t_;        // (capacity, in)
  Eigen::VectorXf column_sum_;  // (out): the bias gradient before scaling
};

}  // namespace dlsim::models::layers
