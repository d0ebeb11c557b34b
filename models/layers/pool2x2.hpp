// The common 2x2, stride-2 max pooling on one sample, vectorised: windows do not overlap, so the
// backward pass writes every input exactly once and needs no zeroing or scatter.
#pragma once

#include <cstdint>

#include "models/layers/layer.hpp"

namespace dlsim::models::layers {

/// x: (C, H, W) -> y: (C, H/2, W/2). code[o] in 0..3 is the window element (row-major: 0 top
/// left, 1 top right, 2 bottom left, 3 bottom right) that holds the first maximum.
void pool2x2_forward(const float* x, Shape in, float* y, int32_t* code);

/// dx: (C, H, W) = dy routed to the recorded elements; every other input (including a last odd
/// row or column) gets 0.
void pool2x2_backward(const float* dy, const int32_t* code, Shape in, float* dx);

}  // namespace dlsim::models::layers
