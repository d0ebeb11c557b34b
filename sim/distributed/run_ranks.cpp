#include "sim/distributed/run_ranks.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "sim/core/error.hpp"
#include "sim/core/launcher.hpp"

#ifdef DLSIM_WITH_MPI
#include <mpi.h>

#include "sim/distributed/mpi_partition_exchange.hpp"
#endif

namespace dlsim {
namespace {

#ifdef DLSIM_WITH_MPI
// Only the main thread calls MPI; the gradients' thread pool never does (FUNNELED).
class MpiRunRanks final : public RunRanks {
 public:
  MpiRunRanks() {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED) {
      MPI_Finalize();
      throw EnvironmentError(
          "MPI: this MPI library cannot run beside the gradients' threads (MPI_THREAD_FUNNELED)");
    }
    exchange_ = std::make_unique<MpiPartitionExchange>();
  }
  ~MpiRunRanks() override {
    exchange_.reset();  // its communicator is freed before MPI is left
    MPI_Finalize();
  }
  MpiRunRanks(const MpiRunRanks&) = delete;
  MpiRunRanks& operator=(const MpiRunRanks&) = delete;

  RankCollectives& collectives() override { return *exchange_; }
  [[noreturn]] void abort(int exit_code) override {
    MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::abort();  // MPI_Abort does not return; the compiler is not told so
  }

 private:
  std::unique_ptr<MpiPartitionExchange> exchange_;
};
#endif

}  // namespace

std::unique_ptr<RunRanks> join_run_ranks() {
  const unsigned tasks = launcher_task_count();
  if (tasks <= 1) return nullptr;
#ifdef DLSIM_WITH_MPI
  if (started_by_mpi_launcher()) return std::make_unique<MpiRunRanks>();
  throw EnvironmentError(fmt::format(
      "started as one of {} tasks without an MPI launcher's environment; under Slurm use "
      "srun --mpi=pmix",
      tasks));
#else
  throw EnvironmentError(fmt::format(
      "started as one of {} tasks, but this dlsim was built without MPI: install Open MPI "
      "(bash tools/setup.sh --tests installs it) and build again",
      tasks));
#endif
}

}  // namespace dlsim
