// `dlsim sweep SWEEP.json [-o OUT] [--jobs N] [--quiet] [--data-dir DIR]`, also under mpirun.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <stdexcept>

namespace dlsim::cli {

/// Thrown once a sweep's table is written when some runs failed or are missing: run_cli maps it
/// to kExitIncomplete (the table and the failures are already printed).
class SweepIncomplete final : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Registers `sweep`; the result goes to `out`, progress and failures to `err`.
void add_sweep_command(CLI::App& app, std::ostream& out, std::ostream& err);

}  // namespace dlsim::cli
