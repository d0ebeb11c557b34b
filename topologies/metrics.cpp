#include "topologies/metrics.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "sim/core/error.hpp"

namespace dlsim::topo {
namespace {

constexpr uint32_t kUnreached = std::numeric_limits<uint32_t>::max();

// Largest eccentricity among the up to 64 sources base..base+63, by a bit-parallel BFS: bit b of
// seen[v] says whether source base + b has reached v. One level costs O(n + edges) for all 64
// sources at once. Returns kUnreached when some source does not reach every node.
uint32_t batch_eccentricity(const Graph& g, uint32_t base, std::vector<uint64_t>& seen,
                            std::vector<uint64_t>& frontier, std::vector<uint64_t>& next) {
  const uint32_t n = g.node_count();
  const uint32_t count = std::min(64u, n - base);
  const uint64_t all = count == 64 ? ~uint64_t{0} : (uint64_t{1} << count) - 1;
  std::fill(seen.begin(), seen.end(), 0);
  std::fill(frontier.begin(), frontier.end(), 0);
  for (uint32_t b = 0; b < count; ++b) seen[base + b] = frontier[base + b] = uint64_t{1} << b;
  for (uint32_t level = 0;; ++level) {
    bool grew = false;
    for (uint32_t v = 0; v < n; ++v) {
      uint64_t reach = 0;
      for (uint32_t u : g.neighbors(v)) reach |= frontier[u];
      next[v] = reach & ~seen[v];
      grew |= next[v] != 0;
    }
    if (!grew) {
      for (uint32_t v = 0; v < n; ++v)
        if (seen[v] != all) return kUnreached;
      return level;
    }
    for (uint32_t v = 0; v < n; ++v) seen[v] |= next[v];
    std::swap(frontier, next);
  }
}

}  // namespace

uint32_t count_components(const Graph& graph) {
  const uint32_t n = graph.node_count();
  std::vector<uint32_t> dist(n, kUnreached), queue;
  uint32_t components = 0;
  for (uint32_t s = 0; s < n; ++s) {
    if (dist[s] != kUnreached) continue;
    ++components;
    queue.assign(1, s);
    dist[s] = 0;
    for (size_t head = 0; head < queue.size(); ++head)
      for (uint32_t v : graph.neighbors(queue[head]))
        if (dist[v] == kUnreached) {
          dist[v] = 0;
          queue.push_back(v);
        }
  }
  return components;
}

std::optional<uint32_t> diameter(const Graph& graph) {
  const uint32_t n = graph.node_count();
  std::vector<uint64_t> seen(n), frontier(n), next(n);
  uint32_t longest = 0;
  for (uint32_t base = 0; base < n; base += 64) {
    const uint32_t e = batch_eccentricity(graph, base, seen, frontier, next);
    if (e == kUnreached) return std::nullopt;
    longest = std::max(longest, e);
  }
  return longest;
}

double second_largest_eigenvalue_modulus(const MixingWeights& w) {
  if (w.node_count() < 2) return 0.0;
  // W is symmetric, so the self-adjoint solver applies; eigenvalues come sorted ascending and
  // the largest is 1 (W is stochastic).
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(dense_matrix(w), Eigen::EigenvaluesOnly);
  DLSIM_CHECK(solver.info() == Eigen::Success, "eigensolver failed on {} nodes", w.node_count());
  const Eigen::VectorXd& lambda = solver.eigenvalues();
  const Eigen::Index n = lambda.size();
  return std::max(std::abs(lambda(n - 2)), std::abs(lambda(0)));
}

double spectral_gap(const MixingWeights& w) { return 1.0 - second_largest_eigenvalue_modulus(w); }

GraphMetrics compute_metrics(const Graph& graph, MixingRule rule) {
  GraphMetrics m;
  m.nodes = graph.node_count();
  m.edges = graph.edges().size();
  m.mixing_rule = rule;
  if (m.nodes == 0) return m;
  m.degree_min = graph.degree(0);
  for (uint32_t i = 0; i < m.nodes; ++i) {
    m.degree_min = std::min(m.degree_min, graph.degree(i));
    m.degree_max = std::max(m.degree_max, graph.degree(i));
  }
  m.degree_mean = 2.0 * static_cast<double>(m.edges) / m.nodes;
  m.components = count_components(graph);
  if (m.components == 1 && m.nodes <= kMaxDiameterNodes) m.diameter = diameter(graph);
  if (m.nodes <= kMaxSpectralNodes) m.spectral_gap = spectral_gap(MixingWeights(graph, rule));
  if (!graph.edges().empty()) {
    m.latency_min = m.latency_max = graph.edges()[0].latency;
    m.bandwidth_min_bps = m.bandwidth_max_bps = graph.edges()[0].bandwidth_bps;
  }
  for (const Edge& e : graph.edges()) {
    m.latency_min = std::min(m.latency_min, e.latency);
    m.latency_max = std::max(m.latency_max, e.latency);
    m.bandwidth_min_bps = std::min(m.bandwidth_min_bps, e.bandwidth_bps);
    m.bandwidth_max_bps = std::max(m.bandwidth_max_bps, e.bandwidth_bps);
  }
  return m;
}

}  // namespace dlsim::topo
