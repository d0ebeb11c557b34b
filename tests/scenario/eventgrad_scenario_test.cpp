#include <doctest/doctest.h>

#include "scenario_test_helpers.hpp"
#include "sim/scenario/load_scenario.hpp"

using namespace dlsim;
using dlsim::testing::scenario_error_of;
using dlsim::testing::with;
using nlohmann::json;

namespace {

json scenario(const char* algorithm, json trigger) {
  json j = json::parse(R"({
    "name": "t", "agents": 4,
    "model": {"kind": "quadratic", "dim": 100},
    "run": {"iterations": 10}
  })");
  j["algorithm"] = {{"kind", algorithm}};
  j["trigger"] = std::move(trigger);
  return j;
}

const json kAdaptive = {{"kind", "adaptive"}, {"horizon", 0.95}};

}  // namespace

TEST_CASE("eventgrad and per-tensor triggers parse to their specs and back") {
  ScenarioSpec s = parse_scenario(scenario("eventgrad", kAdaptive), "s.json");
  CHECK(s.algorithm.is("eventgrad"));
  REQUIRE(s.trigger);
  CHECK(s.trigger->kind == TriggerKind::kAdaptive);
  CHECK(s.trigger->horizon == 0.95);
  CHECK(s.trigger->warmup == 30);
  const ScenarioSpec again = parse_scenario(scenario_to_json(s), "s.json");
  CHECK(scenario_to_json(again) == scenario_to_json(s));
  // A threshold on eventgrad is per tensor without saying so; on detsgrad when asked.
  s = parse_scenario(scenario("eventgrad", {{"kind", "threshold"}, {"v0", 0.1}}), "s.json");
  CHECK(s.trigger->granularity == Granularity::kLayer);
  s = parse_scenario(scenario("detsgrad", {{"kind", "threshold"}, {"v0", 0.1}}), "s.json");
  CHECK(s.trigger->granularity == Granularity::kModel);
  s = parse_scenario(
      scenario("detsgrad", {{"kind", "threshold"}, {"v0", 0.1}, {"granularity", "layer"}}),
      "s.json");
  CHECK(s.trigger->granularity == Granularity::kLayer);
  CHECK(scenario_to_json(s)["trigger"]["granularity"] == "layer");
  s = parse_scenario(with(scenario("detsgrad", kAdaptive), "/trigger/warmup", 0), "s.json");
  CHECK(s.trigger->warmup == 0);
}

TEST_CASE("bad per-tensor trigger input names its JSON pointer") {
  CHECK(scenario_error_of(scenario("eventgrad", {{"kind", "adaptive"}})) ==
        "s.json: /trigger/horizon: required key is missing");
  CHECK(scenario_error_of(with(scenario("eventgrad", kAdaptive), "/trigger/horizon", 0)) ==
        "s.json: /trigger/horizon: the threshold's factor per iteration must be positive and "
        "finite, got 0");
  CHECK(scenario_error_of(with(scenario("eventgrad", kAdaptive), "/trigger/warmup", -1)) ==
        "s.json: /trigger/warmup: expected an integer >= 0, got -1");
  CHECK(scenario_error_of(with(scenario("eventgrad", kAdaptive), "/trigger/granularity",
                               "layer")) == "s.json: /trigger/granularity: unknown key");
  CHECK(scenario_error_of(scenario("eventgrad", {{"kind", "always"}})) ==
        "s.json: /trigger/kind: algorithm \"eventgrad\" does not take a \"always\" trigger");
  CHECK(scenario_error_of(scenario("eventgrad", {{"kind", "threshold"}, {"v0", 1},
                                                 {"granularity", "model"}})) ==
        "s.json: /trigger/granularity: \"eventgrad\" decides per tensor: use \"layer\"");
  CHECK(scenario_error_of(with(scenario("choco", {{"kind", "threshold"}, {"v0", 1},
                                                  {"granularity", "layer"}}),
                               "/algorithm/gamma", 0.5)) ==
        "s.json: /trigger/granularity: algorithm \"choco\" decides on the whole model; "
        "per-tensor thresholds are for \"detsgrad\" and \"eventgrad\"");
  CHECK(scenario_error_of(scenario("gossip", kAdaptive)) ==
        "s.json: /trigger/kind: algorithm \"gossip\" does not take a \"adaptive\" trigger");
  CHECK(scenario_error_of(with(scenario("detsgrad", kAdaptive), "/algorithm/compression",
                               {{"kind", "sign"}})) ==
        "s.json: /algorithm/compression: a per-tensor trigger sends whole tensors; it takes no "
        "compression (remove one of them)");
  CHECK(scenario_error_of(with(scenario("eventgrad", kAdaptive), "/algorithm/compression",
                               {{"kind", "sign"}})) ==
        "s.json: /algorithm/compression: algorithm \"eventgrad\" takes no compression (see "
        "scenarios/README.md, \"compression\"); remove this key");
  CHECK(scenario_error_of(scenario("eventgrad", {{"kind", "threshold"}, {"v0", 1},
                                                 {"form", "alpha"}})) ==
        "s.json: /trigger/form: \"alpha\" scales the threshold by DETSGRAD's step size; use "
        "\"decay\" with \"eventgrad\"");
  // The kind comes first: an algorithm that takes no threshold says so, whatever its form.
  CHECK(scenario_error_of(scenario("gossip", {{"kind", "threshold"}, {"v0", 1},
                                              {"form", "alpha"}})) ==
        "s.json: /trigger/kind: algorithm \"gossip\" does not take a \"threshold\" trigger");
  CHECK(scenario_error_of(with(scenario("eventgrad", kAdaptive), "/algorithm/weights", "x")) ==
        "s.json: /algorithm/weights: expected \"metropolis_hastings\", \"max_degree\", "
        "\"uniform\" or \"lazy_metropolis_hastings\", got \"x\"");
}
