#include "models/layers/dropout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"

namespace dlsim::models::layers {

Dropout::Dropout(Shape in, double rate) : Layer(in, in), rate_(rate) {}

std::string Dropout::describe() const { return fmt::format("dropout {}", rate_); }

void Dropout::reserve(Index max_batch, Use use) {
  // Evaluation passes the input through: the mask is for training only.
  if (use != Use::kEvaluation && mask_.cols() < max_batch)
    mask_.resize(input_shape().size(), max_batch);
}

void Dropout::forward(const float*, ConstAct x, Act y, Phase phase, RandomStream* rng) {
  if (is_identity(phase)) {
    y = x;
    return;
  }
  DLSIM_CHECK(rng != nullptr, "dropout needs a random stream in training");
  DLSIM_CHECK(mask_.cols() >= x.cols(), "dropout on {} samples, reserved for training on {}",
              x.cols(), mask_.cols());
  // Four 16-bit uniforms per draw (the draws are the cost here: Elastic Gossip's MLP masks 120k
  // features per step). A feature is kept when u < t = round((1 - rate) * 2^16) and scaled by
  // 2^16 / t, the exact inverse of the keep probability used, so E[mask] = 1 exactly.
  const auto threshold =
      static_cast<uint32_t>(std::clamp(std::lround((1.0 - rate_) * 65536.0), 1L, 65536L));
  const float kept = static_cast<float>(65536.0 / threshold);
  float* m = mask_.data();
  const Index count = x.size();
  for (Index i = 0; i < count; i += 4) {
    const uint64_t bits = rng->next_u64();
    for (Index lane = 0; lane < 4 && i + lane < count; ++lane)
      m[i + lane] = ((bits >> (16 * lane)) & 0xffffu) < threshold ? kept : 0.0f;
  }
  y.array() = x.array() * Eigen::Map<const Eigen::ArrayXXf>(m, x.rows(), x.cols());
}

void Dropout::backward(const float*, ConstAct, ConstAct, ConstAct dy, Act* dx, const GradientOut&) {
  if (dx == nullptr) return;
  dx->array() = dy.array() * Eigen::Map<const Eigen::ArrayXXf>(mask_.data(), dy.rows(), dy.cols());
}

}  // namespace dlsim::models::layers
