// The "algorithm" and "trigger" sections of a scenario as JSON, with the checks that tie them
// together (which algorithms take a trigger, and which triggers). Each algorithm's own options
// are read by its descriptor (sim/scenario/algorithms/).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "sim/scenario/algorithm_descriptor.hpp"
#include "sim/scenario/json_object.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace dlsim {

/// `topology` (already holding the network's latency and bandwidth) gives EASGD's server links
/// their defaults.
AlgorithmSpec parse_algorithm(JsonObject o, uint32_t agents, const topo::TopologySpec& topology);
nlohmann::json algorithm_to_json(const AlgorithmSpec& algorithm);

/// `trigger` is the scenario's "trigger" value or null when absent; `pointer` is its pointer.
std::optional<TriggerSpec> parse_trigger(const nlohmann::json* trigger, const std::string& file,
                                         const std::string& pointer,
                                         const AlgorithmDescriptor& algorithm);
nlohmann::json trigger_to_json(const TriggerSpec& trigger);

/// The names of the algorithms that have `capability`, for error messages: "\"a\", \"b\" and
/// \"c\"" (`last` joins the last two).
std::string algorithms_with(bool AlgorithmCapabilities::*capability,
                            std::string_view last = "and");

}  // namespace dlsim
