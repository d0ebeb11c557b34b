// A bound on how deeply any JSON that dlsim reads may nest. nlohmann's parser builds, and its
// destructor tears down, a document recursively: a file of a million '[' would exhaust the stack
// (a crash, not an error). Scenarios, sweep files and topology files nest a few levels; refusing
// anything deeper than kMaxJsonDepth while parsing keeps every document small enough to handle.
#pragma once

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>

#include "sim/core/error.hpp"

namespace dlsim {

constexpr int kMaxJsonDepth = 64;

/// A parser callback (for Json::parse) that throws InputError naming `source` once the document
/// nests deeper than kMaxJsonDepth.
template <class Json>
typename Json::parser_callback_t json_depth_limit(std::string source) {
  return [source = std::move(source)](int depth, typename Json::parse_event_t, Json&) {
    if (depth > kMaxJsonDepth)
      throw InputError(fmt::format("{}: JSON nested deeper than {} levels", source, kMaxJsonDepth));
    return true;
  };
}

}  // namespace dlsim
