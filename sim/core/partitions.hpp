// A run's nodes split into partitions that advance in windows (docs/partitioned-runs.md): what
// the Simulator needs to run them (Simulator::partition), and what a driver gives it to stop
// every partition at one event of the one-process order. In one process ("virtual ranks") the
// partitions take turns within each window; over MPI each rank holds one (rank_windows.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/event.hpp"
#include "sim/core/time.hpp"

namespace dlsim {

struct Partitions {
  /// Per network node (agents, then any service node): its partition, 0..count-1.
  std::vector<uint32_t> of_node;
  uint32_t count = 1;
  /// > 0: no event one partition's handler schedules for another partition's node comes sooner
  /// than this after the handler's time (the smallest latency of a link between partitions).
  SimTime lookahead;
};

/// Contiguous blocks of nodes: node i of n goes to partition i * count / n, so the blocks'
/// sizes differ by at most one.
inline Partitions contiguous_partitions(uint32_t nodes, uint32_t count, SimTime lookahead) {
  Partitions p;
  p.count = count;
  p.lookahead = lookahead;
  p.of_node.resize(nodes);
  for (uint32_t i = 0; i < nodes; ++i)
    p.of_node[i] = static_cast<uint32_t>(uint64_t{i} * count / nodes);
  return p;
}

/// Nodes [first, end): one partition's block of contiguous_partitions.
struct NodeBlock {
  uint32_t first = 0;
  uint32_t end = 0;

  bool contains(uint32_t node) const { return first <= node && node < end; }
  uint32_t size() const { return end - first; }
  friend bool operator==(const NodeBlock&, const NodeBlock&) = default;
};

/// Partition `index`'s block of contiguous_partitions(nodes, count, ...), without building it:
/// node i is in partition floor(i * count / nodes), so a block starts at
/// ceil(index * nodes / count).
inline NodeBlock contiguous_block(uint32_t nodes, uint32_t count, uint32_t index) {
  auto first_of = [&](uint64_t p) {
    return static_cast<uint32_t>((p * nodes + count - 1) / count);
  };
  return NodeBlock{first_of(index), first_of(uint64_t{index} + 1)};
}

/// The largest block of contiguous_partitions(nodes, count, ...).
inline uint32_t largest_contiguous_block(uint32_t nodes, uint32_t count) {
  return (nodes + count - 1) / count;
}

/// A place in the events' order (time, then key: event.hpp). No event after it runs in a window.
struct EventBound {
  SimTime time = SimTime::max();
  uint64_t key = UINT64_MAX;

  static EventBound of(const Event& e) { return EventBound{e.time, e.key}; }
  /// Earlier in the events' order.
  friend bool operator<(const EventBound& a, const EventBound& b) {
    return a.time < b.time || (a.time == b.time && a.key < b.key);
  }
};

/// A driver's say in a partitioned run's windows (Simulator::run). Unused with one partition,
/// where the driver acts inside the handler of the event it waits for.
class WindowControl {
 public:
  virtual ~WindowControl() = default;
  /// Asked before each window: the last event any partition may run in it. A driver that must
  /// look at every node's state right after some event E (an evaluation after the slowest
  /// agent's step) bounds the windows by a lower bound of E, so that no partition runs past it.
  virtual EventBound horizon() = 0;
  /// Called after each window, every partition's events up to the window's end (or the horizon)
  /// having run; false: run() returns. Over MPI ranks (partition_exchange.hpp) every rank's
  /// control must give the same horizon and answer: the caller's duty (it reduces over ranks).
  virtual bool window_done() = 0;
};

}  // namespace dlsim
