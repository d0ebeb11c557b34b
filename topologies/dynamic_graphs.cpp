#include "topologies/dynamic_graphs.hpp"

#include <algorithm>
#include <bit>

#include "sim/core/error.hpp"

namespace dlsim::topo {

std::string_view to_string(DynamicKind kind) {
  switch (kind) {
    case DynamicKind::kOnePeerExponential:
      return "one_peer_exponential";
    case DynamicKind::kRandomMatching:
      return "random_matching";
    case DynamicKind::kEpidemic:
      return "epidemic";
    case DynamicKind::kSequence:
      return "sequence";
  }
  return "?";
}

uint32_t one_peer_period(uint32_t n) {
  DLSIM_CHECK(n >= 2, "a one-peer exponential graph of {} nodes", n);
  return static_cast<uint32_t>(std::bit_width(n - 1));  // ceil(log2 n)
}

uint32_t one_peer_target(uint32_t n, int64_t k, uint32_t i) {
  const auto hop = static_cast<uint64_t>(1) << (static_cast<uint64_t>(k) % one_peer_period(n));
  return static_cast<uint32_t>((i + hop) % n);
}

void random_matching(const Graph* base, RandomStream& random, std::vector<uint32_t>& workspace,
                     std::span<uint32_t> partner) {
  const auto n = static_cast<uint32_t>(partner.size());
  for (uint32_t i = 0; i < n; ++i) partner[i] = i;
  if (!base) {
    // A uniformly shuffled order paired off in twos is a uniform perfect matching (even n).
    std::vector<uint32_t>& order = workspace;
    order.resize(n);
    for (uint32_t i = 0; i < n; ++i) order[i] = i;
    random.shuffle(std::span<uint32_t>(order));
    for (uint32_t p = 0; p + 1 < n; p += 2) {
      partner[order[p]] = order[p + 1];
      partner[order[p + 1]] = order[p];
    }
    return;
  }
  DLSIM_CHECK(base->node_count() == n, "a base graph of {} nodes for {} agents",
              base->node_count(), n);
  std::vector<uint32_t>& edges = workspace;
  edges.resize(base->edges().size());
  for (uint32_t e = 0; e < edges.size(); ++e) edges[e] = e;
  random.shuffle(std::span<uint32_t>(edges));
  for (uint32_t e : edges) {
    const Edge& edge = base->edges()[e];
    if (partner[edge.u] != edge.u || partner[edge.v] != edge.v) continue;
    partner[edge.u] = edge.v;
    partner[edge.v] = edge.u;
  }
}

void epidemic_targets(uint32_t n, uint32_t i, RandomStream& random, std::span<uint32_t> targets) {
  const auto s = static_cast<uint32_t>(targets.size());
  DLSIM_CHECK(s + 1 <= n && i < n, "{} targets of {} among {} agents", s, i, n);
  // Floyd's algorithm: a uniform s-subset of the n - 1 others {0..n-2}, mapped past i.
  uint32_t chosen = 0;
  for (uint32_t j = n - 1 - s; j < n - 1; ++j) {
    const auto t = static_cast<uint32_t>(random.below(j + 1));
    const bool taken = std::find(targets.begin(), targets.begin() + chosen, t) !=
                       targets.begin() + chosen;
    targets[chosen++] = taken ? j : t;
  }
  for (uint32_t& t : targets) t += t >= i ? 1 : 0;
  std::sort(targets.begin(), targets.end());
}

}  // namespace dlsim::topo
