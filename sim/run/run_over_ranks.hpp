// What `dlsim run` does differently over MPI ranks besides the windows: refusals of options,
// agreeing on a resume (docs/partitioned-runs.md, slice (c)).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "sim/core/rank_collectives.hpp"
#include "sim/run/run_scenario.hpp"

namespace dlsim {

/// InputError for options that cannot go with a run over `ranks` MPI ranks (the scenario's own
/// refusals are plan_partitions').
void refuse_over_ranks(const RunOptions& options, uint32_t ranks);
/// Collective. The checkpoint this rank resumes from: its part `name` in `staging`, or that
/// part's previous generation, whichever is of the newest iteration every rank has (a crash
/// while the ranks replaced their parts leaves some a generation behind); nullopt when no rank
/// has a part. InputError naming `staging` when some rank has none, or no iteration is common.
std::optional<std::filesystem::path> agree_on_checkpoint(const std::filesystem::path& staging,
                                                         const std::string& name,
                                                         RankCollectives& ranks);
/// Collective. InputError naming `staging` unless every rank's checkpoint is of `iteration`.
void agree_on_iteration(int64_t iteration, RankCollectives& ranks,
                        const std::filesystem::path& staging);

}  // namespace dlsim
