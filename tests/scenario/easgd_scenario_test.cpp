#include <doctest/doctest.h>

#include "scenario_test_helpers.hpp"
#include "sim/scenario/load_scenario.hpp"
#include "sim/scenario/algorithms/easgd.hpp"
#include "sim/scenario/world.hpp"

using namespace dlsim;
using dlsim::testing::with;
using nlohmann::json;

namespace {

json easgd(uint32_t agents = 3) {
  json j = json::parse(R"({
    "name": "e", "agents": 3,
    "network": {"latency": "2ms", "bandwidth": "100Mbps"},
    "time": {"compute": {"step": "1ms"}},
    "model": {"kind": "quadratic", "dim": 4},
    "algorithm": {"kind": "easgd", "alpha": 0.2},
    "trigger": {"kind": "periodic", "tau": 4},
    "run": {"iterations": 8}
  })");
  j["agents"] = agents;
  return j;
}

// The message of the InputError that loading and building `j` throws (empty if none).
std::string error_of(const json& j) {
  return testing::input_error_of(
      [&] { build_world(parse_scenario(j, "s.json"), models::DataPaths{}); });
}

}  // namespace

TEST_CASE("EASGD: the server's links default to the network's and resolve to explicit values") {
  const ScenarioSpec s = parse_scenario(easgd(), "s.json");
  CHECK(s.algorithm.is("easgd"));
  CHECK(s.algorithm.options_as<EasgdOptions>().alpha == doctest::Approx(0.2));
  CHECK(s.algorithm.options_as<EasgdOptions>().server_latency == SimTime::from_ms(2));
  CHECK(s.algorithm.options_as<EasgdOptions>().server_bandwidth_bps == 100000000u);
  const json resolved = scenario_to_json(s);
  CHECK(resolved["algorithm"]["server"] ==
        json({{"latency", "2ms"}, {"bandwidth", "100Mbps"}, {"links", "all"}}));
  CHECK(scenario_to_json(parse_scenario(resolved, "r.json")) == resolved);
}

TEST_CASE("EASGD: the server is node n of the network graph, not an agent") {
  json j = with(easgd(4), "/algorithm/server", {{"latency", "5ms"}, {"links", {2, 0}}});
  const auto w = build_world(parse_scenario(j, "s.json"), models::DataPaths{});
  CHECK(w->agents.size() == 4);
  CHECK(w->graph.node_count() == 4);
  CHECK(w->network->graph().node_count() == 5);
  CHECK(w->network->graph().neighbors(4).size() == 2);  // linked to agents 0 and 2 only
  const int64_t e = w->network->graph().edge_index(2, 4);
  REQUIRE(e >= 0);
  CHECK(w->network->graph().edges()[e].latency == SimTime::from_ms(5));
  CHECK(w->network->graph().edges()[e].bandwidth_bps == 100000000u);
  CHECK(w->warnings.empty());
}

TEST_CASE("EASGD: bad values are errors with their pointer, beta = n alpha > 1 a warning") {
  CHECK(error_of(with(easgd(), "/algorithm/alpha", 0)) ==
        "s.json: /algorithm/alpha: the moving rate must be in (0, 1], got 0");
  CHECK(error_of(with(easgd(), "/algorithm/alpha", 1.5)) ==
        "s.json: /algorithm/alpha: expected a number in [0, 1], got 1.5");
  CHECK(error_of(with(easgd(), "/algorithm/server/links", {0, 3})).find(
            "s.json: /algorithm/server/links/1: ") == 0);
  CHECK(error_of(with(easgd(), "/algorithm/server/links", {1, 1})) ==
        "s.json: /algorithm/server/links: an agent is listed twice");
  CHECK(error_of(with(easgd(), "/algorithm/server/links", json::array())) ==
        "s.json: /algorithm/server/links: the server needs at least one link");
  CHECK(error_of(with(easgd(), "/algorithm/server/links", "some")) ==
        "s.json: /algorithm/server/links: expected \"all\" or a list of agent ids");
  CHECK(error_of(with(easgd(), "/algorithm/server/port", 80)) ==
        "s.json: /algorithm/server/port: unknown key");
  const json range = {{"kind", "ring"}, {"latency", {{"min", "1ms"}, {"max", "2ms"}}}};
  CHECK(error_of(with(easgd(), "/topology", range)) ==
        "s.json: /algorithm/server/latency: required when the topology draws its latencies from a "
        "range");
  json elastic =
      with(easgd(), "/algorithm", {{"kind", "elastic_gossip"}, {"server", json::object()}});
  CHECK(error_of(elastic) == "s.json: /algorithm/server: unknown key");
  json no_trigger = easgd();
  no_trigger.erase("trigger");
  CHECK(error_of(no_trigger) ==
        "s.json: /trigger: algorithm \"easgd\" needs a trigger");
  const auto w = build_world(parse_scenario(with(easgd(), "/algorithm/alpha", 0.5), "s.json"),
                             models::DataPaths{});
  REQUIRE(w->warnings.size() == 1);
  CHECK(w->warnings[0].find(
            "s.json: /algorithm/alpha: beta = agents x alpha = 3 x 0.5 = 1.5 > 1") == 0);
}

TEST_CASE("iterations x the slowest step must fit the simulated clock") {
  json j = with(easgd(), "/run/iterations", int64_t{1} << 40);
  CHECK(error_of(j) == "");  // 2^40 x 1 ms = 1.1e9 s: fits in 9.2e9 s
  j = with(j, "/time/compute/step", "10ms");
  CHECK(error_of(j).find("s.json: /run/iterations: 1099511627776 iterations of up to 0.01 s each "
                         "overflow the simulated clock") == 0);
  j = with(easgd(), "/time/compute", {{"step", "1ms"}, {"speeds", {1, 1e-9, 1}}});
  CHECK(error_of(j) == "");  // 8 steps of 1e6 s fit
  j = with(easgd(), "/time/compute", {{"step", "100s"}, {"speeds", {1, 1e-9, 1}}});
  CHECK(error_of(j).find("s.json: /time/compute: agent 1's step takes 1e+11 s") == 0);
}
