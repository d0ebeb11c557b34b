// Byzantine agents as JSON ("byzantine": {"agents": [...] | "count": f, "attack": {...},
// "knowledge": ...}; keys in scenarios/README.md, "byzantine"): parsing with one-line errors
// naming the file and JSON pointer, the checks against the rest of the scenario, and rendering
// back with every default filled in.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/agents/byzantine.hpp"
#include "sim/scenario/json_object.hpp"

namespace dlsim {

struct ScenarioSpec;

/// Parses the byzantine object for `agents` agents; "count" places them from `seed`.
ByzantineSpec parse_byzantine(JsonObject o, uint32_t agents, uint64_t seed);
/// What the rest of the scenario must allow (the algorithm, time mode, topology, compression,
/// the dataset's classes for label_flip); InputError naming /byzantine otherwise.
void check_byzantine(const ScenarioSpec& s);
nlohmann::json byzantine_to_json(const ByzantineSpec& spec);

}  // namespace dlsim
