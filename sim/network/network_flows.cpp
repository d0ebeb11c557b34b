// Network's part for network.sharing "maxmin" (network.hpp): messages as flows over their whole
// routes (shared_flows.hpp) and the send buffers that hold them (flow_buffers.hpp).
#include <memory>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/network/network.hpp"

namespace dlsim {
namespace {

// The capacities of SharedFlows' resources (network.hpp): uplinks, links, downlinks.
std::vector<double> capacities(const std::vector<Serializer>& up, const std::vector<Link>& links,
                               const std::vector<Serializer>& down) {
  std::vector<double> capacity;
  capacity.reserve(up.size() + links.size() + down.size());
  for (const Serializer& s : up) capacity.push_back(static_cast<double>(s.bandwidth_bps()));
  for (const Link& l : links) capacity.push_back(static_cast<double>(l.bandwidth_bps()));
  for (const Serializer& s : down) capacity.push_back(static_cast<double>(s.bandwidth_bps()));
  return capacity;
}

}  // namespace

void Network::start_sharing(const SendBufferConfig& send_buffer) {
  flows_ = std::make_unique<SharedFlows>(capacities(uplinks_, links_, downlinks_));
  flow_buffers_ = std::make_unique<FlowBuffers>(send_buffer, graph_.node_count());
}

// Loss and jitter are drawn link by link as FIFO's enter_link() does, all at the flow's start.
void Network::start_flow(Simulator& sim, uint32_t slot) {
  Slot& s = slots_[slot];
  const uint64_t bytes = wire_bytes(s);
  const uint32_t nodes = graph_.node_count();
  s.entered = sim.now();
  s.lost_hop = kNotLost;
  watch_stale(sim);
  // A route crosses a down link only when nothing else leads: the whole flow would enter it.
  if (failures_ && first_down_hop(s) != kNotLost) {
    drop_flow_message(sim, slot, DropReason::kLinkDown);
    return;
  }
  route_.clear();
  if (uplinks_[s.message.from.value].enabled()) route_.push_back(s.message.from.value);
  s.delay = SimTime{};
  uint32_t next = s.next_hop;
  for (uint32_t link = s.link, hop = 0; link != kNoLink; link = router_.hop(next++), ++hop) {
    route_.push_back(nodes + link);
    const Link::Transfer t = links_[link].offer_shared(bytes);
    if (t.lost) {
      s.lost_hop = hop;
      break;
    }
    s.delay += t.arrival;
  }
  const uint32_t to = s.message.to.value;
  if (s.lost_hop == kNotLost && downlinks_[to].enabled())
    route_.push_back(nodes + link_count() + to);
  s.stage = Stage::kFlow;
  if (bytes == 0) {
    finish_flow(sim, slot);
    return;
  }
  const bool idle = flows_->active_count() == 0;
  flows_->start(sim, slot, 8 * bytes, route_, s.message.from);
  // A change event left from an earlier busy spell may have been dropped as stale: renew it.
  if (failures_ && (idle || !change_pending_)) schedule_change(sim);
}

void Network::finish_flow(Simulator& sim, uint32_t slot) {
  Slot& s = slots_[slot];
  DLSIM_CHECK(s.stage == Stage::kFlow, "slot {} ended a flow it is not in", slot);
  if (s.lost_hop != kNotLost) {
    record_route_deliveries(s, s.lost_hop);
    drop_flow_message(sim, slot, DropReason::kLoss);
    return;
  }
  if (flow_buffers_->ended(s.message.from.value, s.message.to.value, slot))
    sim.schedule_at(sim.now(), EventKind::kSenderReady, s.message.from);
  s.stage = Stage::kPropagating;
  sim.schedule_at(sim.now() + s.delay, EventKind::kDelivery, s.message.to, slot);
}

// A message whose flow ended without it (or never started): its send buffer is told.
void Network::drop_flow_message(Simulator& sim, uint32_t slot, DropReason why) {
  Slot& s = slots_[slot];
  if (flow_buffers_->ended(s.message.from.value, s.message.to.value, slot))
    sim.schedule_at(sim.now(), EventKind::kSenderReady, s.message.from);
  listener_->message_dropped(signal(sim, s), why);
  free_slot(slot);
}

bool Network::stale_event(const void* self, const Event& e) {
  const Network& net = *static_cast<const Network*>(self);
  if (e.kind() == EventKind::kFlowEnd) return net.flows_->stale(e);
  // A change event counts only while flows are active: an idle network holds no sync round
  // open (and, busy again, schedules a new one: start_flow).
  return !net.change_pending_ || e.seq() != net.change_seq_ || net.flows_->active_count() == 0;
}

void Network::watch_stale(Simulator& sim) {
  sim.set_stale_filter(EventKind::kFlowEnd, &Network::stale_event, this);
  sim.set_stale_filter(EventKind::kLinkChange, &Network::stale_event, this);
}

void Network::record_route_deliveries(const Slot& s, uint32_t hops) {
  const uint64_t bytes = wire_bytes(s);
  uint32_t next = s.next_hop;
  for (uint32_t link = s.link, hop = 0; link != kNoLink && hop < hops;
       link = router_.hop(next++), ++hop)
    links_[link].record_delivery(bytes);
}

}  // namespace dlsim
