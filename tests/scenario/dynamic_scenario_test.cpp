#include <doctest/doctest.h>

#include "scenario_test_helpers.hpp"
#include "sim/scenario/load_scenario.hpp"
#include "sim/scenario/memory_estimate.hpp"
#include "sim/scenario/run_plan.hpp"
#include "sim/scenario/world.hpp"

using namespace dlsim;
using dlsim::testing::scenario_error_of;
using dlsim::testing::with;
using nlohmann::json;

namespace {

json scenario(json dynamic) {
  json j = json::parse(R"({
    "name": "t", "agents": 6,
    "network": {"latency": "3ms", "bandwidth": "10Mbps"},
    "model": {"kind": "quadratic", "dim": 10},
    "algorithm": {"kind": "dpsgd"},
    "run": {"iterations": 10}
  })");
  j["topology"] = {{"dynamic", std::move(dynamic)}};
  return j;
}

const json kEpidemic = {{"kind", "epidemic"}, {"s", 2}};
const json kSequence = json::parse(
    R"({"kind": "sequence", "topologies": [{"kind": "ring"}, {"kind": "star"}], "every": 5})");

}  // namespace

TEST_CASE("dynamic topologies parse to their specs and back, over a complete underlay with the "
          "network's links") {
  for (const json& d : {json{{"kind", "one_peer_exponential"}}, kEpidemic,
                        json{{"kind", "random_matching"}},
                        json::parse(R"({"kind": "random_matching", "over": {"kind": "ring"}})"),
                        kSequence,
                        json::parse(R"({"kind": "sequence", "at": ["0", "1s"],
                                        "topologies": [{"kind": "ring"}, {"kind": "star"}]})")}) {
    CAPTURE(d.dump());
    const ScenarioSpec s = parse_scenario(scenario(d), "s.json");
    REQUIRE(s.dynamic);
    CHECK(s.topology.kind == topo::TopologyKind::kComplete);
    CHECK(s.topology.latency.min == SimTime::from_ms(3));
    CHECK(s.topology.bandwidth_bps.min == 10000000);
    const json rendered = scenario_to_json(s);
    CHECK(rendered["topology"]["dynamic"]["kind"] == d["kind"]);
    const ScenarioSpec again = parse_scenario(rendered, "s.json");
    CHECK(scenario_to_json(again) == rendered);
  }
  const ScenarioSpec s = parse_scenario(scenario(kSequence), "s.json");
  CHECK(s.dynamic->every == 5);
  CHECK(s.dynamic->graphs.size() == 2);
  CHECK(parse_scenario(scenario(kEpidemic), "s.json").dynamic->s == 2);
  const ScenarioSpec on_ring = parse_scenario(
      with(scenario(kEpidemic), "/network/underlay", {{"kind", "ring"}}), "s.json");
  CHECK(on_ring.topology.kind == topo::TopologyKind::kRing);
  CHECK(on_ring.topology.latency.min == SimTime::from_ms(3));
}

TEST_CASE("bad dynamic topology input names its JSON pointer") {
  CHECK(scenario_error_of(scenario({{"kind", "ring"}})) ==
        "s.json: /topology/dynamic/kind: expected one of \"one_peer_exponential\", "
        "\"random_matching\", \"epidemic\", \"sequence\", got \"ring\"");
  CHECK(scenario_error_of(scenario({{"kind", "epidemic"}})) ==
        "s.json: /topology/dynamic/s: required key is missing");
  CHECK(scenario_error_of(scenario({{"kind", "epidemic"}, {"s", 6}})) ==
        "s.json: /topology/dynamic/s: expected an integer in [1, 5], got 6");
  CHECK(scenario_error_of(scenario({{"kind", "one_peer_exponential"}, {"s", 2}})) ==
        "s.json: /topology/dynamic/s: unknown key");
  CHECK(scenario_error_of(with(scenario(kEpidemic), "/topology/kind", "ring")) ==
        "s.json: /topology/kind: unknown key");
  CHECK(scenario_error_of(with(scenario(kSequence), "/topology/dynamic/at", json::array())) ==
        "s.json: /topology/dynamic: give either \"every\" (iterations per graph) or \"at\" "
        "(simulated times), not both or neither");
  json timed = with(scenario(kSequence), "/topology/dynamic/every", nullptr);
  timed["topology"]["dynamic"].erase("every");
  CHECK(scenario_error_of(with(timed, "/topology/dynamic/at", {"0"})) ==
        "s.json: /topology/dynamic/at: expected one time per topology (2), got 1");
  CHECK(scenario_error_of(with(timed, "/topology/dynamic/at", {"1s", "2s"})) ==
        "s.json: /topology/dynamic/at: the first topology starts at \"0\"");
  CHECK(scenario_error_of(with(timed, "/topology/dynamic/at", {"0", "0"})) ==
        "s.json: /topology/dynamic/at/1: times must increase strictly");
  CHECK(scenario_error_of(with(timed, "/topology/dynamic/at", {"0", "2 parsecs"})).find(
            "s.json: /topology/dynamic/at/1: ") == 0);
  CHECK(scenario_error_of(with(scenario(kSequence), "/topology/dynamic/topologies/1/latency",
                               "1ms")) ==
        "s.json: /topology/dynamic/topologies/1/latency: an overlay graph has no links of its "
        "own (messages travel over the underlay); set latency and bandwidth in /network or "
        "/network/underlay");
  CHECK(scenario_error_of(with(scenario(kSequence), "/topology/dynamic/topologies/0/kind",
                               "torus")) ==
        "s.json: /topology/dynamic/topologies/0: missing key \"rows\"");
  CHECK(scenario_error_of(with(with(scenario(kEpidemic), "/algorithm/kind", "eventgrad"),
                               "/trigger", {{"kind", "adaptive"}, {"horizon", 0.9}})) ==
        "s.json: /topology/dynamic: a dynamic topology works with \"dpsgd\", \"detsgrad\", "
        "\"gossip\", \"elastic_gossip\" and \"choco\" so far; \"eventgrad\" keeps state per "
        "fixed neighbour");
  json static_with_underlay = scenario(kEpidemic);
  static_with_underlay["topology"] = {{"kind", "ring"}};
  CHECK(scenario_error_of(with(static_with_underlay, "/network/underlay", {{"kind", "ring"}})) ==
        "s.json: /network/underlay: applies to a dynamic topology (/topology/dynamic); a static "
        "topology's edges are the links themselves");
  CHECK(scenario_error_of(with(scenario(kEpidemic), "/network/underlay", {{"kind", "line"},
                                                                          {"n", 5}})) ==
        "s.json: /network/underlay/n: n is 5 but the scenario has 6 agents; drop \"n\" or make "
        "them agree");
}

TEST_CASE("the memory estimate counts a materialised complete underlay's links, not an implicit "
          "one's, and names /network/underlay") {
  // The links part is counted from the scenario alone: the estimate before the graphs exist.
  const auto links_of = [](const ScenarioSpec& s) {
    uint64_t links = 0;
    for (const MemoryPart& p : MemoryEstimator(s, uint64_t{1} << 40).before_graphs().parts)
      if (p.name == "links") links = p.bytes;
    return links;
  };
  const json big = with(scenario(kEpidemic), "/agents", 4096);
  CHECK(links_of(parse_scenario(big, "s.json")) == 0);  // implicit (complete_links.hpp)
  // Maxmin sharing keeps state per link: the graph is materialised.
  const ScenarioSpec s = parse_scenario(with(big, "/network/sharing", "maxmin"), "s.json");
  CHECK(links_of(s) == 4096ull * 4095 / 2 * 430);
  // 200,000 agents: an implicit underlay builds no edges; a materialised one would build 2e10.
  CHECK_NOTHROW(parse_scenario(with(scenario(kEpidemic), "/agents", 200000), "s.json"));
  CHECK(scenario_error_of(with(with(scenario(kEpidemic), "/agents", 200000), "/network/sharing",
                               "maxmin")) ==
        "s.json: /network/underlay: this topology would have about 19999900000 edges, more than "
        "the limit of 10000000");
  try {
    plan_run(s, uint64_t{1} << 30);  // refused before the 8.4 million edges are built
    FAIL("no refusal");
  } catch (const InputError& error) {
    CHECK(std::string(error.what()).starts_with("s.json: /network/underlay: the run needs"));
  }
}

TEST_CASE("DETSGRAD accepts a dynamic topology with whole-model sends, and refuses compression, "
          "local steps and per-tensor triggers naming their key") {
  const json detsgrad = with(with(scenario(kEpidemic), "/algorithm/kind", "detsgrad"), "/trigger",
                             {{"kind", "threshold"}, {"v0", 0.5}});
  for (const json& d : {json{{"kind", "one_peer_exponential"}}, kEpidemic,
                        json{{"kind", "random_matching"}}, kSequence}) {
    CAPTURE(d.dump());
    CHECK(parse_scenario(with(detsgrad, "/topology/dynamic", d), "s.json").dynamic);
  }
  CHECK(scenario_error_of(with(detsgrad, "/algorithm/compression", {{"kind", "top_k"},
                                                                    {"k", 3}})) ==
        "s.json: /algorithm/compression: DETSGRAD on a dynamic topology sends whole models (a new "
        "neighbour holds no copy to add a compressed difference to)");
  CHECK(scenario_error_of(with(detsgrad, "/algorithm/local_steps", 2)) ==
        "s.json: /algorithm/local_steps: DETSGRAD on a dynamic topology communicates every "
        "iteration it may (local_steps 1)");
  CHECK(scenario_error_of(with(detsgrad, "/trigger/granularity", "layer")) ==
        "s.json: /trigger: DETSGRAD on a dynamic topology decides on the whole model (a new "
        "neighbour holds no tensors to update)");
}

TEST_CASE("Gossiping SGD and Elastic Gossip accept a dynamic topology in sync mode") {
  for (const char* kind : {"gossip", "elastic_gossip"})
    for (const json& d : {json{{"kind", "one_peer_exponential"}}, kEpidemic,
                          json{{"kind", "random_matching"}}, kSequence}) {
      CAPTURE(kind);
      CAPTURE(d.dump());
      const json j = with(with(with(scenario(d), "/algorithm/kind", kind), "/trigger",
                               {{"kind", "probability"}, {"p", 0.5}}),
                          "/time/mode", "sync");
      CHECK(parse_scenario(j, "s.json").dynamic);
    }
}

TEST_CASE("CHOCO accepts a dynamic topology with local_steps 1 and refuses more local steps") {
  const json choco = with(with(scenario(kSequence), "/algorithm",
                               {{"kind", "choco"}, {"gamma", 0.3},
                                {"compression", {{"kind", "top_k"}, {"k", 3}}}}),
                          "/trigger", {{"kind", "always"}});
  for (const json& d : {json{{"kind", "one_peer_exponential"}}, kEpidemic,
                        json{{"kind", "random_matching"}}, kSequence}) {
    CAPTURE(d.dump());
    CHECK(parse_scenario(with(choco, "/topology/dynamic", d), "s.json").dynamic);
  }
  CHECK(scenario_error_of(with(choco, "/algorithm/local_steps", 3)) ==
        "s.json: /algorithm/local_steps: CHOCO on a dynamic topology communicates every iteration "
        "(local_steps 1): an edge that appears in a local step would never carry its whole copy");
}

TEST_CASE("the memory estimate counts CHOCO's copies per source of the dynamic graph, not per "
          "underlay neighbour") {
  const json choco = with(with(scenario({{"kind", "one_peer_exponential"}}), "/algorithm",
                               {{"kind", "choco"}, {"gamma", 0.3}}),
                          "/trigger", {{"kind", "always"}});
  const json big = with(choco, "/agents", 64);
  // x, g, x^_i, one copy, the whole copy for a new edge: 5 vectors (the quadratic's c: 6).
  CHECK(estimate_memory(parse_scenario(big, "s.json"), uint64_t{1} << 40).vectors_per_agent ==
        doctest::Approx(6.0));
  const json epidemic = with(big, "/topology/dynamic", {{"kind", "epidemic"}, {"s", 4}});
  CHECK(estimate_memory(parse_scenario(epidemic, "s.json"), uint64_t{1} << 40).vectors_per_agent ==
        doctest::Approx(6.0 + 3.0 + 6.0));  // 4 + 3 sqrt(4) sources instead of 1
}

TEST_CASE("DETSGRAD's beta_0 * degree warning uses the dynamic graphs' in-degree, not the "
          "underlay's degree") {
  const auto warnings_of = [](const json& dynamic, double b) {
    const json detsgrad = {{"kind", "detsgrad"}, {"b", b}};
    const json j = with(with(with(scenario(dynamic), "/algorithm", detsgrad), "/trigger",
                             {{"kind", "always"}}),
                        "/network/underlay", {{"kind", "complete"}});  // degree 5
    return build_world(parse_scenario(j, "s.json"), models::DataPaths{})->warnings;
  };
  CHECK(warnings_of(kEpidemic, 0.3).empty());  // 0.3 x s = 0.6
  CHECK(warnings_of({{"kind", "one_peer_exponential"}}, 0.9).empty());
  const auto w = warnings_of({{"kind", "epidemic"}, {"s", 4}}, 0.3);
  REQUIRE(w.size() == 1);
  CHECK(w[0].find("s.json: /algorithm/b: beta_0 * max degree = 0.3 * 4 = 1.2 >= 1") == 0);
  const auto star = warnings_of(kSequence, 0.3);  // the star's hub: degree 5
  REQUIRE(star.size() == 1);
  CHECK(star[0].find("= 0.3 * 5 = 1.5 >= 1") != std::string::npos);
}
