// Counts the communication signals of a run per network node (agents, then any service node such
// as EASGD's server): events, and messages and bytes sent, received and dropped. Evaluation
// points and summary.json read their communication numbers here, never from the world.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/state_io.hpp"
#include "sim/core/signals.hpp"
#include "sim/network/link.hpp"

namespace dlsim {

/// One node's traffic. Bytes are wire bytes (payload + header). A message counts as sent when it
/// enters the network, as dropped for its sender when lost, as received when delivered whole.
struct NodeTraffic {
  uint64_t events = 0;  ///< times the node's trigger fired
  TrafficCount sent;
  TrafficCount received;
  TrafficCount dropped;
  uint64_t bytes_saved = 0;  ///< by compression: uncompressed minus compressed payload, sent

  NodeTraffic& operator+=(const NodeTraffic& other);
};

class CommRecorder final : public SignalListener {
 public:
  /// nodes: every node of the physical network that can send or receive.
  explicit CommRecorder(uint32_t nodes) : nodes_(nodes) {}

  void message_sent(const MessageSignal& m) override {
    nodes_[m.from.value].sent.add(m.wire_bytes);
  }
  void message_compressed(AgentId from, uint64_t uncompressed, uint64_t wire) override {
    nodes_[from.value].bytes_saved += uncompressed - wire;
  }
  void message_dropped(const MessageSignal& m, DropReason) override {
    nodes_[m.from.value].dropped.add(m.wire_bytes);
  }
  void message_delivered(const MessageSignal& m) override {
    nodes_[m.to.value].received.add(m.wire_bytes);
  }
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

  /// The counts so far, for checkpoints.
  void save(StateWriter& out) const {
    out.put_vector(nodes_);
    out.put(events_);
  }
  void load(StateReader& in) {
    std::vector<NodeTraffic> nodes = in.get_vector<NodeTraffic>();
    if (nodes.size() != nodes_.size()) in.fail("another number of network nodes");
    nodes_ = std::move(nodes);
    events_ = in.get<uint64_t>();
  }

 private:
  std::vector<NodeTraffic> nodes_;
  uint64_t events_ = 0;
};

}  // namespace dlsim
