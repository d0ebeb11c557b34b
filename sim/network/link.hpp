// A directed point-to-point link, as ns-3's point-to-point channel: messages serialise FIFO onto
// the wire at the link's bandwidth (store-and-forward), then propagate for the latency, plus an
// optional uniform jitter; an optional loss drops a message at the far end. Also the FIFO
// serialiser alone, which the network reuses for the agents' NIC uplinks and downlinks.
#pragma once

#include <cstdint>

#include "sim/core/random.hpp"
#include "sim/core/state_archive.hpp"
#include "sim/core/time.hpp"

namespace dlsim {

/// A number of messages and the bytes they carried.
struct TrafficCount {
  uint64_t messages = 0;
  uint64_t bytes = 0;

  void add(uint64_t size_bytes) {
    ++messages;
    bytes += size_bytes;
  }
  TrafficCount& operator+=(const TrafficCount& other) {
    messages += other.messages;
    bytes += other.bytes;
    return *this;
  }
  bool operator==(const TrafficCount&) const = default;
};

/// What a link did. Invariant: sent = delivered + dropped + (messages still propagating).
struct LinkCounters {
  TrafficCount sent;       ///< offered to the link (counted when offered)
  TrafficCount delivered;  ///< reached the far end (counted at arrival, by the network)
  TrafficCount dropped;    ///< lost (counted when offered: the loss is drawn then; a message
                           ///< lost to a link failure when it would have arrived)
};

/// One transmitter that sends one message at a time, in the order offered.
class Serializer {
 public:
  Serializer() = default;
  /// bandwidth_bps = 0 means "no serialiser": finish() then returns `now` unchanged.
  explicit Serializer(uint64_t bandwidth_bps) : bandwidth_bps_(bandwidth_bps) {}

  bool enabled() const { return bandwidth_bps_ != 0; }
  uint64_t bandwidth_bps() const { return bandwidth_bps_; }
  /// When the transmitter is idle again.
  SimTime busy_until() const { return busy_until_; }
  /// Restores busy_until() from a checkpoint.
  void resume_busy_until(SimTime t) { busy_until_ = t; }
  /// Queues size_bytes offered at `now` (>= every earlier offer's time) behind the messages
  /// already queued; returns when its last bit is out: max(now, busy_until) + size / bandwidth.
  SimTime finish(SimTime now, uint64_t size_bytes) {
    if (bandwidth_bps_ == 0) return now;
    busy_until_ = max(now, busy_until_) + transmission_time(size_bytes, bandwidth_bps_);
    return busy_until_;
  }

 private:
  uint64_t bandwidth_bps_ = 0;
  SimTime busy_until_{};
};

/// The fixed properties of a link.
struct LinkSpec {
  SimTime latency{};            ///< propagation delay, >= 0
  uint64_t bandwidth_bps = 0;   ///< > 0
  double loss_probability = 0;  ///< in [0, 1]; each message is lost independently
  SimTime jitter{};             ///< >= 0: each message gets an extra delay uniform in [0, jitter]
};

/// A message's loss and jitter on a link of `spec`, drawn from `random`: first the loss (no draw
/// when the probability is 0 or 1), then, for a message not lost, the jitter added to *arrival.
/// Returns whether the message is lost.
bool draw_loss_and_jitter(RandomStream& random, const LinkSpec& spec, SimTime* arrival);

/// A directed link. Arrival of a message of S bytes offered at t:
///   max(t, busy_until) + ceil(8 S / bandwidth) + latency [+ jitter draw].
/// busy_until advances by the serialisation only: propagation overlaps the next transmission.
/// A lost message still occupies the wire (the loss happens at the far end). Jitter is
/// propagation delay, so with jitter a later message can overtake an earlier one.
class Link {
 public:
  /// `random` is this link's own stream, RandomStream(seed, "link", link index); it is drawn
  /// from only when loss_probability is strictly between 0 and 1 or jitter > 0.
  Link(const LinkSpec& spec, RandomStream random);

  /// The outcome of offering a message.
  struct Transfer {
    SimTime arrival;  ///< when the last bit reaches the far end (also set for a lost message)
    bool lost = false;
  };

  /// Offers size_bytes at `now` (non-decreasing over calls); counts it as sent, and as dropped
  /// when lost. Draws the loss first, then (for a message that is not lost) the jitter.
  Transfer offer(SimTime now, uint64_t size_bytes);
  /// offer() for network.sharing "maxmin", where the network's flows (shared_flows.hpp), not
  /// this wire, serialise the message: counts and draws the same, leaves busy_until alone, and
  /// the arrival it returns is the propagation delay alone (latency + jitter draw).
  Transfer offer_shared(uint64_t size_bytes);
  /// Counts a message that reached the far end; the network calls it at the arrival time.
  void record_delivery(uint64_t size_bytes) { counters_.delivered.add(size_bytes); }
  /// Counts a message lost on the way because the link failed (network.failures).
  void record_loss(uint64_t size_bytes) { counters_.dropped.add(size_bytes); }

  SimTime latency() const { return spec_.latency; }
  uint64_t bandwidth_bps() const { return spec_.bandwidth_bps; }
  double loss_probability() const { return spec_.loss_probability; }
  SimTime jitter() const { return spec_.jitter; }
  /// When the wire is free again (the last queued message has been serialised).
  SimTime busy_until() const { return wire_.busy_until(); }
  const LinkCounters& counters() const { return counters_; }
  /// The state that changes as messages pass (queue, counters, stream), for checkpoints.
  void archive(StateArchive& ar);

 private:
  Transfer draw(Transfer transfer, uint64_t size_bytes);  // draw_loss_and_jitter, counted

  LinkSpec spec_;
  Serializer wire_;
  LinkCounters counters_;
  RandomStream random_;
};

}  // namespace dlsim
