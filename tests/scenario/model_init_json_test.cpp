// model.init in a scenario: the three names, the default, the resolved scenario, and a bad value
// naming its JSON pointer.
#include <doctest/doctest.h>

#include "scenario_test_helpers.hpp"
#include "sim/scenario/load_scenario.hpp"

using namespace dlsim;
using dlsim::testing::scenario_error_of;
using dlsim::testing::with;
using nlohmann::json;

namespace {

json minimal() {
  return json::parse(R"({
    "name": "t", "agents": 2,
    "data": {"dataset": "synthetic-clusters", "synthetic": {"classes": 4, "width": 8}},
    "model": {"kind": "mlp", "hidden": [8]},
    "algorithm": {"kind": "dpsgd"},
    "run": {"iterations": 10}
  })");
}

}  // namespace

TEST_CASE("model.init: he_normal by default, the three names, written back resolved") {
  CHECK(parse_scenario(minimal(), "s.json").model.init == models::InitScheme::kHeNormal);
  CHECK(parse_scenario(with(minimal(), "/model/init", "glorot_normal"), "s.json").model.init ==
        models::InitScheme::kGlorotNormal);
  const ScenarioSpec s = parse_scenario(with(minimal(), "/model/init", "pytorch"), "s.json");
  CHECK(s.model.init == models::InitScheme::kPytorch);
  CHECK(scenario_to_json(s)["model"]["init"] == "pytorch");
  CHECK(scenario_to_json(parse_scenario(minimal(), "s.json"))["model"]["init"] == "he_normal");
  CHECK(parse_scenario(scenario_to_json(s), "s.json").model.init == models::InitScheme::kPytorch);
}

TEST_CASE("model.init: a bad value or a quadratic model names /model/init") {
  CHECK(scenario_error_of(with(minimal(), "/model/init", "xavier")).starts_with("s.json: /model/init: "));
  CHECK(scenario_error_of(with(minimal(), "/model/init", 3)).starts_with("s.json: /model/init: "));
  json quadratic = minimal();
  quadratic.erase("data");
  quadratic["model"] = {{"kind", "quadratic"}, {"dim", 4}, {"init", "pytorch"}};
  CHECK(scenario_error_of(quadratic) == "s.json: /model/init: unknown key");
}
