// The scenario loader: the only place a scenario's JSON is read. A file (plus --set overrides)
// becomes a validated ScenarioSpec, and a ScenarioSpec renders back to JSON with every default
// filled in (the resolved scenario.json of a run, which loads to the same spec).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/scenario/scenario_spec.hpp"

namespace dlsim {

/// Parses a JSON file. InputError "FILE: byte N: message" when it is not JSON, "FILE: cannot
/// read" when it cannot be opened.
nlohmann::json read_json_file(const std::string& path);
/// The same, keeping the file's key order.
nlohmann::ordered_json read_ordered_json_file(const std::string& path);

/// Applies one "--set /json/pointer=VALUE": VALUE is parsed as JSON, else taken as a string;
/// null removes the key. InputError on a malformed assignment or pointer.
void apply_override(nlohmann::json& scenario, const std::string& assignment);

/// Validates a scenario object read from `file`; every error names file and JSON pointer.
ScenarioSpec parse_scenario(const nlohmann::json& j, const std::string& file);

/// read_json_file + apply_override for each + parse_scenario.
ScenarioSpec load_scenario(const std::string& path, const std::vector<std::string>& overrides);

/// The fully resolved scenario: parse_scenario(scenario_to_json(s)) == s.
nlohmann::json scenario_to_json(const ScenarioSpec& spec);

}  // namespace dlsim
