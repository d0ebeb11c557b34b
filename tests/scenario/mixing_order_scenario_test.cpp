#include <doctest/doctest.h>

#include "sim/scenario/algorithms/dpsgd.hpp"
#include "sim/scenario/algorithms/gossip.hpp"
#include "sim/scenario/load_scenario.hpp"
#include "scenario_test_helpers.hpp"

using namespace dlsim;
using dlsim::testing::scenario_error_of;
using dlsim::testing::with;
using nlohmann::json;

namespace {

json dpsgd() {
  return json::parse(R"({
    "name": "t", "agents": 4, "algorithm": {"kind": "dpsgd"},
    "model": {"kind": "quadratic", "dim": 10}, "run": {"iterations": 10}
  })");
}

}  // namespace

TEST_CASE("D-PSGD's and Gossiping SGD's order defaults to combine-then-adapt and resolves to its name") {
  ScenarioSpec s = parse_scenario(dpsgd(), "s.json");
  CHECK(s.algorithm.options_as<DpsgdOptions>().order == MixingOrder::kCombineThenAdapt);
  CHECK(scenario_to_json(s)["algorithm"]["order"] == "combine_then_adapt");
  s = parse_scenario(with(dpsgd(), "/algorithm/order", "adapt_then_combine"), "s.json");
  CHECK(s.algorithm.options_as<DpsgdOptions>().order == MixingOrder::kAdaptThenCombine);
  const ScenarioSpec again = parse_scenario(scenario_to_json(s), "s.json");
  CHECK(again.algorithm.options_as<DpsgdOptions>().order == MixingOrder::kAdaptThenCombine);
  json gossip = with(dpsgd(), "/algorithm", {{"kind", "gossip"}, {"order", "adapt_then_combine"}});
  gossip["trigger"] = {{"kind", "always"}};
  s = parse_scenario(gossip, "s.json");
  CHECK(s.algorithm.options_as<GossipOptions>().order == MixingOrder::kAdaptThenCombine);
  CHECK(scenario_to_json(s)["algorithm"]["order"] == "adapt_then_combine");
}

TEST_CASE("a bad or unsupported order names /algorithm/order") {
  CHECK(scenario_error_of(with(dpsgd(), "/algorithm/order", "atc")) ==
        "s.json: /algorithm/order: expected one of \"combine_then_adapt\", "
        "\"adapt_then_combine\", got \"atc\"");
  json async = with(with(dpsgd(), "/algorithm/order", "adapt_then_combine"), "/time/mode", "async");
  const ScenarioSpec parsed = parse_scenario(async, "s.json");
  CHECK(parsed.algorithm.options_as<DpsgdOptions>().order == MixingOrder::kAdaptThenCombine);
  async["algorithm"]["kind"] = "gossip";
  async["trigger"] = {{"kind", "always"}};
  CHECK(scenario_error_of(async).find("s.json: /algorithm/order: gossip's \"adapt_then_combine\" "
                                      "runs in sync mode only") == 0);
  json detsgrad = with(dpsgd(), "/algorithm", {{"kind", "detsgrad"}, {"order", "adapt_then_combine"}});
  detsgrad["trigger"] = {{"kind", "always"}};
  CHECK(scenario_error_of(detsgrad) == "s.json: /algorithm/order: unknown key");
}
