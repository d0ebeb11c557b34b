// Max-min sharing (network.hpp, network.sharing "maxmin"): a message is one flow over its whole
// route at once (shared_flows.hpp), held by its send buffer until the flow ends
// (flow_buffers.hpp), then delivered after the route's propagation delay. Failures come in as
// the policy F (failing_links.hpp): a flow holds every link of its route at once, so a link that
// fails cuts the flows crossing it at that very time (a kLinkChange event at each state change
// while flows are active), and a message whose bits are out is lost when a link of its route
// failed since its flow started.
#include <algorithm>
#include <memory>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/network/flow_buffers.hpp"
#include "sim/network/shared_flows.hpp"
#include "sim/network/transport.hpp"

namespace dlsim {
namespace {

// The capacities of SharedFlows' resources: uplink i, link l at nodes + l, downlink i at
// nodes + links + i.
std::vector<double> capacities(const Wires& wires) {
  std::vector<double> capacity;
  capacity.reserve(2 * wires.node_count() + wires.link_count());
  for (const Serializer& s : wires.uplinks()) capacity.push_back(double(s.bandwidth_bps()));
  for (const Link& l : wires.links()) capacity.push_back(double(l.bandwidth_bps()));
  for (const Serializer& s : wires.downlinks()) capacity.push_back(double(s.bandwidth_bps()));
  return capacity;
}

template <class F>
class FlowTransport final : public Transport {
 public:
  FlowTransport(Wires& wires, Messages& messages, const SendBufferConfig& send_buffer, F failures)
      : wires_(wires),
        messages_(messages),
        flows_(capacities(wires)),
        buffers_(send_buffer, wires.node_count()),
        failures_(std::move(failures)) {}

  FirstHop route(Simulator& sim, uint32_t from, uint32_t to) override {
    fail_flows(sim);
    return wires_.first_hop(from, to, failures_);
  }
  // Every message starts its flow at once, at its share of the bandwidth.
  SendBuffers::Decision admit(SimTime now, uint32_t from, uint32_t to, uint64_t bytes,
                              uint32_t /*link*/, Buffering buffering, uint32_t slot,
                              SimTime* start) override {
    *start = now;
    return buffers_.offer(from, to, bytes, buffering, slot);
  }
  void launch(Simulator& sim, uint32_t slot, SimTime /*start*/) override { start_flow(sim, slot); }

  void handle(Simulator& sim, const Event& event) override {
    watch_stale(sim);
    if (event.kind() == EventKind::kFlowEnd) {
      if (flows_.end(sim, event)) finish_flow(sim, event.payload);
      return;
    }
    DLSIM_CHECK(event.kind() == EventKind::kLinkChange, "a FIFO event under maxmin sharing");
    if (stale_event(this, event)) return;  // only before the filter was set (a resumed run)
    change_pending_ = false;
    fail_flows(sim);
    if (flows_.active_count() > 0) schedule_change(sim);
  }

  bool lost_on_arrival(Simulator& sim, uint32_t slot) override {
    const Slot& s = messages_[slot];
    DLSIM_CHECK(s.stage == Stage::kPropagating, "slot {} delivered twice or never sent", slot);
    if (lost_in_propagation(sim, slot)) return true;
    record_route(s, Slot::kNotLost, Slot::kNotLost);
    return false;
  }

  // The time a blocked sender may go on is not known in advance: kSenderReady tells it.
  SimTime blocked_until(uint32_t node) const override {
    return buffers_.blocked(node) ? SimTime::max() : SimTime{};
  }
  bool link_down(uint32_t link) const override { return failures_.down(link); }
  // A held copy may be replaced until its flow ends, which is not known in advance; max-min
  // sharing is refused over ranks (sim/run/virtual_ranks.cpp), the one caller's case.
  SimTime leaves_buffer_at(uint32_t slot) const override {
    DLSIM_CHECK(false, "slot {}: max-min sharing over MPI ranks", slot);
    return SimTime::max();
  }

  void archive(StateArchive& ar) override {
    failures_.archive(ar);
    flows_.archive(ar);
    ar.value(change_pending_);  // the link change event that counts (the simulator saves it)
    ar.value(change_seq_);
    ar.value(change_at_);
    buffers_.archive(ar);
  }

 private:
  void start_flow(Simulator& sim, uint32_t slot);
  void finish_flow(Simulator& sim, uint32_t slot);
  void drop_flow_message(Simulator& sim, uint32_t slot, DropReason why);
  void fail_flows(Simulator& sim);
  void schedule_change(Simulator& sim);
  bool lost_in_propagation(Simulator& sim, uint32_t slot);
  void record_route(const Slot& s, uint32_t failed_hop, uint32_t hops);
  static bool stale_event(const void* self, const Event& e);
  void watch_stale(Simulator& sim) {  // registers stale_event for kFlowEnd and kLinkChange
    sim.set_stale_filter(EventKind::kFlowEnd, &FlowTransport::stale_event, this);
    sim.set_stale_filter(EventKind::kLinkChange, &FlowTransport::stale_event, this);
  }

  Wires& wires_;
  Messages& messages_;
  SharedFlows flows_;
  FlowBuffers buffers_;
  F failures_;
  std::vector<uint32_t> route_;  // scratch of start_flow()
  std::vector<uint32_t> cut_;    // scratch of fail_flows()
  // With failures: the one kLinkChange event that counts, valid while flows are active.
  bool change_pending_ = false;
  uint64_t change_seq_ = 0;
  SimTime change_at_{};
  static constexpr uint32_t kChangeSweep = 64;  // change events scheduled between two sweeps
  uint32_t changes_scheduled_ = 0;  // since the last sweep of stale events (not checkpointed)
};

// Loss and jitter are drawn link by link as FIFO's enter_link() does, all at the flow's start.
template <class F>
void FlowTransport<F>::start_flow(Simulator& sim, uint32_t slot) {
  Slot& s = messages_[slot];
  const uint64_t bytes = messages_.wire_bytes(s);
  const uint32_t nodes = wires_.node_count();
  s.entered = sim.now();
  s.lost_hop = Slot::kNotLost;
  watch_stale(sim);
  // A route crosses a down link only when nothing else leads: the whole flow would enter it.
  if (failures_.first_down_hop(s) != Slot::kNotLost) {
    drop_flow_message(sim, slot, DropReason::kLinkDown);
    return;
  }
  route_.clear();
  if (wires_.uplink(s.message.from.value).enabled()) route_.push_back(s.message.from.value);
  s.delay = SimTime{};
  const Router& router = wires_.router();
  uint32_t next = s.next_hop;
  for (uint32_t link = s.link, hop = 0; link != kNoLink; link = router.hop(next++), ++hop) {
    route_.push_back(nodes + link);
    const Link::Transfer t = wires_.link(link).offer_shared(bytes);
    if (t.lost) {
      s.lost_hop = hop;
      break;
    }
    s.delay += t.arrival;
  }
  const uint32_t to = s.message.to.value;
  if (s.lost_hop == Slot::kNotLost && wires_.downlink(to).enabled())
    route_.push_back(nodes + wires_.link_count() + to);
  s.stage = Stage::kFlow;
  if (bytes == 0) {
    finish_flow(sim, slot);
    return;
  }
  const bool idle = flows_.active_count() == 0;
  flows_.start(sim, slot, 8 * bytes, route_, s.message.from);
  // A change event left from an earlier busy spell may have been dropped as stale: renew it.
  if (idle || !change_pending_) schedule_change(sim);
}

template <class F>
void FlowTransport<F>::finish_flow(Simulator& sim, uint32_t slot) {
  Slot& s = messages_[slot];
  DLSIM_CHECK(s.stage == Stage::kFlow, "slot {} ended a flow it is not in", slot);
  if (s.lost_hop != Slot::kNotLost) {
    record_route(s, s.lost_hop, s.lost_hop);
    drop_flow_message(sim, slot, DropReason::kLoss);
    return;
  }
  if (buffers_.ended(s.message.from.value, s.message.to.value, slot))
    sim.schedule_at(sim.now(), EventKind::kSenderReady, s.message.from);
  s.stage = Stage::kPropagating;
  sim.schedule_at(sim.now() + s.delay, EventKind::kDelivery, s.message.to, slot);
}

// A message whose flow ended without it (or never started): its send buffer is told.
template <class F>
void FlowTransport<F>::drop_flow_message(Simulator& sim, uint32_t slot, DropReason why) {
  const Slot& s = messages_[slot];
  if (buffers_.ended(s.message.from.value, s.message.to.value, slot))
    sim.schedule_at(sim.now(), EventKind::kSenderReady, s.message.from);
  messages_.drop(sim, slot, why);
}

// Applies the link changes up to now. The flows crossing a link that went down lose their
// messages now, in ascending flow id (slot) order; the others sharing their resources get their
// new rates from this instant.
template <class F>
void FlowTransport<F>::fail_flows(Simulator& sim) {
  if (!failures_.follow(sim.now())) return;
  const uint32_t nodes = wires_.node_count();
  cut_.clear();
  for (const uint32_t edge : failures_.went_down())
    for (const uint32_t link : {2 * edge, 2 * edge + 1})
      for (const uint32_t id : flows_.on(nodes + link)) cut_.push_back(id);
  if (cut_.empty()) return;
  std::sort(cut_.begin(), cut_.end());
  cut_.erase(std::unique(cut_.begin(), cut_.end()), cut_.end());
  watch_stale(sim);  // their kFlowEnd events are stale from now on
  for (const uint32_t slot : cut_) {
    const Slot& s = messages_[slot];
    const uint32_t hop = failures_.first_failed_hop(s);
    DLSIM_CHECK(s.stage == Stage::kFlow && hop != Slot::kNotLost,
                "slot {} cut by a failure that is not on its route", slot);
    flows_.abort(sim, slot);
    record_route(s, hop, s.lost_hop);
    drop_flow_message(sim, slot, DropReason::kLinkDown);
  }
}

// One event at the next state change, whichever link it is: while flows are active the network
// looks at every change as it happens (otherwise failures are applied lazily). Without failures
// there is no next change and nothing is scheduled.
template <class F>
void FlowTransport<F>::schedule_change(Simulator& sim) {
  const SimTime at = failures_.next_change();
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
template <class F>
bool FlowTransport<F>::lost_in_propagation(Simulator& sim, uint32_t slot) {
  fail_flows(sim);
  const Slot& s = messages_[slot];
  const uint32_t hop = failures_.first_failed_hop(s);
  if (hop == Slot::kNotLost) return false;
  record_route(s, hop, s.lost_hop);
  messages_.drop(sim, slot, DropReason::kLinkDown);
  return true;
}

// Link counters (link.hpp: sent = delivered + dropped + in flight) along s's route, up to and
// including hop `last`: the links before `failed_hop` delivered it; that link and the later ones
// lost it, except hop s.lost_hop, whose loss draw already counted it.
template <class F>
void FlowTransport<F>::record_route(const Slot& s, uint32_t failed_hop, uint32_t last) {
  const uint64_t bytes = messages_.wire_bytes(s);
  const Router& router = wires_.router();
  uint32_t next = s.next_hop;
  for (uint32_t link = s.link, hop = 0; link != kNoLink && hop <= last;
       link = router.hop(next++), ++hop) {
    if (hop < failed_hop)
      wires_.link(link).record_delivery(bytes);
    else if (hop != s.lost_hop)
      wires_.link(link).record_loss(bytes);
  }
}

template <class F>
bool FlowTransport<F>::stale_event(const void* self, const Event& e) {
  const auto& t = *static_cast<const FlowTransport*>(self);
  if (e.kind() == EventKind::kFlowEnd) return t.flows_.stale(e);
  // A change event counts only while flows are active: an idle network holds no sync round
  // open (and, busy again, schedules a new one: start_flow).
  return !t.change_pending_ || e.id() != t.change_seq_ || t.flows_.active_count() == 0;
}

}  // namespace

std::unique_ptr<Transport> make_flow_transport(const NetworkConfig& config,
                                               const topo::Graph& graph, uint64_t seed,
                                               Wires& wires, Messages& messages) {
  return make_with_failures<FlowTransport>(config, graph, seed, wires, messages);
}

}  // namespace dlsim
