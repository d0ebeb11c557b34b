// The event record: 24 bytes, plain data, no allocation. What an event means is up to the layer
// that handles its kind; payload indexes that layer's own tables (a message slot, a round...).
// Simultaneous events run in (origin, origin counter) order, which does not depend on how
// different nodes' scheduling interleaves (docs/partitioned-runs.md, design point 1).
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

/// An event's origin is a node id below 2^24 (the loader allows 10,000,000 agents, and a few
/// extra nodes); its counter counts the events that origin scheduled, below 2^32.
inline constexpr unsigned kOriginBits = 24;
inline constexpr unsigned kCounterBits = 32;
inline constexpr uint64_t kOriginLimit = uint64_t{1} << kOriginBits;
inline constexpr uint64_t kCounterLimit = uint64_t{1} << kCounterBits;
static_assert(kOriginBits + kCounterBits + 8 == 64, "origin, counter and kind fill the key");

struct Event {
  SimTime time;
  /// (origin << 40) | (origin counter << 8) | kind: ordering on (time, key) is ordering on
  /// (time, origin, origin counter), and the kind rides along in the low byte.
  uint64_t key = 0;
  AgentId agent;
  uint32_t payload = 0;

  /// (origin << 32) | origin counter: unique among a run's events (what Simulator::schedule_at
  /// returns, for owners that recognise their own events later).
  uint64_t id() const { return key >> 8; }
  /// The node whose event was being handled when this one was scheduled (Simulator::schedule_at).
  AgentId origin() const { return AgentId{static_cast<uint32_t>(key >> (kCounterBits + 8))}; }
  /// How many events its origin had scheduled before this one.
  uint32_t counter() const { return static_cast<uint32_t>(key >> 8); }
  EventKind kind() const { return static_cast<EventKind>(key & 0xff); }
};
static_assert(sizeof(Event) == 24, "events stay small: the queue moves them by value");

/// The key of the event `counter` of `origin`. Preconditions: origin < kOriginLimit (counter is
/// 32 bits by type).
constexpr uint64_t event_key(uint32_t origin, uint32_t counter, EventKind kind) {
  return (uint64_t{origin} << (kCounterBits + 8)) | (uint64_t{counter} << 8) |
         static_cast<uint64_t>(kind);
}

/// The key of the event whose id (Event::id(), Simulator::schedule_at's result) is `id`.
constexpr uint64_t key_of_id(uint64_t id, EventKind kind) {
  return (id << 8) | static_cast<uint64_t>(kind);
}

/// The queue's order: by time, then by origin, then by the origin's counter. An event scheduled
/// for the current instant with a smaller key than the one being handled runs after it (it cannot
/// run in the past), so the order events run in is deterministic but not always this one.
inline bool runs_before(const Event& a, const Event& b) {
  return a.time.ns < b.time.ns || (a.time.ns == b.time.ns && a.key < b.key);
}

}  // namespace dlsim
