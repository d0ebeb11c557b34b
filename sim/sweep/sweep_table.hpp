// sweep.csv: one row per run of a sweep, read back from the runs' own folders (so a resumed
// sweep and an uninterrupted one write the same table, wall-clock column aside). Columns: id,
// seed, one per varied pointer (headed by the pointer), status, then the summary's headline
// numbers; an empty cell means not applicable. README.md ("Sweeps") documents each column.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/sweep/sweep_spec.hpp"

namespace dlsim {

/// A run's finished record in its folder (summary.json), or null when there is none or it is
/// not for `run`'s resolved scenario (the sweep changed since it ran).
nlohmann::json finished_summary(const std::filesystem::path& run_folder, const SweepRun& run);

struct SweepCounts {
  size_t ok = 0, diverged = 0, failed = 0, missing = 0;
};

/// Writes OUT/sweep.csv (through a temporary file and a rename) from OUT/runs/<id>/.
SweepCounts write_sweep_csv(const SweepSpec& spec, const std::filesystem::path& out);

}  // namespace dlsim
