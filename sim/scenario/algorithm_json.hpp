// The "algorithm" and "trigger" sections of a scenario as JSON, with the checks that tie them
// together (which algorithms take a trigger, and which triggers).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "sim/scenario/json_object.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace dlsim {

/// `topology` (already holding the network's latency and bandwidth) gives EASGD's server links
/// their defaults.
AlgorithmSpec parse_algorithm(JsonObject o, uint32_t agents, const topo::TopologySpec& topology);
nlohmann::json algorithm_to_json(const AlgorithmSpec& algorithm);

/// `trigger` is the scenario's "trigger" value or null when absent; `pointer` is its pointer.
std::optional<TriggerSpec> parse_trigger(const nlohmann::json* trigger, const std::string& file,
                                         const std::string& pointer, AlgorithmKind algorithm);
nlohmann::json trigger_to_json(const TriggerSpec& trigger);

std::string_view to_string(AlgorithmKind kind);

}  // namespace dlsim
