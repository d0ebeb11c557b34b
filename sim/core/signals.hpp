// What happened in a run, reported by the layer where it happens (the network: messages sent,
// dropped, delivered; the algorithms, through their Outbox: trigger events) to one listener that
// counts or records it (sim/metrics), as OMNeT++'s modules emit signals and result recorders
// store them. The world keeps no counters for the metrics' sake: a new number is a new signal.
// Signals are emitted from the event loop only, one at a time in event order, so a listener
// needs no locking and sees the same sequence for every thread count.
#pragma once

#include <cstdint>

#include "sim/core/ids.hpp"
#include "sim/core/time.hpp"

namespace dlsim {

/// Why a message did not arrive.
enum class DropReason : uint8_t {
  kLoss,  ///< a link lost it (network.loss)
};

/// One message as the network saw it. wire_bytes: payload + header, what the links carried.
struct MessageSignal {
  SimTime time;  ///< when it happened
  AgentId from;
  AgentId to;
  uint64_t wire_bytes = 0;
};

class SignalListener {
 public:
  virtual ~SignalListener() = default;
  /// A message entered the network (its sender's NIC or first link).
  virtual void message_sent(const MessageSignal&) {}
  /// The message `from` is sending was compressed: its payload takes `wire_payload_bytes`
  /// instead of `uncompressed_bytes`. Emitted just before its message_sent.
  virtual void message_compressed(AgentId /*from*/, uint64_t /*uncompressed_bytes*/,
                                  uint64_t /*wire_payload_bytes*/) {}
  /// A message will not arrive; it was counted as sent before.
  virtual void message_dropped(const MessageSignal&, DropReason) {}
  /// A message reached its destination whole.
  virtual void message_delivered(const MessageSignal&) {}
  /// An agent's trigger fired at `iteration` and the agent communicates (an "event").
  virtual void trigger_fired(AgentId /*agent*/, int64_t /*iteration*/, SimTime /*time*/) {}
};

/// The listener of a world nobody observes: ignores everything.
inline SignalListener& ignore_signals() {
  static SignalListener none;
  return none;
}

}  // namespace dlsim
