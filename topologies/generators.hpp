// Builds a Graph from a TopologySpec: the generators for every kind, the file readers for
// edge_list and dot, then latency and bandwidth per edge. Deterministic given the seed: the
// structure comes from RandomStream(seed, "topology", attempt), latency draws from
// (seed, "topology-latency", 0) and bandwidth draws from (seed, "topology-bandwidth", 0), so
// changing one never shifts another.
#pragma once

#include <cstdint>

#include "topologies/graph.hpp"
#include "topologies/topology_spec.hpp"

namespace dlsim::topo {

/// Random kinds that can come out disconnected (erdos_renyi, random_geometric, random_regular,
/// watts_strogatz) are redrawn from the next sub-stream (attempt 1, 2, ...) until connected;
/// after this many draws build_topology gives up with an InputError.
inline constexpr uint32_t kMaxConnectAttempts = 100;
/// No topology may have more edges than this (a guard against a typo building 10^12 edges).
inline constexpr uint64_t kMaxEdges = 10000000;

/// The graph `spec` describes, with nodes 0..n-1. Uses spec.seed when set, else `seed`.
/// Edge values: the default (constant or drawn in the range), then a file's attributes, then
/// spec.overrides. Throws InputError naming spec.source_file and source_pointer when the spec
/// cannot be built: parameters out of range, a file that does not read, a disconnected graph, an
/// override of an edge that does not exist.
Graph build_topology(const TopologySpec& spec, uint64_t seed);

}  // namespace dlsim::topo
