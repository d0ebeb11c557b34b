#include <doctest/doctest.h>

#include <variant>

#include "sim/scenario/load_scenario.hpp"
#include "sim/scenario/topology_json.hpp"
#include "scenario_test_helpers.hpp"

using namespace dlsim;
using dlsim::testing::scenario_error_of;
using dlsim::testing::with;
using nlohmann::json;

namespace {

json minimal() {
  return json::parse(R"({
    "name": "t", "agents": 4,
    "data": {"dataset": "synthetic-clusters", "synthetic": {"classes": 4, "width": 8}},
    "model": {"kind": "mlp", "hidden": [8]},
    "algorithm": {"kind": "dpsgd"},
    "run": {"iterations": 10}
  })");
}

}  // namespace

TEST_CASE("a minimal scenario gets the documented defaults") {
  const ScenarioSpec s = parse_scenario(minimal(), "s.json");
  CHECK(s.seed == 1);
  CHECK(s.topology.kind == topo::TopologyKind::kRing);
  CHECK(s.topology.n == 4);
  CHECK(s.time.mode == TimeMode::kSync);
  CHECK(s.data->batch_size == 32);
  CHECK(s.data->partition.kind == models::PartitionKind::kIid);
  CHECK(s.optimizer.schedule.lr == doctest::Approx(0.01));
  CHECK(s.run.eval_samples == 2000);
  CHECK(s.init == InitKind::kCommon);
  CHECK_FALSE(s.trigger.has_value());
}

TEST_CASE("network latency and bandwidth become the topology's edge defaults") {
  json j = with(minimal(), "/network", {{"latency", "2ms"}, {"bandwidth", "10Mbps"}});
  ScenarioSpec s = parse_scenario(j, "s.json");
  CHECK(s.topology.latency.min == SimTime::from_ms(2));
  CHECK(s.topology.bandwidth_bps.max == 10000000u);
  j["topology"] = {{"kind", "ring"}, {"latency", "5ms"}};  // the topology's own value wins
  s = parse_scenario(j, "s.json");
  CHECK(s.topology.latency.min == SimTime::from_ms(5));
}

TEST_CASE("bad scenarios fail with the file and the JSON pointer") {
  CHECK(scenario_error_of(with(minimal(), "/bogus", 1)) == "s.json: /bogus: unknown key");
  CHECK(scenario_error_of(with(minimal(), "/network/latncy", "1ms")) == "s.json: /network/latncy: unknown key");
  CHECK(scenario_error_of(with(minimal(), "/network/bandwidth", "10 MB")) ==
        "s.json: /network/bandwidth: expected a rate such as \"10Mbps\", got \"10 MB\"");
  CHECK(scenario_error_of(with(minimal(), "/network/latency", "-1ms")) ==
        "s.json: /network/latency: a duration must not be negative, got \"-1ms\"");
  CHECK(scenario_error_of(with(minimal(), "/agents", "ten")) == "s.json: /agents: expected an integer, got \"ten\"");
  CHECK(scenario_error_of(with(minimal(), "/trigger", {{"kind", "always"}})) ==
        "s.json: /trigger: algorithm \"dpsgd\" takes no trigger; remove it");
  CHECK(scenario_error_of(with(minimal(), "/algorithm", {{"kind", "detsgrad"}})) ==
        "s.json: /trigger: algorithm \"detsgrad\" needs a trigger");
  json gossip = with(minimal(), "/algorithm", {{"kind", "gossip"}});
  CHECK(scenario_error_of(with(gossip, "/trigger", {{"kind", "probability"}, {"p", 1.5}})) ==
        "s.json: /trigger/p: expected a number in [0, 1], got 1.5");
  CHECK(scenario_error_of(with(gossip, "/trigger", {{"kind", "threshold"}, {"v0", 1}})) ==
        "s.json: /trigger/kind: algorithm \"gossip\" does not take a \"threshold\" trigger");
  CHECK(scenario_error_of(with(minimal(), "/data/partition", {{"kind", "by_label"}, {"labels_per_agent", 5}})) ==
        "s.json: /data/partition/labels_per_agent: 5 labels per agent, but the dataset has 4 classes");
  CHECK(scenario_error_of(with(minimal(), "/model/kind", "transformer")) ==
        "s.json: /model/kind: expected one of \"mlp\", \"cnn\", \"quadratic\", got \"transformer\"");
  CHECK(scenario_error_of(with(minimal(), "/run", json::object())) == "s.json: /run/iterations: required key is missing");
}

TEST_CASE("inconsistent combinations are errors") {
  json quadratic = with(minimal(), "/model", {{"kind", "quadratic"}, {"dim", 5}});
  CHECK(scenario_error_of(quadratic) == "s.json: /data: a quadratic model needs no data; remove this section");
  json detsgrad = with(minimal(), "/algorithm", {{"kind", "detsgrad"}});
  detsgrad["trigger"] = {{"kind", "threshold"}, {"v0", 1}};
  detsgrad["optimizer"] = {{"kind", "sgd"}, {"lr", 0.1}};
  CHECK(scenario_error_of(detsgrad).find("s.json: /optimizer/lr: \"detsgrad\" takes its step sizes") == 0);
  json cnn = with(minimal(), "/model", json::parse(R"({"kind": "cnn", "layers": [
      {"kind": "conv", "filters": 2, "kernel": 20}, {"kind": "flatten"}, {"kind": "dense", "units": 4}]})"));
  CHECK(scenario_error_of(cnn).find("s.json: /model/layers/0") == 0);
}

TEST_CASE("the resolved scenario loads to the same resolved scenario") {
  json j = minimal();
  j["algorithm"] = {{"kind", "detsgrad"}, {"gradient_scale", "n"}};
  j["trigger"] = {{"kind", "threshold"}, {"v0", "inf"}, {"norm", "linf"}};
  j["time"] = {{"mode", "async"}, {"compute", {{"step", "1.5ms"}, {"stragglers", {{"fraction", 0.5}, {"factor", 3}}}}}};
  j["network"] = {{"latency", "250us"}, {"loss", 0.01}, {"nic", {{"uplink", "1Gbps"}}}};
  const json resolved = scenario_to_json(parse_scenario(j, "s.json"));
  const json again = scenario_to_json(parse_scenario(resolved, "resolved.json"));
  CHECK(resolved == again);
  CHECK(resolved["trigger"]["v0"] == "inf");
  CHECK(resolved["algorithm"]["gradient_scale"] == "n");
  CHECK(resolved["topology"]["latency"] == "250us");
}

TEST_CASE("--set overrides by JSON pointer, parses JSON values and removes with null") {
  json j = minimal();
  apply_override(j, "/run/iterations=25");
  apply_override(j, "/network/bandwidth=10Mbps");  // not JSON: taken as a string
  apply_override(j, R"(/algorithm={"kind":"centralized"})");
  apply_override(j, "/name=null");
  CHECK(j["run"]["iterations"] == 25);
  CHECK(j["network"]["bandwidth"] == "10Mbps");
  CHECK(j["algorithm"]["kind"] == "centralized");
  CHECK_FALSE(j.contains("name"));
  CHECK_THROWS_WITH_AS(apply_override(j, "run/iterations=3"),
                       "--set run/iterations=3: expected /json/pointer=VALUE", InputError);
}

TEST_CASE("a file that is not JSON names the byte offset") {
  const std::string path = DLSIM_BINARY_DIR "/tests/not_json.json";
  FILE* f = std::fopen(path.c_str(), "w");
  std::fputs("{\"agents\": 4,,}", f);
  std::fclose(f);
  CHECK_THROWS_WITH_AS(read_json_file(path), doctest::Contains("not_json.json: byte 14: "),
                       InputError);
  CHECK_THROWS_WITH_AS(read_json_file(path + ".missing"), doctest::Contains("cannot read"),
                       InputError);
}

TEST_CASE("a number beyond a double's range is bad input naming the file, not an internal error") {
  // Found by tools/fuzz (scenario, sweep): nlohmann throws out_of_range, not parse_error, for it.
  const std::string path =
      testing::write_test_file("number-overflow", "big.json", R"({"agents": 4, "seed": 1e999})");
  CHECK_THROWS_WITH_AS(load_scenario(path, {}), (path + ": number overflow parsing '1e999'").c_str(),
                       InputError);
  CHECK_THROWS_WITH_AS(read_ordered_json_file(path),
                       (path + ": number overflow parsing '1e999'").c_str(), InputError);
  json j = minimal();
  CHECK_THROWS_WITH_AS(apply_override(j, "/agents=-2e400"),
                       "--set /agents: number overflow parsing '-2e400'", InputError);
  const std::string topology = testing::write_test_file("number-overflow", "big-topology.json",
                                                        R"({"kind": "ring", "n": 1e400})");
  CHECK_THROWS_WITH_AS(load_topology_file(topology),
                       (topology + ": not valid JSON: number overflow parsing '1e400'").c_str(),
                       InputError);
}

TEST_CASE("NIC rates: one for every agent, or a list with one per agent") {
  json j = with(minimal(), "/network/nic", {{"uplink", "1Gbps"}, {"downlink", {"1Gbps", "100Mbps", "1Gbps", "10Mbps"}}});
  const ScenarioSpec s = parse_scenario(j, "s.json");
  CHECK(s.network.nic_uplink_bps == 1000000000u);
  CHECK(s.network.nic_uplink_bps_per_agent.empty());
  CHECK(s.network.nic_downlink_bps_per_agent ==
        std::vector<uint64_t>{1000000000u, 100000000u, 1000000000u, 10000000u});
  const json resolved = scenario_to_json(s);
  CHECK(resolved["network"]["nic"]["downlink"] == json{"1Gbps", "100Mbps", "1Gbps", "10Mbps"});
  CHECK(scenario_to_json(parse_scenario(resolved, "r.json")) == resolved);

  CHECK(scenario_error_of(with(minimal(), "/network/nic/uplink", {"1Gbps", "1Gbps"})) ==
        "s.json: /network/nic/uplink: 2 rates for 4 agents: give one per agent, or one string for all");
  CHECK(scenario_error_of(with(minimal(), "/network/nic/uplink", {"1Gbps", "1Gbps", 5, "1Gbps"})) ==
        "s.json: /network/nic/uplink/2: expected a rate such as \"1Gbps\", got 5");
  CHECK(scenario_error_of(with(minimal(), "/network/nic/uplink", {"1Gbps", "1Gbps", "fast", "1Gbps"}))
            .starts_with("s.json: /network/nic/uplink/2: "));
}
