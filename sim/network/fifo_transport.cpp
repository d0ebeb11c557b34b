// FIFO sharing (network.hpp, "Exact timing"): each message serialises through its sender's
// uplink, then each link of its route, then its receiver's downlink, one after another and in
// the order messages reach each, with one event per hop; the send buffers hold a message until
// it starts on its first serialiser (send_buffers.hpp). Failures come in as the policy F
// (failing_links.hpp): a message is checked at each link it enters and at each arrival.
#include <memory>

#include "sim/core/error.hpp"
#include "sim/network/transport.hpp"

namespace dlsim {
namespace {

template <class F>
class FifoTransport final : public Transport {
 public:
  FifoTransport(Wires& wires, Messages& messages, const SendBufferConfig& send_buffer, F failures)
      : wires_(wires),
        messages_(messages),
        buffers_(send_buffer, wires.node_count()),
        failures_(std::move(failures)) {}

  FirstHop route(Simulator& sim, uint32_t from, uint32_t to) override {
    failures_.follow(sim.now());
    return wires_.first_hop(from, to, failures_);
  }

  SendBuffers::Decision admit(SimTime now, uint32_t from, uint32_t to, uint64_t bytes,
                              uint32_t link, Buffering buffering, uint32_t slot,
                              SimTime* start) override {
    const Serializer& uplink = wires_.uplink(from);
    *start = max(now, uplink.enabled() ? uplink.busy_until() : wires_.busy_until(from, to, link));
    return buffers_.offer(now, from, to, bytes, *start, buffering, slot);
  }

  void launch(Simulator& sim, uint32_t slot, SimTime start) override {
    Slot& s = messages_[slot];
    const SimTime now = sim.now();
    if (start > now) {
      const AgentId from = s.message.from;
      messages_.listener().send_buffers_hold(from, now, buffers_.queued_bytes(from.value));
    }
    Serializer& uplink = wires_.uplink(s.message.from.value);
    if (uplink.enabled()) {
      s.stage = Stage::kUplink;
      sim.schedule_at(uplink.finish(now, messages_.wire_bytes(s)), EventKind::kNicRelease,
                      s.message.from, slot);
      return;
    }
    const AgentId from = s.message.from, to = s.message.to;
    enter_link(sim, slot);
    if (!messages_.in_flight(slot) && start > now) buffers_.lost_at_once(from.value, to.value, slot);
  }

  void handle(Simulator& sim, const Event& event) override {
    if (event.kind() == EventKind::kLinkArrival) {
      on_link_arrival(sim, event.payload);
      return;
    }
    DLSIM_CHECK(event.kind() == EventKind::kNicRelease, "a flow event under FIFO sharing");
    Slot& s = messages_[event.payload];
    DLSIM_CHECK(s.stage == Stage::kUplink, "slot {} not in an uplink", event.payload);
    failures_.detour_if_down(sim.now(), s, s.message.from.value);
    enter_link(sim, event.payload);
  }

  bool lost_on_arrival(Simulator& sim, uint32_t slot) override {
    const Slot& s = messages_[slot];
    if (s.stage == Stage::kOnLink) {
      if (lost_to_failure(sim, slot)) return true;
      wires_.record_delivery(s.link, messages_.wire_bytes(s));
      return false;
    }
    DLSIM_CHECK(s.stage == Stage::kDownlink, "slot {} delivered twice or never sent", slot);
    return false;
  }

  SimTime blocked_until(uint32_t node) const override { return buffers_.blocked_until(node); }
  bool link_down(uint32_t link) const override { return failures_.down(link); }
  SimTime leaves_buffer_at(uint32_t slot) const override {
    const NetMessage& m = messages_[slot].message;
    return buffers_.leaves_at(m.from.value, m.to.value, slot);
  }

  void archive(StateArchive& ar) override {
    buffers_.archive(ar);
    failures_.archive(ar);
  }

 private:
  void enter_link(Simulator& sim, uint32_t slot);
  void on_link_arrival(Simulator& sim, uint32_t slot);
  bool lost_to_failure(Simulator& sim, uint32_t slot);

  Wires& wires_;
  Messages& messages_;
  SendBuffers buffers_;
  F failures_;
};

template <class F>
void FifoTransport<F>::enter_link(Simulator& sim, uint32_t slot) {
  Slot& s = messages_[slot];
  if (!failures_.enter(sim.now(), s)) {
    messages_.drop(sim, slot, DropReason::kLinkDown);
    return;
  }
  const AgentId to = s.message.to;
  const Link::Transfer transfer =
      wires_.offer(sim.now(), s.message.from.value, to.value, s.link, messages_.wire_bytes(s));
  if (transfer.lost) {
    messages_.drop(sim, slot, DropReason::kLoss);
    return;
  }
  s.stage = Stage::kOnLink;
  // The last link of a message to an agent without downlink ends in the delivery itself: one
  // event per hop, as ns-3's channel schedules the receive at the far device.
  if (wires_.router().hop(s.next_hop) == kNoLink && !wires_.downlink(to.value).enabled()) {
    sim.schedule_at(transfer.arrival, EventKind::kDelivery, to, slot);
  } else {
    const AgentId far{wires_.far_end(s.link, to.value)};
    sim.schedule_at(transfer.arrival, EventKind::kLinkArrival, far, slot);
  }
}

template <class F>
void FifoTransport<F>::on_link_arrival(Simulator& sim, uint32_t slot) {
  Slot& s = messages_[slot];
  DLSIM_CHECK(s.stage == Stage::kOnLink, "slot {} arrived but is not on a link", slot);
  if (lost_to_failure(sim, slot)) return;
  wires_.record_delivery(s.link, messages_.wire_bytes(s));
  const uint32_t next = wires_.router().hop(s.next_hop);
  if (next != kNoLink) {
    const uint32_t here = wires_.far_end(s.link, s.message.to.value);
    s.link = next;
    ++s.next_hop;
    failures_.detour_if_down(sim.now(), s, here);
    enter_link(sim, slot);
    return;
  }
  const AgentId to = s.message.to;
  s.stage = Stage::kDownlink;
  sim.schedule_at(wires_.downlink(to.value).finish(sim.now(), messages_.wire_bytes(s)),
                  EventKind::kDelivery, to, slot);
}

// Whether the message on its link was lost because the link failed after it entered; if so it
// is dropped (kLinkDown) and its slot freed.
template <class F>
bool FifoTransport<F>::lost_to_failure(Simulator& sim, uint32_t slot) {
  failures_.follow(sim.now());
  const Slot& s = messages_[slot];
  if (!failures_.failed_after(s.link, s.entered)) return false;
  wires_.link(s.link).record_loss(messages_.wire_bytes(s));
  messages_.drop(sim, slot, DropReason::kLinkDown);
  return true;
}

}  // namespace

std::unique_ptr<Transport> make_fifo_transport(const NetworkConfig& config,
                                               const topo::Graph& graph, uint64_t seed,
                                               Wires& wires, Messages& messages) {
  return make_with_failures<FifoTransport>(config, graph, seed, wires, messages);
}

}  // namespace dlsim
