// `dlsim` called in this process (sim/cli/app.hpp's run_cli), for the tests of what a run writes:
// its exit code and output, a scratch folder per test process, the smoke scenarios, summary.json.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/cli/app.hpp"
#include "sim/scenario/load_scenario.hpp"

namespace dlsim::testing {

struct CliResult {
  int code;
  std::string out, err;
};

inline CliResult run_dlsim(std::vector<std::string> args) {
  args.insert(args.begin(), "dlsim");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int code = dlsim::cli::run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  return {code, out.str(), err.str()};
}

/// An empty folder path for `name`: ctest runs test cases as parallel processes, so the
/// process id keeps theirs apart.
inline std::string scratch(const std::string& name) {
  const std::filesystem::path p = std::filesystem::path(DLSIM_BINARY_DIR) / "tests" / "cli_runs" /
                                  (std::to_string(getpid()) + "-" + name);
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p.parent_path());
  return p.string();
}

inline std::string smoke(const std::string& name) {
  return std::string(DLSIM_SOURCE_DIR) + "/scenarios/smoke/" + name + ".json";
}

inline nlohmann::json summary(const std::string& out) {
  std::ifstream in(out + "/summary.json");
  return nlohmann::json::parse(in);
}

}  // namespace dlsim::testing
