// `dlsim topology FILE.json [--dot OUT.dot]`: builds the topology a JSON file describes and
// prints its metrics as an aligned table; optionally writes it as GraphViz DOT.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

#include "sim/scenario/topology_json.hpp"

namespace dlsim::cli {

struct TopologyOptions {
  std::string file;  // JSON whose top level is a topology object
  std::string dot;   // empty: no DOT output
};

/// Registers the `topology` subcommand on `app`; its report goes to `out` (which must outlive
/// the parse).
void add_topology_command(CLI::App& app, std::ostream& out);
/// Runs the command. Throws InputError for a bad file.
void run_topology(const TopologyOptions& options, std::ostream& out);
/// The metrics table, one "label   value" line per metric, labels padded to one width.
std::string format_topology_report(const TopologyFileReport& report);

}  // namespace dlsim::cli
