// Communication graphs that change every iteration (topologies/README.md, "Dynamic topologies"):
// what a dynamic topology is as users write it, and the draws that make each iteration's graph.
// The agents' physical network (the underlay) does not change; these graphs say only who sends
// to whom. The Overlay (sim/agents/overlay.hpp) turns them into senders, receivers and weights.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "sim/core/random.hpp"
#include "sim/core/time.hpp"
#include "topologies/graph.hpp"
#include "topologies/topology_spec.hpp"

namespace dlsim::topo {

enum class DynamicKind {
  kOnePeerExponential,  // i sends to i + 2^(k mod ceil(log2 n)) mod n (Ying et al. 2021)
  kRandomMatching,      // a random maximal matching each iteration (over a base graph or all pairs)
  kEpidemic,            // every agent pushes to s others drawn uniformly (de Vos et al. 2023)
  kSequence,            // static graphs taking over one after another
};

/// "one_peer_exponential", "random_matching", "epidemic", "sequence".
std::string_view to_string(DynamicKind kind);

struct DynamicSpec {
  DynamicKind kind = DynamicKind::kOnePeerExponential;
  uint32_t s = 0;                     ///< epidemic: targets per agent and iteration, 1..n-1
  std::vector<TopologySpec> graphs;   ///< random_matching: the base graph (empty: all pairs);
                                      ///< sequence: the graphs in order
  int64_t every = 0;                  ///< sequence: iterations per graph, cycling (0: use `at`)
  std::vector<SimTime> at;            ///< sequence: when each graph takes over (at[0] = 0)
};

/// ceil(log2 n): the period of the one-peer exponential graph. Precondition: n >= 2.
uint32_t one_peer_period(uint32_t n);
/// The agent i sends to at iteration k in the one-peer exponential graph.
uint32_t one_peer_target(uint32_t n, int64_t k, uint32_t i);

/// A random maximal matching: partner[i] is i's partner, or i itself when unmatched. Over all
/// pairs (base = null) agents are shuffled and paired in order (perfect for even n, one left out
/// for odd n); over a base graph its edges are shuffled and taken greedily while both ends are
/// free. Draws come from `random`; `workspace` is reused (no allocation once it has grown).
/// partner.size() = n.
void random_matching(const Graph* base, RandomStream& random, std::vector<uint32_t>& workspace,
                     std::span<uint32_t> partner);

/// s distinct agents other than i, uniform over all such sets (Floyd's sampling), ascending.
/// Preconditions: targets.size() = s <= n - 1, i < n.
void epidemic_targets(uint32_t n, uint32_t i, RandomStream& random, std::span<uint32_t> targets);

}  // namespace dlsim::topo
