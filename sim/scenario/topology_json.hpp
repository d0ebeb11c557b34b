// The topology object of a scenario (or of a standalone topology file) as JSON: parsing with
// one-line errors naming the file and JSON pointer, rendering back with every default filled
// in, and loading a standalone file for `dlsim topology`. Keys, units and defaults are
// documented in topologies/README.md.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "topologies/graph.hpp"
#include "topologies/metrics.hpp"
#include "topologies/topology_spec.hpp"

namespace dlsim {

/// Seed of a standalone topology file that has no "seed" key.
inline constexpr uint64_t kDefaultTopologySeed = 1;

/// Parses the topology object `j` found at `pointer` ("/topology"; "" for a whole file) of
/// `file`. Relative "file" paths are resolved against the folder of `file`. With `agents` (a
/// scenario's agent count) the node count comes from it and "n", rows x cols or "dimension"
/// must agree. Throws InputError "FILE: /pointer/key: message" for unknown keys, wrong types,
/// out-of-range values, bad unit strings; with `limit` kUnchecked not for more than
/// topo::kMaxEdges edges (the caller checks once it knows whether they are built).
topo::TopologySpec parse_topology(const nlohmann::json& j, const std::string& file,
                                  const std::string& pointer, std::optional<uint32_t> agents,
                                  topo::EdgeLimit limit = topo::EdgeLimit::kChecked);

/// The spec as a JSON object with every default filled in ("n", "latency", "bandwidth",
/// "overrides"; "seed" when set; "file" as an absolute path), so that parse_topology of the
/// result gives the same spec back from any folder.
nlohmann::json topology_to_json(const topo::TopologySpec& spec);

/// A standalone topology file built and measured: what `dlsim topology` prints.
struct TopologyFileReport {
  topo::TopologySpec spec;
  uint64_t seed = kDefaultTopologySeed;  // the file's "seed", or kDefaultTopologySeed
  topo::Graph graph;
  topo::GraphMetrics metrics;  // Metropolis-Hastings weights for the spectral gap
};

/// Reads `path` (a JSON file whose top level is a topology object), builds the graph and its
/// metrics. Throws InputError naming the file for anything wrong in it, including a file that
/// is missing or is not JSON.
TopologyFileReport load_topology_file(const std::string& path);

/// Writes the graph as GraphViz DOT with latency and bandwidth attributes to `path`, through
/// `path`.tmp renamed at the end so a failure leaves nothing behind. Throws InputError when the
/// file cannot be written.
void write_topology_dot(const topo::Graph& graph, const std::string& path);

}  // namespace dlsim
