// Runs a sweep into its folder: OUT/sweep.json (the sweep as read), OUT/runs/<id>/ (each run's
// folder, exactly as `dlsim run` writes it) and OUT/sweep.csv. Resumable: a run whose folder
// already holds a finished result for the same resolved scenario is never run again; a run
// folder appears only whole (OUT/runs/<id>.tmp renamed), so a sweep killed at any moment and
// started again runs exactly what is missing. A failed run is recorded (status "failed") and
// tried again by the next start; it does not stop the others.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>

#include "models/data/data_paths.hpp"
#include "sim/run/checkpoint.hpp"
#include "sim/sweep/rank_group.hpp"
#include "sim/sweep/sweep_spec.hpp"
#include "sim/sweep/sweep_table.hpp"

namespace dlsim {

enum class SweepProgressMode { kLine, kLines, kQuiet };  // redrawn line, a line per run, none

struct SweepOptions {
  std::filesystem::path out;
  unsigned jobs = 1;  // runs at once in this process, one thread each
  models::DataPaths data_paths;
  SweepProgressMode progress = SweepProgressMode::kQuiet;
  CheckpointPolicy checkpoints;  // each run's, into its <id>.tmp; a run left with one resumes
  /// Each run's RunOptions::between_iterations (called on the run's thread). When it throws
  /// Cancelled, no further run starts, the runs in progress stop (leaving no folder), and
  /// run_sweep rethrows it without writing sweep.csv; the runs finished before are kept.
  std::function<void()> between_iterations;
};

struct SweepReport {
  size_t runs = 0;     // in the whole sweep
  size_t reused = 0;   // finished before this start (rank 0 only: it decides what is missing)
  size_t ran = 0;      // run now: by every rank on rank 0, by this rank on the others
  SweepCounts counts;  // over the whole sweep, from sweep.csv (rank 0 only)
  std::filesystem::path csv;
};

/// InputError (before any run starts) when OUT exists and is not a sweep's folder.
SweepReport run_sweep(const SweepSpec& spec, const SweepOptions& options, RankGroup& ranks,
                      std::ostream& log);

}  // namespace dlsim
