#include <doctest/doctest.h>

#include "sim/scenario/load_scenario.hpp"
#include "sim/scenario/algorithms/choco.hpp"
#include "scenario_test_helpers.hpp"

using namespace dlsim;
using dlsim::testing::scenario_error_of;
using dlsim::testing::with;
using nlohmann::json;

namespace {

json minimal(const char* algorithm = "dpsgd") {
  return dlsim::testing::quadratic_scenario(algorithm, 100);
}

json choco() {
  json j = minimal("choco");
  j["algorithm"]["gamma"] = 0.5;
  j["trigger"] = {{"kind", "always"}};
  return j;
}

}  // namespace

TEST_CASE("a compression stage or chain parses to its spec and back") {
  ScenarioSpec s = parse_scenario(
      with(minimal(), "/algorithm/compression", {{"kind", "top_k"}, {"fraction", 0.01}}), "s.json");
  CHECK(s.algorithm.compression.sparsifier == Sparsifier::kTopK);
  CHECK(s.algorithm.compression.fraction == 0.01);
  CHECK(s.algorithm.compression.quantizer == Quantizer::kFloat32);
  s = parse_scenario(with(choco(), "/algorithm/compression", json::parse(R"([
      {"kind": "random_k", "k": 10, "indices": "seeded", "scale": true},
      {"kind": "qsgd", "levels": 16}])")), "s.json");
  const CompressionSpec& c = s.algorithm.compression;
  CHECK(c.sparsifier == Sparsifier::kRandomK);
  CHECK(c.k == 10);
  CHECK(c.indices == IndexCoding::kSeeded);
  CHECK(c.scale);
  CHECK(c.quantizer == Quantizer::kQsgd);
  CHECK(c.levels == 16);
  CHECK(s.algorithm.options_as<ChocoOptions>().gamma == 0.5);
  // The resolved scenario holds the chain and loads to the same spec.
  const ScenarioSpec again = parse_scenario(scenario_to_json(s), "s.json");
  CHECK(scenario_to_json(again) == scenario_to_json(s));
  CHECK(again.algorithm.compression.levels == 16);
}

TEST_CASE("bad compression input names its JSON pointer") {
  CHECK(scenario_error_of(with(minimal(), "/algorithm/compression", {{"kind", "zip"}})) ==
        "s.json: /algorithm/compression/kind: expected one of \"top_k\", \"random_k\", \"qsgd\", "
        "\"sign\", \"fp16\", \"bf16\", got \"zip\"");
  CHECK(scenario_error_of(with(minimal(), "/algorithm/compression", {{"kind", "top_k"}, {"fraction", 1.5}})) ==
        "s.json: /algorithm/compression/fraction: expected a number in [0, 1], got 1.5");
  CHECK(scenario_error_of(with(minimal(), "/algorithm/compression", {{"kind", "top_k"}, {"fraction", 0}})) ==
        "s.json: /algorithm/compression/fraction: expected a fraction in (0, 1], got 0");
  CHECK(scenario_error_of(with(minimal(), "/algorithm/compression", {{"kind", "top_k"}})).find(
            "s.json: /algorithm/compression: give exactly one of \"fraction\"") == 0);
  CHECK(scenario_error_of(with(minimal(), "/algorithm/compression", {{"kind", "top_k"}, {"k", 101}})) ==
        "s.json: /algorithm/compression: k = 101 is more than the model's 100 parameters");
  CHECK(scenario_error_of(with(minimal(), "/algorithm/compression", {{"kind", "qsgd"}, {"levels", 0}})) ==
        "s.json: /algorithm/compression/levels: expected an integer in [1, 16777216], got 0");
  CHECK(scenario_error_of(with(minimal(), "/algorithm/compression", {{"kind", "sign"}, {"levels", 2}})) ==
        "s.json: /algorithm/compression/levels: unknown key");
  CHECK(scenario_error_of(with(minimal(), "/algorithm/compression",
                      json::parse(R"([{"kind": "qsgd", "levels": 4}, {"kind": "top_k", "k": 1}])"))) ==
        "s.json: /algorithm/compression/1: a chain is a sparsifier (top_k, random_k) followed by a "
        "quantizer (qsgd, sign, fp16, bf16)");
  CHECK(scenario_error_of(with(minimal(), "/algorithm/compression", json::array())).find(
            "s.json: /algorithm/compression: 0 entries") == 0);
  json allreduce = with(minimal("allreduce"), "/trigger", {{"kind", "always"}});
  CHECK(scenario_error_of(with(allreduce, "/algorithm/compression", {{"kind", "sign"}})) ==
        "s.json: /algorithm/compression: algorithm \"allreduce\" takes no compression (see "
        "scenarios/README.md, \"compression\"); remove this key");
}

TEST_CASE("choco needs a consensus step size gamma and sync mode") {
  json j = choco();
  j["algorithm"].erase("gamma");
  CHECK(scenario_error_of(j) == "s.json: /algorithm/gamma: required key is missing");
  CHECK(scenario_error_of(with(choco(), "/algorithm/gamma", 0)) ==
        "s.json: /algorithm/gamma: the consensus step size must be in (0, 1], got 0");
  CHECK(scenario_error_of(with(choco(), "/time/mode", "async")).find("s.json: /time/mode: \"choco\" runs "
                                                             "in sync mode only") == 0);
  CHECK(scenario_error_of(with(choco(), "/trigger", {{"kind", "threshold"}, {"v0", 1}, {"form", "alpha"}}))
            .find("s.json: /trigger/form:") == 0);
  j = choco();
  j.erase("trigger");
  CHECK(scenario_error_of(j) == "s.json: /trigger: algorithm \"choco\" needs a trigger");
}
