// What one run over MPI ranks needs besides the windows' collectives (partition_exchange.hpp):
// the drivers agree on counters (the first diverged agent), and evaluation points pass partial
// sums from rank to rank in agent order and gather the agents' scores to rank 0, so that every
// result has the bits of one process (docs/partitioned-runs.md, design point 7). The MPI
// implementation is in sim/distributed; nothing here knows how.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/core/partition_exchange.hpp"

namespace dlsim {

enum class Reduction : uint8_t { kMin, kMax, kSum };

class RankCollectives : public PartitionExchange {
 public:
  /// Every rank's `values` combined elementwise by `op`, on every rank (collective).
  virtual void all_reduce(std::span<int64_t> values, Reduction op) = 0;
  /// Every rank's `mine` (of the same size on every rank), concatenated in rank order, on every
  /// rank (collective).
  virtual std::vector<std::byte> all_gather(std::span<const std::byte> mine) = 0;
  /// Rank 0's `bytes` on every rank (collective).
  virtual void broadcast_from_rank_0(std::vector<std::byte>& bytes) = 0;
  /// Point to point, for pipelines: `bytes` to rank `to`, which receive()s them from this rank.
  virtual void send(uint32_t to, std::span<const std::byte> bytes) = 0;
  virtual std::vector<std::byte> receive(uint32_t from) = 0;
  /// How many ranks (this one included) share this rank's machine, and so its memory.
  virtual uint32_t ranks_on_this_machine() const { return 1; }
};

}  // namespace dlsim
