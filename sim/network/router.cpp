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
    uint32_t edge;
    int64_t latency_ns;
  };
  using Entry = std::pair<Distance, uint32_t>;

  explicit Search(const topo::Graph& graph)
      : begin(graph.node_count() + 1, 0), distance(graph.node_count(), kUnreached) {
    for (uint32_t v = 0; v < graph.node_count(); ++v) {
      for (uint32_t w : graph.neighbors(v)) {
        const auto edge = static_cast<uint32_t>(graph.edge_index(v, w));
        arcs.push_back(Arc{w, edge, graph.edges()[edge].latency.ns});
      }
      begin[v + 1] = static_cast<uint32_t>(arcs.size());
    }
  }

  bool usable(const Arc& arc) const { return down == nullptr || (*down)[arc.edge] == 0; }

  // Settles nodes in order of distance from `origin` until `target` is settled (or all are),
  // over the arcs not marked down.
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
        if (!usable(arcs[k])) continue;
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
      if (!usable(arcs[k])) continue;
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
  const std::vector<uint8_t>* down = nullptr;  // per edge, 1: not usable in this search
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

uint32_t Router::add_route(std::span<const uint32_t> links) {
  const auto start = static_cast<uint32_t>(hops_.size());
  hops_.insert(hops_.end(), links.begin(), links.end());
  hops_.push_back(kNoLink);
  return start;
}

namespace {
struct SavedRoute {  // no padding: the file's bytes are all written
  uint32_t from, to, start;
};
}  // namespace

void Router::archive(StateArchive& ar) {
  // Sorted by position in the store, so the file does not depend on the hash map's order.
  std::vector<SavedRoute> routes;
  if (!ar.loading()) {
    routes.reserve(routes_.size());
    for (const auto& [key, start] : routes_)
      routes.push_back({static_cast<uint32_t>(key >> 32), static_cast<uint32_t>(key), start});
    std::sort(routes.begin(), routes.end(),
              [](const SavedRoute& a, const SavedRoute& b) { return a.start < b.start; });
  }
  ar.vector(routes);
  ar.vector(hops_);
  if (!ar.loading()) return;
  // Loading: the map is rebuilt from the saved routes, each checked against the store.
  if (hops_.empty() || hops_[kEmptyRoute] != kNoLink)
    ar.fail("a route store without its empty route");
  const uint64_t links = 2 * graph_->edges().size();
  for (uint32_t h : hops_)
    if (h != kNoLink && h >= links) ar.fail("a route through a link out of range");
  routes_.clear();
  for (const SavedRoute& r : routes) {
    if (r.start >= hops_.size() || r.from >= graph_->node_count() || r.to >= graph_->node_count())
      ar.fail("a route out of range");
    routes_.emplace((static_cast<uint64_t>(r.from) << 32) | r.to, r.start);
  }
}

std::vector<uint32_t> Router::shortest_path(uint32_t from, uint32_t to) {
  DLSIM_CHECK(from != to && from < graph_->node_count() && to < graph_->node_count(),
              "no route from {} to {} among {} nodes", from, to, graph_->node_count());
  if (!search_) search_ = std::make_unique<Search>(*graph_);
  // Around the links that are down if possible; else the path they would be on.
  const bool reached =
      search(from, to, down_edges_) || (down_edges_ != nullptr && search(from, to, nullptr));
  std::vector<uint32_t> path{from};
  if (reached)
    while (path.back() != to) path.push_back(search_->next_on_path(path.back()));
  search_->reset();
  DLSIM_CHECK(reached, "node {} cannot reach node {}: the graph is disconnected", from, to);
  return path;
}

// Searches from the destination (links are symmetric) and stops once `from` is settled: every
// node closer to `to` than `from` is then final, which is all the walk in shortest_path reads.
// Leaves the search's distances set when `from` was reached.
bool Router::search(uint32_t from, uint32_t to, const std::vector<uint8_t>* down_edges) {
  Search& s = *search_;
  s.reset();
  s.down = down_edges;
  s.run(to, from);
  return s.distance[from] != kUnreached;
}

void Router::replace_store(std::vector<uint32_t> hops) {
  DLSIM_CHECK(routes_.empty() && !hops.empty() && hops[kEmptyRoute] == kNoLink,
              "a route store replaced while routes are cached, or without its empty route");
  hops_ = std::move(hops);
}

}  // namespace dlsim
