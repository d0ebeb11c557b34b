// Builds without MPI: every sweep runs in this one process.
#ifndef DLSIM_WITH_MPI
#include "sim/sweep/rank_group.hpp"

namespace dlsim {

std::unique_ptr<RankGroup> join_rank_group() { return std::make_unique<SingleProcess>(); }
bool built_with_mpi() { return false; }

}  // namespace dlsim
#endif
