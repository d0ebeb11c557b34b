// The network graph as plain data: n nodes, undirected edges with their latency and bandwidth.
// Generators and readers produce it; the network, the mixing weights and the agents read it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/core/time.hpp"

namespace dlsim::topo {

/// An undirected edge u < v; each direction becomes one link with these properties.
struct Edge {
  uint32_t u = 0;
  uint32_t v = 0;
  SimTime latency{};
  uint64_t bandwidth_bps = 0;
};

/// Nodes 0..n-1 and a set of undirected edges, without self-loops or duplicates. Neighbour
/// lists are sorted ascending, so every iteration over them is deterministic.
class Graph {
 public:
  Graph() = default;
  /// Takes the edges in any order and orientation; normalises to u < v, sorted by (u, v).
  /// Precondition: no self-loops, no duplicates, endpoints < node_count (checked).
  Graph(uint32_t node_count, std::vector<Edge> edges);

  uint32_t node_count() const { return node_count_; }
  std::span<const Edge> edges() const { return edges_; }
  /// Neighbours of `node`, ascending.
  std::span<const uint32_t> neighbors(uint32_t node) const;
  uint32_t degree(uint32_t node) const { return static_cast<uint32_t>(neighbors(node).size()); }
  /// Index into edges() of the edge {a, b}, or -1 when there is none.
  int64_t edge_index(uint32_t a, uint32_t b) const;
  bool has_edge(uint32_t a, uint32_t b) const { return edge_index(a, b) >= 0; }

 private:
  uint32_t node_count_ = 0;
  std::vector<Edge> edges_;
  std::vector<uint32_t> offsets_;    // CSR: neighbours of i are neighbors_[offsets_[i]..[i+1])
  std::vector<uint32_t> neighbors_;
  std::vector<uint32_t> edge_of_;    // parallel to neighbors_: index into edges_
};

}  // namespace dlsim::topo
