// The processes a sweep's runs are shared among: one process, or the ranks of an MPI job
// (mpirun, srun). Runs are dealt one at a time to whichever rank is free first; rank 0 deals
// them and writes sweep.csv.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace dlsim {

/// A run a thread has finished: its index in the sweep and an outcome code the caller chose.
struct FinishedRun {
  size_t index = 0;
  int outcome = 0;
};

/// Hands the calling thread its next run (an index from rank 0's list), or nullopt when none is
/// left; `previous` is the run this thread finished last, reported to rank 0. Thread-safe.
using TakeRun = std::function<std::optional<size_t>(const std::optional<FinishedRun>& previous)>;

class RankGroup {
 public:
  virtual ~RankGroup() = default;
  /// This process's rank, 0..size()-1; rank 0 prepares the folder, deals the runs and writes
  /// sweep.csv.
  virtual unsigned rank() const = 0;
  /// How many processes share the sweep.
  virtual unsigned size() const = 0;
  /// Returns once every rank has called it.
  virtual void barrier() = 0;
  /// True on every rank iff `ok` is true on every rank (a barrier too): a failure one rank saw
  /// stops them all at the same step.
  virtual bool all(bool ok) = 0;
  /// Deals `todo` (rank 0's list of run indices; the other ranks' is ignored), in its order, to
  /// whichever thread of whichever rank asks first: calls `work(take)` on every rank, and each
  /// index is returned by exactly one take() in the group. `elsewhere` is called on rank 0 (on
  /// the calling thread, while `work` runs; it must not throw) for each run another rank reports
  /// finished. Returns once `work` has returned here and, on rank 0, every rank's has; rethrows
  /// what `work` threw.
  virtual void deal(const std::vector<size_t>& todo,
                    const std::function<void(const TakeRun&)>& work,
                    const std::function<void(const FinishedRun&)>& elsewhere) = 0;
};

class SingleProcess final : public RankGroup {
 public:
  unsigned rank() const override { return 0; }
  unsigned size() const override { return 1; }
  void barrier() override {}
  bool all(bool ok) override { return ok; }
  void deal(const std::vector<size_t>& todo, const std::function<void(const TakeRun&)>& work,
            const std::function<void(const FinishedRun&)>&) override {
    std::atomic<size_t> next{0};
    work([&](const std::optional<FinishedRun>&) -> std::optional<size_t> {
      const size_t i = next++;
      if (i < todo.size()) return todo[i];
      return std::nullopt;
    });
  }
};

/// The MPI job this process was started in (MPI_Init here, MPI_Finalize when destroyed), or a
/// SingleProcess when not started by an MPI launcher. InputError when a launcher started several
/// tasks that cannot form a group (a build without MPI, srun without --mpi=pmix): each would run
/// the whole sweep into the same folder.
std::unique_ptr<RankGroup> join_rank_group();

/// Whether this build can share a sweep among MPI ranks.
bool built_with_mpi();

}  // namespace dlsim
