// Network's part for network.sharing "maxmin" with network.failures (network.hpp): a flow holds
// every link of its route at once, so a link that fails cuts the flows crossing it at that very
// time (a kLinkChange event at each state change while flows are active), and a message whose
// bits are out is lost when a link of its route failed since its flow started.
#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/network/network.hpp"

namespace dlsim {

// Applies the link changes up to now. Under maxmin the flows crossing a link that went down lose
// their messages now, in ascending flow id (slot) order; the others sharing their resources get
// their new rates from this instant.
void Network::fail_flows(Simulator& sim) {
  if (!follow_failures(sim.now()) || !flows_) return;
  const uint32_t nodes = graph_.node_count();
  cut_.clear();
  for (const uint32_t edge : failures_->went_down())
    for (const uint32_t link : {2 * edge, 2 * edge + 1})
      for (const uint32_t id : flows_->on(nodes + link)) cut_.push_back(id);
  if (cut_.empty()) return;
  std::sort(cut_.begin(), cut_.end());
  cut_.erase(std::unique(cut_.begin(), cut_.end()), cut_.end());
  watch_stale(sim);  // their kFlowEnd events are stale from now on
  for (const uint32_t slot : cut_) {
    const Slot& s = slots_[slot];
    const uint32_t hop = first_failed_hop(s);
    DLSIM_CHECK(s.stage == Stage::kFlow && hop != kNotLost,
                "slot {} cut by a failure that is not on its route", slot);
    flows_->abort(sim, slot);
    record_route_loss(s, hop);
    drop_flow_message(sim, slot, DropReason::kLinkDown);
  }
}

void Network::on_link_change(Simulator& sim, const Event& event) {
  DLSIM_CHECK(flows_ != nullptr && failures_.has_value(),
              "a link change event without maxmin sharing and link failures");
  watch_stale(sim);
  if (stale_event(this, event)) return;  // only before the filter was set (a resumed run)
  change_pending_ = false;
  fail_flows(sim);
  if (flows_->active_count() > 0) schedule_change(sim);
}

// One event at the next state change, whichever link it is: while flows are active the network
// looks at every change as it happens (otherwise failures are applied lazily).
void Network::schedule_change(Simulator& sim) {
  const SimTime at = failures_->next_change();
  change_pending_ = at != SimTime::max();
  if (!change_pending_) return;
  change_at_ = at;
  change_seq_ = sim.schedule_at(at, EventKind::kLinkChange, AgentId{0});
  // Each busy spell of the network schedules one, and the previous one, if its time has not
  // come, stays queued as stale: an async run whose network often goes idle between two changes
  // would pile them up, so they are swept out now and then (results do not depend on when).
  if (++changes_scheduled_ >= kChangeSweep) {
    changes_scheduled_ = 0;
    sim.drop_stale();
  }
}

// A message whose bits are out (propagating) is lost when a link of its route failed after its
// flow started, as a FIFO message on a link that fails under it: dropped when it would arrive.
bool Network::lost_in_propagation(Simulator& sim, uint32_t slot) {
  if (!failures_) return false;
  fail_flows(sim);
  const Slot& s = slots_[slot];
  const uint32_t hop = first_failed_hop(s);
  if (hop == kNotLost) return false;
  record_route_loss(s, hop);
  listener_->message_dropped(signal(sim, s), DropReason::kLinkDown);
  free_slot(slot);
  return true;
}

// The first hop of s's route (0 = its first link) whose link is down now; kNotLost: none.
uint32_t Network::first_down_hop(const Slot& s) const {
  uint32_t next = s.next_hop;
  for (uint32_t link = s.link, hop = 0; link != kNoLink; link = router_.hop(next++), ++hop)
    if (failures_->down(link >> 1)) return hop;
  return kNotLost;
}

// The first hop of the links s's flow crosses that failed since the flow started; kNotLost: none.
uint32_t Network::first_failed_hop(const Slot& s) const {
  uint32_t next = s.next_hop;
  for (uint32_t link = s.link, hop = 0; link != kNoLink && hop <= s.lost_hop;
       link = router_.hop(next++), ++hop)
    if (failures_->failed_after(link >> 1, s.entered)) return hop;
  return kNotLost;
}

// Link counters (link.hpp: sent = delivered + dropped + in flight) for a message lost to a
// failure at `failed_hop`: the links before it delivered it; that link and the later ones its
// flow crossed lost it (except the one whose loss draw already counted it).
void Network::record_route_loss(const Slot& s, uint32_t failed_hop) {
  const uint64_t bytes = wire_bytes(s);
  uint32_t next = s.next_hop;
  for (uint32_t link = s.link, hop = 0; link != kNoLink && hop <= s.lost_hop;
       link = router_.hop(next++), ++hop) {
    if (hop < failed_hop)
      links_[link].record_delivery(bytes);
    else if (hop != s.lost_hop)
      links_[link].record_loss(bytes);
  }
}

}  // namespace dlsim
