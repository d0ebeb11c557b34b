#include "models/layers/init.hpp"

#include <algorithm>
#include <cmath>

namespace dlsim::models::layers {

namespace {

// torch.nn.init.kaiming_uniform_(w, a=sqrt(5)): gain sqrt(2/(1+a^2)) = sqrt(1/3), bound
// gain * sqrt(3/fan_in) = 1/sqrt(fan_in); Linear and Conv2d draw their biases in the same range.
void fill_uniform(float* p, Index count, Index fan_in, RandomStream& rng) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
  for (Index i = 0; i < count; ++i) p[i] = static_cast<float>(rng.uniform(-bound, bound));
}

}  // namespace

void fill_weights(float* p, Index count, Index fan_in, Index fan_out, Init init,
                  RandomStream& rng) {
  if (init == Init::kPytorchUniform) return fill_uniform(p, count, fan_in, rng);
  // He et al. 2015 (eq. 10) keep the forward variance through ReLUs; Glorot & Bengio 2010 balance
  // forward and backward variance for symmetric activations.
  const double denominator =
      init == Init::kHeNormal ? static_cast<double>(fan_in) : static_cast<double>(fan_in + fan_out);
  const double stddev = std::sqrt(2.0 / denominator);
  for (Index i = 0; i < count; ++i) p[i] = static_cast<float>(stddev * rng.normal());
}

void fill_biases(float* p, Index count, Index fan_in, Init init, RandomStream& rng) {
  if (init == Init::kPytorchUniform) return fill_uniform(p, count, fan_in, rng);
  std::fill_n(p, count, 0.0f);
}

}  // namespace dlsim::models::layers
