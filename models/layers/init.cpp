#include "models/layers/init.hpp"

#include <cmath>

namespace dlsim::models::layers {

void fill_weights(float* p, Index count, Index fan_in, Index fan_out, Init init,
                  RandomStream& rng) {
  // He et al. 2015 (eq. 10) keep the forward variance through ReLUs; Glorot & Bengio 2010 balance
  // forward and backward variance for symmetric activations.
  const double denominator =
      init == Init::kHeNormal ? static_cast<double>(fan_in) : static_cast<double>(fan_in + fan_out);
  const double stddev = std::sqrt(2.0 / denominator);
  for (Index i = 0; i < count; ++i) p[i] = static_cast<float>(stddev * rng.normal());
}

}  // namespace dlsim::models::layers
