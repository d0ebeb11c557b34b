// The flows of network.sharing "maxmin": every message in transmission is one flow over the
// resources of its whole route (sender's uplink, links, receiver's downlink), each flow at its
// max-min fair rate (fair_share.hpp), recomputed whenever a flow starts or ends, over the flows
// that share a resource with it directly or through other flows (its connected component) only.
//
// Progress and rounding: a flow's bits left are a double, advanced only when its rate changes
// (bits -= rate * elapsed); its end is then now + ceil(bits * 1e9 / rate) ns, after taking off a
// relative 1e-12 so that an exact division (16,000.000000001 ns) is not pushed a whole ns later by
// floating-point error. When its end event fires, the flow is done (its bits count as 0).
// One kFlowEnd event per flow (payload = its id, agent as given): when a rate goes up, the end
// moves earlier and a new event is scheduled, the old one being recognised as stale by its
// id (Event::id()) and dropped unseen by the simulator (Simulator::set_stale_filter, which the
// owner registers): it moves no clock, so a sync round still ends with its last delivery. The
// queue thus holds at most a flow's pending ends; when a rate goes down, the event stays and, when
// it fires early, is moved to the new end. Every decision depends only on the flows (ids, sizes,
// routes) and the event order, never on container order: components are solved in resource and flow
// id order.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/core/event.hpp"
#include "sim/core/simulator.hpp"
#include "sim/core/state_archive.hpp"
#include "sim/network/fair_share.hpp"

namespace dlsim {

class SharedFlows {
 public:
  /// One capacity per resource, bits/s (0: the resource does not exist and carries no flow).
  explicit SharedFlows(std::vector<double> capacity_bps);

  /// Starts flow `id` (not active; ids are small: the network's message slots) of `bits` (> 0)
  /// over the distinct existing resources `route` at sim.now(); its end is a kFlowEnd event
  /// to `agent` with payload id. Rates of the flows sharing its component change at once.
  void start(Simulator& sim, uint32_t id, uint64_t bits, std::span<const uint32_t> route,
             AgentId agent);
  /// For a kFlowEnd event: true when flow e.payload is done (it has left its resources and the
  /// others' rates are updated); false when the event was stale or moved to a later end.
  bool end(Simulator& sim, const Event& e);
  /// Ends active flow `id` now, before its last bit is out (its message was lost to a failed
  /// link): it leaves its resources and the others' rates are updated; its kFlowEnd is stale.
  void abort(Simulator& sim, uint32_t id);
  /// Whether a kFlowEnd event is obsolete (its flow got an earlier end event, or has ended).
  bool stale(const Event& e) const {
    const uint32_t id = e.payload;
    return !active(id) || !flows_[id].has_event || flows_[id].event_seq != e.id();
  }
  /// Whether flow `id` is active (started and not ended).
  bool active(uint32_t id) const { return id < flows_.size() && !flows_[id].route.empty(); }
  /// How many flows are active.
  size_t active_count() const { return active_; }
  /// The active flows crossing `resource`, in no particular order.
  std::span<const uint32_t> on(uint32_t resource) const { return on_[resource]; }
  /// Flow `id`'s current rate, bits/s, and its scheduled end. Precondition: active(id).
  double rate_bps(uint32_t id) const { return flows_[id].rate_bps; }
  SimTime end_at(uint32_t id) const { return flows_[id].end_at; }

  void archive(StateArchive& ar);

 private:
  struct Flow {
    double bits_left = 0;  // as of `updated`
    double rate_bps = 0;
    SimTime updated{};
    SimTime end_at{};
    SimTime event_at{};      // the time of the valid kFlowEnd event (<= end_at)
    uint64_t event_seq = 0;  // its id (Event::id())
    bool has_event = false;
    AgentId agent;
    std::vector<uint32_t> route;  // empty: inactive; kept between flows (no allocation)
  };

  void remove(Simulator& sim, uint32_t id);
  void recompute(Simulator& sim, std::span<const uint32_t> seeds);
  void collect(std::span<const uint32_t> seeds);
  void apply(Simulator& sim, uint32_t id, double rate_bps);

  std::vector<double> capacity_bps_;
  std::vector<std::vector<uint32_t>> on_;  // per resource: the active flows crossing it
  std::vector<Flow> flows_;                // by id
  size_t active_ = 0;
  MaxMinSolver solver_;
  // Scratch of recompute(), kept to avoid allocating per flow.
  std::vector<uint8_t> resource_seen_, flow_seen_;
  std::vector<uint32_t> resources_, members_, local_, begin_, routes_, seeds_;
  std::vector<double> capacity_, rates_;
};

}  // namespace dlsim
