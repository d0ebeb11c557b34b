// The rules that stay a weighted sum around x_i: plain gossip, self-centred clipping
// (He, Karimireddy & Jaggi 2022) and BALANCE (Fang et al. 2024).
#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"
#include "sim/robust/aggregation_rule.hpp"

namespace dlsim {

namespace {

// out = w_self x_i + sum_k w_k x_k, in float, in neighbour order. mean_rule and clipped_gossip
// both end here, so that clipped_gossip with no clip active is mean_rule bit for bit. Blocks of
// kBlock coordinates, each finished before the next, keep `out`'s block in L1 across the
// neighbours; per coordinate the operations and their order are those of one neighbour after
// another over the whole vector.
void weighted_sum(const Neighbourhood& in, double self_weight, std::span<const double> weights,
                  std::span<float> out) {
  constexpr size_t kBlock = 2048;
  const float ws = static_cast<float>(self_weight);
  for (size_t e0 = 0; e0 < out.size(); e0 += kBlock) {
    const size_t len = std::min(kBlock, out.size() - e0);
    float* o = out.data() + e0;
    const float* own = in.own.data() + e0;
    for (size_t e = 0; e < len; ++e) o[e] = ws * own[e];
    for (size_t k = 0; k < in.others.size(); ++k) {
      const float w = static_cast<float>(weights[k]);
      const float* x = in.others[k].data() + e0;
      for (size_t e = 0; e < len; ++e) o[e] += w * x[e];
    }
  }
}

// ||x_j - x_i|| for every neighbour j, in neighbour order.
void neighbour_distances(const Neighbourhood& in, std::span<double> dist) {
  for (size_t k = 0; k < in.others.size(); ++k)
    dist[k] = std::sqrt(squared_distance(in.others[k], in.own));
}

// He et al.'s code takes the second largest distance of the round (their experiments); the only
// one with a single neighbour. Reorders `dist`.
double second_largest(std::span<double> dist) {
  const size_t n = dist.size();
  if (n == 0) return 0.0;
  if (n == 1) return dist[0];
  std::nth_element(dist.begin(), dist.begin() + static_cast<std::ptrdiff_t>(n - 2), dist.end());
  return dist[n - 2];
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
  std::span<double> d = ws.row().first(in.others.size());
  neighbour_distances(in, d);
  return second_largest(d);
}

void clipped_gossip(const Neighbourhood& in, ClipRadius radius, double tau, std::span<float> out,
                    AggregationWorkspace& ws) {
  check_fits(in, out, ws);
  check_weights(in);
  // Each distance once: the adaptive radius picks from a copy of them.
  const size_t n = in.others.size();
  std::span<double> dist = ws.per_member2().first(n);
  neighbour_distances(in, dist);
  if (radius == ClipRadius::kAdaptive) {
    std::span<double> copy = ws.row().first(n);
    std::copy(dist.begin(), dist.end(), copy.begin());
    tau = second_largest(copy);
  } else {
    DLSIM_CHECK(tau > 0.0, "clipped_gossip: tau {} must be > 0", tau);
  }
  // x_i + sum_j W_ij s_j (x_j - x_i) with s_j = min(1, tau / ||x_j - x_i||) equals
  // (W_ii + sum_j W_ij (1 - s_j)) x_i + sum_j W_ij s_j x_j when the row sums to one. Where no
  // clip is active every s_j is exactly 1, the weights are W's own, and the result is mean_rule's.
  std::span<double> w = ws.per_member().first(n);
  double self_weight = in.self_weight;
  for (size_t k = 0; k < n; ++k) {
    const double s = dist[k] > tau ? tau / dist[k] : 1.0;  // clip(0, tau) = 0: s is irrelevant
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
