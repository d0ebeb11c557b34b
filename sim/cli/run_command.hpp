// `dlsim run [SCENARIO.json] [-o OUT] [--set /pointer=VALUE ...] [--threads N] [--quiet]
//  [--virtual-ranks R] [--data-dir DIR] [--checkpoint-every N|DURATION] [--resume OUT.tmp]` and
// `dlsim validate SCENARIO.json [--set ...]`.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace dlsim::cli {

struct RunCommandOptions {
  std::string scenario;               // empty: scenarios/default.json
  std::string out;                    // empty: runs/<name>
  std::vector<std::string> overrides;  // --set
  unsigned threads = 0;               // 0: all cores
  uint32_t virtual_ranks = 1;         // partitions run in windows in this process
  uint32_t validate_ranks = 1;        // validate --ranks: as a run over this many MPI ranks
  bool quiet = false;
  std::optional<std::string> data_dir;
  std::string checkpoint_every;  // empty: no checkpoints
  std::string resume;            // OUT.tmp of an interrupted run; empty: none
};

/// Thrown by run_run once a diverged run's folder is written and its results and the line naming
/// the iteration and agent are printed: run_cli maps it to kExitDiverged.
class RunDiverged final : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Registers `run` and `validate`; results go to `out`, progress and warnings to `err`.
void add_run_commands(CLI::App& app, std::ostream& out, std::ostream& err);
/// Runs a scenario. Throws InputError for bad input, RunDiverged when the run diverged.
void run_run(const RunCommandOptions& options, std::ostream& out, std::ostream& err);
/// Validates a scenario without running it: loads it and builds its world (graph, data, shards,
/// models), so that validate accepts exactly what run would start. Throws InputError.
void run_validate(const RunCommandOptions& options, std::ostream& out, std::ostream& err);

/// scenarios/default.json in the working directory, else in the source tree dlsim was built from.
std::string default_scenario_path();

}  // namespace dlsim::cli
