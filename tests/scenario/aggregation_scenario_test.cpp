// The `algorithm.aggregation` key (sim/scenario/aggregation_json.hpp): every rule parses to its
// spec and back, D-PSGD alone takes a rule other than the mean, and bad parameters, a dynamic
// topology or a graph whose smallest neighbourhood is too small for the rule exit 2 naming the
// key.
#include <doctest/doctest.h>

#include "scenario_test_helpers.hpp"
#include "sim/scenario/algorithm_registry.hpp"
#include "sim/scenario/load_scenario.hpp"
#include "sim/scenario/world.hpp"

using namespace dlsim;
using dlsim::testing::input_error_of;
using dlsim::testing::scenario_error_of;
using dlsim::testing::with;
using nlohmann::json;

namespace {

json minimal(const char* algorithm = "dpsgd") {
  return dlsim::testing::quadratic_scenario(algorithm, 10);
}

json with_rule(const json& rule, json j = minimal()) {
  return with(std::move(j), "/algorithm/aggregation", rule);
}

ScenarioSpec parsed(const json& j) { return parse_scenario(j, "s.json"); }

// The InputError of building the world of `j` (empty if it builds).
std::string build_error_of(const json& j) {
  const ScenarioSpec s = parsed(j);
  return input_error_of([&] { build_world(s, models::DataPaths{}); });
}

}  // namespace

TEST_CASE("every aggregation rule parses to its spec and writes itself back") {
  const char* const rules[] = {R"({"rule": "mean"})",
                               R"({"rule": "clipped_gossip", "tau": 0.25})",
                               R"({"rule": "clipped_gossip", "tau": "adaptive"})",
                               R"({"rule": "trimmed_mean", "trim": 1})",
                               R"({"rule": "median"})",
                               R"({"rule": "krum", "f": 0})",
                               R"({"rule": "multi_krum", "f": 0, "m": 2})",
                               R"({"rule": "geometric_median", "iterations": 4, "nu": 0.5})",
                               R"({"rule": "balance", "gamma": 3.0, "kappa": 0.5, "alpha": 0.25})"};
  for (const char* rule : rules) {
    CAPTURE(rule);
    const ScenarioSpec s = parsed(with_rule(json::parse(rule)));
    CHECK(scenario_to_json(s)["algorithm"]["aggregation"] == json::parse(rule));
    const ScenarioSpec again = parsed(scenario_to_json(s));
    CHECK(scenario_to_json(again) == scenario_to_json(s));
  }
  const AggregationSpec b = parsed(with_rule(json::parse(rules[8]))).algorithm.aggregation;
  CHECK(b.kind == AggregationKind::kBalance);
  CHECK(b.gamma == 3.0);
  CHECK(b.kappa == 0.5);
  CHECK(b.alpha == 0.25);
  const AggregationSpec c = parsed(with_rule(json::parse(rules[2]))).algorithm.aggregation;
  CHECK(c.kind == AggregationKind::kClippedGossip);
  CHECK(c.radius == ClipRadius::kAdaptive);
  const AggregationSpec m = parsed(with_rule(json::parse(rules[6]))).algorithm.aggregation;
  CHECK(m.byzantine == 0);
  CHECK(m.selected == 2);
}

TEST_CASE("a rule's parameters left out take the documented defaults") {
  const auto spec_of = [](const char* rule) {
    return parsed(with_rule(json::parse(rule))).algorithm.aggregation;
  };
  CHECK(parsed(minimal()).algorithm.aggregation.kind == AggregationKind::kMean);
  CHECK(scenario_to_json(parsed(minimal()))["algorithm"]["aggregation"] == json{{"rule", "mean"}});
  CHECK(spec_of(R"({"rule": "clipped_gossip"})").tau == 1.0);
  CHECK(spec_of(R"({"rule": "clipped_gossip"})").radius == ClipRadius::kFixed);
  CHECK(spec_of(R"({"rule": "trimmed_mean"})").trim == 1);
  CHECK(spec_of(R"({"rule": "krum"})").byzantine == 1);
  CHECK(spec_of(R"({"rule": "geometric_median"})").iterations == 8);
  CHECK(spec_of(R"({"rule": "geometric_median"})").nu == 0.1);
  CHECK(spec_of(R"({"rule": "balance"})").gamma == 2.0);
  CHECK(spec_of(R"({"rule": "balance"})").kappa == 1.0);
  CHECK(spec_of(R"({"rule": "balance"})").alpha == 0.5);
}

TEST_CASE("bad aggregation parameters exit 2 naming their JSON pointer") {
  const auto error_of = [](const char* rule) {
    return scenario_error_of(with_rule(json::parse(rule)));
  };
  CHECK(error_of(R"({"rule": "clipped_gossip", "tau": -1})") ==
        "s.json: /algorithm/aggregation/tau: expected a radius > 0, got -1");
  CHECK(error_of(R"({"rule": "clipped_gossip", "tau": "auto"})") ==
        "s.json: /algorithm/aggregation/tau: expected a radius > 0 or \"adaptive\", got \"auto\"");
  CHECK(
      error_of(R"({"rule": "mode"})")
          .starts_with(
              "s.json: /algorithm/aggregation/rule: expected one of \"mean\", \"clipped_gossip\""));
  CHECK(error_of(R"({"rule": "median", "trim": 1})") ==
        "s.json: /algorithm/aggregation/trim: unknown key");
  CHECK(error_of(R"({"rule": "multi_krum", "f": 1})") ==
        "s.json: /algorithm/aggregation/m: required key is missing");
  CHECK(error_of(R"({"rule": "geometric_median", "nu": 0})") ==
        "s.json: /algorithm/aggregation/nu: expected a smoothing > 0, got 0");
  CHECK(error_of(R"({"rule": "balance", "alpha": 1.5})")
            .starts_with("s.json: /algorithm/aggregation/alpha: "));
  CHECK(error_of(R"("median")").starts_with("s.json: /algorithm/aggregation: expected an object"));
}

TEST_CASE(
    "a robust rule is refused for every algorithm but D-PSGD and DETSGRAD, the mean is taken by "
    "all") {
  for (const AlgorithmDescriptor* d : algorithm_descriptors()) {
    CAPTURE(d->name());
    json j = minimal();
    j["algorithm"]["kind"] = std::string(d->name());
    const std::string robust = scenario_error_of(with_rule({{"rule", "median"}}, j));
    if (d->capabilities().aggregation) {
      CHECK((d->name() == "dpsgd" || d->name() == "detsgrad" || d->name() == "eventgrad"));
      CHECK(robust.find("/algorithm/aggregation") == std::string::npos);
    } else {
      CHECK(robust.starts_with("s.json: /algorithm/aggregation: algorithm \"" +
                               std::string(d->name()) + "\" mixes with the mean only"));
    }
    const std::string mean = scenario_error_of(with_rule({{"rule", "mean"}}, j));
    CHECK(mean.find("/algorithm/aggregation") == std::string::npos);
  }
}

TEST_CASE("a robust rule on a dynamic topology exits 2 naming /algorithm/aggregation") {
  json j = with_rule({{"rule", "median"}});
  j["topology"] = {{"dynamic", {{"kind", "epidemic"}, {"s", 2}}}};
  CHECK(scenario_error_of(j) ==
        "s.json: /algorithm/aggregation: \"median\" works on a static topology only; on a "
        "dynamic one (/topology/dynamic) use \"mean\"");
  j["time"] = {{"mode", "async"}};
  CHECK(scenario_error_of(j).starts_with("s.json: /algorithm/aggregation: "));
}

TEST_CASE("a rule too large for the graph's smallest neighbourhood exits 2 naming the key") {
  // The default ring of 4: degree 2, 3 models per neighbourhood.
  CHECK(build_error_of(with_rule({{"rule", "trimmed_mean"}, {"trim", 1}})).empty());
  CHECK(build_error_of(with_rule({{"rule", "trimmed_mean"}, {"trim", 2}})) ==
        "s.json: /algorithm/aggregation: trimmed_mean drops 2b = 4 values per coordinate, needs "
        "more than 4 models (own included), has 3 (the graph's smallest neighbourhood: degree 2)");
  CHECK(build_error_of(with_rule({{"rule", "krum"}, {"f", 1}})) ==
        "s.json: /algorithm/aggregation: krum needs at least 2f + 3 = 5 models (own included) "
        "for f = 1, has 3 (the graph's smallest neighbourhood: degree 2)");
  // A star of 5: the hub has 4 neighbours, every leaf 1, so the leaves decide.
  json star = with_rule({{"rule", "krum"}, {"f", 1}});
  star["agents"] = 5;
  star["topology"] = {{"kind", "complete"}};
  CHECK(build_error_of(star).empty());
  star["topology"] = {{"kind", "star"}};
  CHECK(build_error_of(star).find("has 2 (the graph's smallest neighbourhood: degree 1)") !=
        std::string::npos);
  // Agents that craft their messages mix what they receive with the mean: only the others'
  // neighbourhoods count (all leaves Byzantine: the hub decides). Label flippers follow the
  // honest protocol, rule included.
  star["byzantine"] = {{"agents", {1, 2, 3, 4}}, {"attack", {{"kind", "sign_flip"}}}};
  CHECK(build_error_of(star).empty());
  star["byzantine"]["agents"] = {2, 3, 4};
  CHECK(build_error_of(star).find(
            "has 2 (the graph's smallest neighbourhood of an honest agent: degree 1)") !=
        std::string::npos);
  star["byzantine"] = {{"agents", {1, 2, 3, 4}}, {"attack", {{"kind", "label_flip"}}}};
  star["data"] = {{"dataset", "synthetic-clusters"}, {"synthetic", {{"classes", 10}, {"width", 8}}}};
  star["model"] = {{"kind", "mlp"}, {"hidden", {8}}};
  CHECK(build_error_of(star).find("has 2 (the graph's smallest neighbourhood: degree 1)") !=
        std::string::npos);
  json ring = with_rule({{"rule", "multi_krum"}, {"f", 0}, {"m", 3}});
  CHECK(build_error_of(ring).empty());
  ring["algorithm"]["aggregation"]["m"] = 4;
  CHECK(build_error_of(ring) ==
        "s.json: /algorithm/aggregation: multi_krum needs 1 <= m <= 3 (models, own included), "
        "got m = 4 (the graph's smallest neighbourhood: degree 2)");
}
