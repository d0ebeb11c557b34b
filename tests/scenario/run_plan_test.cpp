// One plan per run (sim/scenario/run_plan.hpp): its estimate counts the graphs the world is then
// built over, and a run too large for memory is refused before those graphs exist.
#include "sim/scenario/run_plan.hpp"

#include <doctest/doctest.h>
#include <sys/resource.h>

#include <set>

#include "scenario_test_helpers.hpp"
#include "sim/scenario/load_scenario.hpp"
#include "sim/scenario/world.hpp"

using namespace dlsim;
using nlohmann::json;

namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;

ScenarioSpec spec_of(const json& j) { return parse_scenario(j, "s.json"); }

// The process's peak resident size so far (Linux reports KiB).
uint64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;
}

}  // namespace

TEST_CASE("the plan's estimate counts the graphs and models the world is built over") {
  // CHOCO keeps a copy per neighbour: its copies follow the graph's mean degree (4 here).
  const ScenarioSpec s = spec_of(json::parse(R"({"name": "t", "agents": 12,
      "model": {"kind": "quadratic", "dim": 50},
      "topology": {"kind": "random_regular", "degree": 4},
      "algorithm": {"kind": "choco", "gamma": 0.5}, "trigger": {"kind": "always"},
      "run": {"iterations": 5}})"));
  RunPlan plan = plan_run(s, 16 * kGiB);
  CHECK(plan.agents == 12);
  CHECK(plan.degrees.largest == 4);
  CHECK(plan.degrees.mean == 4.0);
  // x, g, the quadratic's target; CHOCO's x^_i and a copy per neighbour.
  CHECK(plan.memory.vectors_per_agent == 2.0 + 1.0 + 1.0 + 4.0);
  const size_t edges = plan.graph.edges().size();
  const uint64_t parameters = plan.memory.parameters;
  const std::unique_ptr<World> w = build_world(s, std::move(plan), {});
  CHECK(w->graph.edges().size() == edges);
  CHECK(edges == 12 * 4 / 2);
  CHECK(w->degrees.largest == 4);
  CHECK(w->parameter_count() == parameters);
}

TEST_CASE("a dynamic sequence's graphs are built once, for the estimate and the overlay alike") {
  const ScenarioSpec s = spec_of(json::parse(R"({"name": "t", "agents": 9,
      "model": {"kind": "quadratic", "dim": 10},
      "topology": {"dynamic": {"kind": "sequence", "every": 2,
          "topologies": [{"kind": "ring"}, {"kind": "torus", "rows": 3, "cols": 3}]}},
      "algorithm": {"kind": "choco", "gamma": 0.5}, "trigger": {"kind": "always"},
      "run": {"iterations": 5}})"));
  const RunPlan plan = plan_run(s, 16 * kGiB);
  REQUIRE(plan.dynamic_graphs.size() == 2);
  CHECK(plan.degrees.dynamic_largest == 4);  // the 3 x 3 torus; the ring has 2
  CHECK(plan.degrees.dynamic_mean == 4.0);
  // x, g, the target; x^_i, the whole copy for new edges and the sequence's largest mean degree.
  CHECK(plan.memory.vectors_per_agent == 3.0 + 2.0 + 4.0);
}

TEST_CASE("a run too large for memory is refused before its graphs are built") {
  // 4,400 agents on a complete graph: 9.7 million edges (the loader's limit is 10 million), an
  // estimated 4 GiB of links, refused from the scenario alone. Built first, the graph raised the
  // peak by 388 MB (measured with the first pass removed). ctest runs each case in a process of
  // its own, so no earlier case has raised the peak already.
  const ScenarioSpec s = spec_of(json::parse(R"({"name": "t", "agents": 4400,
      "model": {"kind": "quadratic", "dim": 10}, "topology": {"kind": "complete"},
      "algorithm": {"kind": "dpsgd"}, "run": {"iterations": 5}})"));
  const uint64_t before = peak_rss_bytes();
  const std::string e = testing::input_error_of([&] { plan_run(s, kGiB); });
  CHECK(e.starts_with("s.json: /topology: the run needs an estimated "));
  INFO(e);
  CHECK(e.find("for links") != std::string::npos);
  CHECK_MESSAGE(peak_rss_bytes() - before < (uint64_t{128} << 20),
                "the peak grew by " << (peak_rss_bytes() - before) << " B");
}

TEST_CASE("the estimate before the graphs exist is a lower bound of the one over them") {
  // The smoke scenarios, and async gossip on a ring whose links take 1.5 steps per model: there
  // the copies in flight shrink as the degree grows, so the first pass leaves them out.
  std::vector<ScenarioSpec> specs;
  for (const char* name : {"allreduce", "centralized", "detsgrad", "detsgrad-async", "dpsgd",
                           "easgd", "elastic-gossip", "gossip-async-lossy", "gossip-push",
                           "local-sgd", "none", "quadratic-detsgrad"})
    specs.push_back(
        load_scenario(std::string(DLSIM_SOURCE_DIR) + "/scenarios/smoke/" + name + ".json", {}));
  specs.push_back(spec_of(json::parse(R"({"name": "t", "agents": 8,
      "model": {"kind": "quadratic", "dim": 1000}, "topology": {"kind": "ring"},
      "network": {"bandwidth": "8Mbps", "latency": "0ms"},
      "algorithm": {"kind": "gossip"}, "trigger": {"kind": "always"},
      "time": {"mode": "async", "compute": {"step": "2.67ms"}}, "run": {"iterations": 1000}})")));
  {  // Counted at degree 0, that gossip's copies in flight would exceed the real estimate.
    const MemoryEstimator estimator(specs.back(), 16 * kGiB);
    CHECK(estimator.estimate(GraphDegrees{}).total_bytes() >
          estimator.estimate(plan_graphs(specs.back()).degrees).total_bytes());
  }
  for (const ScenarioSpec& s : specs) {
    CAPTURE(s.name);
    const MemoryEstimator estimator(s, 16 * kGiB);
    const uint64_t before = estimator.before_graphs().total_bytes();
    CHECK(before <= estimator.estimate(plan_graphs(s).degrees).total_bytes());
    CHECK(before > 0);
  }
}

TEST_CASE(
    "over MPI ranks the plan is of the largest rank's share, and fits where one process does not") {
  // 1,000 agents of 100,000 parameters on a ring: about 4.4 GiB in one process.
  const ScenarioSpec s = spec_of(json::parse(R"({"name": "t", "agents": 1000,
      "model": {"kind": "quadratic", "dim": 100000},
      "topology": {"kind": "ring"},
      "algorithm": {"kind": "dpsgd"}, "run": {"iterations": 5}})"));
  const RunPlan one = plan_run(s, 16 * kGiB);
  const uint64_t whole = one.memory.total_bytes();
  CHECK_THROWS_AS(plan_run(s, whole / 3), InputError);
  // Over 4 ranks each holds 250 agents, and 2 agents of other ranks are their neighbours.
  const RankShare share = rank_share(s, one, 4);
  CHECK(share.held == 250);
  CHECK(share.senders == 2);
  const RunPlan rank_2 = plan_run(s, whole / 3, 4, 2);
  CHECK(rank_2.held == NodeBlock{500, 750});
  CHECK(rank_2.memory.total_bytes() < whole / 3);
  CHECK(rank_2.memory.total_bytes() > whole / 4);  // the copies from other ranks, place-holders
  // A block's extra over a quarter (a model is 400 KB, a quarter 1.1 GiB): the process itself,
  // the copies of its 2 neighbours on other ranks, and its place-holders.
  CHECK(rank_2.memory.total_bytes() < whole / 4 + (32u << 20));
}

TEST_CASE("a rank's senders are counted over the graph: a random graph's cut, a ring's two") {
  const ScenarioSpec ring = spec_of(json::parse(R"({"name": "t", "agents": 10,
      "model": {"kind": "quadratic", "dim": 10}, "topology": {"kind": "ring"},
      "algorithm": {"kind": "dpsgd"}, "run": {"iterations": 5}})"));
  CHECK(rank_share(ring, plan_graphs(ring), 3).held == 4);
  CHECK(rank_share(ring, plan_graphs(ring), 3).senders == 2);
  const ScenarioSpec random = spec_of(json::parse(R"({"name": "t", "agents": 200,
      "model": {"kind": "quadratic", "dim": 10},
      "topology": {"kind": "random_regular", "degree": 4},
      "algorithm": {"kind": "dpsgd"}, "run": {"iterations": 5}})"));
  const RunPlan plan = plan_graphs(random);
  // Count by hand: the agents of each half with a neighbour in the other.
  std::set<uint32_t> into_first, into_second;
  for (const topo::Edge& e : plan.graph.edges())
    if ((e.u < 100) != (e.v < 100)) {
      into_first.insert(std::max(e.u, e.v));  // the end in the second half sends to the first
      into_second.insert(std::min(e.u, e.v));
    }
  CHECK(rank_share(random, plan, 2).senders == std::max(into_first.size(), into_second.size()));
  CHECK(into_first.size() > 50);  // most agents have a neighbour across: 15/16 of them
  CHECK(into_first.size() < 100);
}
