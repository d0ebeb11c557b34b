#include "sim/scenario/topology_kind_keys.hpp"

#include <algorithm>
#include <vector>

namespace dlsim {
namespace {

struct KindsAndKeys {
  std::vector<topo::TopologyKind> kinds;
  std::vector<TopologyKindKey> keys;
};

}  // namespace

std::span<const TopologyKindKey> topology_kind_keys(topo::TopologyKind kind) {
  using K = topo::TopologyKind;
  using S = topo::TopologySpec;
  static const std::vector<KindsAndKeys> kTable{
      {{K::kGrid, K::kTorus}, {{"rows", &S::rows}, {"cols", &S::cols}}},
      {{K::kHypercube}, {{"dimension", std::monostate{}}}},
      {{K::kRandomRegular}, {{"degree", &S::degree}}},
      {{K::kErdosRenyi}, {{"p", &S::p}}},
      {{K::kWattsStrogatz}, {{"k", &S::k}, {"beta", &S::beta}}},
      {{K::kBarabasiAlbert}, {{"m", &S::m}}},
      {{K::kRandomGeometric}, {{"radius", &S::radius}}},
      {{K::kEdgeList, K::kDot}, {{"file", &S::file}}}};
  for (const KindsAndKeys& row : kTable)
    if (std::ranges::find(row.kinds, kind) != row.kinds.end()) return row.keys;
  return {};
}

}  // namespace dlsim
