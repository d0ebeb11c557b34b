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
  MPI_Comm local = MPI_COMM_NULL;
  MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
  int local_size = 1;
  MPI_Comm_size(local, &local_size);
  MPI_Comm_free(&local);
  local_ranks_ = static_cast<uint32_t>(local_size);
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

WindowEnd MpiPartitionExchange::end_window(SimTime clock, bool ok) {
  // One all-reduce for both: the latest clock, and the maximum of "failed" (any rank's 1 wins).
  const int64_t mine[2] = {clock.ns, ok ? 0 : 1};
  int64_t all[2] = {0, 0};
  MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_MAX, comm_);
  return WindowEnd{SimTime{all[0]}, all[1] == 0};
}

ExchangeRound MpiPartitionExchange::exchange(std::span<const std::byte> outgoing,
                                             std::span<const size_t> counts, bool more) {
  DLSIM_CHECK(counts.size() == ranks_, "{} outboxes for {} ranks", counts.size(), ranks_);
  // Every rank's row of counts and its "more", to all (one collective: each rank learns what it
  // will receive, and whether any rank goes on for another round).
  const size_t row = ranks_ + 1;
  sizes_.resize(row * ranks_);
  int* mine = sizes_.data() + rank_ * row;
  size_t total = 0;
  for (uint32_t r = 0; r < ranks_; ++r) {
    DLSIM_CHECK(counts[r] <= INT_MAX, "{} bytes for rank {}", counts[r], r);
    mine[r] = static_cast<int>(counts[r]);
    total += counts[r];
  }
  mine[ranks_] = more ? 1 : 0;
  DLSIM_CHECK(total == outgoing.size(), "{} bytes counted, {} given", total, outgoing.size());
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, sizes_.data(), static_cast<int>(row), MPI_INT,
                comm_);
  const auto from = [&](uint32_t r) { return sizes_[r * row + rank_]; };  // what r sends here
  bool any_more = false;
  size_t incoming = 0;
  for (uint32_t r = 0; r < ranks_; ++r) {
    incoming += static_cast<size_t>(from(r));
    any_more = any_more || sizes_[r * row + ranks_] != 0;
  }
  received_.resize(incoming);
  // Pairwise rather than one MPI_Alltoallv, whose int offsets would cap what a rank receives in
  // a round at 2 GiB: each rank sends every other at least one event per round, which with
  // large models over many ranks can add up past that. Each part is one message, at most INT_MAX.
  requests_.clear();
  size_t in_at = 0, out_at = 0;
  for (uint32_t r = 0; r < ranks_; ++r) {
    if (from(r) > 0)
      MPI_Irecv(received_.data() + in_at, from(r), MPI_BYTE, static_cast<int>(r), kExchangeTag,
                comm_, &requests_.emplace_back());
    in_at += static_cast<size_t>(from(r));
  }
  for (uint32_t r = 0; r < ranks_; ++r) {
    if (counts[r] > 0)
      MPI_Isend(outgoing.data() + out_at, static_cast<int>(counts[r]), MPI_BYTE,
                static_cast<int>(r), kExchangeTag, comm_, &requests_.emplace_back());
    out_at += counts[r];
  }
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  return ExchangeRound{received_, any_more};
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

void MpiPartitionExchange::all_reduce(std::span<int64_t> values, Reduction op) {
  DLSIM_CHECK(values.size() <= INT_MAX, "{} values to reduce", values.size());
  const MPI_Op mpi_op = op == Reduction::kMin ? MPI_MIN : op == Reduction::kMax ? MPI_MAX : MPI_SUM;
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT64_T, mpi_op,
                comm_);
}

std::vector<std::byte> MpiPartitionExchange::all_gather(std::span<const std::byte> mine) {
  DLSIM_CHECK(mine.size() <= INT_MAX / ranks_, "{} bytes to gather from every rank", mine.size());
  std::vector<std::byte> all(mine.size() * ranks_);
  MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_BYTE, all.data(),
                static_cast<int>(mine.size()), MPI_BYTE, comm_);
  return all;
}

void MpiPartitionExchange::broadcast_from_rank_0(std::vector<std::byte>& bytes) {
  uint64_t size = bytes.size();
  MPI_Bcast(&size, 1, MPI_UINT64_T, 0, comm_);
  DLSIM_CHECK(size <= INT_MAX, "{} bytes to broadcast", size);
  bytes.resize(size);
  MPI_Bcast(bytes.data(), static_cast<int>(size), MPI_BYTE, 0, comm_);
}

// Tag 1: only the run layer's pipelines send point to point on this communicator.
void MpiPartitionExchange::send(uint32_t to, std::span<const std::byte> bytes) {
  DLSIM_CHECK(bytes.size() <= INT_MAX && to < ranks_, "{} bytes to rank {} of {}", bytes.size(), to,
              ranks_);
  MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, static_cast<int>(to), 1, comm_);
}

std::vector<std::byte> MpiPartitionExchange::receive(uint32_t from) {
  MPI_Status status;
  MPI_Probe(static_cast<int>(from), 1, comm_, &status);
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  std::vector<std::byte> bytes(static_cast<size_t>(count));
  MPI_Recv(bytes.data(), count, MPI_BYTE, static_cast<int>(from), 1, comm_, MPI_STATUS_IGNORE);
  return bytes;
}

}  // namespace dlsim
