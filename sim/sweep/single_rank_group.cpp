// Builds without MPI: every sweep runs in this one process.
#ifndef DLSIM_WITH_MPI
#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/launcher.hpp"
#include "sim/sweep/rank_group.hpp"

namespace dlsim {

std::unique_ptr<RankGroup> join_rank_group() {
  // Several copies would each run the whole sweep into the same folder.
  if (const unsigned tasks = launcher_task_count(); tasks > 1)
    throw InputError(fmt::format("started as one of {} tasks, but this dlsim was built without "
                                 "MPI; install libopenmpi-dev and rebuild, or start one task",
                                 tasks));
  return std::make_unique<SingleProcess>();
}
bool built_with_mpi() { return false; }

}  // namespace dlsim
#endif
