// build_topology: dispatch to the structure generators or the file readers, condition random
// draws on connectivity, then assign latency and bandwidth to every edge.
#include "topologies/generators.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "sim/core/error.hpp"
#include "topologies/generator_kinds.hpp"
#include "topologies/readers.hpp"

namespace dlsim::topo {
namespace {

using detail::NodePairs;

// "file: /pointer/key: message", leaving out what the spec does not know.
InputError spec_error(const TopologySpec& spec, const std::string& key, const std::string& msg) {
  const std::string where = key.empty() ? spec.source_pointer : spec.source_pointer + "/" + key;
  std::string text = spec.source_file.empty() ? "" : spec.source_file + ": ";
  if (!where.empty()) text += where + ": ";
  return InputError(text + msg);
}

std::string connect_hint(const TopologySpec& spec) {
  const double n = spec.n;
  switch (spec.kind) {
    case TopologyKind::kErdosRenyi:
      return fmt::format("raise p (connected w.h.p. above ln(n)/n = {:.3g})", std::log(n) / n);
    case TopologyKind::kRandomGeometric:
      return fmt::format("raise radius (connected w.h.p. above sqrt(ln(n)/(pi n)) = {:.3g})",
                         std::sqrt(std::log(n) / (std::numbers::pi * n)));
    case TopologyKind::kRandomRegular:
      return "use degree >= 3 (degree 2 is a set of cycles)";
    default:
      return "lower beta or raise k";
  }
}

// Draws from RandomStream(seed, "topology", attempt) for attempt = 0, 1, ... until the graph
// is connected: conditioning on connectivity without biasing any single draw.
template <class Draw>
NodePairs draw_connected(const TopologySpec& spec, uint64_t seed, Draw draw) {
  for (uint32_t attempt = 0; attempt < kMaxConnectAttempts; ++attempt) {
    RandomStream rng(seed, "topology", attempt);
    std::optional<NodePairs> pairs = draw(rng);
    if (pairs && detail::count_components(spec.n, *pairs) == 1) return std::move(*pairs);
  }
  throw spec_error(
      spec, "",
      fmt::format("no connected {} graph with n = {} in {} draws; {}", to_string(spec.kind), spec.n,
                  kMaxConnectAttempts, connect_hint(spec)));
}

NodePairs random_structure(const TopologySpec& s, uint64_t seed) {
  using K = TopologyKind;
  const auto wrap = [](NodePairs p) { return std::optional<NodePairs>(std::move(p)); };
  switch (s.kind) {
    case K::kRandomRegular:
      return draw_connected(
          s, seed, [&](auto& r) { return detail::random_regular_pairs(s.n, s.degree, r); });
    case K::kErdosRenyi:
      return draw_connected(s, seed,
                            [&](auto& r) { return wrap(detail::erdos_renyi_pairs(s.n, s.p, r)); });
    case K::kWattsStrogatz:
      return draw_connected(s, seed, [&](auto& r) {
        return wrap(detail::watts_strogatz_pairs(s.n, s.k, s.beta, r));
      });
    case K::kRandomGeometric:
      return draw_connected(
          s, seed, [&](auto& r) { return wrap(detail::random_geometric_pairs(s.n, s.radius, r)); });
    default: {  // Barabasi-Albert graphs are connected by construction.
      RandomStream rng(seed, "topology", 0);
      return detail::barabasi_albert_pairs(s.n, s.m, rng);
    }
  }
}

NodePairs structure(const TopologySpec& s, uint64_t seed) {
  using K = TopologyKind;
  switch (s.kind) {
    case K::kRing:
      return detail::ring_pairs(s.n);
    case K::kLine:
      return detail::line_pairs(s.n);
    case K::kComplete:
      return detail::complete_pairs(s.n);
    case K::kStar:
      return detail::star_pairs(s.n);
    case K::kGrid:
      return detail::grid_pairs(s.rows, s.cols);
    case K::kTorus:
      return detail::torus_pairs(s.rows, s.cols);
    case K::kHypercube:
      return detail::hypercube_pairs(s.n);
    case K::kExponential:
      return detail::exponential_pairs(s.n);
    default:
      return random_structure(s, seed);
  }
}

// Default values for every edge, in (u, v) order: constant, or uniform integers in [min, max]
// from their own streams so that the two draws never shift each other or the structure.
void assign_defaults(const TopologySpec& s, uint64_t seed, std::vector<Edge>& edges) {
  RandomStream latency_rng(seed, "topology-latency", 0);
  RandomStream bandwidth_rng(seed, "topology-bandwidth", 0);
  const auto& lat = s.latency;
  const auto& bw = s.bandwidth_bps;
  const uint64_t latency_span = uint64_t(lat.max.ns - lat.min.ns) + 1;
  for (Edge& e : edges) {
    e.latency = lat.min;
    if (!lat.is_constant()) e.latency.ns += int64_t(latency_rng.below(latency_span));
    e.bandwidth_bps = bw.min;
    if (!bw.is_constant()) e.bandwidth_bps += bandwidth_rng.below(bw.max - bw.min + 1);
  }
}

std::vector<Edge> sorted_edges(const NodePairs& pairs) {
  std::vector<Edge> edges;
  edges.reserve(pairs.size());
  for (auto [a, b] : pairs) edges.push_back(Edge{std::min(a, b), std::max(a, b), {}, 0});
  std::sort(edges.begin(), edges.end(),
            [](const Edge& x, const Edge& y) { return std::pair(x.u, x.v) < std::pair(y.u, y.v); });
  return edges;
}

Edge* find_edge(std::vector<Edge>& edges, uint32_t a, uint32_t b) {
  const auto key = std::pair(std::min(a, b), std::max(a, b));
  const auto it = std::lower_bound(edges.begin(), edges.end(), key,
                                   [](const Edge& e, auto k) { return std::pair(e.u, e.v) < k; });
  return it != edges.end() && std::pair(it->u, it->v) == key ? &*it : nullptr;
}

void apply_overrides(const TopologySpec& s, std::vector<Edge>& edges) {
  for (size_t i = 0; i < s.overrides.size(); ++i) {
    const EdgeOverride& o = s.overrides[i];
    Edge* e = find_edge(edges, o.u, o.v);
    if (!e)
      throw spec_error(
          s, fmt::format("overrides/{}", i),
          fmt::format("the {} graph has no edge {} -- {}", to_string(s.kind), o.u, o.v));
    if (o.latency) e->latency = *o.latency;
    if (o.bandwidth_bps) e->bandwidth_bps = *o.bandwidth_bps;
  }
}

Graph build_from_file(const TopologySpec& s, uint64_t seed) {
  const FileGraph file =
      s.kind == TopologyKind::kDot ? read_dot(s.file, s.n) : read_edge_list(s.file, s.n);
  NodePairs pairs;
  for (const FileEdge& e : file.edges) pairs.emplace_back(e.u, e.v);
  if (const uint32_t parts = detail::count_components(file.node_count, pairs); parts != 1)
    throw InputError(fmt::format("{}: the graph is not connected ({} components over {} nodes)",
                                 s.file, parts, file.node_count));
  std::vector<Edge> edges = sorted_edges(pairs);
  assign_defaults(s, seed, edges);
  for (size_t i = 0; i < edges.size(); ++i) {  // both lists are sorted by (u, v)
    if (file.edges[i].latency) edges[i].latency = *file.edges[i].latency;
    if (file.edges[i].bandwidth_bps) edges[i].bandwidth_bps = *file.edges[i].bandwidth_bps;
  }
  TopologySpec sized = s;
  sized.n = file.node_count;
  apply_overrides(sized, edges);
  return Graph(file.node_count, std::move(edges));
}

}  // namespace

Graph build_topology(const TopologySpec& spec, uint64_t seed) {
  if (const auto problem = find_spec_problem(spec))
    throw spec_error(spec, problem->key, problem->message);
  const uint64_t s = spec.seed.value_or(seed);
  if (spec.kind == TopologyKind::kEdgeList || spec.kind == TopologyKind::kDot)
    return build_from_file(spec, s);
  TopologySpec sized = spec;
  sized.n = node_count(spec);
  std::vector<Edge> edges = sorted_edges(structure(sized, s));
  assign_defaults(spec, s, edges);
  apply_overrides(spec, edges);
  return Graph(sized.n, std::move(edges));
}

}  // namespace dlsim::topo
