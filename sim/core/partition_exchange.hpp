// A partitioned run over processes (docs/partitioned-runs.md, "Slice (c), first part"): each
// process (a rank) runs one partition of the Simulator, and at each window's end the events its
// handlers scheduled for other ranks' nodes travel through a PartitionExchange (MPI in
// sim/distributed; nothing here knows how). A layer whose events' payload indexes its own tables
// (a message slot) registers an EventShipping hook so that the indexed content travels too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "sim/core/event.hpp"
#include "sim/core/time.hpp"

namespace dlsim {

/// What every rank learns at a window's start.
struct WindowStart {
  SimTime earliest;  ///< the earliest pending event of any rank; SimTime::max() when none is
  bool all_ok;       ///< false: some rank failed since the last agreement
};

/// What every rank learns at a window's end.
struct WindowEnd {
  SimTime latest;  ///< the latest clock of any rank
  bool all_ok;     ///< false: some rank failed since the last agreement
};

/// What a rank receives in one round of a window's shipping (PartitionExchange::exchange).
struct ExchangeRound {
  std::span<const std::byte> incoming;
  bool more;  ///< some rank has more to send: another round follows
};

/// The collectives a rank's window loop needs. Every rank calls them in the same order (each is
/// collective: it returns only once every rank has called it).
class PartitionExchange {
 public:
  virtual ~PartitionExchange() = default;
  virtual uint32_t rank() const = 0;
  virtual uint32_t ranks() const = 0;
  /// The minimum of every rank's `earliest`, and whether every rank's `ok` was true.
  virtual WindowStart start_window(SimTime earliest, bool ok) = 0;
  /// Whether every rank's `ok` is true.
  virtual bool all_ok(bool ok) = 0;
  /// The latest of every rank's `clock` (where the run's clock stands after a window and once
  /// run() returns), and whether every rank's `ok` is true.
  virtual WindowEnd end_window(SimTime clock, bool ok) = 0;
  /// One round of a window's shipping: sends rank r its part of `outgoing`, the parts in rank
  /// order, counts[r] bytes each (counts.size() == ranks(); this rank's own count is 0; each at
  /// most INT_MAX), and returns what every rank sent this one, concatenated in rank order (valid
  /// until the next exchange: the buffers are reused, as a window's messages may weigh
  /// megabytes and fresh pages would have to be faulted in), and whether any rank said it has
  /// `more` to send in another round.
  virtual ExchangeRound exchange(std::span<const std::byte> outgoing,
                                 std::span<const size_t> counts, bool more) = 0;
  /// On rank 0: every rank's `mine`, by rank. On the others: empty.
  virtual std::vector<std::vector<std::byte>> gather_to_rank_0(std::span<const std::byte> mine) = 0;
};

/// Ships what an event's payload stands for (a message slot's content) to the rank that will
/// handle it. Registered per kind (Simulator::set_shipping); kinds without one ship the payload
/// as it is.
class EventShipping {
 public:
  virtual ~EventShipping() = default;
  /// On the sending rank: appends the content `e.payload` stands for to `out`, and releases it
  /// here (the event will not run on this rank). Called for the events one window sends rank
  /// `to_rank` in (time, key) order (over one or more rounds): what an earlier one of them
  /// carried (a snapshot several messages share) may be a reference in a later one.
  virtual void pack(const Event& e, uint32_t to_rank, std::vector<std::byte>& out) = 0;
  /// On the receiving rank: installs `content` (what pack() appended on rank `from_rank`) and
  /// returns the payload that stands for it here. Called for each rank's events in the order it
  /// packed them.
  virtual uint32_t unpack(const Event& e, uint32_t from_rank,
                          std::span<const std::byte> content) = 0;
  /// After a window's last round (on every rank that has not failed): references end with the
  /// window.
  virtual void window_shipped() {}
  /// From when what pack() would append for `e` can no longer change (a message whose newer
  /// copy may still replace it while it waits to be sent). Until then `e` stays in its outbox:
  /// it must come at least one lookahead after that time, so its rank cannot need it sooner.
  virtual SimTime content_final_at(const Event&) const { return SimTime{}; }
};

/// Thrown on the ranks that did not fail when another rank's handler (or shipping hook, or
/// WindowControl) threw: every rank stops at the same window agreement.
class OtherRankFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace dlsim
