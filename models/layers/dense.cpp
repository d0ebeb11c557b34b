#include "models/layers/dense.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "models/layers/gemm.hpp"
#include "models/layers/init.hpp"
#include "models/layers/sparse_products.hpp"
#include "sim/core/error.hpp"

namespace dlsim::models::layers {

Dense::Dense(Shape in, Index units)
    : Layer(in, Shape{units, 1, 1}),
      in_size_(in.size()),
      out_size_(units),
      column_sum_(units),
      base_(units) {}

std::string Dense::describe() const { return fmt::format("dense {}->{}", in_size_, out_size_); }

Index Dense::parameter_count() const { return out_size_ * in_size_ + out_size_; }

void Dense::initialize(float* p, Init init, RandomStream& rng) const {
  fill_weights(p, out_size_ * in_size_, in_size_, out_size_, init, rng);
  fill_biases(p + out_size_ * in_size_, out_size_, in_size_, init, rng);
}

void Dense::reserve(Index max_batch, Use use) {
  // The transposes serve only dx = W^T dy: never for the network's input layer, nor evaluation.
  if (use == Use::kTrainingWithInputGradient && dy_t_.rows() < max_batch) {
    dy_t_.resize(max_batch, out_size_);
    dx_t_.resize(max_batch, in_size_);
  }
}

void Dense::forward(const float* p, ConstAct x, Act y, Phase, RandomStream*) {
  // y (out, n) = W (out, in) * x (in, n) + b
  const Index n = x.cols();
  // Large batches (evaluation) run dense: there the product reuses each block of W for hundreds
  // of samples and beats the sparse one, which reads W's columns once per group of 4 samples.
  sparse_forward_ = false;
  if (background_ && n <= SparseInput::kMaxSamples) {
    sparse_.reserve(in_size_, n);  // on first use: only the input layer needs these buffers
    sparse_forward_ = sparse_.build(x, *background_);
  }
  if (sparse_forward_) {
    sparse_forward(p, p + out_size_ * in_size_, out_size_, sparse_, base_.data(), y.data());
  } else {
    dense_forward(p, x, y);
  }
}

void Dense::dense_forward(const float* p, ConstAct x, Act y) {
  gemm(out_size_, x.cols(), in_size_, 1.0f, p, out_size_, Operand{x.data(), in_size_}, y.data(),
       out_size_, Accumulate::kNo);
  y.colwise() += Eigen::Map<const Eigen::VectorXf>(p + out_size_ * in_size_, out_size_);
}

void Dense::backward(const float* p, ConstAct x, ConstAct, ConstAct dy, Act* dx,
                     const GradientOut& grad) {
  const Index n = x.cols();
  // db = sum of dy's columns, added column after column: the same order for every element
  // wherever db lives (Eigen's rowwise().sum() peels unaligned heads with another order).
  column_sum_ = dy.col(0);
  for (Index s = 1; s < n; ++s) column_sum_ += dy.col(s);
  Eigen::Map<Eigen::VectorXf> db(grad.data + out_size_ * in_size_, out_size_);
  // With dx wanted (never for the network's input layer), the dense products give both.
  if (sparse_forward_ && dx == nullptr) {
    DLSIM_CHECK(sparse_.samples() == n, "backward on {} samples after a forward on {}", n,
                sparse_.samples());
    sparse_weight_gradient(dy.data(), column_sum_.data(), out_size_, sparse_, grad.scale, grad.mode,
                           base_.data(), grad.data);
  } else {
    dense_backward(p, x, dy, dx, grad);
  }
  if (grad.mode == Accumulate::kNo) {
    db.noalias() = grad.scale * column_sum_;
  } else {
    db.noalias() += grad.scale * column_sum_;
  }
}

void Dense::dense_backward(const float* p, ConstAct x, ConstAct dy, Act* dx,
                           const GradientOut& grad) {
  const Index n = x.cols();
  DLSIM_CHECK(dx == nullptr || dy_t_.rows() >= n,
              "input gradient of {} samples with scratch reserved for {}", n, dy_t_.rows());
  if (dx != nullptr) transpose(dy.data(), out_size_, n, dy_t_.data());
  // W is swept in blocks of columns that fit in L2: each block is read for dx, then its gradient
  // is written (or added into it, for a fused SGD step) while it is still in cache. Per element
  // the sums run as in one whole product.
  const Index block = std::max<Index>(14, (Index{1} << 17) / out_size_);
  for (Index j0 = 0; j0 < in_size_; j0 += block) {
    const Index bw = std::min(block, in_size_ - j0);
    if (dx != nullptr)  // dx^T (n, bw) = dy^T (n, out) * W[:, j0:j0+bw] (out, bw)
      gemm(n, bw, out_size_, 1.0f, dy_t_.data(), n, Operand{p + j0 * out_size_, out_size_},
           dx_t_.data() + j0 * n, n, Accumulate::kNo);
    // dW[:, j0:j0+bw] (+)= scale * dy (out, n) * x^T (n, bw): x read row-major is x^T.
    gemm(out_size_, bw, n, grad.scale, dy.data(), out_size_,
         Operand{x.data() + j0, in_size_, Layout::kRowMajor}, grad.data + j0 * out_size_, out_size_,
         grad.mode);
  }
  if (dx != nullptr) transpose(dx_t_.data(), n, in_size_, dx->data());  // dx (in, n)
}

double Dense::forward_flops() const {
  return 2.0 * static_cast<double>(in_size_ * out_size_) + static_cast<double>(out_size_);
}

double Dense::backward_flops(bool input_gradient) const {
  const double product = 2.0 * static_cast<double>(in_size_ * out_size_);
  return product + static_cast<double>(out_size_) + (input_gradient ? product : 0.0);
}

}  // namespace dlsim::models::layers
