// The execution sections of a scenario as JSON: "network", "time", "run". Parsing (errors name
// file and JSON pointer) and rendering back with every default filled in.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/scenario/json_object.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace dlsim {

/// The bound on each (sender, destination) send buffer when a scenario gives none: 2 messages.
constexpr uint64_t kDefaultSendBufferMessages = 2;

/// network: loss, jitter, header, send_buffer, when_full, nic. Its "latency" and "bandwidth" become
/// the topology's per-edge defaults (unless the topology object sets its own), so they are applied
/// to `topology`. A NIC rate is one string for every agent or a list of `agents` strings.
NetworkConfig parse_network(JsonObject o, topo::TopologySpec& topology,
                            const nlohmann::json& topology_json, uint32_t agents);
nlohmann::json network_to_json(const NetworkConfig& network);

TimeSpec parse_time(JsonObject o, uint32_t agents);
nlohmann::json time_to_json(const TimeSpec& time);

RunSpec parse_run(JsonObject o);
nlohmann::json run_to_json(const RunSpec& run);

}  // namespace dlsim
