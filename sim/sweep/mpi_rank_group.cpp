// Builds with MPI: join the job when an MPI launcher started this process. Without a launcher
// (plain `dlsim sweep`) MPI is never initialised, so a single-process sweep needs no MPI runtime.
#ifdef DLSIM_WITH_MPI
#include <mpi.h>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/sweep/launcher.hpp"
#include "sim/sweep/rank_group.hpp"

namespace dlsim {
namespace {

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
  void barrier() override { MPI_Barrier(MPI_COMM_WORLD); }
  bool all(bool ok) override {
    int mine = ok ? 1 : 0, every = 0;
    MPI_Allreduce(&mine, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
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
