// Builds with MPI: join the job when an MPI launcher started this process. Without a launcher
// (plain `dlsim sweep`) MPI is never initialised, so a single-process sweep needs no MPI runtime.
#ifdef DLSIM_WITH_MPI
#include <mpi.h>

#include <fmt/format.h>

#include <chrono>
#include <thread>

#include "sim/core/error.hpp"
#include "sim/sweep/launcher.hpp"
#include "sim/sweep/rank_group.hpp"

namespace dlsim {
namespace {

// Open MPI's blocking collectives poll at full speed: a rank that finished its share of the runs
// would burn its core (often shared with another rank or job) until the slowest rank is done.
// The collectives are started non-blocking and tested every few milliseconds instead; a sweep's
// runs take seconds, so the added latency does not show.
void wait_politely(MPI_Request& request) {
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

class MpiRankGroup final : public RankGroup {
 public:
  MpiRankGroup() {
    // --jobs runs threads, but only the main thread calls MPI.
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rank_ = static_cast<unsigned>(rank);
    size_ = static_cast<unsigned>(size);
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

 private:
  unsigned rank_ = 0;
  unsigned size_ = 1;
};

}  // namespace

std::unique_ptr<RankGroup> join_rank_group() {
  if (!started_by_mpi_launcher()) {
    // e.g. srun without --mpi=pmix: several copies would each run the whole sweep.
    if (const unsigned tasks = launcher_task_count(); tasks > 1)
      throw InputError(fmt::format("started as one of {} tasks without an MPI launcher's "
                                   "environment; under Slurm use srun --mpi=pmix", tasks));
    return std::make_unique<SingleProcess>();
  }
  return std::make_unique<MpiRankGroup>();
}

bool built_with_mpi() { return true; }

}  // namespace dlsim
#endif
