// Structural and spectral metrics of a graph: degrees, components, diameter (hops), the spectral
// gap of its mixing matrix, and the range of its link latencies and bandwidths. The costly ones
// are skipped above a node limit and reported as not computed, never a hang.
#pragma once

#include <cstdint>
#include <optional>

#include "sim/core/time.hpp"
#include "topologies/graph.hpp"
#include "topologies/mixing.hpp"

namespace dlsim::topo {

/// Diameter: a BFS from every node (64 at a time, bit-parallel), O(n / 64 * diameter * (n +
/// edges)).
inline constexpr uint32_t kMaxDiameterNodes = 10000;
/// Spectral gap: a dense symmetric eigensolve, O(n^3).
inline constexpr uint32_t kMaxSpectralNodes = 2000;

struct GraphMetrics {
  uint32_t nodes = 0;
  uint64_t edges = 0;
  uint32_t degree_min = 0;
  uint32_t degree_max = 0;
  double degree_mean = 0;
  uint32_t components = 0;
  /// Hops; nullopt when the graph is disconnected or has more than kMaxDiameterNodes nodes.
  std::optional<uint32_t> diameter;
  /// 1 - |lambda_2| of W under `mixing_rule`; nullopt above kMaxSpectralNodes nodes.
  std::optional<double> spectral_gap;
  MixingRule mixing_rule = MixingRule::kMetropolisHastings;
  SimTime latency_min{}, latency_max{};
  uint64_t bandwidth_min_bps = 0, bandwidth_max_bps = 0;
};

/// Number of connected components (0 for an empty graph). O(n + edges).
uint32_t count_components(const Graph& graph);
/// Longest shortest path in hops; nullopt when disconnected. O(n / 64 * diameter * (n + edges)).
std::optional<uint32_t> diameter(const Graph& graph);
/// Second largest eigenvalue modulus of W: max |lambda| over all eigenvalues but the largest
/// (which is 1). Precondition: w.node_count() <= kMaxDenseNodes (O(n^3)).
double second_largest_eigenvalue_modulus(const MixingWeights& w);
/// 1 - second_largest_eigenvalue_modulus(w): how fast gossip averaging mixes.
double spectral_gap(const MixingWeights& w);

/// Every metric; the diameter and spectral gap respect the node limits above. Throws InputError
/// only for kUniform on an irregular graph.
GraphMetrics compute_metrics(const Graph& graph, MixingRule rule = MixingRule::kMetropolisHastings);

}  // namespace dlsim::topo
