// What happened in a run, reported by the layer where it happens (the network: messages sent,
// dropped, delivered; the algorithms, through their Outbox: trigger events) to one listener that
// counts or records it (sim/metrics), as OMNeT++'s modules emit signals and result recorders
// store them. The world keeps no counters for the metrics' sake: a new number is a new signal.
// Signals are emitted from the event loop only, one at a time in event order, so a listener
// needs no locking and sees the same sequence for every thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/ids.hpp"
#include "sim/core/time.hpp"

namespace dlsim {

/// Why a message did not arrive.
enum class DropReason : uint8_t {
  kLoss,     ///< a link lost it (network.loss)
  kOffline,  ///< it arrived at an agent that is offline (churn)
  kLinkDown,  ///< it entered a link that was down, or was on one when it failed (network.failures)
};
inline constexpr size_t kDropReasonCount = 3;

/// Why a message offered to a full send buffer never entered the wire (network.when_full).
enum class BufferDiscard : uint8_t {
  kSuperseded,  ///< a newer message to the same destination took its place ("coalesce")
  kDropped,     ///< refused ("drop")
};

/// Whether a message's tensors start travelling, or stop: a newer message superseded the waiting
/// message that carried them (network.when_full "coalesce").
enum class TensorSend : uint8_t { kSent, kWithdrawn };

/// What overloaded a link: the directed link from -> to, or (to == from) from's NIC uplink.
struct LinkOverload {
  AgentId from;
  AgentId to;
  uint64_t bandwidth_bps = 0;
  SimTime since;             ///< start of the stretch in which the link never caught up
  SimTime at;                ///< when the stretch reached the network's threshold
  double utilisation = 0.0;  ///< offered transmission time / elapsed time over the stretch
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
  /// instead of `uncompressed_bytes`. Emitted just after its message_sent (not for a message
  /// a full send buffer discarded).
  virtual void message_compressed(AgentId /*from*/, uint64_t /*uncompressed_bytes*/,
                                  uint64_t /*wire_payload_bytes*/) {}
  /// The message `from` offered carries model tensors: those listed in `tensors` (indices into
  /// the model's tensor list, in its order), or every tensor when `tensors` is null. Emitted once
  /// the network took the message (on the wire or waiting in a send buffer; not when a full
  /// buffer refused it), and with kWithdrawn for a waiting one a newer message superseded.
  /// Requests, all-reduce chunks and churn's rejoin models carry no tensors in this sense.
  virtual void tensors_sent(AgentId /*from*/, const std::vector<uint32_t>* /*tensors*/,
                            TensorSend /*how*/) {}
  /// A message will not arrive; it was counted as sent before.
  virtual void message_dropped(const MessageSignal&, DropReason) {}
  /// A message offered at m.time never entered the wire: its send buffer was full. Not counted
  /// as sent; offered = sent + superseded + dropped.
  virtual void message_discarded(const MessageSignal&, BufferDiscard) {}
  /// After every offer that left a message of `from`'s waiting: the bytes in from's send
  /// buffers that are not yet on the wire (their peak is reached at such an offer). Per sender,
  /// so that it does not depend on how a run is partitioned.
  virtual void send_buffers_hold(AgentId /*from*/, SimTime /*time*/, uint64_t /*queued_bytes*/) {}
  /// The agent's next step waited `duration` for room in its send buffers (when_full "block").
  virtual void sender_blocked(AgentId /*agent*/, SimTime /*duration*/) {}
  /// A link (or uplink) was offered more than it carries for a long stretch; once per link.
  virtual void link_overloaded(const LinkOverload&) {}
  /// A message reached its destination whole.
  virtual void message_delivered(const MessageSignal&) {}
  /// An agent's trigger fired at `iteration` and the agent communicates (an "event").
  virtual void trigger_fired(AgentId /*agent*/, int64_t /*iteration*/, SimTime /*time*/) {}
  /// An agent went offline (online = false) or came back (churn), at a round's start.
  virtual void agent_online(AgentId /*agent*/, bool /*online*/, SimTime /*time*/) {}
  /// An agent takes no step in the round starting at `time` (offline, or pulling its model).
  virtual void agent_sat_out(AgentId /*agent*/, SimTime /*time*/) {}
};

/// The listener of a world nobody observes: ignores everything.
inline SignalListener& ignore_signals() {
  static SignalListener none;
  return none;
}

}  // namespace dlsim
