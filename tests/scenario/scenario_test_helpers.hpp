// Helpers the scenario tests share: edit a scenario document by JSON pointer, catch the one-line
// InputError a bad one produces, write a test file.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "sim/core/error.hpp"
#include "sim/scenario/load_scenario.hpp"

namespace dlsim::testing {

/// The smallest valid scenario of `algorithm`: 4 agents on quadratic models of `dim` coordinates.
inline nlohmann::json quadratic_scenario(const char* algorithm, int dim) {
  nlohmann::json j = nlohmann::json::parse(R"({
    "name": "t", "agents": 4,
    "model": {"kind": "quadratic"},
    "run": {"iterations": 10}
  })");
  j["model"]["dim"] = dim;
  j["algorithm"] = {{"kind", algorithm}};
  return j;
}

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

/// The message of the InputError that parse_scenario(j, "s.json") throws (empty if none).
inline std::string scenario_error_of(const nlohmann::json& j) {
  return input_error_of([&] { parse_scenario(j, "s.json"); });
}

/// Writes `text` to build/test-files/<folder>/<name>; returns the path.
inline std::string write_test_file(const std::string& folder, const std::string& name,
                                   const std::string& text) {
  const auto dir = std::filesystem::path(DLSIM_BINARY_DIR) / "test-files" / folder;
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

}  // namespace dlsim::testing
