#include "topologies/graph.hpp"

#include <algorithm>
#include <utility>

#include "sim/core/error.hpp"

namespace dlsim::topo {

Graph::Graph(uint32_t node_count, std::vector<Edge> edges)
    : node_count_(node_count), edges_(std::move(edges)) {
  for (Edge& e : edges_) {
    DLSIM_CHECK(e.u != e.v, "self-loop at node {}", e.u);
    DLSIM_CHECK(e.u < node_count_ && e.v < node_count_, "edge {}-{} outside {} nodes", e.u, e.v,
                node_count_);
    if (e.u > e.v) std::swap(e.u, e.v);
  }
  std::sort(edges_.begin(), edges_.end(),
            [](const Edge& a, const Edge& b) { return std::pair(a.u, a.v) < std::pair(b.u, b.v); });
  for (size_t i = 1; i < edges_.size(); ++i)
    DLSIM_CHECK(edges_[i - 1].u != edges_[i].u || edges_[i - 1].v != edges_[i].v,
                "duplicate edge {}-{}", edges_[i].u, edges_[i].v);

  offsets_.assign(node_count_ + 1, 0);
  for (const Edge& e : edges_) {
    ++offsets_[e.u + 1];
    ++offsets_[e.v + 1];
  }
  for (uint32_t i = 0; i < node_count_; ++i) offsets_[i + 1] += offsets_[i];
  neighbors_.resize(2 * edges_.size());
  edge_of_.resize(2 * edges_.size());
  std::vector<uint32_t> fill(offsets_.begin(), offsets_.end() - 1);
  for (uint32_t k = 0; k < edges_.size(); ++k) {
    const Edge& e = edges_[k];
    neighbors_[fill[e.u]] = e.v;
    edge_of_[fill[e.u]++] = k;
    neighbors_[fill[e.v]] = e.u;
    edge_of_[fill[e.v]++] = k;
  }
  // Edges are sorted by (u, v), so each list is filled with smaller neighbours (as v) first in
  // ascending u, then larger ones in ascending v: already ascending.
}

std::span<const uint32_t> Graph::neighbors(uint32_t node) const {
  DLSIM_CHECK(node < node_count_, "node {} outside {} nodes", node, node_count_);
  return std::span<const uint32_t>(neighbors_).subspan(offsets_[node],
                                                       offsets_[node + 1] - offsets_[node]);
}

int64_t Graph::edge_index(uint32_t a, uint32_t b) const {
  const auto list = neighbors(a);
  const auto it = std::lower_bound(list.begin(), list.end(), b);
  if (it == list.end() || *it != b) return -1;
  return edge_of_[offsets_[a] + static_cast<size_t>(it - list.begin())];
}

}  // namespace dlsim::topo
