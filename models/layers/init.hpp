// Initial weights: He normal (ReLU) or Glorot normal (tanh and linear outputs), or PyTorch's
// default uniform; drawn in memory order from the given stream (weights, then biases) so that the
// same stream gives the same parameters.
#pragma once

#include "models/layers/layer.hpp"

namespace dlsim::models::layers {

/// p[0, count) ~ N(0, s^2) with s = sqrt(2 / fan_in) (He) or sqrt(2 / (fan_in + fan_out))
/// (Glorot), or ~ U(-b, b) with b = 1/sqrt(fan_in) (PyTorch).
void fill_weights(float* p, Index count, Index fan_in, Index fan_out, Init init, RandomStream& rng);
/// Biases p[0, count): 0 for the normal rules (no draw), ~ U(-b, b) with b = 1/sqrt(fan_in) for
/// PyTorch's.
void fill_biases(float* p, Index count, Index fan_in, Init init, RandomStream& rng);

}  // namespace dlsim::models::layers
