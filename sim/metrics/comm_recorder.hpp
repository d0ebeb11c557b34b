// Counts the communication signals of a run per network node (agents, then any service node such
// as EASGD's server): events, messages and bytes sent, received and dropped, and the sends of each
// model tensor (EventGraD's unit of communication). Evaluation
// points and summary.json read their communication numbers here, never from the world.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/signals.hpp"
#include "sim/core/state_archive.hpp"
#include "sim/network/link.hpp"

namespace dlsim {

/// One node's traffic. Bytes are wire bytes (payload + header). A message counts as sent when it
/// enters the network, as dropped for its sender when lost, as received when delivered whole.
struct NodeTraffic {
  uint64_t events = 0;  ///< times the node's trigger fired
  TrafficCount sent;
  TrafficCount received;
  TrafficCount dropped;
  uint64_t bytes_saved = 0;     ///< by compression: uncompressed minus compressed payload, sent
  TrafficCount superseded;      ///< offered, then replaced in a full send buffer by a newer one
  TrafficCount buffer_dropped;  ///< offered and refused by a full send buffer
  SimTime blocked;              ///< time the node's steps waited for room in its send buffers
  uint64_t model_messages = 0;  ///< messages offered that carried model tensors (tensors_sent)
  uint64_t tensor_sends = 0;    ///< the tensors those messages carried, summed

  NodeTraffic& operator+=(const NodeTraffic& other);
};

class CommRecorder final : public SignalListener {
 public:
  /// nodes: every node of the physical network that can send or receive; tensor_names: the
  /// model's tensors in order (non-empty; one name when the model is one tensor).
  explicit CommRecorder(uint32_t nodes, std::vector<std::string> tensor_names = {"parameters"});

  void message_sent(const MessageSignal& m) override {
    nodes_[m.from.value].sent.add(m.wire_bytes);
  }
  void message_compressed(AgentId from, uint64_t uncompressed, uint64_t wire) override {
    nodes_[from.value].bytes_saved += uncompressed - wire;
  }
  void tensors_sent(AgentId from, const std::vector<uint32_t>* tensors, TensorSend how) override;
  void message_dropped(const MessageSignal& m, DropReason why) override {
    nodes_[m.from.value].dropped.add(m.wire_bytes);
    ++dropped_by_reason_[static_cast<size_t>(why)];
  }
  void agent_online(AgentId agent, bool online, SimTime) override {
    online_[agent.value] = online ? 1 : 0;
  }
  void agent_sat_out(AgentId, SimTime) override { ++rounds_sat_out_; }
  void message_delivered(const MessageSignal& m) override {
    nodes_[m.to.value].received.add(m.wire_bytes);
  }
  void message_discarded(const MessageSignal& m, BufferDiscard why) override {
    NodeTraffic& n = nodes_[m.from.value];
    (why == BufferDiscard::kSuperseded ? n.superseded : n.buffer_dropped).add(m.wire_bytes);
  }
  void send_buffers_hold(AgentId, SimTime, uint64_t queued_bytes) override {
    if (queued_bytes > peak_queued_bytes_) peak_queued_bytes_ = queued_bytes;
  }
  void sender_blocked(AgentId agent, SimTime duration) override {
    nodes_[agent.value].blocked += duration;
  }
  void link_overloaded(const LinkOverload& o) override;
  void trigger_fired(AgentId agent, int64_t, SimTime) override {
    ++nodes_[agent.value].events;
    ++events_;
  }

  const NodeTraffic& node(AgentId id) const { return nodes_[id.value]; }
  uint32_t node_count() const { return static_cast<uint32_t>(nodes_.size()); }
  /// Sums over all nodes.
  NodeTraffic total() const;
  /// Events of all nodes so far, in O(1) (the progress line reads it every iteration).
  uint64_t events() const { return events_; }
  /// Messages dropped for `why` (all nodes).
  uint64_t dropped(DropReason why) const { return dropped_by_reason_[static_cast<size_t>(why)]; }
  /// Agent-rounds without a step (churn), all agents.
  uint64_t rounds_sat_out() const { return rounds_sat_out_; }
  /// Whether the node is online now (every node is until an agent_online signal says otherwise).
  bool online(AgentId id) const { return online_[id.value] != 0; }
  /// The model's tensors, and how many messages carried each so far (all nodes), in that order.
  const std::vector<std::string>& tensor_names() const { return tensor_names_; }
  const std::vector<uint64_t>& tensor_sends() const { return tensor_sends_; }
  /// The most bytes one node had waiting in its send buffers at once.
  uint64_t peak_queued_bytes() const { return peak_queued_bytes_; }
  /// One line naming the most loaded of the links that were overloaded for a long stretch, or
  /// nullopt when none was.
  std::optional<std::string> overload_warning() const;

  /// Adds what `other` recorded: another rank's counts of the same run (one run over MPI ranks,
  /// where every signal is recorded on one rank; comm_over_ranks.hpp). Counts add up, the peak
  /// and the worst overload are the larger, and a node is online unless a rank saw it leave
  /// (only its own rank signals it).
  void add(const CommRecorder& other);

  /// The counts so far, for checkpoints.
  void archive(StateArchive& ar) {
    ar.sized_vector(nodes_, "another number of network nodes");
    ar.value(events_);
    ar.value(peak_queued_bytes_);
    ar.value(overloaded_links_);
    ar.value(worst_);
    ar.value(dropped_by_reason_);
    ar.sized_vector(online_, "another number of network nodes");
    ar.value(rounds_sat_out_);
    ar.sized_vector(tensor_sends_, "another number of model tensors");
  }

 private:
  std::vector<NodeTraffic> nodes_;
  uint64_t events_ = 0;
  uint64_t peak_queued_bytes_ = 0;
  uint64_t overloaded_links_ = 0;
  LinkOverload worst_;  // the highest utilisation among them
  std::array<uint64_t, kDropReasonCount> dropped_by_reason_{};  // indexed by DropReason
  std::vector<uint8_t> online_;                  // per node
  uint64_t rounds_sat_out_ = 0;
  std::vector<std::string> tensor_names_;
  std::vector<uint64_t> tensor_sends_;  // per tensor
};

}  // namespace dlsim
