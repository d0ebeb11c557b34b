// Validation of a TopologySpec, shared by build_topology and the JSON loader so that both
// accept exactly the same specs. Every limit here is documented in topologies/README.md.
#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <numbers>
#include <set>
#include <utility>

#include "topologies/generator_kinds.hpp"
#include "topologies/generators.hpp"
#include "topologies/topology_spec.hpp"

namespace dlsim::topo {
namespace {

using Problem = std::optional<SpecProblem>;

Problem problem(std::string key, std::string message) {
  return SpecProblem{std::move(key), std::move(message)};
}

Problem check_lattice(const TopologySpec& s) {
  const uint32_t least = s.kind == TopologyKind::kTorus ? 3 : 1;
  for (const auto& [key, value] : {std::pair("rows", s.rows), std::pair("cols", s.cols)})
    if (value < least)
      return problem(
          key, fmt::format("a {} needs {} >= {}, got {}", to_string(s.kind), key, least, value));
  const uint64_t n = uint64_t{s.rows} * s.cols;
  if (n < 2 || n > kMaxNodes)
    return problem("rows", fmt::format("rows x cols must be in 2..{}, got {}", kMaxNodes, n));
  if (s.n != 0 && s.n != n)
    return problem("n", fmt::format("n is {} but rows x cols is {}", s.n, n));
  return std::nullopt;
}

Problem check_random_regular(const TopologySpec& s) {
  const uint32_t n = s.n;
  if (n == 2 && s.degree != 1)
    return problem("degree", fmt::format("degree must be 1 for n = 2, got {}", s.degree));
  if (n > 2 && (s.degree < 2 || s.degree >= n))
    return problem("degree",
                   fmt::format("degree must be in 2..{} (n - 1), got {}", n - 1, s.degree));
  if (uint64_t{n} * s.degree % 2 != 0)
    return problem("degree", fmt::format("n x degree must be even, got {} x {}", n, s.degree));
  return std::nullopt;
}

Problem check_watts_strogatz(const TopologySpec& s) {
  // k + 2 <= n: Boost redraws a rewired end until it falls outside the k + 1 lattice window.
  if (s.k < 2 || s.k % 2 != 0 || s.k + 2 > s.n)
    return problem("k", fmt::format("k must be even and in 2..{} (n - 2), got {}", s.n - 2, s.k));
  if (!(s.beta >= 0 && s.beta <= 1))
    return problem("beta", fmt::format("beta must be in [0, 1], got {}", s.beta));
  return std::nullopt;
}

// Checks of the kind's own parameters, after n is known to be in 2..kMaxNodes.
Problem check_kind_parameters(const TopologySpec& s) {
  const uint32_t n = s.n;
  switch (s.kind) {
    case TopologyKind::kRing:
      if (n < 3) return problem("n", fmt::format("a ring needs n >= 3, got {}", n));
      return std::nullopt;
    case TopologyKind::kHypercube:
      if (!std::has_single_bit(n))
        return problem("n", fmt::format("a hypercube needs n a power of two, got {}", n));
      return std::nullopt;
    case TopologyKind::kRandomRegular:
      return check_random_regular(s);
    case TopologyKind::kWattsStrogatz:
      return check_watts_strogatz(s);
    case TopologyKind::kErdosRenyi:
      if (!(s.p > 0 && s.p < 1))
        return problem("p", fmt::format("p must be in (0, 1), got {}", s.p));
      return std::nullopt;
    case TopologyKind::kBarabasiAlbert:
      if (s.m < 1 || s.m >= n)
        return problem("m", fmt::format("m must be in 1..{} (n - 1), got {}", n - 1, s.m));
      return std::nullopt;
    case TopologyKind::kRandomGeometric:
      if (!(s.radius > 0 && std::isfinite(s.radius)))
        return problem("radius", fmt::format("radius must be > 0, got {}", s.radius));
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

// Edges the generator will make (expected count for the random kinds).
double predicted_edges(const TopologySpec& s) {
  const double n = s.n;
  const double pairs = n * (n - 1) / 2;
  switch (s.kind) {
    case TopologyKind::kComplete:
      return pairs;
    case TopologyKind::kHypercube:
      return n * std::bit_width(s.n - 1) / 2;
    case TopologyKind::kExponential:
      return n * detail::exponential_offsets(s.n).size() / 2;
    case TopologyKind::kRandomRegular:
      return n * s.degree / 2;
    case TopologyKind::kErdosRenyi:
      return pairs * s.p;
    case TopologyKind::kWattsStrogatz:
      return n * s.k / 2;
    case TopologyKind::kBarabasiAlbert:
      return n * s.m;
    case TopologyKind::kRandomGeometric:
      return pairs * std::min(1.0, std::numbers::pi * s.radius * s.radius);
    default:
      return 2 * n;
  }
}

Problem check_values(const TopologySpec& s) {
  if (s.latency.min > s.latency.max) return problem("latency", "min must not exceed max");
  if (s.latency.min.ns < 0) return problem("latency", "latency must not be negative");
  if (s.bandwidth_bps.min > s.bandwidth_bps.max)
    return problem("bandwidth", "min must not exceed max");
  if (s.bandwidth_bps.min < 1) return problem("bandwidth", "bandwidth must be at least 1bps");
  return std::nullopt;
}

Problem check_overrides(const TopologySpec& s, uint32_t n) {
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (size_t i = 0; i < s.overrides.size(); ++i) {
    const EdgeOverride& o = s.overrides[i];
    const std::string at = fmt::format("overrides/{}", i);
    for (const auto& [key, node] : {std::pair("u", o.u), std::pair("v", o.v)})
      if (n > 0 && node >= n)
        return problem(at + "/" + key, fmt::format("node {} is outside 0..{}", node, n - 1));
    if (o.u == o.v) return problem(at, fmt::format("u and v are both {}", o.u));
    if (!o.latency && !o.bandwidth_bps) return problem(at, "give latency, bandwidth or both");
    if (o.latency && o.latency->ns < 0) return problem(at + "/latency", "must not be negative");
    if (o.bandwidth_bps && *o.bandwidth_bps < 1)
      return problem(at + "/bandwidth", "must be >= 1bps");
    if (!seen.emplace(std::min(o.u, o.v), std::max(o.u, o.v)).second)
      return problem(at, fmt::format("edge {} -- {} is overridden twice", o.u, o.v));
  }
  return std::nullopt;
}

Problem check_structure(const TopologySpec& s, EdgeLimit limit) {
  const bool from_file = s.kind == TopologyKind::kEdgeList || s.kind == TopologyKind::kDot;
  if (from_file) {
    if (s.file.empty()) return problem("file", "the file name is empty");
    if (s.n > kMaxNodes) return problem("n", fmt::format("n must be at most {}", kMaxNodes));
    return std::nullopt;
  }
  if (s.kind == TopologyKind::kGrid || s.kind == TopologyKind::kTorus) {
    if (auto p = check_lattice(s)) return p;
    TopologySpec flat = s;
    flat.n = s.rows * s.cols;
    return check_kind_parameters(flat);
  }
  if (s.n < 2 || s.n > kMaxNodes)
    return problem("n", fmt::format("n must be in 2..{}, got {}", kMaxNodes, s.n));
  if (auto p = check_kind_parameters(s)) return p;
  if (const double edges = predicted_edges(s);
      limit == EdgeLimit::kChecked && edges > double(kMaxEdges))
    return problem("n", fmt::format("this topology would have about {:.0f} edges, more than the "
                                    "limit of {}",
                                    edges, kMaxEdges));
  return std::nullopt;
}

}  // namespace

uint32_t node_count(const TopologySpec& spec) {
  if (spec.kind == TopologyKind::kGrid || spec.kind == TopologyKind::kTorus)
    return spec.rows * spec.cols;
  return spec.n;
}

std::optional<SpecProblem> find_spec_problem(const TopologySpec& spec, EdgeLimit limit) {
  if (auto p = check_structure(spec, limit)) return p;
  if (auto p = check_values(spec)) return p;
  return check_overrides(spec, node_count(spec));
}

}  // namespace dlsim::topo
