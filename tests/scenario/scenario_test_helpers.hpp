// Helpers the scenario tests share: edit a scenario document by JSON pointer, and catch the
// one-line InputError a bad one produces.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>

#include "sim/core/error.hpp"

namespace dlsim::testing {

/// j with the value at `pointer` set (created if absent).
inline nlohmann::json with(nlohmann::json j, const std::string& pointer, nlohmann::json value) {
  j[nlohmann::json::json_pointer(pointer)] = std::move(value);
  return j;
}

/// The message of the InputError that `step` throws (empty if none).
template <class Step>
std::string input_error_of(Step&& step) {
  try {
    step();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace dlsim::testing
