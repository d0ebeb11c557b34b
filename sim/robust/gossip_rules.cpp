// The rules that stay a weighted sum around x_i: plain gossip, self-centred clipping
// (He, Karimireddy & Jaggi 2022) and BALANCE (Fang et al. 2024).
#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"
#include "sim/robust/aggregation_rule.hpp"

namespace dlsim {

namespace {

// out = w_self x_i + sum_k w_k x_k, in float, in neighbour order. mean_rule and clipped_gossip
// both end here, so that clipped_gossip with no clip active is mean_rule bit for bit.
void weighted_sum(const Neighbourhood& in, double self_weight, std::span<const double> weights,
                  std::span<float> out) {
  const float ws = static_cast<float>(self_weight);
  for (size_t e = 0; e < out.size(); ++e) out[e] = ws * in.own[e];
  for (size_t k = 0; k < in.others.size(); ++k) {
    const float w = static_cast<float>(weights[k]);
    const std::span<const float> x = in.others[k];
    for (size_t e = 0; e < out.size(); ++e) out[e] += w * x[e];
  }
}

void check_weights(const Neighbourhood& in) {
  DLSIM_CHECK(in.weights.size() == in.others.size(), "{} weights for {} neighbours",
              in.weights.size(), in.others.size());
  double sum = in.self_weight;
  for (double w : in.weights) sum += w;
  DLSIM_CHECK(std::abs(sum - 1.0) <= 1e-6, "mixing weights sum to {}, not 1", sum);
}

}  // namespace

void mean_rule(const Neighbourhood& in, std::span<float> out, AggregationWorkspace& ws) {
  check_fits(in, out, ws);
  DLSIM_CHECK(in.weights.size() == in.others.size(), "{} weights for {} neighbours",
              in.weights.size(), in.others.size());
  weighted_sum(in, in.self_weight, in.weights, out);
}

double adaptive_clip_radius(const Neighbourhood& in, AggregationWorkspace& ws) {
  const size_t n = in.others.size();
  if (n == 0) return 0.0;
  std::span<double> d = ws.row().first(n);
  for (size_t k = 0; k < n; ++k) d[k] = std::sqrt(squared_distance(in.others[k], in.own));
  if (n == 1) return d[0];
  // He et al.'s code takes the second largest distance of the round (their experiments).
  std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(n - 2), d.end());
  return d[n - 2];
}

void clipped_gossip(const Neighbourhood& in, ClipRadius radius, double tau, std::span<float> out,
                    AggregationWorkspace& ws) {
  check_fits(in, out, ws);
  check_weights(in);
  if (radius == ClipRadius::kAdaptive)
    tau = adaptive_clip_radius(in, ws);
  else
    DLSIM_CHECK(tau > 0.0, "clipped_gossip: tau {} must be > 0", tau);
  // x_i + sum_j W_ij s_j (x_j - x_i) with s_j = min(1, tau / ||x_j - x_i||) equals
  // (W_ii + sum_j W_ij (1 - s_j)) x_i + sum_j W_ij s_j x_j when the row sums to one. Where no
  // clip is active every s_j is exactly 1, the weights are W's own, and the result is mean_rule's.
  std::span<double> w = ws.per_member().first(in.others.size());
  double self_weight = in.self_weight;
  for (size_t k = 0; k < in.others.size(); ++k) {
    const double dist = std::sqrt(squared_distance(in.others[k], in.own));
    const double s = dist > tau ? tau / dist : 1.0;  // clip(0, tau) = 0: s is then irrelevant
    w[k] = in.weights[k] * s;
    self_weight += in.weights[k] * (1.0 - s);
  }
  weighted_sum(in, self_weight, w, out);
}

void balance(const Neighbourhood& in, double gamma, double kappa, double alpha, double progress,
             std::span<float> out, AggregationWorkspace& ws) {
  check_fits(in, out, ws);
  // Fang et al. 2024 (BALANCE): the radius shrinks from gamma ||x_i|| as training goes on.
  double norm_sq = 0.0;
  for (float v : in.own) norm_sq += static_cast<double>(v) * static_cast<double>(v);
  const double radius = gamma * std::exp(-kappa * progress) * std::sqrt(norm_sq);
  std::span<double> accepted = ws.per_member().first(in.others.size());
  size_t count = 0;
  for (size_t k = 0; k < in.others.size(); ++k) {
    accepted[k] = std::sqrt(squared_distance(in.others[k], in.own)) <= radius ? 1.0 : 0.0;
    if (accepted[k] != 0.0) ++count;
  }
  if (count == 0) {  // all rejected: keep the own model
    std::copy(in.own.begin(), in.own.end(), out.begin());
    return;
  }
  for (size_t e = 0; e < out.size(); ++e) {
    double sum = 0.0;  // accepted neighbours in sender order
    for (size_t k = 0; k < in.others.size(); ++k)
      if (accepted[k] != 0.0) sum += static_cast<double>(in.others[k][e]);
    out[e] = static_cast<float>(alpha * static_cast<double>(in.own[e]) +
                                (1.0 - alpha) * (sum / static_cast<double>(count)));
  }
}

}  // namespace dlsim
