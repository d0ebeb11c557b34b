// The input layer's two products with a SparseInput x = background + d, W (out x in) column-major:
//   forward   y = W x + b = W d + (b + background * W 1)
//   gradient  dW = dy x^T = dy d^T + background * (dy 1) 1^T
// Work is proportional to d's entries, plus one pass over W each (the forward's for the row sum
// W 1). The forward reads each column of W once per group of samples that uses it. Equal to the
// dense products up to rounding (the sums run in another order), not bit for bit.
#pragma once

#include "models/layers/layer.hpp"
#include "models/layers/sparse_input.hpp"

namespace dlsim::models::layers {

/// y (out, x.samples(), leading dimension out) = W x + b. base: scratch of `out` floats.
void sparse_forward(const float* w, const float* b, Index out, const SparseInput& x, float* base,
                    float* y);

/// grad (out x in, column-major) = scale * dy x^T, or has it added (Accumulate::kYes; grad may
/// be W itself: W is not read otherwise). dy: (out, x.samples()); dy_sum: dy's column sum
/// (out); base: scratch of `out` floats.
void sparse_weight_gradient(const float* dy, const float* dy_sum, Index out, const SparseInput& x,
                            float scale, Accumulate mode, float* base, float* grad);

}  // namespace dlsim::models::layers
