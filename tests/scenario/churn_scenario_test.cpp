#include <doctest/doctest.h>

#include "scenario_test_helpers.hpp"
#include "sim/scenario/load_scenario.hpp"

using namespace dlsim;
using dlsim::testing::scenario_error_of;
using dlsim::testing::with;
using dlsim::testing::write_test_file;
using nlohmann::json;

namespace {

json scenario(json churn) {
  json j = json::parse(R"({
    "name": "t", "agents": 4,
    "model": {"kind": "quadratic", "dim": 10},
    "algorithm": {"kind": "dpsgd"},
    "run": {"iterations": 10}
  })");
  j["churn"] = std::move(churn);
  return j;
}

// The error of a trace file holding `text`.
std::string trace_error(const std::string& name, const std::string& text) {
  const std::string path = write_test_file("churn", name, text);
  return scenario_error_of(scenario({{"kind", "trace"}, {"file", path}}));
}

}  // namespace

TEST_CASE("churn parses to its spec and back: a trace file, markov with its stationary start") {
  const std::string path = write_test_file(
      "churn", "good.csv", "agent,offline_from,online_again\n# a comment\n\n1,0.5,1.5\n1,2,inf\n3,0,0.25\n");
  ScenarioSpec s = parse_scenario(scenario({{"kind", "trace"}, {"file", path}}), "s.json");
  REQUIRE(s.churn);
  CHECK(s.churn->offline.size() == 4);
  CHECK(s.churn->offline[1] == std::vector<OfflineInterval>{
                                   {SimTime::from_ms(500), SimTime::from_ms(1500)},
                                   {SimTime::from_ms(2000), SimTime::max()}});
  CHECK(s.churn->offline[3].size() == 1);
  CHECK(s.churn->rejoin == Rejoin::kStale);
  json rendered = scenario_to_json(s);
  CHECK(scenario_to_json(parse_scenario(rendered, "s.json")) == rendered);
  s = parse_scenario(scenario({{"kind", "markov"}, {"mean_online", "600s"},
                               {"mean_offline", "60s"}, {"rejoin", "pull"}}),
                     "s.json");
  CHECK(s.churn->start_offline == doctest::Approx(60.0 / 660.0));
  CHECK(s.churn->rejoin == Rejoin::kPull);
  rendered = scenario_to_json(s);
  CHECK(scenario_to_json(parse_scenario(rendered, "s.json")) == rendered);
}

TEST_CASE("every malformed churn trace line names file:line") {
  const std::string prefix = std::string(DLSIM_BINARY_DIR) + "/test-files/churn/";
  CHECK(trace_error("fields.csv", "0,1\n") ==
        prefix + "fields.csv:1: expected 3 fields (agent,offline_from,online_again), got 2");
  CHECK(trace_error("agent.csv", "0,1,2\nx,1,2\n") ==
        prefix + "agent.csv:2: agent: expected an agent number, got \"x\"");
  CHECK(trace_error("unknown.csv", "4,1,2\n") ==
        prefix + "unknown.csv:1: agent: unknown agent 4 (the scenario has 4: 0..3)");
  CHECK(trace_error("negative.csv", "0,-1,2\n") ==
        prefix + "negative.csv:1: offline_from: negative time -1");
  CHECK(trace_error("reversed.csv", "0,3,2\n") ==
        prefix + "reversed.csv:1: online_again 2 is not after offline_from 3");
  CHECK(trace_error("empty.csv", "0,3,3\n") ==
        prefix + "empty.csv:1: online_again 3 is not after offline_from 3");
  CHECK(trace_error("number.csv", "0,1s,2\n") ==
        prefix + "number.csv:1: offline_from: expected seconds, got \"1s\"");
  CHECK(trace_error("inf.csv", "0,inf,2\n") ==
        prefix + "inf.csv:1: offline_from: expected seconds, got \"inf\"");
  CHECK(trace_error("overlap.csv", "2,5,9\n1,0,1\n2,1,6\n") ==
        prefix + "overlap.csv:3: agent 2's interval overlaps line 1's");
  CHECK(scenario_error_of(scenario({{"kind", "trace"}, {"file", "missing.csv"}})) ==
        "missing.csv: cannot read");
}

TEST_CASE("bad churn keys name their JSON pointer") {
  CHECK(scenario_error_of(scenario({{"kind", "weibull"}})) ==
        "s.json: /churn/kind: expected one of \"trace\", \"markov\", got \"weibull\"");
  CHECK(scenario_error_of(scenario({{"kind", "markov"}, {"mean_online", "1s"}})) ==
        "s.json: /churn/mean_offline: required key is missing");
  CHECK(scenario_error_of(scenario({{"kind", "markov"}, {"mean_online", "0"},
                                    {"mean_offline", "1s"}})) ==
        "s.json: /churn/mean_online: must be positive");
  CHECK(scenario_error_of(scenario({{"kind", "markov"}, {"mean_online", "1s"},
                                    {"mean_offline", "1s"}, {"start_offline", 2}})) ==
        "s.json: /churn/start_offline: expected a number in [0, 1], got 2");
  CHECK(scenario_error_of(scenario({{"kind", "markov"}, {"mean_online", "1s"},
                                    {"mean_offline", "1s"}, {"rejoin", "fresh"}})) ==
        "s.json: /churn/rejoin: expected one of \"stale\", \"pull\", got \"fresh\"");
  CHECK(scenario_error_of(scenario({{"kind", "trace"}, {"file", "x.csv"}, {"mean_online", "1s"}}))
            .find("s.json: /churn/") == 0);
  const json markov = {{"kind", "markov"}, {"mean_online", "1s"}, {"mean_offline", "1s"}};
  CHECK(scenario_error_of(with(scenario(markov), "/algorithm", {{"kind", "allreduce"}})) ==
        "s.json: /churn: churn works with \"dpsgd\", \"detsgrad\", \"gossip\", "
        "\"elastic_gossip\" and \"eventgrad\" so far, not \"allreduce\"");
}
