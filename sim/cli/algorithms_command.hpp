// `dlsim algorithms`: every algorithm with a line on what it is, then the capability matrix
// (which time modes, graphs, churn, failures, compression and triggers each runs with).
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>

namespace dlsim::cli {

/// Registers the `algorithms` subcommand on `app`; it prints to `out`.
void add_algorithms_command(CLI::App& app, std::ostream& out);

}  // namespace dlsim::cli
