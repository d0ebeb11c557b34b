#include "topologies/mixing.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/error.hpp"

namespace dlsim::topo {

std::string_view to_string(MixingRule rule) {
  switch (rule) {
    case MixingRule::kMetropolisHastings:
      return "metropolis_hastings";
    case MixingRule::kMaxDegree:
      return "max_degree";
    case MixingRule::kUniform:
      return "uniform";
    case MixingRule::kLazyMetropolisHastings:
      return "lazy_metropolis_hastings";
  }
  return "?";
}

std::optional<MixingRule> mixing_rule_from_string(std::string_view name) {
  for (MixingRule r : {MixingRule::kMetropolisHastings, MixingRule::kMaxDegree,
                       MixingRule::kUniform, MixingRule::kLazyMetropolisHastings})
    if (to_string(r) == name) return r;
  return std::nullopt;
}

MixingWeights::MixingWeights(const Graph& graph, MixingRule rule) {
  const uint32_t n = graph.node_count();
  uint32_t min_deg = n == 0 ? 0 : graph.degree(0), max_deg = 0;
  for (uint32_t i = 0; i < n; ++i) {
    min_deg = std::min(min_deg, graph.degree(i));
    max_deg = std::max(max_deg, graph.degree(i));
  }
  if (rule == MixingRule::kUniform && min_deg != max_deg)
    throw InputError(
        fmt::format("uniform mixing weights 1/(deg+1) need a regular graph (they are "
                    "not doubly stochastic otherwise); degrees range over {}..{}",
                    min_deg, max_deg));
  self_.resize(n);
  offsets_.assign(1, 0);
  for (uint32_t i = 0; i < n; ++i) {
    double sum = 0;
    for (uint32_t j : graph.neighbors(i)) {
      // Boyd, Diaconis and Xiao (2004): these rules give symmetric W with rows summing to 1.
      const uint32_t d = rule == MixingRule::kMaxDegree ? max_deg
                         : rule == MixingRule::kUniform ? graph.degree(i)
                                                        : std::max(graph.degree(i), graph.degree(j));
      const double w = 1.0 / (1.0 + d);
      neighbors_.push_back(j);
      weights_.push_back(w);
      sum += w;
    }
    self_[i] = 1.0 - sum;
    offsets_.push_back(static_cast<uint32_t>(neighbors_.size()));
  }
  if (rule == MixingRule::kLazyMetropolisHastings && n > 0) {
    // He, Karimireddy and Jaggi's code (MaliciousRing, normalize): every row gains 1 - m on its
    // diagonal and is divided by 2 - m, so the node with the smallest self-weight keeps half of
    // its own model and every edge weighs 1 / (2 - m) of Metropolis-Hastings'.
    const double m = *std::min_element(self_.begin(), self_.end());
    for (double& w : weights_) w /= 2.0 - m;
    for (double& s : self_) s = (s + 1.0 - m) / (2.0 - m);
  }
}

std::span<const uint32_t> MixingWeights::neighbors(uint32_t i) const {
  DLSIM_CHECK(i < node_count(), "node {} outside {} nodes", i, node_count());
  return std::span<const uint32_t>(neighbors_).subspan(offsets_[i], offsets_[i + 1] - offsets_[i]);
}

std::span<const double> MixingWeights::weights(uint32_t i) const {
  DLSIM_CHECK(i < node_count(), "node {} outside {} nodes", i, node_count());
  return std::span<const double>(weights_).subspan(offsets_[i], offsets_[i + 1] - offsets_[i]);
}

double MixingWeights::weight(uint32_t i, uint32_t j) const {
  if (i == j) return self_weight(i);
  const auto list = neighbors(i);
  const auto it = std::lower_bound(list.begin(), list.end(), j);
  if (it == list.end() || *it != j) return 0.0;
  return weights(i)[static_cast<size_t>(it - list.begin())];
}

Eigen::MatrixXd dense_matrix(const MixingWeights& w) {
  const uint32_t n = w.node_count();
  DLSIM_CHECK(n <= kMaxDenseNodes, "dense mixing matrix of {} nodes (limit {})", n, kMaxDenseNodes);
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(n, n);
  for (uint32_t i = 0; i < n; ++i) {
    m(i, i) = w.self_weight(i);
    const auto nb = w.neighbors(i);
    const auto wt = w.weights(i);
    for (size_t k = 0; k < nb.size(); ++k) m(i, nb[k]) = wt[k];
  }
  return m;
}

}  // namespace dlsim::topo
