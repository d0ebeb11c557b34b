#include "topologies/topology_spec.hpp"

#include <array>
#include <tuple>
#include <utility>

namespace dlsim::topo {
namespace {

constexpr std::array<std::pair<TopologyKind, std::string_view>, 15> kKindNames{{
    {TopologyKind::kRing, "ring"},
    {TopologyKind::kLine, "line"},
    {TopologyKind::kComplete, "complete"},
    {TopologyKind::kStar, "star"},
    {TopologyKind::kGrid, "grid"},
    {TopologyKind::kTorus, "torus"},
    {TopologyKind::kHypercube, "hypercube"},
    {TopologyKind::kRandomRegular, "random_regular"},
    {TopologyKind::kErdosRenyi, "erdos_renyi"},
    {TopologyKind::kWattsStrogatz, "watts_strogatz"},
    {TopologyKind::kBarabasiAlbert, "barabasi_albert"},
    {TopologyKind::kRandomGeometric, "random_geometric"},
    {TopologyKind::kExponential, "exponential"},
    {TopologyKind::kEdgeList, "edge_list"},
    {TopologyKind::kDot, "dot"},
}};

}  // namespace

std::string_view to_string(TopologyKind kind) {
  for (const auto& [k, name] : kKindNames)
    if (k == kind) return name;
  return "?";
}

std::optional<TopologyKind> topology_kind_from_string(std::string_view name) {
  for (const auto& [k, n] : kKindNames)
    if (n == name) return k;
  return std::nullopt;
}

std::string topology_kind_names() {
  std::string out;
  for (const auto& [k, name] : kKindNames) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

bool TopologySpec::operator==(const TopologySpec& o) const {
  const auto value = [](const TopologySpec& s) {
    return std::tie(s.kind, s.n, s.rows, s.cols, s.degree, s.p, s.k, s.beta, s.m, s.radius, s.file,
                    s.latency, s.bandwidth_bps, s.overrides, s.seed);
  };
  return value(*this) == value(o);
}

}  // namespace dlsim::topo
