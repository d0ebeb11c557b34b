// The overload watch on each message's first serialiser (send_buffers.hpp, LoadWatch).
#include "sim/network/network.hpp"

namespace dlsim {

void Network::watch_load(Simulator& sim, AgentId from, AgentId to, uint32_t link,
                         uint64_t bytes) {
  const Serializer& uplink = uplinks_[from.value];
  const bool nic = uplink.enabled();
  SimTime since;
  std::optional<double> utilisation;
  uint64_t bps = 0;
  if (nic) {
    bps = uplink.bandwidth_bps();
    utilisation = load_.offered(sim.now(), from.value, bytes, bps, &since);
  } else if (complete_) {
    bps = complete_->spec().bandwidth_bps;
    utilisation = complete_->watch_load(sim.now(), from.value, to.value, bytes, &since);
  } else {
    bps = links_[link].bandwidth_bps();
    utilisation = load_.offered(sim.now(), graph_.node_count() + link, bytes, bps, &since);
  }
  if (!utilisation) return;
  // The resource's far end: the agent itself for its uplink, else the link's (a detour's first
  // hop need not be `to`).
  const AgentId far = nic ? from : complete_ ? to : AgentId{link_target_[link]};
  listener_->link_overloaded(LinkOverload{from, far, bps, since, sim.now(), *utilisation});
}

}  // namespace dlsim
