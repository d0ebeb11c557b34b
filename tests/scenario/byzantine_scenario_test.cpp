// The "byzantine" key (sim/scenario/byzantine_json.hpp): parsed to its spec and back, placed
// from the seed, and every bad input refused with its JSON pointer.
#include <doctest/doctest.h>

#include "scenario_test_helpers.hpp"
#include "sim/robust/attacks.hpp"
#include "sim/scenario/load_scenario.hpp"
#include "sim/scenario/world.hpp"

using namespace dlsim;
using dlsim::testing::scenario_error_of;
using dlsim::testing::with;
using nlohmann::json;

namespace {

json scenario(json byzantine) {
  json j = json::parse(R"({
    "name": "t", "agents": 8, "seed": 3,
    "model": {"kind": "quadratic", "dim": 4},
    "algorithm": {"kind": "dpsgd"},
    "run": {"iterations": 5}
  })");
  j["byzantine"] = std::move(byzantine);
  return j;
}

json round_trip(const ScenarioSpec& s) {
  const json rendered = scenario_to_json(s);
  CHECK(scenario_to_json(parse_scenario(rendered, "s.json")) == rendered);
  return rendered;
}

}  // namespace

TEST_CASE("byzantine agents parse to their spec and back, with each attack's defaults") {
  ScenarioSpec s =
      parse_scenario(scenario({{"agents", {5, 2}}, {"attack", {{"kind", "ipm"}}}}), "s.json");
  REQUIRE(s.byzantine);
  CHECK(s.byzantine->agents == std::vector<uint32_t>{2, 5});
  CHECK(s.byzantine->attack.kind == AttackKind::kIpm);
  CHECK(s.byzantine->attack.epsilon == 0.1);
  CHECK(s.byzantine->attack.knowledge == AttackKnowledge::kReceived);
  CHECK(round_trip(s)["byzantine"] == json{{"agents", {2, 5}},
                                           {"attack", {{"kind", "ipm"}, {"epsilon", 0.1}}},
                                           {"knowledge", "received"}});
  s = parse_scenario(
      scenario({{"count", 2}, {"attack", {{"kind", "dissensus"}}}, {"knowledge", "omniscient"}}),
      "s.json");
  CHECK(s.byzantine->attack.epsilon == 1.0);
  CHECK(s.byzantine->attack.knowledge == AttackKnowledge::kOmniscient);
  CHECK(s.byzantine->agents == place_byzantine(3, 8, 2));
  CHECK(round_trip(s)["byzantine"]["count"] == 2);
  s = parse_scenario(scenario({{"count", 1}, {"attack", {{"kind", "gaussian"}}}}), "s.json");
  CHECK(s.byzantine->attack.sigma == 1.0);
  round_trip(s);
  s = parse_scenario(scenario({{"agents", {0}}, {"attack", {{"kind", "sign_flip"}}}}), "s.json");
  CHECK(s.byzantine->attack.kind == AttackKind::kSignFlip);
  round_trip(s);
}

TEST_CASE("ALIE's z is given, or computed from the agents and the Byzantine count") {
  ScenarioSpec s = parse_scenario(
      scenario({{"count", 1}, {"attack", {{"kind", "alie"}, {"z", 2.5}}}}), "s.json");
  CHECK(s.byzantine->attack.z == 2.5);
  s = parse_scenario(scenario({{"count", 2}, {"attack", {{"kind", "alie"}}}}), "s.json");
  // n = 8, f = 2: s = floor(8/2 + 1) - 2 = 3, z = Phi^-1((8 - 2 - 3) / 6) = Phi^-1(0.5) = 0.
  CHECK(s.byzantine->attack.z == doctest::Approx(*alie_z(8, 2)));
  CHECK(s.byzantine->attack.z == doctest::Approx(0.0).epsilon(1e-9));
  CHECK(round_trip(s)["byzantine"]["attack"]["z"].is_number());
  // n = 8, f = 5: s = 0, (8 - 5 - 0) / 3 = 1 is not in (0, 1): z must be given.
  CHECK(scenario_error_of(scenario({{"count", 5}, {"attack", {{"kind", "alie"}}}}))
            .rfind("s.json: /byzantine/attack/z: required: with 8 agents of which 5 Byzantine",
                   0) == 0);
}

TEST_CASE("bad byzantine input exits 2 naming its JSON pointer") {
  const json ipm = {{"kind", "ipm"}};
  CHECK(scenario_error_of(scenario({{"agents", {1, 8}}, {"attack", ipm}})) ==
        "s.json: /byzantine/agents/1: expected an integer in [0, 7], got 8");
  CHECK(scenario_error_of(scenario({{"agents", {3, 1, 3}}, {"attack", ipm}})) ==
        "s.json: /byzantine/agents/2: agent 3 is listed twice");
  // Named as listed twice even when the list is as long as the agents are many.
  CHECK(scenario_error_of(scenario({{"agents", {0, 1, 2, 3, 4, 5, 6, 6}}, {"attack", ipm}})) ==
        "s.json: /byzantine/agents/7: agent 6 is listed twice");
  CHECK(scenario_error_of(scenario({{"count", 8}, {"attack", ipm}})) ==
        "s.json: /byzantine/count: 8 Byzantine agents of 8: at least one must be honest");
  CHECK(scenario_error_of(scenario({{"agents", {0, 1, 2, 3, 4, 5, 6, 7}}, {"attack", ipm}})) ==
        "s.json: /byzantine/agents: 8 Byzantine agents of 8: at least one must be honest");
  CHECK(scenario_error_of(scenario({{"agents", {1}}, {"count", 1}, {"attack", ipm}}))
            .rfind("s.json: /byzantine/count: give either", 0) == 0);
  CHECK(scenario_error_of(scenario({{"attack", ipm}})).rfind("s.json: /byzantine: expected", 0) ==
        0);
  CHECK(scenario_error_of(scenario({{"count", 1}, {"attack", {{"kind", "lie"}}}}))
            .rfind("s.json: /byzantine/attack/kind: expected one of", 0) == 0);
  CHECK(scenario_error_of(scenario({{"count", 1}, {"attack", {{"kind", "ipm"}, {"sigma", 1}}}}))
            .rfind("s.json: /byzantine/attack/sigma: ", 0) == 0);
  CHECK(scenario_error_of(scenario({{"count", 1}, {"attack", ipm}, {"who", 1}}))
            .rfind("s.json: /byzantine/who: ", 0) == 0);
  CHECK(
      scenario_error_of(scenario({{"count", 1}, {"attack", {{"kind", "gaussian"}, {"sigma", -1}}}}))
          .rfind("s.json: /byzantine/attack/sigma: ", 0) == 0);
  CHECK(scenario_error_of(
            scenario({{"count", 1}, {"attack", {{"kind", "dissensus"}, {"epsilon", -0.5}}}}))
            .rfind("s.json: /byzantine/attack/epsilon: ", 0) == 0);
  CHECK(scenario_error_of(scenario({{"count", 1}, {"attack", ipm}, {"knowledge", "all"}}))
            .rfind("s.json: /byzantine/knowledge: expected one of", 0) == 0);
}

TEST_CASE(
    "Byzantine senders are refused outside sync D-PSGD and DETSGRAD on a static graph, naming the "
    "key") {
  const json b = {{"count", 1}, {"attack", {{"kind", "sign_flip"}}}};
  CHECK(scenario_error_of(with(scenario(b), "/algorithm", {{"kind", "none"}}))
            .rfind(
                "s.json: /byzantine: Byzantine senders work with \"dpsgd\" and \"detsgrad\" so far",
                0) == 0);
  CHECK(scenario_error_of(with(scenario(b), "/time/mode", "async"))
            .rfind("s.json: /byzantine: Byzantine senders run in sync mode only", 0) == 0);
  CHECK(scenario_error_of(
            with(scenario(b), "/algorithm/compression", {{"kind", "top_k"}, {"fraction", 0.5}}))
            .rfind("s.json: /byzantine: Byzantine senders send uncompressed", 0) == 0);
  CHECK(scenario_error_of(with(scenario(b), "/churn",
                               {{"kind", "markov"}, {"mean_online", "1s"}, {"mean_offline", "1s"}}))
            .rfind("s.json: /byzantine: Byzantine senders with churn are not supported", 0) == 0);
  // label_flip is data-side: it needs ten classes, which a quadratic model has not.
  CHECK(scenario_error_of(scenario({{"count", 1}, {"attack", {{"kind", "label_flip"}}}})) ==
        "s.json: /byzantine/attack/kind: label_flip relabels y as 9 - y and needs a dataset of "
        "10 classes");
}

TEST_CASE("label_flip needs ten classes and flips exactly the attackers' learners, any algorithm") {
  json j = read_json_file(std::string(DLSIM_SOURCE_DIR) + "/scenarios/smoke/dpsgd.json");
  j["byzantine"] = {{"agents", {2}}, {"attack", {{"kind", "label_flip"}}}};
  CHECK(scenario_error_of(j) ==
        "s.json: /byzantine/attack/kind: label_flip relabels y as 9 - y "
        "and needs a dataset of 10 classes");
  j["data"]["synthetic"]["classes"] = 10;
  j["algorithm"] = {{"kind", "none"}};
  const ScenarioSpec s = parse_scenario(j, "s.json");
  CHECK(round_trip(s)["byzantine"]["attack"] == json{{"kind", "label_flip"}});
  const auto world = build_world(s, models::DataPaths{});
  for (uint32_t i = 0; i < 4; ++i) CHECK(world->learners[i]->flips_labels() == (i == 2));
}

TEST_CASE("quadratic models measure the distance to the honest agents' optimum") {
  const ScenarioSpec s =
      parse_scenario(scenario({{"agents", {2, 5}}, {"attack", {{"kind", "sign_flip"}}}}), "s.json");
  const auto world = build_world(s, models::DataPaths{});
  std::vector<const models::Model*> honest, all;
  for (uint32_t i = 0; i < 8; ++i) {
    all.push_back(&world->learners[i]->model());
    if (i != 2 && i != 5) honest.push_back(&world->learners[i]->model());
  }
  const Eigen::VectorXf expected = models::quadratic_optimum(honest);
  REQUIRE(expected != models::quadratic_optimum(all));  // the attackers' targets would move it
  for (uint32_t i = 0; i < 8; ++i) {
    REQUIRE(world->learners[i]->model().optimum() != nullptr);
    CHECK(*world->learners[i]->model().optimum() == expected);
  }
}
