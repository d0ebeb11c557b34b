// Churn as JSON ("churn": {"kind": "trace" | "markov", ...}; keys in scenarios/README.md,
// "churn") and the trace file it may name: parsing with one-line errors naming the file and JSON
// pointer, or the trace's file:line, and rendering back with every default filled in.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/agents/churn.hpp"
#include "sim/scenario/json_object.hpp"

namespace dlsim {

/// Parses the churn object for `agents` agents; a trace file is read here (relative to the
/// scenario file's folder).
ChurnSpec parse_churn(JsonObject o, uint32_t agents);
nlohmann::json churn_to_json(const ChurnSpec& spec);

/// Reads a churn trace: CSV lines `agent,offline_from,online_again` (seconds; online_again may
/// be "inf"), an optional header line of exactly those names, blank lines and '#' comments.
/// InputError "PATH:LINE: message" for a malformed line, an agent >= agents, a negative or
/// reversed interval, or one that overlaps another of the same agent.
std::vector<std::vector<OfflineInterval>> read_churn_trace(const std::string& path,
                                                           uint32_t agents);

}  // namespace dlsim
