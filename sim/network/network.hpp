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
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "sim/core/event.hpp"
#include "sim/core/signals.hpp"
#include "sim/core/simulator.hpp"
#include "sim/network/complete_links.hpp"
#include "sim/network/flow_buffers.hpp"
#include "sim/network/link.hpp"
#include "sim/network/link_failures.hpp"
#include "sim/network/router.hpp"
#include "sim/network/send_buffers.hpp"
#include "sim/network/shared_flows.hpp"
#include "topologies/graph.hpp"

namespace dlsim {

/// How a link or NIC carries the messages that cross it at the same time.
enum class Sharing : uint8_t {
  kFifo,    ///< one after another, in the order they reach it (store-and-forward per hop)
  kMaxMin,  ///< all at once, each flow at its max-min fair share of every resource on its route
};

/// Network-wide settings, plain data (the scenario layer fills it).
struct NetworkConfig {
  double loss_probability = 0.0;  ///< each message on each link is lost with this probability
  SimTime jitter{};               ///< extra propagation delay per message and link, U[0, jitter]
  uint64_t header_bytes = 0;      ///< added to every message's size on the wire
  uint64_t nic_uplink_bps = 0;    ///< every agent's NIC uplink; 0 = none
  uint64_t nic_downlink_bps = 0;  ///< every agent's NIC downlink; 0 = none
  /// Per-agent overrides: empty, or one entry per node (0 = that agent has none).
  std::vector<uint64_t> nic_uplink_bps_per_agent;
  std::vector<uint64_t> nic_downlink_bps_per_agent;
  SendBufferConfig send_buffer;  ///< default: unbounded (the scenario layer sets its bound)
  Sharing sharing = Sharing::kFifo;
  LinkFailureSpec failures;      ///< default: links never fail
  /// Set: the physical graph is complete, every link with this latency and bandwidth (loss and
  /// jitter from above), and kept implicit (complete_links.hpp); the graph given to the Network
  /// then has the nodes and no edges. Only with FIFO sharing and without failures.
  std::optional<LinkSpec> complete_underlay;
};

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

/// What the network knows about a message (the content stays with the agent layer, indexed by
/// the message's slot); valid from send() until release().
struct NetMessage {
  AgentId from;
  AgentId to;
  uint64_t size_bytes = 0;  ///< payload as given to send(), without the header
  SimTime sent_at{};
};

class Network {
 public:
  /// `graph` is the physical network (the agents, and any service node after them); the network
  /// keeps it. Link i gets RandomStream(seed, "link", i); link ids as in router.hpp (edge k
  /// carries links 2k: u->v and 2k+1: v->u, u < v). Signals go to ignore_signals() until
  /// set_listener().
  Network(topo::Graph graph, const NetworkConfig& config, uint64_t seed);
  Network(const Network&) = delete;  // the router points into graph_
  Network& operator=(const Network&) = delete;

  /// Where the network reports what happens to messages; `listener` outlives the network.
  void set_listener(SignalListener& listener) { listener_ = &listener; }

  /// Sends size_bytes from `from` to `to` (!= from) at sim.now(); returns the message slot.
  /// The message is delivered by a kDelivery event, or lost (then its slot is freed at once:
  /// when the first link loses it, the returned slot is already free).
  uint32_t send(Simulator& sim, AgentId from, AgentId to, uint64_t size_bytes) {
    return offer(sim, from, to, size_bytes, Buffering::kEveryMessage).slot;
  }
  /// send() through the sender's send buffer to `to`: when it is full, a kLatestValue message
  /// may supersede the newest waiting one or be dropped (network.when_full); otherwise it is
  /// queued and the sender is blocked until blocked_until(from). A superseded message's slot
  /// (if it was not lost) carries the new message's content from now on: same size, same timing.
  SendResult offer(Simulator& sim, AgentId from, AgentId to, uint64_t size_bytes,
                   Buffering buffering);
  /// Marks an agent offline (false) or online again: a message that arrives at an offline node
  /// is dropped (DropReason::kOffline) instead of delivered. Every node starts online.
  void set_online(AgentId node, bool online);
  /// When `node`'s send buffers are back within their bound after a "block" (<= now: free).
  /// Under maxmin that time is not known in advance: SimTime::max() while blocked, and a
  /// kSenderReady event (agent = node) comes when it no longer is (flow_buffers.hpp).
  SimTime blocked_until(AgentId node) const {
    if (flows_) return flow_buffers_->blocked(node.value) ? SimTime::max() : SimTime{};
    return buffers_.blocked_until(node.value);
  }

  /// Processes kNicRelease, kLinkArrival and kFlowEnd events and returns true. For a kDelivery
  /// event it signals the delivery and returns false: the agent layer handles it next (at an
  /// offline node it signals a drop, frees the slot and returns true). Any other kind: returns
  /// false. Call it for every event before the agent layer's own handling.
  bool handle(Simulator& sim, const Event& event);

  /// The message in `slot`. Precondition: the slot is live (sent and not yet released).
  const NetMessage& message(uint32_t slot) const { return slots_[slot].message; }
  /// Frees a delivered message's slot for reuse. Precondition: its kDelivery went through handle().
  void release(uint32_t slot);
  /// Whether `slot` holds a message: sent, and neither lost nor released. A slot that send()
  /// returned is free at once when the first link lost the message.
  bool in_flight(uint32_t slot) const {
    return slot < slots_.size() && slots_[slot].stage != Stage::kFree;
  }
  /// Messages sent and neither delivered-and-released nor lost.
  size_t live_messages() const { return slots_.size() - free_slots_.size(); }

  const topo::Graph& graph() const { return graph_; }
  /// The physical neighbours of `node`, ascending, passed to f(uint32_t).
  template <class F>
  void for_each_neighbor(uint32_t node, F f) const {
    if (!complete_) {
      for (uint32_t j : graph_.neighbors(node)) f(j);
      return;
    }
    for (uint32_t j = 0; j < graph_.node_count(); ++j)
      if (j != node) f(j);
  }
  /// Links of an implicit complete underlay remembered now (complete_links.hpp); 0 otherwise.
  size_t remembered_links() const { return complete_ ? complete_->remembered() : 0; }
  uint32_t link_count() const { return static_cast<uint32_t>(links_.size()); }
  /// The directed link from -> to. Precondition: they are neighbours, in a materialised graph.
  LinkId link_between(AgentId from, AgentId to) const;
  const Link& link(LinkId id) const { return links_[id.value]; }
  const Serializer& uplink(AgentId agent) const { return uplinks_[agent.value]; }
  const Serializer& downlink(AgentId agent) const { return downlinks_[agent.value]; }
  const Router& router() const { return router_; }
  /// Whether the physical link from -> to is down now (the last time the network looked).
  bool link_down(LinkId link) const { return failures_ && failures_->down(link.value >> 1); }

  /// Everything that changes as messages move (links, NICs, live messages, the order free slots
  /// are reused in), for checkpoints; loading expects a network built from the same scenario.
  void archive(StateArchive& ar);

 private:
  // kFlow: its flow is being carried (maxmin); kPropagating: its bits are out, it propagates.
  enum class Stage : uint8_t { kFree, kUplink, kOnLink, kDownlink, kArrived, kFlow, kPropagating };
  struct Slot {  // a live message and where it is: one record, one cache line
    NetMessage message;
    uint32_t link = kNoLink;  // the link it is on or enters next (maxmin: its first link)
    uint32_t next_hop = 0;    // router_.hop(next_hop) is the link after `link` (kNoLink: last)
    SimTime entered{};        // when it entered `link`, or its flow started (maxmin): a
                              // failure after it loses the message
    SimTime delay{};          // maxmin: the route's latencies and jitter draws
    uint32_t lost_hop = 0;    // maxmin: the hop (0 = first link) that lost it, or kNotLost
    Stage stage = Stage::kFree;
  };
  static constexpr uint32_t kNotLost = 0xffffffffu;
  // Slot::link of a message on an implicit complete underlay: the direct link from -> to.
  static constexpr uint32_t kCompleteLink = 0xfffffffeu;
  struct OutLink {  // adjacency with link ids, so a send to a neighbour reads one short run
    uint32_t to;
    uint32_t link;
  };

  uint32_t find_link(uint32_t from, uint32_t to) const;
  uint32_t allocate_slot();
  uint32_t next_slot() const {
    return free_slots_.empty() ? static_cast<uint32_t>(slots_.size()) : free_slots_.back();
  }
  void watch_load(Simulator& sim, AgentId from, AgentId to, uint32_t link, uint64_t bytes);
  SimTime link_busy_until(AgentId from, AgentId to, uint32_t link) const {
    return complete_ ? complete_->busy_until(from.value, to.value) : links_[link].busy_until();
  }
  void record_delivery(const Slot& s) {
    if (!complete_) links_[s.link].record_delivery(wire_bytes(s));
  }
  void free_slot(uint32_t slot);
  bool follow_failures(SimTime now);  // true: some link changed state
  void compact_routes();
  bool lost_to_failure(Simulator& sim, uint32_t slot);
  void detour_if_down(SimTime now, Slot& s, uint32_t here);
  void enter_link(Simulator& sim, uint32_t slot);
  void on_link_arrival(Simulator& sim, const Event& event);
  bool on_delivery(Simulator& sim, uint32_t slot);  // true: dropped at an offline node
  void start_sharing(const SendBufferConfig& send_buffer);  // network_flows.cpp: maxmin
  void start_flow(Simulator& sim, uint32_t slot);
  static bool stale_event(const void* self, const Event& e);  // for Simulator's filter
  void watch_stale(Simulator& sim);  // registers stale_event for kFlowEnd and kLinkChange
  void finish_flow(Simulator& sim, uint32_t slot);
  void drop_flow_message(Simulator& sim, uint32_t slot, DropReason why);
  void record_route_deliveries(const Slot& s, uint32_t hops);  // its first `hops` links
  // network_flow_failures.cpp: maxmin with link failures.
  void fail_flows(Simulator& sim);
  void on_link_change(Simulator& sim, const Event& event);
  void schedule_change(Simulator& sim);
  bool lost_in_propagation(Simulator& sim, uint32_t slot);
  uint32_t first_down_hop(const Slot& s) const;
  uint32_t first_failed_hop(const Slot& s) const;  // a link that failed after s.entered
  void record_route_loss(const Slot& s, uint32_t failed_hop);
  MessageSignal signal(const Simulator& sim, const Slot& s) const {
    return MessageSignal{sim.now(), s.message.from, s.message.to, wire_bytes(s)};
  }
  uint64_t wire_bytes(const Slot& s) const { return s.message.size_bytes + header_bytes_; }

  topo::Graph graph_;
  uint64_t header_bytes_;
  SignalListener* listener_ = &ignore_signals();
  std::vector<Link> links_;
  std::vector<uint32_t> link_target_;  // far end of each link
  std::vector<uint32_t> out_begin_;    // out_[out_begin_[i] .. out_begin_[i+1]): node i's links
  std::vector<OutLink> out_;           // sorted by neighbour
  std::vector<Serializer> uplinks_;
  std::vector<Serializer> downlinks_;
  Router router_;
  std::vector<Slot> slots_;  // indexed by message slot
  std::vector<uint32_t> free_slots_;
  SendBuffers buffers_;
  std::vector<uint8_t> offline_;  // per node, 1 while offline; empty until set_online()
  LoadWatch load_;                // resources: uplink i, then link l at node_count() + l
  // maxmin only: resources uplink i, link l at node_count() + l, downlink i at
  // node_count() + link_count() + i.
  std::unique_ptr<SharedFlows> flows_;
  std::unique_ptr<FlowBuffers> flow_buffers_;
  std::vector<uint32_t> route_;  // scratch of start_flow()
  std::vector<uint32_t> cut_;    // scratch of fail_flows()
  // maxmin with failures: the one kLinkChange event that counts, valid while flows are active.
  bool change_pending_ = false;
  uint64_t change_seq_ = 0;
  SimTime change_at_{};
  static constexpr uint32_t kChangeSweep = 64;  // change events scheduled between two sweeps
  uint32_t changes_scheduled_ = 0;  // since the last sweep of stale events (not checkpointed)
  std::optional<LinkFailures> failures_;
  std::optional<CompleteLinks> complete_;  // set: no links_, out_ or link_target_
  size_t compacted_store_ = 0;  // the route store's size after its last compaction
};

}  // namespace dlsim
