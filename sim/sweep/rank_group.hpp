// The processes a sweep's runs are shared among: one process, or the ranks of an MPI job
// (mpirun, srun). Rank r runs the runs whose index is r modulo size; rank 0 writes sweep.csv.
#pragma once

#include <memory>

namespace dlsim {

class RankGroup {
 public:
  virtual ~RankGroup() = default;
  /// This process's rank, 0..size()-1; rank 0 prepares the folder and writes sweep.csv.
  virtual unsigned rank() const = 0;
  /// How many processes share the sweep.
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
/// SingleProcess when not started by an MPI launcher. InputError when a launcher started several
/// tasks that cannot form a group (a build without MPI, srun without --mpi=pmix): each would run
/// the whole sweep into the same folder.
std::unique_ptr<RankGroup> join_rank_group();

/// Whether this build can share a sweep among MPI ranks.
bool built_with_mpi();

}  // namespace dlsim
