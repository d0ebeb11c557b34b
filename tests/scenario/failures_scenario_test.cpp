// network.failures as a user writes it: Markov and trace forms, the trace file's errors by
// file:line, bad keys by JSON pointer, and a trace naming a pair of nodes with no link between.
#include <doctest/doctest.h>

#include "scenario_test_helpers.hpp"
#include "sim/scenario/load_scenario.hpp"
#include "sim/scenario/world.hpp"

using namespace dlsim;
using dlsim::testing::scenario_error_of;
using dlsim::testing::with;
using dlsim::testing::write_test_file;
using nlohmann::json;

namespace {

json scenario(json failures) {
  json j = json::parse(R"({
    "name": "t", "agents": 4,
    "model": {"kind": "quadratic", "dim": 10},
    "algorithm": {"kind": "dpsgd"},
    "run": {"iterations": 10}
  })");
  j["network"]["failures"] = std::move(failures);
  return j;
}

std::string trace_error(const std::string& name, const std::string& text) {
  const std::string path = write_test_file("failures", name, text);
  return scenario_error_of(scenario({{"kind", "trace"}, {"file", path}}));
}

}  // namespace

TEST_CASE("link failures parse to their spec and back: a trace file, and markov") {
  const std::string path = write_test_file(
      "failures", "good.csv",
      "u,v,down_from,up_again\n# a comment\n\n2,1,0.5,1.5\n1,2,2,inf\n0,3,0,0.25\n");
  ScenarioSpec s = parse_scenario(scenario({{"kind", "trace"}, {"file", path}}), "s.json");
  const LinkFailureSpec& f = s.network.failures;
  CHECK(f.kind == FailureKind::kTrace);
  REQUIRE(f.intervals.size() == 3);  // by node pair (u < v), then time
  CHECK(f.intervals[0] == LinkDownInterval{0, 3, {SimTime{}, SimTime::from_ms(250)}, 6});
  CHECK(f.intervals[1] ==
        LinkDownInterval{1, 2, {SimTime::from_ms(500), SimTime::from_ms(1500)}, 4});
  CHECK(f.intervals[2] == LinkDownInterval{1, 2, {SimTime::from_ms(2000), SimTime::max()}, 5});
  json rendered = scenario_to_json(s);
  CHECK(scenario_to_json(parse_scenario(rendered, "s.json")) == rendered);
  s = parse_scenario(scenario({{"kind", "markov"}, {"mtbf", "600s"}, {"mttr", "30s"}}),
                     "s.json");
  CHECK(s.network.failures.kind == FailureKind::kMarkov);
  CHECK(s.network.failures.mtbf == SimTime::from_seconds(600));
  CHECK(s.network.failures.mttr == SimTime::from_seconds(30));
  rendered = scenario_to_json(s);
  CHECK(scenario_to_json(parse_scenario(rendered, "s.json")) == rendered);
}

TEST_CASE("every malformed failure trace line names file:line") {
  const std::string prefix = std::string(DLSIM_BINARY_DIR) + "/test-files/failures/";
  CHECK(trace_error("fields.csv", "0,1,2\n") ==
        prefix + "fields.csv:1: expected 4 fields (u,v,down_from,up_again), got 3");
  CHECK(trace_error("node.csv", "0,1,1,2\n0,x,1,2\n") ==
        prefix + "node.csv:2: v: expected a node number, got \"x\"");
  CHECK(trace_error("unknown.csv", "4,1,1,2\n") ==
        prefix + "unknown.csv:1: u: unknown node 4 (the scenario has 4: 0..3)");
  CHECK(trace_error("same.csv", "2,2,1,2\n") == prefix + "same.csv:1: u and v are the same node 2");
  CHECK(trace_error("negative.csv", "0,1,-1,2\n") ==
        prefix + "negative.csv:1: down_from: negative time -1");
  CHECK(trace_error("reversed.csv", "0,1,3,2\n") ==
        prefix + "reversed.csv:1: up_again 2 is not after down_from 3");
  CHECK(trace_error("number.csv", "0,1,1,2s\n") ==
        prefix + "number.csv:1: up_again: expected seconds or \"inf\", got \"2s\"");
  // The same link written both ways round.
  CHECK(trace_error("overlap.csv", "1,2,5,9\n0,1,0,1\n2,1,1,6\n") ==
        prefix + "overlap.csv:3: link 1-2's interval overlaps line 1's");
  CHECK(scenario_error_of(scenario({{"kind", "trace"}, {"file", "missing.csv"}})) ==
        "missing.csv: cannot read");
}

TEST_CASE("a trace naming two nodes that are not neighbours is refused when the network is built") {
  // A ring of 4: 0 and 2 are not neighbours.
  const std::string path = write_test_file("failures", "far.csv", "0,1,1,2\n0,2,1,2\n");
  const ScenarioSpec s = parse_scenario(scenario({{"kind", "trace"}, {"file", path}}), "s.json");
  CHECK_THROWS_WITH_AS(build_world(s, {}), (path + ":2: no link between 0 and 2 in the physical "
                                                   "network").c_str(),
                       InputError);
}

TEST_CASE("bad link failure keys name their JSON pointer") {
  CHECK(scenario_error_of(scenario({{"kind", "weibull"}})) ==
        "s.json: /network/failures/kind: expected one of \"trace\", \"markov\", got \"weibull\"");
  CHECK(scenario_error_of(scenario({{"kind", "markov"}, {"mtbf", "1s"}})) ==
        "s.json: /network/failures/mttr: required key is missing");
  CHECK(scenario_error_of(scenario({{"kind", "markov"}, {"mtbf", "0"}, {"mttr", "1s"}})) ==
        "s.json: /network/failures/mtbf: must be positive");
  CHECK(scenario_error_of(scenario({{"kind", "markov"}, {"mtbf", "1s"}, {"mttr", "1s"},
                                    {"start_down", 0.5}}))
            .find("s.json: /network/failures/start_down") == 0);
  CHECK(scenario_error_of(scenario("often")).find("s.json: /network/failures: ") == 0);
  const json markov = {{"kind", "markov"}, {"mtbf", "1s"}, {"mttr", "1s"}};
  CHECK(scenario_error_of(with(scenario(markov), "/algorithm", {{"kind", "allreduce"}})) ==
        "s.json: /network/failures: \"allreduce\" cannot lose a message to a failed link (a "
        "collective needs every chunk); remove this key");
}

TEST_CASE("link failures are accepted with maxmin sharing") {
  const json markov = {{"kind", "markov"}, {"mtbf", "1s"}, {"mttr", "1s"}};
  const ScenarioSpec s =
      parse_scenario(with(scenario(markov), "/network/sharing", "maxmin"), "s.json");
  CHECK(s.network.sharing == Sharing::kMaxMin);
  CHECK(s.network.failures.kind == FailureKind::kMarkov);
  CHECK_NOTHROW(build_world(s, {}));
}
