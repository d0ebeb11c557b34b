// Internal to topologies/: the structure generators behind build_topology. Each returns the
// undirected node pairs of one graph (any orientation and order, no self-loops, no duplicates);
// latency and bandwidth are assigned afterwards. Preconditions are checked by build_topology.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "sim/core/random.hpp"

namespace dlsim::topo::detail {

using NodePairs = std::vector<std::pair<uint32_t, uint32_t>>;

NodePairs ring_pairs(uint32_t n);                     // n >= 3
NodePairs line_pairs(uint32_t n);                     // n >= 2
NodePairs complete_pairs(uint32_t n);                 // n >= 2
NodePairs star_pairs(uint32_t n);                     // hub 0; n >= 2
NodePairs grid_pairs(uint32_t rows, uint32_t cols);   // node r * cols + c
NodePairs torus_pairs(uint32_t rows, uint32_t cols);  // rows, cols >= 3
NodePairs hypercube_pairs(uint32_t n);                // n a power of two >= 2
NodePairs exponential_pairs(uint32_t n);              // i -- i +- 2^k mod n; n >= 2
/// The distinct offsets {+-2^k mod n} of the exponential graph: its degree is their count.
std::vector<uint32_t> exponential_offsets(uint32_t n);

/// One draw of each random kind; nullopt when this draw failed (random_regular's pairing got
/// stuck) and the caller should move to the next sub-stream.
std::optional<NodePairs> random_regular_pairs(uint32_t n, uint32_t degree, RandomStream& rng);
NodePairs erdos_renyi_pairs(uint32_t n, double p, RandomStream& rng);
NodePairs watts_strogatz_pairs(uint32_t n, uint32_t k, double beta, RandomStream& rng);
NodePairs barabasi_albert_pairs(uint32_t n, uint32_t m, RandomStream& rng);
NodePairs random_geometric_pairs(uint32_t n, double radius, RandomStream& rng);

/// Number of connected components of the graph on n nodes with these pairs (union-find).
uint32_t count_components(uint32_t n, const NodePairs& pairs);

}  // namespace dlsim::topo::detail
