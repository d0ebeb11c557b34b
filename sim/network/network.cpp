// The Network façade (network.hpp): checks and signals common to every transport, the offline
// nodes, and the checkpoint of its parts.
#include "sim/network/network.hpp"

#include "sim/core/error.hpp"

namespace dlsim {

Network::Network(topo::Graph physical, const NetworkConfig& config, uint64_t seed)
    : graph_(std::move(physical)),
      messages_(config.header_bytes),
      wires_(graph_, config, seed),
      transport_(config.sharing == Sharing::kMaxMin
                     ? make_flow_transport(config, graph_, seed, wires_, messages_)
                     : make_fifo_transport(config, graph_, seed, wires_, messages_)),
      links_fail_(config.failures.kind != FailureKind::kNone) {}

SendResult Network::offer(Simulator& sim, AgentId from, AgentId to, uint64_t size_bytes,
                          Buffering buffering) {
  DLSIM_CHECK(from != to && from.value < graph_.node_count() && to.value < graph_.node_count(),
              "message from {} to {} among {} agents", from.value, to.value, graph_.node_count());
  const FirstHop first = transport_->route(sim, from.value, to.value);
  const SimTime now = sim.now();
  const uint64_t bytes = size_bytes + messages_.header_bytes();
  SignalListener& listener = messages_.listener();
  wires_.watch_load(sim, listener, from, to, first.link, bytes);
  SimTime start;
  const SendBuffers::Decision decision = transport_->admit(
      now, from.value, to.value, bytes, first.link, buffering, messages_.next(), &start);
  if (decision.verdict != SendBuffers::Verdict::kEnter) {
    const bool superseded = decision.verdict == SendBuffers::Verdict::kSupersede;
    listener.message_discarded(MessageSignal{now, from, to, bytes},
                               superseded ? BufferDiscard::kSuperseded : BufferDiscard::kDropped);
    if (!superseded) return {0, SendOutcome::kDropped};
    if (decision.slot != SendBuffers::kLostSlot) messages_[decision.slot].message.sent_at = now;
    return {decision.slot, SendOutcome::kSuperseded};
  }
  const uint32_t slot = messages_.allocate();
  DLSIM_CHECK(slot == decision.slot, "slot {} given, {} expected", slot, decision.slot);
  Slot& s = messages_[slot];
  s.message = NetMessage{from, to, size_bytes, now};
  s.link = first.link;
  s.next_hop = first.next_hop;
  listener.message_sent(messages_.signal(sim, s));
  transport_->launch(sim, slot, start);
  return {slot, SendOutcome::kSent};
}

bool Network::on_delivery(Simulator& sim, uint32_t slot) {
  if (transport_->lost_on_arrival(sim, slot)) return true;
  Slot& s = messages_[slot];
  if (!offline_.empty() && offline_[s.message.to.value]) {
    messages_.drop(sim, slot, DropReason::kOffline);
    return true;
  }
  s.stage = Stage::kArrived;
  messages_.listener().message_delivered(messages_.signal(sim, s));
  return false;
}

void Network::set_online(AgentId node, bool online) {
  if (offline_.empty()) offline_.assign(graph_.node_count(), 0);
  offline_[node.value] = online ? 0 : 1;
}

void Network::release(uint32_t slot) {
  DLSIM_CHECK(slot < messages_.slots().size() && messages_[slot].stage == Stage::kArrived,
              "release of slot {}, which is not a delivered message (was its kDelivery event "
              "passed to Network::handle?)",
              slot);
  messages_.free(slot);
}

void Network::hand_over(uint32_t slot, HandedOverMessage& out) {
  DLSIM_CHECK(slot < messages_.slots().size() && messages_[slot].stage == Stage::kOnLink,
              "slot {} handed to another rank is not on a link", slot);
  out.slot = messages_[slot];
  out.rest.clear();
  const Router& router = wires_.router();
  for (uint32_t h = out.slot.next_hop; router.hop(h) != kNoLink; ++h)
    out.rest.push_back(router.hop(h));
  messages_.free(slot);
}

uint32_t Network::take_over(const HandedOverMessage& m) {
  DLSIM_CHECK(m.slot.stage == Stage::kOnLink, "a message from another rank not on a link");
  const uint32_t slot = messages_.allocate();
  Slot& s = messages_[slot];
  s = m.slot;
  s.next_hop = m.rest.empty() ? Router::kEmptyRoute : store_route_rest(s, m.rest);
  return slot;
}

// Where in the route store the links `rest` follow s.link: at the end of route(from, to) when
// they are its last links, as they always are unless links fail; else in a copy added to it.
uint32_t Network::store_route_rest(const Slot& s, std::span<const uint32_t> rest) {
  Router& router = wires_.router();
  const uint32_t route = router.route(s.message.from.value, s.message.to.value);
  uint32_t end = route;
  while (router.hop(end) != kNoLink) ++end;
  const auto k = static_cast<uint32_t>(rest.size());
  if (end - route > k && router.hop(end - k - 1) == s.link) {
    uint32_t i = 0;
    while (i < k && router.hop(end - k + i) == rest[i]) ++i;
    if (i == k) return end - k;
  }
  DLSIM_CHECK(links_fail_,
              "a message from another rank on link {}, off its route from {} to {}, though no "
              "link fails",
              s.link, s.message.from.value, s.message.to.value);
  return router.add_route(rest);
}

LinkId Network::link_between(AgentId from, AgentId to) const {
  DLSIM_CHECK(from.value < graph_.node_count() && to.value < graph_.node_count(),
              "agents {} and {} among {}", from.value, to.value, graph_.node_count());
  DLSIM_CHECK(!wires_.complete(),
              "link_between() on an implicit complete underlay, which has no links");
  const uint32_t link = wires_.find_link(from.value, to.value);
  DLSIM_CHECK(link != kNoLink, "agents {} and {} are not neighbours", from.value, to.value);
  return LinkId{link};
}

void Network::archive(StateArchive& ar) {
  wires_.archive(ar);
  messages_.archive(ar);
  transport_->archive(ar);
  if (ar.loading())  // the router is loaded: the messages' routes can be checked against it
    for (const Slot& s : messages_.slots())
      if (s.stage != Stage::kFree && s.next_hop >= wires_.router().store_size())
        ar.fail("a message in flight on a route out of the route store");
}

}  // namespace dlsim
