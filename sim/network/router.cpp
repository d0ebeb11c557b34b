#include "sim/network/router.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <utility>

#include "sim/core/error.hpp"

namespace dlsim {
namespace {

// Path length compared lexicographically: total latency, then hops. The hop count makes every
// edge strictly positive, so zero-latency links cannot produce ties that loop.
using Distance = std::pair<int64_t, uint32_t>;
constexpr Distance kUnreached{std::numeric_limits<int64_t>::max(),
                              std::numeric_limits<uint32_t>::max()};

Distance add_hop(const Distance& d, int64_t latency_ns) {
  return {d.first + latency_ns, d.second + 1};
}

}  // namespace

uint32_t directed_link(const topo::Graph& graph, uint32_t from, uint32_t to) {
  const int64_t edge = graph.edge_index(from, to);
  if (edge < 0) return kNoLink;
  return static_cast<uint32_t>(2 * edge) + (from > to ? 1u : 0u);
}

// Dijkstra's state, kept between searches: only the nodes a search touched are reset, so a
// short route costs what its neighbourhood costs, not O(n). (Boost's dijkstra_shortest_paths
// allocates and zero-fills an n-entry heap index on every call, O(n) per route.)
struct Router::Search {
  struct Arc {
    uint32_t to;
    int64_t latency_ns;
  };
  using Entry = std::pair<Distance, uint32_t>;

  explicit Search(const topo::Graph& graph)
      : begin(graph.node_count() + 1, 0), distance(graph.node_count(), kUnreached) {
    for (uint32_t v = 0; v < graph.node_count(); ++v) {
      for (uint32_t w : graph.neighbors(v))
        arcs.push_back(Arc{w, graph.edges()[graph.edge_index(v, w)].latency.ns});
      begin[v + 1] = static_cast<uint32_t>(arcs.size());
    }
  }

  // Settles nodes in order of distance from `origin` until `target` is settled (or all are).
  void run(uint32_t origin, uint32_t target) {
    distance[origin] = Distance{0, 0};
    touched.push_back(origin);
    frontier.push_back(Entry{distance[origin], origin});
    while (!frontier.empty()) {
      std::pop_heap(frontier.begin(), frontier.end(), std::greater<>());
      const auto [d, v] = frontier.back();
      frontier.pop_back();
      if (d != distance[v]) continue;  // a stale entry: v was reached more cheaply since
      if (v == target) break;
      for (uint32_t k = begin[v]; k < begin[v + 1]; ++k) {
        const Distance through = add_hop(d, arcs[k].latency_ns);
        Distance& best = distance[arcs[k].to];
        if (!(through < best)) continue;
        if (best == kUnreached) touched.push_back(arcs[k].to);
        best = through;
        frontier.push_back(Entry{through, arcs[k].to});
        std::push_heap(frontier.begin(), frontier.end(), std::greater<>());
      }
    }
    frontier.clear();
  }

  // The next node from `at` on a shortest path to the origin: the lowest-numbered neighbour
  // whose distance plus the edge gives `at`'s distance (arcs are sorted by neighbour).
  uint32_t next_on_path(uint32_t at) const {
    for (uint32_t k = begin[at]; k < begin[at + 1]; ++k) {
      const Distance there = distance[arcs[k].to];
      if (there >= distance[at]) continue;  // also skips unreached and not-yet-final nodes
      if (add_hop(there, arcs[k].latency_ns) == distance[at]) return arcs[k].to;
    }
    DLSIM_CHECK(false, "no shortest-path step from node {}", at);
    return at;
  }

  void reset() {
    for (uint32_t v : touched) distance[v] = kUnreached;
    touched.clear();
  }

  std::vector<uint32_t> begin;  // arcs[begin[v] .. begin[v+1]): v's edges, both directions
  std::vector<Arc> arcs;
  std::vector<Distance> distance;  // kUnreached outside a search
  std::vector<uint32_t> touched;
  std::vector<Entry> frontier;  // a binary min-heap
};

Router::Router(const topo::Graph& graph) : graph_(&graph), hops_{kNoLink} {}
Router::~Router() = default;
Router::Router(Router&&) noexcept = default;

uint32_t Router::route(uint32_t from, uint32_t to) {
  const uint64_t key = (static_cast<uint64_t>(from) << 32) | to;
  if (const auto it = routes_.find(key); it != routes_.end()) return it->second;
  const std::vector<uint32_t> path = shortest_path(from, to);
  const auto start = static_cast<uint32_t>(hops_.size());
  for (size_t i = 0; i + 1 < path.size(); ++i)
    hops_.push_back(directed_link(*graph_, path[i], path[i + 1]));
  hops_.push_back(kNoLink);
  routes_.emplace(key, start);
  return start;
}

std::vector<uint32_t> Router::shortest_path(uint32_t from, uint32_t to) {
  DLSIM_CHECK(from != to && from < graph_->node_count() && to < graph_->node_count(),
              "no route from {} to {} among {} nodes", from, to, graph_->node_count());
  if (!search_) search_ = std::make_unique<Search>(*graph_);
  Search& s = *search_;
  // Search from the destination (links are symmetric) and stop once `from` is settled: every
  // node closer to `to` than `from` is then final, which is all the walk below reads.
  s.run(to, from);
  const bool reached = s.distance[from] != kUnreached;
  std::vector<uint32_t> path{from};
  if (reached)
    while (path.back() != to) path.push_back(s.next_on_path(path.back()));
  s.reset();
  DLSIM_CHECK(reached, "node {} cannot reach node {}: the graph is disconnected", from, to);
  return path;
}

}  // namespace dlsim
