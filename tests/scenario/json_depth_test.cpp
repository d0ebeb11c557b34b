// Deeply nested JSON is refused with one line naming the file, in every reader, instead of
// exhausting the stack.
#include <doctest/doctest.h>

#include "scenario_test_helpers.hpp"
#include "sim/scenario/json_depth.hpp"
#include "sim/scenario/load_scenario.hpp"
#include "sim/scenario/topology_json.hpp"

using namespace dlsim;

namespace {

std::string write_file(const std::string& name, const std::string& text) {
  return testing::write_test_file("json-depth", name, text);
}

// {"agents": [[[...1...]]]} with `depth` brackets: the document nests depth + 1 levels.
std::string nested(int depth) {
  return "{\"agents\": " + std::string(depth, '[') + "1" + std::string(depth, ']') + "}";
}

}  // namespace

TEST_CASE("a scenario nested a million levels deep is an input error naming the file") {
  const std::string path = write_file("deep.json", nested(1000000));
  CHECK_THROWS_WITH_AS(load_scenario(path, {}),
                       (path + ": JSON nested deeper than 64 levels").c_str(), InputError);
}

TEST_CASE("the depth limit refuses one level past it and accepts the limit itself") {
  const std::string at_limit = write_file("at-limit.json", nested(kMaxJsonDepth - 1));
  const std::string past = write_file("past.json", nested(kMaxJsonDepth));
  // At the limit the document parses: the error is about its content, not its depth.
  CHECK_THROWS_WITH_AS(load_scenario(at_limit, {}), doctest::Contains("/agents"), InputError);
  CHECK_THROWS_WITH_AS(load_scenario(past, {}), doctest::Contains("nested deeper"), InputError);
}

TEST_CASE("topology files and --set values have the same bound") {
  const std::string path = write_file("deep-topology.json", std::string(100000, '[') +
                                                                std::string(100000, ']'));
  CHECK_THROWS_WITH_AS(load_topology_file(path),
                       (path + ": JSON nested deeper than 64 levels").c_str(), InputError);
  const std::string scenario = std::string(DLSIM_SOURCE_DIR) + "/scenarios/smoke/detsgrad.json";
  CHECK_THROWS_WITH_AS(
      load_scenario(scenario, {"/model/x=" + std::string(1000, '[') + std::string(1000, ']')}),
      "--set /model/x: JSON nested deeper than 64 levels", InputError);
}
