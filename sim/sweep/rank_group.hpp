// The processes a sweep's runs are shared among: one process, or the ranks of an MPI job
// (mpirun, srun). Rank r runs the runs whose index is r modulo size; rank 0 writes sweep.csv.
#pragma once

#include <memory>

namespace dlsim {

class RankGroup {
 public:
  virtual ~RankGroup() = default;
  virtual unsigned rank() const = 0;
  virtual unsigned size() const = 0;
  /// Returns once every rank has called it.
  virtual void barrier() = 0;
  /// True on every rank iff `ok` is true on every rank (a barrier too): a failure one rank saw
  /// stops them all at the same step.
  virtual bool all(bool ok) = 0;
};

class SingleProcess final : public RankGroup {
 public:
  unsigned rank() const override { return 0; }
  unsigned size() const override { return 1; }
  void barrier() override {}
  bool all(bool ok) override { return ok; }
};

/// The MPI job this process was started in (MPI_Init here, MPI_Finalize when destroyed), or a
/// SingleProcess when dlsim was built without MPI or not started by an MPI launcher.
std::unique_ptr<RankGroup> join_rank_group();

/// Whether this build can share a sweep among MPI ranks.
bool built_with_mpi();

}  // namespace dlsim
