// Finite-difference checks of a layer's backward pass, shared by the layer tests.
// L(p, x) = sum(r .* y(p, x)) with a fixed random r, so dL/dy = r. Central differences with step
// h in float; L is summed in double. For the piecewise-linear layers (dense, conv, relu, pool,
// dropout) central differences are exact up to rounding away from kinks, which the inputs avoid.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <functional>

#include "models/layers/layer.hpp"
#include "sim/core/random.hpp"

namespace dlsim::models::testing {

using layers::Index;

struct GradientErrors {
  double params = 0.0;  // max over parameters of |numeric - analytic| / (1e-2 + |analytic|)
  double inputs = 0.0;  // same over input entries
};

inline Eigen::MatrixXf uniform_matrix(Index rows, Index cols, RandomStream& rng, double lo,
                                      double hi) {
  Eigen::MatrixXf m(rows, cols);
  for (Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(rng.uniform(lo, hi));
  return m;
}

/// Compares backward with central differences. x: (in, n). `corrupt` may alter the analytic
/// parameter gradient before the comparison (to show that the check fails on a wrong gradient).
inline GradientErrors check_layer(layers::Layer& layer, Eigen::MatrixXf x, RandomStream& rng,
                                  float h = 1e-2f,
                                  const std::function<void(Eigen::VectorXf&)>& corrupt = {}) {
  const Index n = x.cols();
  const Index out = layer.output_shape().size();
  layer.reserve(n, layers::Use::kTrainingWithInputGradient);
  Eigen::VectorXf p(layer.parameter_count());
  for (Index i = 0; i < p.size(); ++i) p[i] = static_cast<float>(rng.uniform(-1.0, 1.0));
  const Eigen::MatrixXf r = uniform_matrix(out, n, rng, -1.0, 1.0);
  const RandomStream mask_rng = rng;  // every forward draws the same dropout mask
  Eigen::MatrixXf y(out, n);
  auto loss = [&](const Eigen::VectorXf& pp, const Eigen::MatrixXf& xx) {
    RandomStream stream = mask_rng;
    layer.forward(pp.data(), layers::ConstAct(xx.data(), xx.rows(), n),
                  layers::Act(y.data(), out, n), Phase::kTrain, &stream);
    return (r.cast<double>().array() * y.cast<double>().array()).sum();
  };
  loss(p, x);
  Eigen::MatrixXf dx(x.rows(), n);
  layers::Act dx_map(dx.data(), dx.rows(), n);
  Eigen::VectorXf dp = Eigen::VectorXf::Constant(p.size(), 123.0f);  // overwritten
  layer.backward(p.data(), layers::ConstAct(x.data(), x.rows(), n),
                 layers::ConstAct(y.data(), out, n), layers::ConstAct(r.data(), out, n), &dx_map,
                 {dp.data(), 1.0f, layers::Accumulate::kNo});
  if (corrupt) corrupt(dp);
  GradientErrors e;
  // Relative error, with a floor of 1e-2 under |analytic|: float rounding in L puts ~1e-5 of
  // absolute noise on every numeric derivative, which would swamp tiny gradients.
  auto error = [](double numeric, double analytic) {
    return std::abs(numeric - analytic) / (1e-2 + std::abs(analytic));
  };
  for (Index i = 0; i < p.size(); ++i) {
    Eigen::VectorXf q = p;
    q[i] = p[i] + h;
    const double up = loss(q, x);
    q[i] = p[i] - h;
    const double down = loss(q, x);
    e.params = std::max(e.params, error((up - down) / (2.0 * h), dp[i]));
  }
  for (Index i = 0; i < x.size(); ++i) {
    Eigen::MatrixXf xs = x;
    xs.data()[i] = x.data()[i] + h;
    const double up = loss(p, xs);
    xs.data()[i] = x.data()[i] - h;
    const double down = loss(p, xs);
    e.inputs = std::max(e.inputs, error((up - down) / (2.0 * h), dx.data()[i]));
  }
  return e;
}

/// Inputs whose entries are at least `gap` away from 0 and from each other within a column: no
/// ReLU kink or max-pool tie lies within a finite-difference step.
inline Eigen::MatrixXf spread_matrix(Index rows, Index cols, RandomStream& rng, float gap) {
  Eigen::MatrixXf m(rows, cols);
  for (Index c = 0; c < cols; ++c) {
    for (Index i = 0; i < rows; ++i) m(i, c) = gap * static_cast<float>(i - rows / 2) + gap * 0.5f;
    std::span<float> column(m.col(c).data(), static_cast<size_t>(rows));
    rng.shuffle(column);
  }
  return m;
}

}  // namespace dlsim::models::testing
