// The PartitionExchange (sim/core/partition_exchange.hpp) over MPI: each window's agreement is
// one MPI_Allreduce, each round of its events one MPI_Allgather of every rank's byte counts and
// "more" and a message to each rank it sends to;
// and the run layer's RankCollectives (sim/core/rank_collectives.hpp).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/core/rank_collectives.hpp"

namespace dlsim {

class MpiPartitionExchange final : public RankCollectives {
 public:
  /// Precondition: MPI is initialised; the exchange is destroyed before MPI_Finalize. Works on a
  /// duplicate of `comm`, so its collectives never meet the caller's messages.
  explicit MpiPartitionExchange(MPI_Comm comm = MPI_COMM_WORLD);
  ~MpiPartitionExchange() override;
  MpiPartitionExchange(const MpiPartitionExchange&) = delete;
  MpiPartitionExchange& operator=(const MpiPartitionExchange&) = delete;

  uint32_t rank() const override { return rank_; }
  uint32_t ranks() const override { return ranks_; }
  WindowStart start_window(SimTime earliest, bool ok) override;
  bool all_ok(bool ok) override;
  WindowEnd end_window(SimTime clock, bool ok) override;
  ExchangeRound exchange(std::span<const std::byte> outgoing, std::span<const size_t> counts,
                         bool more) override;
  std::vector<std::vector<std::byte>> gather_to_rank_0(std::span<const std::byte> mine) override;
  void all_reduce(std::span<int64_t> values, Reduction op) override;
  std::vector<std::byte> all_gather(std::span<const std::byte> mine) override;
  void broadcast_from_rank_0(std::vector<std::byte>& bytes) override;
  void send(uint32_t to, std::span<const std::byte> bytes) override;
  std::vector<std::byte> receive(uint32_t from) override;
  uint32_t ranks_on_this_machine() const override { return local_ranks_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<std::byte> received_;  // exchange()'s, reused
  std::vector<int> sizes_;           // exchange()'s: every rank's counts and "more"
  std::vector<MPI_Request> requests_;  // exchange()'s
  // exchange()'s messages; send() and receive() use 1. Between two ranks messages of one tag
  // arrive in order, and exchanges do not overlap.
  static constexpr int kExchangeTag = 2;
  uint32_t rank_ = 0;
  uint32_t ranks_ = 1;
  uint32_t local_ranks_ = 1;  // sharing this rank's memory (MPI_COMM_TYPE_SHARED)
};

}  // namespace dlsim
