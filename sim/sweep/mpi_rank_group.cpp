// Builds with MPI: join the job when an MPI launcher started this process. Without a launcher
// (plain `dlsim sweep`) MPI is never initialised, so a single-process sweep needs no MPI runtime.
#ifdef DLSIM_WITH_MPI
#include <fmt/format.h>
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>

#include "sim/core/error.hpp"
#include "sim/core/launcher.hpp"
#include "sim/sweep/rank_group.hpp"

namespace dlsim {
namespace {

// Open MPI's blocking calls (MPI_Recv, MPI_Barrier) poll at full speed: a rank waiting for its
// next run, or for the others at the end, would burn its core (often shared with another rank or
// job). The calls are started non-blocking and tested every few milliseconds instead, the thread
// asleep in between; a sweep's runs take seconds, so the added latency does not show.
void wait_politely(MPI_Request& request, MPI_Status* status = MPI_STATUS_IGNORE) {
  for (int done = 0;;) {
    MPI_Test(&request, &done, status);
    if (done) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// Dealing runs: a rank asks rank 0 for its next run (kAsk, carrying the run it finished last),
// rank 0 answers with a run index or -1 (kRun), and a rank whose threads have all been told -1
// says so (kDone). Messages are two long longs: {finished index or -1, outcome}.
constexpr int kAsk = 1, kRun = 2, kDone = 3;

class MpiRankGroup final : public RankGroup {
 public:
  MpiRankGroup() {
    // --jobs runs threads: on rank 0 only the main thread calls MPI (it deals), on the other
    // ranks each thread asks for its next run itself, one at a time (take_from_rank_0).
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rank_ = static_cast<unsigned>(rank);
    size_ = static_cast<unsigned>(size);
    if (provided < MPI_THREAD_SERIALIZED) {
      MPI_Finalize();
      throw EnvironmentError(
          "MPI: this MPI library cannot be called from several threads in turn "
          "(MPI_THREAD_SERIALIZED)");
    }
  }
  ~MpiRankGroup() override { MPI_Finalize(); }
  MpiRankGroup(const MpiRankGroup&) = delete;
  MpiRankGroup& operator=(const MpiRankGroup&) = delete;

  unsigned rank() const override { return rank_; }
  unsigned size() const override { return size_; }
  void barrier() override {
    MPI_Request request;
    MPI_Ibarrier(MPI_COMM_WORLD, &request);
    wait_politely(request);
  }
  bool all(bool ok) override {
    int mine = ok ? 1 : 0, every = 0;
    MPI_Request request;
    MPI_Iallreduce(&mine, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &request);
    wait_politely(request);
    return every == 1;
  }
  void deal(const std::vector<size_t>& todo, const std::function<void(const TakeRun&)>& work,
            const std::function<void(const FinishedRun&)>& elsewhere) override {
    if (rank_ == 0)
      deal_from_here(todo, work, elsewhere);
    else
      take_from_rank_0(work);
  }

 private:
  // Why a dealer rather than one-sided MPI (MPI_Fetch_and_op on a counter in a window on rank
  // 0, which needs no dealer): with Open MPI 4, a passive-target atomic over TCP (osc/rdma on
  // btl/tcp, or osc/pt2pt) only progresses when the target process enters MPI, and rank 0 spends
  // its time in a run that calls none, so every other rank would wait for rank 0's run to end;
  // and which osc component a window gets differs between one node (shared memory) and a
  // cluster. Plain two-sided messages progress on both ends in MPI calls both make anyway. Rank
  // 0 still runs its share of the runs, on its other threads: the dealer sleeps between polls.
  void deal_from_here(const std::vector<size_t>& todo,
                      const std::function<void(const TakeRun&)>& work,
                      const std::function<void(const FinishedRun&)>& elsewhere) {
    std::atomic<size_t> next{0};
    auto take = [&]() -> long long {
      const size_t i = next++;
      return i < todo.size() ? static_cast<long long>(todo[i]) : -1;
    };
    std::exception_ptr failure;
    std::thread local([&] {
      try {
        work([&](const std::optional<FinishedRun>&) -> std::optional<size_t> {
          const long long i = take();
          if (i < 0) return std::nullopt;
          return static_cast<size_t>(i);
        });
      } catch (...) {
        failure = std::current_exception();
      }
    });
    for (unsigned done = 0; done + 1 < size_;) {
      long long message[2] = {-1, 0};
      MPI_Request request;
      MPI_Status status;
      MPI_Irecv(message, 2, MPI_LONG_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &request);
      wait_politely(request, &status);
      if (status.MPI_TAG == kDone) {
        ++done;
        continue;
      }
      if (message[0] >= 0)
        elsewhere(FinishedRun{static_cast<size_t>(message[0]), static_cast<int>(message[1])});
      long long run = take();
      MPI_Send(&run, 1, MPI_LONG_LONG, status.MPI_SOURCE, kRun, MPI_COMM_WORLD);
    }
    local.join();
    if (failure) std::rethrow_exception(failure);
  }

  void take_from_rank_0(const std::function<void(const TakeRun&)>& work) {
    std::mutex one_at_a_time;  // MPI_THREAD_SERIALIZED: this rank's threads ask in turn
    auto ask = [&](const std::optional<FinishedRun>& previous) -> std::optional<size_t> {
      const std::lock_guard lock(one_at_a_time);
      long long message[2] = {previous ? static_cast<long long>(previous->index) : -1,
                              previous ? previous->outcome : 0};
      MPI_Send(message, 2, MPI_LONG_LONG, 0, kAsk, MPI_COMM_WORLD);
      long long run = -1;
      MPI_Request request;
      MPI_Irecv(&run, 1, MPI_LONG_LONG, 0, kRun, MPI_COMM_WORLD, &request);
      wait_politely(request);
      if (run < 0) return std::nullopt;
      return static_cast<size_t>(run);
    };
    std::exception_ptr failure;
    try {
      work(ask);
    } catch (...) {
      failure = std::current_exception();
    }
    // Rank 0 deals until every rank has said it is done, even one whose work threw.
    long long message[2] = {-1, 0};
    MPI_Send(message, 2, MPI_LONG_LONG, 0, kDone, MPI_COMM_WORLD);
    if (failure) std::rethrow_exception(failure);
  }

  unsigned rank_ = 0;
  unsigned size_ = 1;
};

}  // namespace

std::unique_ptr<RankGroup> join_rank_group() {
  if (!started_by_mpi_launcher()) {
    // e.g. srun without --mpi=pmix: several copies would each run the whole sweep.
    if (const unsigned tasks = launcher_task_count(); tasks > 1)
      throw InputError(
          fmt::format("started as one of {} tasks without an MPI launcher's "
                      "environment; under Slurm use srun --mpi=pmix",
                      tasks));
    return std::make_unique<SingleProcess>();
  }
  return std::make_unique<MpiRankGroup>();
}

bool built_with_mpi() { return true; }

}  // namespace dlsim
#endif
