// Dynamic topologies in async mode: the kinds each agent can draw on its own clock run with
// D-PSGD and the gossip family; a sequence, DETSGRAD and CHOCO stay refused, naming the key.
#include <doctest/doctest.h>

#include "scenario_test_helpers.hpp"
#include "sim/scenario/load_scenario.hpp"

using namespace dlsim;
using dlsim::testing::scenario_error_of;
using dlsim::testing::with;
using nlohmann::json;

namespace {

json async_scenario(json dynamic) {
  json j = json::parse(R"({
    "name": "t", "agents": 6,
    "network": {"latency": "3ms", "bandwidth": "10Mbps"},
    "model": {"kind": "quadratic", "dim": 10},
    "algorithm": {"kind": "dpsgd"},
    "time": {"mode": "async"},
    "run": {"iterations": 10}
  })");
  j["topology"] = {{"dynamic", std::move(dynamic)}};
  return j;
}

const json kSequence = json::parse(
    R"({"kind": "sequence", "topologies": [{"kind": "ring"}, {"kind": "star"}], "every": 5})");

}  // namespace

TEST_CASE(
    "async mode takes epidemic, one-peer exponential and random matching with D-PSGD, "
    "gossip and Elastic Gossip") {
  for (const char* kind : {"dpsgd", "gossip", "elastic_gossip"})
    for (const json& d :
         {json{{"kind", "one_peer_exponential"}}, json{{"kind", "epidemic"}, {"s", 2}},
          json{{"kind", "random_matching"}},
          json::parse(R"({"kind": "random_matching", "over": {"kind": "ring"}})")}) {
      CAPTURE(kind);
      CAPTURE(d.dump());
      json j = with(async_scenario(d), "/algorithm/kind", kind);
      if (std::string(kind) != "dpsgd")
        j = with(j, "/trigger", {{"kind", "probability"}, {"p", 0.5}});
      const ScenarioSpec s = parse_scenario(j, "s.json");
      CHECK(s.dynamic);
      CHECK(s.time.mode == TimeMode::kAsync);
    }
}

TEST_CASE(
    "async mode refuses a sequence, and DETSGRAD and CHOCO over a dynamic topology, naming "
    "/topology/dynamic and why") {
  for (const char* kind : {"dpsgd", "gossip", "elastic_gossip"}) {
    CAPTURE(kind);
    json j = with(async_scenario(kSequence), "/algorithm/kind", kind);
    if (std::string(kind) != "dpsgd")
      j = with(j, "/trigger", {{"kind", "probability"}, {"p", 0.5}});
    CHECK(scenario_error_of(j) ==
          "s.json: /topology/dynamic: \"sequence\" runs in sync mode only (it switches every "
          "agent's graph at once and weighs it with Metropolis weights, which needs a common "
          "round); in async mode use \"epidemic\", \"one_peer_exponential\" or "
          "\"random_matching\"");
  }
  const json epidemic = async_scenario({{"kind", "epidemic"}, {"s", 2}});
  const json detsgrad = with(with(epidemic, "/algorithm/kind", "detsgrad"), "/trigger",
                             {{"kind", "threshold"}, {"v0", 0.5}});
  CHECK(scenario_error_of(detsgrad) ==
        "s.json: /topology/dynamic: \"detsgrad\" on a dynamic topology runs in sync mode only (it "
        "keeps a copy per neighbour, and in async mode every agent changes neighbours at its own "
        "iterations); in async mode use \"dpsgd\", \"gossip\" or \"elastic_gossip\"");
  const json choco = with(
      with(epidemic, "/algorithm",
           {{"kind", "choco"}, {"gamma", 0.2}, {"compression", {{"kind", "top_k"}, {"k", 3}}}}),
      "/trigger", {{"kind", "always"}});
  CHECK(scenario_error_of(choco) ==
        "s.json: /topology/dynamic: \"choco\" on a dynamic topology runs in sync mode only (it "
        "keeps a copy per neighbour, and in async mode every agent changes neighbours at its own "
        "iterations); in async mode use \"dpsgd\", \"gossip\" or \"elastic_gossip\"");
  // In sync mode the same scenarios load.
  CHECK(parse_scenario(with(detsgrad, "/time/mode", "sync"), "s.json").dynamic);
  CHECK(parse_scenario(with(choco, "/time/mode", "sync"), "s.json").dynamic);
  CHECK(parse_scenario(with(async_scenario(kSequence), "/time/mode", "sync"), "s.json").dynamic);
}
