// The topology JSON object: what each key parses to, and one-line errors that name the file
// and the JSON pointer for every kind of mistake.
#include "sim/scenario/topology_json.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "scenario_test_helpers.hpp"
#include "sim/core/error.hpp"

using namespace dlsim;
using namespace dlsim::topo;
using nlohmann::json;

namespace {

TopologySpec parse(const std::string& text, std::optional<uint32_t> agents = std::nullopt) {
  return parse_topology(json::parse(text), "scenarios/ring.json", "/topology", agents);
}

// The error message parse() gives, or "no error".
std::string error_of(const std::string& text, std::optional<uint32_t> agents = std::nullopt) {
  try {
    parse(text, agents);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string write_file(const std::string& name, const std::string& text) {
  return dlsim::testing::write_test_file("scenario", name, text);
}

}  // namespace

TEST_CASE("a torus object parses to its spec with units") {
  const TopologySpec s =
      parse(R"({"kind": "torus", "rows": 4, "cols": 4, "latency": "2ms", "bandwidth": "100Mbps"})");
  CHECK(s.kind == TopologyKind::kTorus);
  CHECK(s.rows == 4);
  CHECK(s.cols == 4);
  CHECK(s.n == 16);
  CHECK(s.latency == ValueRange<SimTime>{SimTime::from_ms(2), SimTime::from_ms(2)});
  CHECK(s.bandwidth_bps == ValueRange<uint64_t>{100000000, 100000000});
  CHECK_FALSE(s.seed.has_value());
}

TEST_CASE("defaults are 1ms and 1Gbps on every edge") {
  const TopologySpec s = parse(R"({"kind": "ring", "n": 16})");
  CHECK(s.n == 16);
  CHECK(s.latency.min == SimTime::from_ms(1));
  CHECK(s.latency.is_constant());
  CHECK(s.bandwidth_bps.min == 1000000000);
  CHECK(s.bandwidth_bps.is_constant());
}

TEST_CASE("ranges, overrides and seed parse") {
  const TopologySpec s = parse(R"({"kind": "random_regular", "n": 10, "degree": 3, "seed": 9,
      "latency": {"min": "1ms", "max": "5ms"}, "bandwidth": {"min": "1Mbps", "max": "2Mbps"},
      "overrides": [{"u": 0, "v": 1, "latency": "7ms"}, {"u": 2, "v": 3, "bandwidth": "1Gbps"}]})");
  CHECK(s.degree == 3);
  CHECK(s.seed == 9u);
  CHECK(s.latency == ValueRange<SimTime>{SimTime::from_ms(1), SimTime::from_ms(5)});
  CHECK(s.bandwidth_bps == ValueRange<uint64_t>{1000000, 2000000});
  REQUIRE(s.overrides.size() == 2);
  CHECK(s.overrides[0] == EdgeOverride{0, 1, SimTime::from_ms(7), std::nullopt});
  CHECK(s.overrides[1] == EdgeOverride{2, 3, std::nullopt, 1000000000});
}

TEST_CASE("a bad unit names the file and pointer on one line") {
  CHECK(error_of(R"({"kind": "ring", "n": 8, "bandwidth": "10 MB"})") ==
        "scenarios/ring.json: /topology/bandwidth: expected a rate such as \"10Mbps\", got "
        "\"10 MB\"");
  CHECK(error_of(R"({"kind": "ring", "n": 8, "latency": "-1ms"})") ==
        "scenarios/ring.json: /topology/latency: a duration must not be negative, got \"-1ms\"");
  CHECK(error_of(R"({"kind": "ring", "n": 8, "latency": {"min": "1ms", "max": "2 hours"}})") ==
        "scenarios/ring.json: /topology/latency/max: expected a duration such as \"2ms\", got "
        "\"2 hours\"");
  // The JSON string holds a newline; the error stays on one line.
  CHECK(error_of(R"({"kind": "ring", "n": 8, "latency": "1\nms"})") ==
        "scenarios/ring.json: /topology/latency: expected a duration such as \"2ms\", got "
        "\"1\\nms\"");
  CHECK(
      error_of(R"({"kind": "ring", "n": 8, "latency": 5})") ==
      "scenarios/ring.json: /topology/latency: expected a duration string such as \"2ms\", got 5");
}

TEST_CASE("unknown keys, kinds and wrong types name their pointer") {
  CHECK(error_of(R"({"kind": "ring", "n": 8, "degree": 3})") ==
        "scenarios/ring.json: /topology/degree: unknown key; a \"ring\" topology has "
        "kind, n, latency, bandwidth, overrides, seed");
  CHECK(error_of(R"({"kind": "rng", "n": 8})")
            .starts_with("scenarios/ring.json: /topology/kind: unknown topology kind \"rng\"; "
                         "known kinds: ring, "));
  CHECK(
      error_of(R"({"n": 8})").starts_with("scenarios/ring.json: /topology: missing key \"kind\""));
  CHECK(error_of(R"({"kind": "ring", "n": "16"})") ==
        "scenarios/ring.json: /topology/n: expected an integer in 0..4294967295, got \"16\"");
  CHECK(error_of(R"({"kind": "ring", "n": 16.5})") ==
        "scenarios/ring.json: /topology/n: expected an integer in 0..4294967295, got 16.5");
  CHECK(error_of(R"({"kind": "erdos_renyi", "n": 8, "p": "0.5"})") ==
        "scenarios/ring.json: /topology/p: expected a number, got \"0.5\"");
  CHECK(error_of(R"({"kind": "ring"})") == "scenarios/ring.json: /topology: missing key \"n\"");
  CHECK(error_of(R"({"kind": "torus", "rows": 4})") ==
        "scenarios/ring.json: /topology: missing key \"cols\"");
  CHECK(error_of(R"([1, 2])") ==
        "scenarios/ring.json: /topology: expected an object, got [1,2]");
}

TEST_CASE("out-of-range values name their pointer") {
  CHECK(error_of(R"({"kind": "ring", "n": 2})") ==
        "scenarios/ring.json: /topology/n: a ring needs n >= 3, got 2");
  CHECK(error_of(R"({"kind": "erdos_renyi", "n": 8, "p": 1.5})") ==
        "scenarios/ring.json: /topology/p: p must be in (0, 1), got 1.5");
  CHECK(error_of(R"({"kind": "watts_strogatz", "n": 8, "k": 3, "beta": 0.1})") ==
        "scenarios/ring.json: /topology/k: k must be even and in 2..6 (n - 2), got 3");
  CHECK(error_of(R"({"kind": "ring", "n": 8, "latency": {"min": "5ms", "max": "1ms"}})") ==
        "scenarios/ring.json: /topology/latency: min \"5ms\" exceeds max \"1ms\"");
  CHECK(error_of(R"({"kind": "ring", "n": 8, "overrides": [{"u": 0, "v": 1, "latency": "1ms"},
        {"u": 9, "v": 1, "latency": "1ms"}]})") ==
        "scenarios/ring.json: /topology/overrides/1/u: node 9 is outside 0..7");
  CHECK(error_of(R"({"kind": "ring", "n": 8, "overrides": [{"u": 0, "v": 1, "color": "red"}]})") ==
        "scenarios/ring.json: /topology/overrides/0/color: unknown key; an override has u, v, "
        "latency and bandwidth");
  CHECK(error_of(R"({"kind": "hypercube", "dimension": 0})") ==
        "scenarios/ring.json: /topology/dimension: a hypercube needs dimension >= 1, got 0");
}

TEST_CASE("in a scenario the node count comes from the agents") {
  CHECK(parse(R"({"kind": "ring"})", 12).n == 12);
  CHECK(parse(R"({"kind": "ring", "n": 12})", 12).n == 12);
  CHECK(parse(R"({"kind": "hypercube", "dimension": 3})", 8).n == 8);
  CHECK(error_of(R"({"kind": "ring", "n": 10})", 12) ==
        "scenarios/ring.json: /topology/n: n is 10 but the scenario has 12 agents; drop \"n\" or "
        "make them agree");
  CHECK(error_of(R"({"kind": "torus", "rows": 3, "cols": 3})", 12) ==
        "scenarios/ring.json: /topology/rows: rows x cols is 9 but the scenario has 12 agents");
  CHECK(error_of(R"({"kind": "hypercube", "dimension": 3})", 12) ==
        "scenarios/ring.json: /topology/dimension: dimension 3 gives 8 nodes but the agent count "
        "is 12");
}

TEST_CASE("file paths are resolved against the JSON file's folder") {
  const TopologySpec s = parse_topology(json::parse(R"({"kind": "edge_list", "file": "net.txt"})"),
                                        "scenarios/paper/a.json", "/topology", std::nullopt);
  CHECK(s.file == "scenarios/paper/net.txt");
  CHECK(s.n == 0);
}

TEST_CASE("rendering fills in every default and parses back to the same spec") {
  const TopologySpec s = parse(R"({"kind": "watts_strogatz", "n": 20, "k": 4, "beta": 0.25,
      "overrides": [{"u": 0, "v": 1, "latency": "3ms"}], "bandwidth": {"min": "1Mbps",
      "max": "3Mbps"}})");
  const json j = topology_to_json(s);
  CHECK(j == json::parse(R"({"kind": "watts_strogatz", "n": 20, "k": 4, "beta": 0.25,
      "latency": "1ms", "bandwidth": {"min": "1Mbps", "max": "3Mbps"},
      "overrides": [{"u": 0, "v": 1, "latency": "3ms"}]})"));
  CHECK(parse_topology(j, "elsewhere/x.json", "/topology", std::nullopt) == s);
  const TopologySpec f = parse_topology(json::parse(R"({"kind": "dot", "file": "g.dot"})"),
                                        "a/b.json", "", std::nullopt);
  CHECK(parse_topology(topology_to_json(f), "c/d.json", "", std::nullopt).file ==
        std::filesystem::absolute("a/g.dot").string());
}

TEST_CASE("load_topology_file builds the graph with seed 1 unless the file sets one") {
  const TopologyFileReport r =
      load_topology_file(std::string(DLSIM_SOURCE_DIR) + "/topologies/examples/torus4x4.json");
  CHECK(r.seed == kDefaultTopologySeed);
  CHECK(r.graph.node_count() == 16);
  CHECK(r.metrics.edges == 32);
  CHECK(r.metrics.latency_max == SimTime::from_ms(2));
  const std::string seeded =
      write_file("seeded.json", R"({"kind": "erdos_renyi", "n": 30, "p": 0.3, "seed": 5})");
  CHECK(load_topology_file(seeded).seed == 5);
}

TEST_CASE("load_topology_file errors name the file") {
  const std::string bad_json = write_file("bad.json", "{\"kind\": \"ring\",, }");
  CHECK_THROWS_WITH_AS(
      load_topology_file(bad_json),
      doctest::Contains((bad_json + ": not valid JSON: parse error at line 1").c_str()),
      InputError);
  const std::string txt = write_file("split.txt", "0 1\n2 3\n");
  const std::string split =
      write_file("split.json", R"({"kind": "edge_list", "file": "split.txt"})");
  CHECK_THROWS_WITH_AS(load_topology_file(split),
                       (txt + ": the graph is not connected (2 components over 4 nodes)").c_str(),
                       InputError);
  const std::string root = write_file("root.json", R"({"kind": "ring", "n": 8, "x": 1})");
  CHECK_THROWS_WITH_AS(load_topology_file(root),
                       doctest::Contains((root + ": /x: unknown key").c_str()), InputError);
}
