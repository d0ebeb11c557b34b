// The messages the network carries, by slot: what each is (NetMessage), where it is (Slot), the
// free slots in the order they are reused, and the signals that report what became of each. The
// Network façade and its transport (transport.hpp) share one Messages.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/signals.hpp"
#include "sim/core/simulator.hpp"
#include "sim/core/state_archive.hpp"
#include "sim/network/router.hpp"

namespace dlsim {

/// What the network knows about a message (the content stays with the agent layer, indexed by
/// the message's slot); valid from send() until release().
struct NetMessage {
  AgentId from;
  AgentId to;
  uint64_t size_bytes = 0;  ///< payload as given to send(), without the header
  SimTime sent_at{};
};

/// Where a message is. FIFO: kUplink, kOnLink, kDownlink; maxmin: kFlow (its flow is being
/// carried), kPropagating (its bits are out); both: kArrived (delivered, not yet released).
enum class Stage : uint8_t { kFree, kUplink, kOnLink, kDownlink, kArrived, kFlow, kPropagating };

/// A live message and where it is: one record, one cache line.
struct Slot {
  static constexpr uint32_t kNotLost = 0xffffffffu;
  NetMessage message;
  uint32_t link = kNoLink;  ///< the link it is on or enters next (maxmin: its first link)
  uint32_t next_hop = 0;    ///< router.hop(next_hop) is the link after `link` (kNoLink: last)
  SimTime entered{};        ///< when it entered `link`, or its flow started (maxmin): a failure
                            ///< after it loses the message (set only when links can fail)
  SimTime delay{};          ///< maxmin: the route's latencies and jitter draws
  uint32_t lost_hop = 0;    ///< maxmin: the hop (0 = first link) that lost it, or kNotLost
  Stage stage = Stage::kFree;
};

class Messages {
 public:
  explicit Messages(uint64_t header_bytes) : header_bytes_(header_bytes) {}

  Slot& operator[](uint32_t slot) { return slots_[slot]; }
  const Slot& operator[](uint32_t slot) const { return slots_[slot]; }
  /// Every slot, free ones included (route compaction rewrites the live ones' next_hop).
  std::vector<Slot>& slots() { return slots_; }
  const std::vector<Slot>& slots() const { return slots_; }
  /// Whether `slot` holds a message: sent, and neither lost nor released.
  bool in_flight(uint32_t slot) const {
    return slot < slots_.size() && slots_[slot].stage != Stage::kFree;
  }
  /// Messages sent and neither delivered-and-released nor lost.
  size_t live() const { return slots_.size() - free_slots_.size(); }
  /// The slot allocate() will return.
  uint32_t next() const {
    return free_slots_.empty() ? static_cast<uint32_t>(slots_.size()) : free_slots_.back();
  }
  uint32_t allocate();
  void free(uint32_t slot) {
    slots_[slot].stage = Stage::kFree;
    free_slots_.push_back(slot);
  }

  /// Added to every message's size on the wire.
  uint64_t header_bytes() const { return header_bytes_; }
  uint64_t wire_bytes(const Slot& s) const { return s.message.size_bytes + header_bytes_; }
  MessageSignal signal(const Simulator& sim, const Slot& s) const {
    return MessageSignal{sim.now(), s.message.from, s.message.to, wire_bytes(s)};
  }
  /// Where the network reports what happens to messages; `listener` outlives this.
  void set_listener(SignalListener& listener) { listener_ = &listener; }
  SignalListener& listener() const { return *listener_; }
  /// Reports the message in `slot` dropped for `why` now and frees its slot.
  void drop(const Simulator& sim, uint32_t slot, DropReason why) {
    listener_->message_dropped(signal(sim, slots_[slot]), why);
    free(slot);
  }

  void archive(StateArchive& ar);

 private:
  uint64_t header_bytes_;
  SignalListener* listener_ = &ignore_signals();
  std::vector<Slot> slots_;  // indexed by message slot
  std::vector<uint32_t> free_slots_;
};

}  // namespace dlsim
