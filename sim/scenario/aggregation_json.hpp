// The `aggregation` key of an algorithm: the robust aggregation rule with its parameters, as JSON
// (docs/algorithms.md, "Robust aggregation"; scenarios/README.md, "aggregation").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/robust/aggregation_rule.hpp"

namespace dlsim {

/// `value` at `pointer` in `file`: {"rule": ..., its parameters}. InputError naming the pointer
/// for an unknown rule, an unknown key or a parameter out of range (refusal() with no graph).
AggregationSpec parse_aggregation(const nlohmann::json& value, const std::string& file,
                                  const std::string& pointer);
/// The rule and its own parameters, defaults filled in: parse_aggregation(it) gives spec again.
nlohmann::json aggregation_to_json(const AggregationSpec& spec);

}  // namespace dlsim
