// A 64-bit hash over a run: one per node over the events it handled (and, at the end, its final
// parameters), combined in node order. Two runs agree on it only if every node did the same
// things at the same times in the same order, whatever order different nodes' events ran in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "sim/core/event.hpp"
#include "sim/core/random.hpp"

namespace dlsim {

class Fingerprint {
 public:
  void add(uint64_t word) { state_ = mix64(state_ ^ word) + 0x2545f4914f6cdd1dull; }
  /// Folds raw bytes (e.g. a float parameter vector) 8 at a time, then the length.
  void add_bytes(std::span<const std::byte> bytes) {
    size_t i = 0;
    for (; i + 8 <= bytes.size(); i += 8) {
      uint64_t w;
      std::memcpy(&w, bytes.data() + i, 8);
      add(w);
    }
    uint64_t tail = 0;
    std::memcpy(&tail, bytes.data() + i, bytes.size() - i);
    add(tail);
    add(bytes.size());
  }
  uint64_t value() const { return state_; }
  /// true while nothing has been added (or resume_from() was given the initial state).
  bool untouched() const { return state_ == kInitial; }
  /// The fingerprint whose value() is `state` (a checkpoint's): adding to it continues the hash.
  static Fingerprint resume_from(uint64_t state) {
    Fingerprint f;
    f.state_ = state;
    return f;
  }

 private:
  static constexpr uint64_t kInitial = 0x6a09e667f3bcc909ull;
  uint64_t state_ = kInitial;
};

/// The run's fingerprint from one per node: each node's id and value in node order, nodes that
/// hashed nothing left out (so trailing idle nodes, listed or not, change nothing).
inline Fingerprint combine_in_node_order(std::span<const Fingerprint> nodes) {
  Fingerprint f;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].untouched()) continue;
    f.add(i);
    f.add(nodes[i].value());
  }
  return f;
}

/// The events' fingerprint of a run: each node (an event's `agent`) hashes the events it handles,
/// in the order it handles them: their time and key (kind, origin, origin counter), not the
/// payload (a message slot from a run-wide free list). So it depends on each node's own sequence
/// only, not on how different nodes' events interleave (docs/partitioned-runs.md, point 2).
class EventFingerprints {
 public:
  void add(const Event& e) {
    if (e.agent.value >= nodes_.size()) [[unlikely]]
      nodes_.resize(e.agent.value + 1);
    Fingerprint& node = nodes_[e.agent.value];
    node.add(static_cast<uint64_t>(e.time.ns));
    node.add(e.key);
  }
  /// By node id; nodes past the end handled nothing.
  std::span<const Fingerprint> nodes() const { return nodes_; }
  /// The nodes' hashes combined in node order.
  Fingerprint combined() const { return combine_in_node_order(nodes_); }
  /// Each node's value(), for checkpoints.
  std::vector<uint64_t> values() const {
    std::vector<uint64_t> out;
    for (const Fingerprint& f : nodes_) out.push_back(f.value());
    return out;
  }
  /// The fingerprints whose values() are `values` (a checkpoint's): adding continues each hash.
  static EventFingerprints resume_from(const std::vector<uint64_t>& values) {
    EventFingerprints f;
    for (uint64_t v : values) f.nodes_.push_back(Fingerprint::resume_from(v));
    return f;
  }

 private:
  std::vector<Fingerprint> nodes_;
};

}  // namespace dlsim
