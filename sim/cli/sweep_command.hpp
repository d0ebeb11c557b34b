// `dlsim sweep SWEEP.json [-o OUT] [--jobs N] [--quiet] [--data-dir DIR]`, also under mpirun.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>

namespace dlsim::cli {

/// Registers `sweep`; the result goes to `out`, progress and failures to `err`.
void add_sweep_command(CLI::App& app, std::ostream& out, std::ostream& err);

}  // namespace dlsim::cli
