// Joining the MPI job a launcher (mpirun, srun) started, for one run over its ranks
// (docs/partitioned-runs.md): MPI is initialised when the ranks are joined and finalised when
// they are left, so a plain `dlsim run` never needs an MPI runtime.
#pragma once

#include <memory>

#include "sim/core/rank_collectives.hpp"

namespace dlsim {

class RunRanks {
 public:
  virtual ~RunRanks() = default;  ///< leaves the job (MPI_Finalize)
  virtual RankCollectives& collectives() = 0;
  /// Ends every rank of the job with `exit_code` (MPI_Abort): for a failure on one rank outside
  /// the simulator's windows, where the others could wait for it in a collective for ever.
  [[noreturn]] virtual void abort(int exit_code) = 0;
};

/// The ranks of the job this process was started in, or null when it was started as one task.
/// EnvironmentError when it was started as one of several tasks and cannot join them (a build
/// without MPI, or a launcher without an MPI environment).
std::unique_ptr<RunRanks> join_run_ranks();

}  // namespace dlsim
