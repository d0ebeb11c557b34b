// Routes between nodes that are not neighbours: shortest-latency paths (Dijkstra, stopped once
// the source is settled), computed lazily per (source, destination) pair and cached as a list
// of directed link ids.
// Memory grows with the pairs actually routed times their path length, never with n x n tables:
// a ring all-reduce over 10^4 agents stores 10^4 short paths. Direct neighbours need no route.
// With link failures, routes avoid the links that are down when another path exists; the
// network forgets the cached routes whenever a link changes state (messages already on their
// way keep theirs) and compacts the store now and then (replace_store).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "sim/core/state_archive.hpp"
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
  /// From now on, routes avoid the edges marked 1 in `down_edges` (kept by reference, indexed
  /// by edge; the caller keeps it alive) when another path exists, else take the shortest path.
  void avoid(const std::vector<uint8_t>& down_edges) { down_edges_ = &down_edges; }
  /// Adds a route that is not cached (the rest of a message's route, from another rank's
  /// router) and returns its index; it stays in the store until the next replace_store().
  uint32_t add_route(std::span<const uint32_t> links);
  /// Drops the cached routes (after a link changed state); the store keeps their hops, which
  /// messages in flight still read.
  void forget_routes() { routes_.clear(); }
  /// Replaces the store (it must start with the empty route) when no route is cached; the
  /// caller has moved the indices it holds into the new one.
  void replace_store(std::vector<uint32_t> hops);
  /// The link at position `index` of the route store (kNoLink after a route's last link).
  uint32_t hop(uint32_t index) const { return hops_[index]; }
  /// Index of an empty route (just kNoLink): a message to a neighbour sits there after its link.
  static constexpr uint32_t kEmptyRoute = 0;
  /// Number of routes computed so far (cache misses).
  size_t routes_computed() const { return routes_.size(); }
  /// Entries in the route store (valid indices for hop()).
  size_t store_size() const { return hops_.size(); }
  /// The cached routes, for checkpoints: a message in flight holds an index into the route
  /// store, so a resumed run needs the same store, not one recomputed in another order.
  void archive(StateArchive& ar);

 private:
  struct Search;  // reusable Dijkstra state, built on the first route
  std::vector<uint32_t> shortest_path(uint32_t from, uint32_t to);
  bool search(uint32_t from, uint32_t to, const std::vector<uint8_t>* down_edges);

  const topo::Graph* graph_;
  const std::vector<uint8_t>* down_edges_ = nullptr;
  std::unique_ptr<Search> search_;
  std::unordered_map<uint64_t, uint32_t> routes_;  // (from << 32 | to) -> index into hops_
  std::vector<uint32_t> hops_;                     // concatenated routes, each ended by kNoLink
};

}  // namespace dlsim
