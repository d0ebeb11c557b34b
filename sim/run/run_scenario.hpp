// The run layer's entry point: runs one scenario to its output folder. Builds the world, attaches
// the recorders to it, writes the resolved scenario.json, drives the world, streams metrics.csv at
// every evaluation point and writes summary.json. The folder is written as OUT.tmp and renamed
// at the end (a failed run leaves nothing behind, but for its checkpoint when it keeps them).
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>

#include "models/data/data_paths.hpp"
#include "sim/core/rank_collectives.hpp"
#include "sim/metrics/progress.hpp"
#include "sim/run/checkpoint.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace dlsim {

struct RunOptions {
  std::filesystem::path out;  // the final output folder
  unsigned threads = 1;       // agents' local work in parallel; results do not depend on it
  models::DataPaths data_paths;
  ProgressMode progress = ProgressMode::kQuiet;
  /// Checkpoints into OUT.tmp (sim/run/checkpoint.hpp); none by default. Whatever this says, a
  /// run whose OUT.tmp holds a checkpoint continues from it (under the checkpoint's own policy
  /// when this one is off): the same command again, `--resume` and a sweep run again all resume.
  CheckpointPolicy checkpoints;
  /// Called on run_scenario's thread after every iteration that all agents completed; it may
  /// throw (Cancelled: the Python module's Ctrl-C) to abandon the run, whose OUT.tmp is then
  /// removed as for any failure. Empty: nothing is called (the CLI).
  std::function<void()> between_iterations;
  /// Replaces the scenario's trigger rule (TriggerDecider, sim/agents/trigger.hpp; not owned).
  /// InputError naming /algorithm/kind when the algorithm computes no drift for it.
  TriggerDecider* trigger = nullptr;
  /// > 1: the agents run as this many partitions in windows, as MPI ranks would, in this one
  /// process (sim/run/virtual_ranks.hpp); the results must be those of 1.
  uint32_t virtual_ranks = 1;
  /// One run over the ranks of an MPI job (sim/distributed/run_ranks.hpp; not owned): each rank
  /// runs its block of agents, and rank 0 alone writes the output folder and logs. Every rank
  /// calls run_scenario with the same spec and options. Null (or one rank): one process.
  RankCollectives* ranks = nullptr;
  /// Over ranks: the size of a window's shipping rounds (Simulator::set_shipping_round_bytes);
  /// 0: the default. dlsim run reads it from DLSIM_ROUND_BYTES, for tests.
  size_t shipping_round_bytes = 0;
};

struct RunReport {
  nlohmann::json summary;  // what summary.json holds; over MPI ranks, on rank 0 only
  std::filesystem::path out;
  bool ok = true;  // the run did not diverge (on every rank)
};

/// Runs `spec`; progress and warnings go to `log`. Throws InputError for missing or bad data.
RunReport run_scenario(const ScenarioSpec& spec, const RunOptions& options, std::ostream& log);

}  // namespace dlsim
