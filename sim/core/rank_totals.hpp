// What one process's run reports (Simulator::fingerprint(), events_processed()), assembled on
// rank 0 from the ranks of a run partitioned over processes: each rank's simulator hashed and
// counted only its own nodes' events.
#pragma once

#include <cstdint>
#include <span>

#include "sim/core/fingerprint.hpp"
#include "sim/core/partition_exchange.hpp"
#include "sim/core/simulator.hpp"

namespace dlsim {

struct RankTotals {
  Fingerprint fingerprint;      ///< the nodes' hashes of every rank, combined in node order
  uint64_t events_handled = 0;  ///< summed over ranks
};

/// Collective (every rank calls it). On rank 0: the totals one process would have had; on the
/// others: RankTotals{}. A node that handled events on two ranks is an invariant violation.
RankTotals totals_over_ranks(const Simulator& sim, PartitionExchange& exchange);
/// The same for hashes a caller extended (a run adds its agents' final parameters to their
/// nodes' hashes): `nodes` by node id, this rank's nodes only, and this rank's events.
RankTotals totals_over_ranks(std::span<const Fingerprint> nodes, uint64_t events,
                             PartitionExchange& exchange);

}  // namespace dlsim
