// The gossip averaging step that D-PSGD and EventGraD share: x_i <- W_ii x_i + sum_j W_ij c_j
// over the copies c_j an agent holds of its sources (a copy not yet received counts as x_i, so
// the row still sums to one), and the two orders in which the literature puts it beside the
// local step (docs/algorithms.md, "Combine-then-adapt and adapt-then-combine").
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>

#include "sim/agents/learner.hpp"
#include "sim/robust/aggregation_rule.hpp"

namespace dlsim {

/// Where the mixing stands relative to the local step within one iteration.
enum class MixingOrder {
  /// x <- W x - step(g(x)): mix the models sent before the step, subtract the gradient taken
  /// at the pre-mixing x (Lian et al. 2017; dlsim's default).
  kCombineThenAdapt,
  /// x <- W (x - step(g(x))): take the local step, send the result, mix what was sent
  /// (CHOCO-SGD's D-PSGD baseline, Epidemic Learning, decentralizepy). Sync mode only.
  kAdaptThenCombine,
};

/// held: agent i's copies, parallel to `weights` (null: none yet); workspace: any vector, reused.
inline void mix_with_copies(double self_weight, std::span<const double> weights,
                            std::span<const Snapshot> held, ParamVector& x,
                            ParamVector& workspace) {
  workspace = static_cast<float>(self_weight) * x;
  for (size_t k = 0; k < held.size(); ++k)  // source order: float sums are order-sensitive
    workspace += static_cast<float>(weights[k]) * (held[k] ? *held[k] : x);
  x.swap(workspace);
}

/// mix_with_copies with a robust rule in place of the weighted mean (docs/algorithms.md, "Robust
/// aggregation"): the rule over x and the copies (a missing one counts as x), written to
/// `mixed` and swapped into x. progress = iteration / iterations (balance; 0 without a length).
/// Allocates nothing: the views are the workspace's.
inline void aggregate_with_copies(const AggregationSpec& rule, double self_weight,
                                  std::span<const double> weights, std::span<const Snapshot> held,
                                  int64_t iteration, int64_t iterations, ParamVector& x,
                                  ParamVector& mixed, AggregationWorkspace& ws) {
  const std::span<std::span<const float>> views = ws.views(held.size());
  for (size_t k = 0; k < held.size(); ++k) {
    const ParamVector& copy = held[k] ? *held[k] : x;
    views[k] = std::span<const float>(copy.data(), static_cast<size_t>(copy.size()));
  }
  const double progress =
      iterations > 0
          ? std::min(1.0, static_cast<double>(iteration) / static_cast<double>(iterations))
          : 0.0;
  const Neighbourhood in{std::span<const float>(x.data(), static_cast<size_t>(x.size())), views,
                         self_weight, weights};
  aggregate(rule, in, progress, std::span<float>(mixed.data(), static_cast<size_t>(mixed.size())),
            ws);
  x.swap(mixed);
}

}  // namespace dlsim
