// Fully connected layer y = W x + b on (features, n) activations.
#pragma once

#include "models/layers/layer.hpp"
#include "models/layers/sparse_input.hpp"

namespace dlsim::models::layers {

/// Parameters: W (out x in, column-major: W(o, i) at p[o + out*i]) then b (out).
/// Backward scratch: dy^T (n x out) and dx^T (n x in), so that dx = W^T dy runs as
/// dx^T = dy^T W, a product that reads W in place once. As the input layer, given a background
/// value, it runs sparse products (sparse_products.hpp) on batches where most features equal it.
class Dense final : public Layer {
 public:
  Dense(Shape in, Index units);
  std::string describe() const override;
  Index parameter_count() const override;
  Index bias_count() const override { return out_size_; }
  void initialize(float* p, Init init, RandomStream& rng) const override;
  void reserve(Index max_batch, Use use) override;
  size_t scratch_bytes() const override {
    return static_cast<size_t>(dy_t_.size() + dx_t_.size() + column_sum_.size() + base_.size()) *
               sizeof(float) +
           sparse_.bytes();
  }
  void set_input_background(std::optional<float> background) override { background_ = background; }
  /// Whether the last forward ran the sparse product (and backward will, without dx).
  bool last_forward_sparse() const { return sparse_forward_; }
  void forward(const float* p, ConstAct x, Act y, Phase phase, RandomStream* rng) override;
  void backward(const float* p, ConstAct x, ConstAct y, ConstAct dy, Act* dx,
                const GradientOut& grad) override;
  double forward_flops() const override;
  double backward_flops(bool input_gradient) const override;

 private:
  void dense_forward(const float* p, ConstAct x, Act y);
  void dense_backward(const float* p, ConstAct x, ConstAct dy, Act* dx, const GradientOut& grad);

  Index in_size_;
  Index out_size_;
  Eigen::MatrixXf dy_t_;        // (capacity, out)
  Eigen::MatrixXf dx_t_;        // (capacity, in)
  Eigen::VectorXf column_sum_;  // (out): the bias gradient before scaling
  Eigen::VectorXf base_;        // (out): scratch of the sparse products
  std::optional<float> background_;
  SparseInput sparse_;  // the last forward's input, when it ran sparse
  bool sparse_forward_ = false;
};

}  // namespace dlsim::models::layers
