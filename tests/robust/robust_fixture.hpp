// Builds a Neighbourhood from small literal vectors for the robust rule tests.
#pragma once

#include <span>
#include <vector>

#include "sim/robust/aggregation_rule.hpp"

namespace dlsim::testing {

/// Owns the vectors a Neighbourhood points into: x_i, the neighbours' x_j in order, W.
struct Hood {
  std::vector<float> own;
  std::vector<std::vector<float>> others;
  double self_weight = 1.0;
  std::vector<double> weights;
  std::vector<std::span<const float>> views;
  AggregationWorkspace ws;
  std::vector<float> out;

  Hood(std::vector<float> x, std::vector<std::vector<float>> xs, double w_self = 1.0,
       std::vector<double> w = {})
      : own(std::move(x)),
        others(std::move(xs)),
        self_weight(w_self),
        weights(std::move(w)),
        ws(own.size(), others.size()),
        out(own.size(), -999.0f) {
    for (const auto& v : others) views.emplace_back(v);
    if (weights.empty()) weights.assign(others.size(), 0.0);
  }

  Neighbourhood in() const { return Neighbourhood{own, views, self_weight, weights}; }
};

}  // namespace dlsim::testing
