// Mixing (gossip) weights W on a graph: symmetric and doubly stochastic, W_ij > 0 exactly on
// the edges and the diagonal. Stored sparsely, one row per node in the graph's neighbour order,
// so an averaging step x_i <- W_ii x_i + sum_j W_ij x_j costs O(degree) per node.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "topologies/graph.hpp"

namespace dlsim::topo {

enum class MixingRule {
  kMetropolisHastings,  // W_ij = 1 / (1 + max(deg i, deg j))
  kMaxDegree,           // W_ij = 1 / (1 + max_k deg k)
  kUniform,             // W_ij = 1 / (1 + deg i); regular graphs only
  // (W_MH + (1 - m) I) / (2 - m), m = the smallest self-weight of W_MH: He, Karimireddy and
  // Jaggi's normalised weights (every node keeps at least half of its own model)
  kLazyMetropolisHastings,
};

/// "metropolis_hastings", "max_degree", "uniform", "lazy_metropolis_hastings".
std::string_view to_string(MixingRule rule);
std::optional<MixingRule> mixing_rule_from_string(std::string_view name);

/// Sparse W: for node i, self_weight(i) = W_ii and weights(i)[k] = W_ij for
/// j = neighbors(i)[k], neighbours ascending (the Graph's order). Rows sum to 1.
class MixingWeights {
 public:
  MixingWeights() = default;
  /// Throws InputError for kUniform on a graph that is not regular (W would not be doubly
  /// stochastic), naming the degree range.
  MixingWeights(const Graph& graph, MixingRule rule);

  uint32_t node_count() const { return static_cast<uint32_t>(self_.size()); }
  double self_weight(uint32_t i) const { return self_[i]; }
  /// Neighbours of i, ascending; parallel to weights(i).
  std::span<const uint32_t> neighbors(uint32_t i) const;
  std::span<const double> weights(uint32_t i) const;
  /// W_ij (0 when j is neither i nor a neighbour). O(log degree).
  double weight(uint32_t i, uint32_t j) const;

 private:
  std::vector<double> self_;
  std::vector<uint32_t> offsets_;  // row i is [offsets_[i], offsets_[i + 1])
  std::vector<uint32_t> neighbors_;
  std::vector<double> weights_;
};

/// Largest n for which dense_matrix is allowed (8 * n^2 bytes: 128 MB at 4096).
inline constexpr uint32_t kMaxDenseNodes = 4096;
/// W as a dense n x n matrix, for analysis and tests. Precondition: n <= kMaxDenseNodes.
Eigen::MatrixXd dense_matrix(const MixingWeights& w);

}  // namespace dlsim::topo
