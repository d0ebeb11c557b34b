// A dynamic topology as JSON ("topology": {"dynamic": {...}}; keys in topologies/README.md,
// "Dynamic topologies"): parsing with one-line errors naming the file and JSON pointer, and
// rendering back with every default filled in.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "topologies/dynamic_graphs.hpp"

namespace dlsim {

/// Whether the topology value `j` is a dynamic one (an object with the key "dynamic").
bool is_dynamic_topology(const nlohmann::json& j);

/// Parses the topology object `j` at `pointer` ("/topology") of `file`, which holds only
/// "dynamic", for `agents` agents. The graphs it names (random_matching's "over", sequence's
/// "topologies") are topology objects of `agents` nodes that carry no links of their own (no
/// latency, bandwidth or overrides: messages travel over the underlay).
topo::DynamicSpec parse_dynamic_topology(const nlohmann::json& j, const std::string& file,
                                         const std::string& pointer, uint32_t agents);

/// {"dynamic": {...}} with every default filled in; parse_dynamic_topology gives `spec` back.
nlohmann::json dynamic_topology_to_json(const topo::DynamicSpec& spec);

}  // namespace dlsim
