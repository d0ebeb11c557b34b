#include "sim/scenario/underlay.hpp"

#include "sim/scenario/algorithm_descriptor.hpp"

namespace dlsim {

std::optional<LinkSpec> implicit_complete_underlay(const ScenarioSpec& s) {
  const topo::TopologySpec& t = s.topology;
  // Maxmin flows and link failures keep state per link id; a service node (EASGD's server) has
  // its own links. Those runs materialise the graph as before.
  const bool alike = t.kind == topo::TopologyKind::kComplete && t.latency.is_constant() &&
                     t.bandwidth_bps.is_constant() && t.overrides.empty();
  if (!s.dynamic || !alike || s.network.sharing != Sharing::kFifo ||
      s.network.failures.kind != FailureKind::kNone ||
      s.algorithm.descriptor->capabilities().service_node ||
      s.algorithm.descriptor->capabilities().centralized)
    return std::nullopt;
  return LinkSpec{t.latency.min, t.bandwidth_bps.min, s.network.loss_probability,
                  s.network.jitter};
}

}  // namespace dlsim
