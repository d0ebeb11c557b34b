// The event record: 24 bytes, plain data, no allocation. What an event means is up to the layer
// that handles its kind; payload indexes that layer's own tables (a message slot, a round...).
#pragma once

#include <cstdint>

#include "sim/core/ids.hpp"
#include "sim/core/time.hpp"

namespace dlsim {

enum class EventKind : uint8_t {
  kTimer = 0,      ///< a generic timer: tests and benchmarks drive the network with it
  kLinkArrival,    ///< network: a message reached the far end of a link
  kNicRelease,     ///< network: a message left an agent's uplink and enters its first link
  kDelivery,       ///< network -> agents: a message is delivered to its destination
  kAgentStep,      ///< drivers: an agent finishes a local computation step
  kFlowEnd,        ///< network (sharing "maxmin"): a flow's last bit may have left its route
  kSenderReady,    ///< network -> agents (maxmin): a sender held by a full send buffer may go on
  kLinkChange,     ///< network (maxmin with failures): a link may change state under flows
};  // the values are part of every fingerprint: append, never renumber

struct Event {
  SimTime time;
  /// (sequence number << 8) | kind: ordering on (time, key) is ordering on (time, seq), and the
  /// kind rides along for free in the low byte.
  uint64_t key = 0;
  AgentId agent;
  uint32_t payload = 0;

  uint64_t seq() const { return key >> 8; }
  EventKind kind() const { return static_cast<EventKind>(key & 0xff); }
};
static_assert(sizeof(Event) == 24, "events stay small: the queue moves them by value");

/// The total order of simulated events: by time, then by the order they were scheduled in.
inline bool runs_before(const Event& a, const Event& b) {
  return a.time.ns < b.time.ns || (a.time.ns == b.time.ns && a.key < b.key);
}

}  // namespace dlsim
