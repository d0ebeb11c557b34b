// Routes between nodes that are not neighbours: shortest-latency paths (Dijkstra, stopped once
// the source is settled), computed lazily per (source, destination) pair and cached as a list
// of directed link ids.
// Memory grows with the pairs actually routed times their path length, never with n x n tables:
// a ring all-reduce over 10^4 agents stores 10^4 short paths. Direct neighbours need no route.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "topologies/graph.hpp"

namespace dlsim {

/// Directed link ids: the undirected edge k = {u, v} (u < v) of the graph carries link 2k from
/// u to v and link 2k + 1 from v to u.
constexpr uint32_t kNoLink = 0xffffffffu;
/// The directed link from -> to, or kNoLink when the two are not neighbours.
uint32_t directed_link(const topo::Graph& graph, uint32_t from, uint32_t to);

class Router {
 public:
  /// Keeps a reference: `graph` must outlive the router.
  explicit Router(const topo::Graph& graph);
  ~Router();
  Router(Router&&) noexcept;
  Router& operator=(Router&&) = delete;

  /// The route from -> to (from != to, both reachable from each other, else a check fails), as
  /// an index into the route store: hop(i), hop(i + 1), ... are its links in order, ending with
  /// kNoLink. The path minimises total latency, then the number of hops; remaining ties go to
  /// the lowest-numbered next node at each step. Computed on the first request, then cached.
  /// Indices stay valid for the router's lifetime.
  uint32_t route(uint32_t from, uint32_t to);
  /// The link at position `index` of the route store (kNoLink after a route's last link).
  uint32_t hop(uint32_t index) const { return hops_[index]; }
  /// Index of an empty route (just kNoLink): a message to a neighbour sits there after its link.
  static constexpr uint32_t kEmptyRoute = 0;
  /// Number of routes computed so far (cache misses).
  size_t routes_computed() const { return routes_.size(); }

 private:
  struct Search;  // reusable Dijkstra state, built on the first route
  std::vector<uint32_t> shortest_path(uint32_t from, uint32_t to);

  const topo::Graph* graph_;
  std::unique_ptr<Search> search_;
  std::unordered_map<uint64_t, uint32_t> routes_;  // (from << 32 | to) -> index into hops_
  std::vector<uint32_t> hops_;                     // concatenated routes, each ended by kNoLink
};

}  // namespace dlsim
