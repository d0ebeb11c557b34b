#include "sim/network/network.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace dlsim {
namespace {

std::vector<Serializer> make_nics(uint32_t n, uint64_t all_bps, const std::vector<uint64_t>& each,
                                  const char* what) {
  DLSIM_CHECK(each.empty() || each.size() == n, "{} per agent: {} entries for {} agents", what,
              each.size(), n);
  std::vector<Serializer> nics;
  nics.reserve(n);
  for (uint32_t i = 0; i < n; ++i) nics.emplace_back(each.empty() ? all_bps : each[i]);
  return nics;
}

}  // namespace

Network::Network(topo::Graph physical, const NetworkConfig& config, uint64_t seed)
    : graph_(std::move(physical)),
      header_bytes_(config.header_bytes),
      uplinks_(make_nics(graph_.node_count(), config.nic_uplink_bps,
                         config.nic_uplink_bps_per_agent, "NIC uplink")),
      downlinks_(make_nics(graph_.node_count(), config.nic_downlink_bps,
                           config.nic_downlink_bps_per_agent, "NIC downlink")),
      router_(graph_),
      buffers_(config.send_buffer, graph_.node_count()),
      load_(graph_.node_count() + 2 * static_cast<uint32_t>(graph_.edges().size())) {
  const topo::Graph& graph = graph_;
  links_.reserve(2 * graph.edges().size());
  link_target_.reserve(2 * graph.edges().size());
  for (const topo::Edge& e : graph.edges()) {
    const LinkSpec spec{e.latency, e.bandwidth_bps, config.loss_probability, config.jitter};
    links_.emplace_back(spec, RandomStream(seed, "link", links_.size()));
    link_target_.push_back(e.v);
    links_.emplace_back(spec, RandomStream(seed, "link", links_.size()));
    link_target_.push_back(e.u);
  }
  if (config.complete_underlay) {
    DLSIM_CHECK(graph.edges().empty() && config.sharing == Sharing::kFifo &&
                    config.failures.kind == FailureKind::kNone,
                "an implicit complete underlay over a graph with edges, maxmin or link failures");
    complete_.emplace(graph.node_count(),
                      LinkSpec{config.complete_underlay->latency,
                               config.complete_underlay->bandwidth_bps, config.loss_probability,
                               config.jitter},
                      seed);
  }
  if (config.failures.kind != FailureKind::kNone) {
    failures_.emplace(config.failures, graph_, seed);
    router_.avoid(failures_->down_edges());
  }
  out_begin_.assign(graph.node_count() + 1, 0);
  out_.reserve(links_.size());
  for (uint32_t i = 0; i < graph.node_count(); ++i) {
    for (uint32_t j : graph.neighbors(i)) out_.push_back(OutLink{j, directed_link(graph, i, j)});
    out_begin_[i + 1] = static_cast<uint32_t>(out_.size());
  }
  if (config.sharing == Sharing::kMaxMin) start_sharing(config.send_buffer);
}

uint32_t Network::find_link(uint32_t from, uint32_t to) const {
  if (complete_) return kCompleteLink;
  const OutLink* first = out_.data() + out_begin_[from];
  const OutLink* last = out_.data() + out_begin_[from + 1];
  const OutLink* it =
      std::lower_bound(first, last, to, [](const OutLink& o, uint32_t v) { return o.to < v; });
  return it != last && it->to == to ? it->link : kNoLink;
}

SendResult Network::offer(Simulator& sim, AgentId from, AgentId to, uint64_t size_bytes,
                          Buffering buffering) {
  DLSIM_CHECK(from != to && from.value < graph_.node_count() && to.value < graph_.node_count(),
              "message from {} to {} among {} agents", from.value, to.value, graph_.node_count());
  if (failures_) fail_flows(sim);
  uint32_t link = find_link(from.value, to.value);
  uint32_t next_hop = Router::kEmptyRoute;
  if (link == kNoLink || (failures_ && failures_->down(link >> 1))) {
    const uint32_t route = router_.route(from.value, to.value);
    link = router_.hop(route);
    next_hop = route + 1;
  }
  const SimTime now = sim.now();
  const uint64_t bytes = size_bytes + header_bytes_;
  Serializer& uplink = uplinks_[from.value];
  watch_load(sim, from, to, link, bytes);
  // Under maxmin every message starts at once, at its share of the bandwidth.
  const SimTime start =
      flows_ ? now
             : max(now, uplink.enabled() ? uplink.busy_until() : link_busy_until(from, to, link));
  const SendBuffers::Decision decision =
      flows_ ? flow_buffers_->offer(from.value, to.value, bytes, buffering, next_slot())
             : buffers_.offer(now, from.value, to.value, bytes, start, buffering, next_slot());
  const MessageSignal offered{now, from, to, bytes};
  if (decision.verdict != SendBuffers::Verdict::kEnter) {
    const bool superseded = decision.verdict == SendBuffers::Verdict::kSupersede;
    listener_->message_discarded(offered,
                                 superseded ? BufferDiscard::kSuperseded : BufferDiscard::kDropped);
    if (!superseded) return {0, SendOutcome::kDropped};
    if (decision.slot != SendBuffers::kLostSlot) slots_[decision.slot].message.sent_at = now;
    return {decision.slot, SendOutcome::kSuperseded};
  }
  const uint32_t slot = allocate_slot();
  DLSIM_CHECK(slot == decision.slot, "slot {} given, {} expected", slot, decision.slot);
  Slot& s = slots_[slot];
  s.message = NetMessage{from, to, size_bytes, now};
  s.link = link;
  s.next_hop = next_hop;
  listener_->message_sent(signal(sim, s));
  if (start > now) listener_->send_buffers_hold(now, buffers_.queued_bytes());  // it grew
  if (flows_) {
    start_flow(sim, slot);
  } else if (uplink.enabled()) {
    s.stage = Stage::kUplink;
    sim.schedule_at(uplink.finish(now, bytes), EventKind::kNicRelease, from, slot);
  } else {
    enter_link(sim, slot);
    if (!in_flight(slot) && start > now) buffers_.lost_at_once(from.value, to.value, slot);
  }
  return {slot, SendOutcome::kSent};
}

bool Network::handle(Simulator& sim, const Event& event) {
  switch (event.kind()) {
    case EventKind::kNicRelease:
      DLSIM_CHECK(slots_[event.payload].stage == Stage::kUplink, "slot {} not in an uplink",
                  event.payload);
      if (failures_) {
        Slot& s = slots_[event.payload];
        detour_if_down(sim.now(), s, s.message.from.value);
      }
      enter_link(sim, event.payload);
      return true;
    case EventKind::kLinkArrival:
      on_link_arrival(sim, event);
      return true;
    case EventKind::kDelivery:
      return on_delivery(sim, event.payload);
    case EventKind::kFlowEnd:
      DLSIM_CHECK(flows_ != nullptr, "a flow event without network.sharing \"maxmin\"");
      watch_stale(sim);
      if (flows_->end(sim, event)) finish_flow(sim, event.payload);
      return true;
    case EventKind::kLinkChange:
      on_link_change(sim, event);
      return true;
    default:
      return false;
  }
}

void Network::enter_link(Simulator& sim, uint32_t slot) {
  Slot& s = slots_[slot];
  const uint64_t bytes = wire_bytes(s);
  if (failures_) {
    follow_failures(sim.now());
    if (failures_->down(s.link >> 1)) {
      listener_->message_dropped(signal(sim, s), DropReason::kLinkDown);
      free_slot(slot);
      return;
    }
    s.entered = sim.now();
  }
  const Link::Transfer transfer =
      complete_ ? complete_->offer(sim.now(), s.message.from.value, s.message.to.value, bytes)
                : links_[s.link].offer(sim.now(), bytes);
  if (transfer.lost) {
    listener_->message_dropped(signal(sim, s), DropReason::kLoss);
    free_slot(slot);
    return;
  }
  s.stage = Stage::kOnLink;
  const AgentId to = s.message.to;
  // The last link of a message to an agent without downlink ends in the delivery itself: one
  // event per hop, as ns-3's channel schedules the receive at the far device.
  if (router_.hop(s.next_hop) == kNoLink && !downlinks_[to.value].enabled()) {
    sim.schedule_at(transfer.arrival, EventKind::kDelivery, to, slot);
  } else {
    const AgentId far = complete_ ? to : AgentId{link_target_[s.link]};
    sim.schedule_at(transfer.arrival, EventKind::kLinkArrival, far, slot);
  }
}

void Network::on_link_arrival(Simulator& sim, const Event& event) {
  const uint32_t slot = event.payload;
  Slot& s = slots_[slot];
  DLSIM_CHECK(s.stage == Stage::kOnLink, "slot {} arrived but is not on a link", slot);
  if (lost_to_failure(sim, slot)) return;
  record_delivery(s);
  const uint32_t next = router_.hop(s.next_hop);
  if (next != kNoLink) {
    const uint32_t here = complete_ ? s.message.to.value : link_target_[s.link];
    s.link = next;
    ++s.next_hop;
    if (failures_) detour_if_down(sim.now(), s, here);
    enter_link(sim, slot);
    return;
  }
  const AgentId to = s.message.to;
  s.stage = Stage::kDownlink;
  sim.schedule_at(downlinks_[to.value].finish(sim.now(), wire_bytes(s)), EventKind::kDelivery, to,
                  slot);
}

bool Network::on_delivery(Simulator& sim, uint32_t slot) {
  Slot& s = slots_[slot];
  if (s.stage == Stage::kOnLink) {
    if (lost_to_failure(sim, slot)) return true;
    record_delivery(s);
  } else if (s.stage == Stage::kPropagating) {
    if (lost_in_propagation(sim, slot)) return true;
    record_route_deliveries(s, kNotLost);
  } else {
    DLSIM_CHECK(s.stage == Stage::kDownlink, "slot {} delivered twice or never sent", slot);
  }
  if (!offline_.empty() && offline_[s.message.to.value]) {
    listener_->message_dropped(signal(sim, s), DropReason::kOffline);
    free_slot(slot);
    return true;
  }
  s.stage = Stage::kArrived;
  listener_->message_delivered(signal(sim, s));
  return false;
}

void Network::set_online(AgentId node, bool online) {
  if (offline_.empty()) offline_.assign(graph_.node_count(), 0);
  offline_[node.value] = online ? 0 : 1;
}

void Network::release(uint32_t slot) {
  DLSIM_CHECK(slot < slots_.size() && slots_[slot].stage == Stage::kArrived,
              "release of slot {}, which is not a delivered message (was its kDelivery event "
              "passed to Network::handle?)",
              slot);
  free_slot(slot);
}

uint32_t Network::allocate_slot() {
  if (free_slots_.empty()) {
    slots_.emplace_back();
    return static_cast<uint32_t>(slots_.size() - 1);
  }
  const uint32_t slot = free_slots_.back();
  free_slots_.pop_back();
  return slot;
}

void Network::free_slot(uint32_t slot) {
  slots_[slot].stage = Stage::kFree;
  free_slots_.push_back(slot);
}

LinkId Network::link_between(AgentId from, AgentId to) const {
  DLSIM_CHECK(from.value < graph_.node_count() && to.value < graph_.node_count(),
              "agents {} and {} among {}", from.value, to.value, graph_.node_count());
  DLSIM_CHECK(!complete_, "link_between() on an implicit complete underlay, which has no links");
  const uint32_t link = find_link(from.value, to.value);
  DLSIM_CHECK(link != kNoLink, "agents {} and {} are not neighbours", from.value, to.value);
  return LinkId{link};
}

void Network::archive(StateArchive& ar) {
  ar.expect<uint64_t>(links_.size(), "another network: link count");
  for (Link& l : links_) l.archive(ar);
  for (auto* nics : {&uplinks_, &downlinks_}) {
    ar.expect<uint64_t>(nics->size(), "another network: NIC count");
    for (Serializer& s : *nics) {
      SimTime busy_until = s.busy_until();
      ar.value(busy_until);
      if (ar.loading()) s.resume_busy_until(busy_until);
    }
  }
  ar.vector(slots_);
  ar.vector(free_slots_);
  if (ar.loading())
    for (uint32_t f : free_slots_)
      if (f >= slots_.size()) ar.fail("a free message slot out of range");
  buffers_.archive(ar);
  load_.archive(ar);
  router_.archive(ar);
  ar.value(compacted_store_);
  if (failures_) failures_->archive(ar);
  if (ar.loading())  // the router is loaded: the messages' routes can be checked against it
    for (const Slot& s : slots_)
      if (s.stage != Stage::kFree && s.next_hop >= router_.store_size())
        ar.fail("a message in flight on a route out of the route store");
  if (flows_) flows_->archive(ar);
  if (flows_ && failures_) {  // the link change event that counts (the simulator saves it)
    ar.value(change_pending_);
    ar.value(change_seq_);
    ar.value(change_at_);
  }
  if (flow_buffers_) flow_buffers_->archive(ar);
  if (complete_) complete_->archive(ar);
}

}  // namespace dlsim
