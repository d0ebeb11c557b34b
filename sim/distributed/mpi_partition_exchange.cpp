// Blocking collectives, not the polite polling of sim/sweep's MpiRankGroup: a window lasts
// microseconds, not seconds, and a rank waits at its end only as long as the slowest rank's
// window (Open MPI busy-polls meanwhile, so ranks that share a core slow each other down).
// An MPI error is fatal (MPI_ERRORS_ARE_FATAL): the launcher then ends every rank.
#include "sim/distributed/mpi_partition_exchange.hpp"

#include <climits>

#include "sim/core/error.hpp"

namespace dlsim {
namespace {

std::vector<int> offsets_of(const std::vector<int>& counts) {
  std::vector<int> offsets(counts.size(), 0);
  long long at = 0;
  for (size_t r = 0; r < counts.size(); ++r) {
    DLSIM_CHECK(at <= INT_MAX, "more than {} bytes in one exchange", INT_MAX);
    offsets[r] = static_cast<int>(at);
    at += counts[r];
  }
  DLSIM_CHECK(at <= INT_MAX, "more than {} bytes in one exchange", INT_MAX);
  return offsets;
}

}  // namespace

MpiPartitionExchange::MpiPartitionExchange(MPI_Comm comm) {
  MPI_Comm_dup(comm, &comm_);
  int rank = 0, size = 1;
  MPI_Comm_rank(comm_, &rank);
  MPI_Comm_size(comm_, &size);
  rank_ = static_cast<uint32_t>(rank);
  ranks_ = static_cast<uint32_t>(size);
}

MpiPartitionExchange::~MpiPartitionExchange() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

WindowStart MpiPartitionExchange::start_window(SimTime earliest, bool ok) {
  // One all-reduce for both: the minimum time, and the minimum of ok (any rank's 0 wins).
  const int64_t mine[2] = {earliest.ns, ok ? 1 : 0};
  int64_t all[2] = {0, 0};
  MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_MIN, comm_);
  return WindowStart{SimTime{all[0]}, all[1] == 1};
}

bool MpiPartitionExchange::all_ok(bool ok) {
  int mine = ok ? 1 : 0, every = 0;
  MPI_Allreduce(&mine, &every, 1, MPI_INT, MPI_MIN, comm_);
  return every == 1;
}

std::vector<std::byte> MpiPartitionExchange::exchange(
    std::span<const std::vector<std::byte>> outgoing) {
  DLSIM_CHECK(outgoing.size() == ranks_, "{} outboxes for {} ranks", outgoing.size(), ranks_);
  std::vector<int> send_counts(ranks_), receive_counts(ranks_);
  std::vector<std::byte> send;
  for (uint32_t r = 0; r < ranks_; ++r) {
    DLSIM_CHECK(outgoing[r].size() <= INT_MAX, "{} bytes for rank {}", outgoing[r].size(), r);
    send_counts[r] = static_cast<int>(outgoing[r].size());
    send.insert(send.end(), outgoing[r].begin(), outgoing[r].end());
  }
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, receive_counts.data(), 1, MPI_INT, comm_);
  const std::vector<int> send_offsets = offsets_of(send_counts);
  const std::vector<int> receive_offsets = offsets_of(receive_counts);
  std::vector<std::byte> received(static_cast<size_t>(receive_offsets.back()) +
                                  static_cast<size_t>(receive_counts.back()));
  MPI_Alltoallv(send.data(), send_counts.data(), send_offsets.data(), MPI_BYTE, received.data(),
                receive_counts.data(), receive_offsets.data(), MPI_BYTE, comm_);
  return received;
}

std::vector<std::vector<std::byte>> MpiPartitionExchange::gather_to_rank_0(
    std::span<const std::byte> mine) {
  DLSIM_CHECK(mine.size() <= INT_MAX, "{} bytes to gather", mine.size());
  const int count = static_cast<int>(mine.size());
  std::vector<int> counts(rank_ == 0 ? ranks_ : 0);
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm_);
  std::vector<int> offsets;
  std::vector<std::byte> all;
  if (rank_ == 0) {
    offsets = offsets_of(counts);
    all.resize(static_cast<size_t>(offsets.back()) + static_cast<size_t>(counts.back()));
  }
  MPI_Gatherv(mine.data(), count, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE, 0,
              comm_);
  std::vector<std::vector<std::byte>> by_rank;
  for (uint32_t r = 0; rank_ == 0 && r < ranks_; ++r)
    by_rank.emplace_back(all.begin() + offsets[r], all.begin() + offsets[r] + counts[r]);
  return by_rank;
}

}  // namespace dlsim
