#include "models/layers/dropout.hpp"

#include <fmt/format.h>

#include <cmath>

#include "sim/core/error.hpp"

namespace dlsim::models::layers {

Dropout::Dropout(Shape in, double rate) : Layer(in, in), rate_(rate) {}

std::string Dropout::describe() const { return fmt::format("dropout {}", rate_); }

void Dropout::reserve(Index max_batch) {
  if (mask_.cols() < max_batch) mask_.resize(input_shape().size(), max_batch);
}

void Dropout::forward(const float*, ConstAct x, Act y, Phase phase, RandomStream* rng) {
  if (is_identity(phase)) {
    y = x;
    return;
  }
  DLSIM_CHECK(rng != nullptr, "dropout needs a random stream in training");
  const uint64_t threshold = static_cast<uint64_t>(std::ldexp(1.0 - rate_, 32));
  const float kept = static_cast<float>(1.0 / (1.0 - rate_));
  float* m = mask_.data();
  const Index count = x.size();
  for (Index i = 0; i < count; i += 2) {
    const uint64_t bits = rng->next_u64();
    m[i] = (bits & 0xffffffffu) < threshold ? kept : 0.0f;
    if (i + 1 < count) m[i + 1] = (bits >> 32) < threshold ? kept : 0.0f;
  }
  y.array() = x.array() * Eigen::Map<const Eigen::ArrayXXf>(m, x.rows(), x.cols());
}

void Dropout::backward(const float*, ConstAct, ConstAct, ConstAct dy, Act* dx,
                       const GradientOut&) {
  if (dx == nullptr) return;
  dx->array() = dy.array() * Eigen::Map<const Eigen::ArrayXXf>(mask_.data(), dy.rows(), dy.cols());
}

}  // namespace dlsim::models::layers
