// Link failures as JSON ("network": {"failures": {"kind": "trace" | "markov", ...}}; keys in
// scenarios/README.md, "network.failures") and the trace file it may name: parsing with one-line
// errors naming the file and JSON pointer, or the trace's file:line, and rendering back.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/network/link_failures.hpp"
#include "sim/scenario/json_object.hpp"

namespace dlsim {

/// Parses the failures object; a trace file is read here (relative to the scenario's folder),
/// its nodes checked against `nodes` (whether they are neighbours is checked by the network).
LinkFailureSpec parse_link_failures(JsonObject o, uint32_t nodes);
nlohmann::json link_failures_to_json(const LinkFailureSpec& spec);

/// Reads a failure trace: CSV lines `u,v,down_from,up_again` (seconds; up_again may be "inf"),
/// an optional header line of exactly those names, blank lines and '#' comments. InputError
/// "PATH:LINE: message" for a malformed line, a node >= nodes, u == v, a negative or reversed
/// interval, or one that overlaps another of the same link.
std::vector<LinkDownInterval> read_failure_trace(const std::string& path, uint32_t nodes);

}  // namespace dlsim
