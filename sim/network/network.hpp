// The network: moves byte counts between the nodes of the physical graph over its links and
// schedules their deliveries; it never sees a model (the agent layer keeps a message's content,
// indexed by the message's slot). What happens to each message (sent, dropped, delivered) is
// reported to a SignalListener (sim/core/signals.hpp); the network keeps no traffic counters.
// Each undirected edge is two directed Links. Messages to neighbours take the direct link;
// others follow shortest-latency routes (Router), store-and-forward with one event per hop, so
// every link serves its messages in the order they actually reach it. Optional per-agent NICs:
// an uplink every message an agent sends serialises through before its first link, and a
// downlink every message it receives serialises through after its last link. Messages that an
// agent only forwards use neither of its NICs.
//
// Events (payload = message slot): kNicRelease (agent = sender: the message left the uplink),
// kLinkArrival (agent = the node at the far end of the link) and kDelivery (agent = receiver:
// the message has fully arrived). The first two are the network's own; kDelivery is for the
// agent layer, which reads message(slot) and then calls release(slot).
//
// Exact timing with S = size + header bytes and T_x(S) = ceil(8e9 S / bandwidth_x) ns:
//   link:     arrival = max(t, busy_until) + T_link(S) + latency [+ jitter]
//   uplink:   first link entered at max(t, up.busy_until) + T_up(S)
//   downlink: delivery at max(last arrival, down.busy_until) + T_down(S)
// so a broadcast to d idle neighbours through an uplink slower than the links delivers its k-th
// message (k = 1..d) at k T_up(S) + T_link(S) + latency.
//
// network.sharing "maxmin" (Sharing::kMaxMin) replaces the FIFO serialisers with flows
// (shared_flows.hpp): a message is one flow over its whole route at once, the sender's uplink,
// every link and the receiver's downlink (those that exist), at its max-min fair share of each,
// recomputed whenever a flow starts or ends; as SimGrid's flow models, with latency added after:
//   delivery = (the flow's last bit is out, whole ns rounded up) + sum of the route's latencies
//              [+ each link's jitter draw]
// Alone on its route a message therefore takes ceil(8e9 S / min bandwidth) + latencies: the FIFO
// time for one hop without NICs, less than FIFO's store-and-forward sum with hops or NICs (the
// route pipelines). Loss and jitter are drawn for every link in route order when the flow
// starts; a message lost on a link is a flow up to that link only and is dropped when its bits
// are out. Events: kFlowEnd (agent = sender, payload = slot), then kDelivery after the
// propagation delay. A message enters its flow at once; its send buffer holds it until its flow
// ends (flow_buffers.hpp), and a sender blocked by a full one gets a kSenderReady event.
//
// Link failures (link_failures.hpp, network.failures): a message that enters a link that is
// down is dropped (DropReason::kLinkDown); one on a link when it fails is lost at its arrival
// time (kLinkDown too); routes avoid down links when another path exists, and a message to a
// neighbour whose link is down takes such a detour. Routes are chosen when a message is sent; a
// message on its way keeps its route unless the next link is down when it gets there (at a
// node, or out of its sender's uplink): it then takes the current route from where it is.
// Under maxmin a message is one flow holding its whole route at once, so: its route is chosen at
// send time (one crossing a down link, with no way around, drops it then); a link that fails
// under flows loses them at that instant (kLinkDown; each leaves SharedFlows then, the flows that
// shared its resources get new rates from then, its send buffer is told as at a flow's end; the
// links before the failed one count it delivered, that one and the later ones lost), in
// ascending slot order; a message whose bits are out (propagating) is lost at its would-be
// delivery when a link of its route failed after its flow started (Slot::entered). To see each
// change as it happens the network keeps one kLinkChange event (agent 0, payload 0) at the next
// state change while flows are active: its stale filter (with kFlowEnd's) drops it unseen once
// none is, so it never holds a sync round open; a flow starting on an idle network schedules a
// new one.
//
// An implicit complete underlay (NetworkConfig::complete_underlay, complete_links.hpp) has no
// Link objects: link(), link_between() and link_count() are for materialised graphs only.
//
// Send buffers (send_buffers.hpp): a message waits in its (sender, destination) buffer from its
// offer until it starts on its first serialiser; offer() applies network.when_full when the
// buffer is full. The timing above is unchanged for every message that enters the wire.
//
// The Network is the façade over three parts: the wires (wires.hpp: links, NICs, routes), the
// messages in their slots (messages.hpp) and a transport (transport.hpp) that moves them: FIFO
// (fifo_transport.cpp) or max-min flows (flow_transport.cpp), each with or without link
// failures (failing_links.hpp), chosen once when the network is built.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "sim/core/event.hpp"
#include "sim/core/signals.hpp"
#include "sim/core/simulator.hpp"
#include "sim/core/state_archive.hpp"
#include "sim/network/link.hpp"
#include "sim/network/messages.hpp"
#include "sim/network/network_config.hpp"
#include "sim/network/router.hpp"
#include "sim/network/send_buffers.hpp"
#include "sim/network/transport.hpp"
#include "sim/network/wires.hpp"
#include "topologies/graph.hpp"

namespace dlsim {

/// What became of an offered message.
enum class SendOutcome : uint8_t {
  kSent,        ///< entered the network in a new slot (it may still have been lost at once)
  kSuperseded,  ///< replaced a waiting message to the same destination: the slot carries it now
  kDropped,     ///< refused by a full send buffer; no slot
};
struct SendResult {
  uint32_t slot = 0;
  SendOutcome outcome = SendOutcome::kSent;
};

/// A message on its way to a node of another rank (one run over MPI ranks,
/// docs/partitioned-runs.md): where it is, and the links after its current one. The rest of the
/// route travels with it: with link failures, the route a message took on its sender's rank
/// (chosen at its send time, or a detour) may not be the one the other rank's router gives now.
struct HandedOverMessage {
  Slot slot;
  std::vector<uint32_t> rest;  ///< the links after slot.link, in order; empty: it is the last

  void archive(StateArchive& ar) {
    ar.value(slot);
    ar.vector(rest);
  }
};

class Network {
 public:
  /// `graph` is the physical network (the agents, and any service node after them); the network
  /// keeps it. Link i gets RandomStream(seed, "link", i); link ids as in router.hpp (edge k
  /// carries links 2k: u->v and 2k+1: v->u, u < v). Signals go to ignore_signals() until
  /// set_listener().
  Network(topo::Graph graph, const NetworkConfig& config, uint64_t seed);
  Network(const Network&) = delete;  // the wires and the transport point into it
  Network& operator=(const Network&) = delete;

  /// Where the network reports what happens to messages; `listener` outlives the network.
  void set_listener(SignalListener& listener) { messages_.set_listener(listener); }

  /// Sends size_bytes from `from` to `to` (!= from) at sim.now(); returns the message slot.
  /// The message is delivered by a kDelivery event, or lost (then its slot is freed at once:
  /// when the first link loses it, the returned slot is already free).
  uint32_t send(Simulator& sim, AgentId from, AgentId to, uint64_t size_bytes) {
    return offer(sim, from, to, size_bytes, Buffering::kEveryMessage).slot;
  }
  /// send() through the sender's send buffer to `to`: when it is full, a kLatestValue message
  /// may supersede the newest waiting one or be dropped (network.when_full); otherwise it is
  /// queued and the sender is blocked until blocked_until(from). A superseded message's slot
  /// carries the new message's content from now on: same size, same timing. When its first link
  /// lost it at once, the new one is lost with it: the slot returned is then not in_flight().
  SendResult offer(Simulator& sim, AgentId from, AgentId to, uint64_t size_bytes,
                   Buffering buffering);
  /// Marks an agent offline (false) or online again: a message that arrives at an offline node
  /// is dropped (DropReason::kOffline) instead of delivered. Every node starts online.
  void set_online(AgentId node, bool online);
  /// When `node`'s send buffers are back within their bound after a "block" (<= now: free).
  /// Under maxmin that time is not known in advance: SimTime::max() while blocked, and a
  /// kSenderReady event (agent = node) comes when it no longer is (flow_buffers.hpp).
  SimTime blocked_until(AgentId node) const { return transport_->blocked_until(node.value); }

  /// Processes kNicRelease, kLinkArrival, kFlowEnd and kLinkChange events and returns true. For
  /// a kDelivery event it signals the delivery and returns false: the agent layer handles it
  /// next (at an offline node it signals a drop, frees the slot and returns true). Any other
  /// kind: returns false. Call it for every event before the agent layer's own handling.
  bool handle(Simulator& sim, const Event& event) {
    switch (event.kind()) {
      case EventKind::kNicRelease:
      case EventKind::kLinkArrival:
      case EventKind::kFlowEnd:
      case EventKind::kLinkChange:
        transport_->handle(sim, event);
        return true;
      case EventKind::kDelivery:
        return on_delivery(sim, event.payload);
      default:
        return false;
    }
  }

  /// The message in `slot`. Precondition: the slot is live (sent and not yet released).
  const NetMessage& message(uint32_t slot) const { return messages_[slot].message; }
  /// Frees a delivered message's slot for reuse. Precondition: its kDelivery went through handle().
  void release(uint32_t slot);
  /// Whether `slot` holds a message: sent, and neither lost nor released. A slot that send()
  /// returned is free at once when the first link lost the message.
  bool in_flight(uint32_t slot) const { return messages_.in_flight(slot); }
  /// Messages sent and neither delivered-and-released nor lost.
  size_t live_messages() const { return messages_.live(); }
  /// Takes the message in `slot` off this process's network into `out`, its slot freed without
  /// a signal: its next event (kLinkArrival or kDelivery) runs on another rank, whose network
  /// takes it over. Precondition: the message is on a link (FIFO sharing).
  void hand_over(uint32_t slot, HandedOverMessage& out);
  /// Installs a message another rank handed over; returns its slot here. The rest of its route
  /// is found in the route store as the end of route(from, to) when it is that (always, unless
  /// links fail), else added to the store, which the failures' compaction keeps bounded.
  uint32_t take_over(const HandedOverMessage& m);
  /// When the content of the message in `slot` is final: when it leaves its send buffer for the
  /// wire (network.when_full "coalesce" may replace a waiting copy by a newer one), SimTime{}
  /// when it is on its way. Its next event comes at least a link's latency after that.
  SimTime content_final_at(uint32_t slot) const { return transport_->leaves_buffer_at(slot); }

  const topo::Graph& graph() const { return graph_; }
  /// The physical neighbours of `node`, ascending, passed to f(uint32_t).
  template <class F>
  void for_each_neighbor(uint32_t node, F f) const {
    if (!wires_.complete()) {
      for (uint32_t j : graph_.neighbors(node)) f(j);
      return;
    }
    for (uint32_t j = 0; j < graph_.node_count(); ++j)
      if (j != node) f(j);
  }
  /// Links of an implicit complete underlay remembered now (complete_links.hpp); 0 otherwise.
  size_t remembered_links() const {
    return wires_.complete() ? wires_.complete()->remembered() : 0;
  }
  uint32_t link_count() const { return wires_.link_count(); }
  /// The directed link from -> to. Precondition: they are neighbours, in a materialised graph.
  LinkId link_between(AgentId from, AgentId to) const;
  const Link& link(LinkId id) const { return wires_.link(id.value); }
  const Serializer& uplink(AgentId agent) const { return wires_.uplink(agent.value); }
  const Serializer& downlink(AgentId agent) const { return wires_.downlink(agent.value); }
  const Router& router() const { return wires_.router(); }
  /// Whether the physical link from -> to is down now (the last time the network looked).
  bool link_down(LinkId link) const { return transport_->link_down(link.value); }

  /// Everything that changes as messages move (links, NICs, live messages, the order free slots
  /// are reused in), for checkpoints; loading expects a network built from the same scenario.
  void archive(StateArchive& ar);

 private:
  bool on_delivery(Simulator& sim, uint32_t slot);  // true: dropped at an offline node
  uint32_t store_route_rest(const Slot& s, std::span<const uint32_t> rest);

  topo::Graph graph_;
  Messages messages_;
  Wires wires_;
  std::unique_ptr<Transport> transport_;
  std::vector<uint8_t> offline_;  // per node, 1 while offline; empty until set_online()
  bool links_fail_;               // network.failures set: routes change during the run
};

}  // namespace dlsim
