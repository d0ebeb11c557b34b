// Per-tensor send counts of a run whose fires are known by hand, through the swarm and the
// recorder into summary.json (EventGraD's tensor savings).
#include <doctest/doctest.h>

#include "../agents/algorithm_harness.hpp"
#include "../agents/graphs.hpp"
#include "sim/agents/eventgrad.hpp"
#include "sim/metrics/comm_recorder.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/run/driver.hpp"

using namespace dlsim;
using namespace dlsim::testing;

namespace {

struct Observer final : RunObserver {
  bool on_iterations_done(int64_t) override { return true; }
};

}  // namespace

TEST_CASE("EventGraD's tensor sends by hand: both tensors at k = 0, the crossing one at k = 1") {
  // The two-agent run of eventgrad_test.cpp ("sends only the tensors that crossed"): at k = 0
  // each agent sends both tensors, at k = 1 only tensor 0 (it drifted by 1 > 0.5).
  const topo::Graph g = line_graph(2);
  Eventgrad alg(Overlay(g), per_tensor_threshold(0.5));
  auto agents = make_agents({vec({0, 0, 0, 0}), vec({2, 0.2f, 0.2f, 0.2f})},
                            {vec({0, 0, 0, 0}), vec({0, 0, 0, 0})}, 0.0f, {{0, 1}, {1, 3}});
  alg.start(agents);
  Simulator sim(1);
  Network net(g, NetworkConfig{}, 1);
  CommRecorder comm(2, {"fc.weight", "fc.bias"});
  net.set_listener(comm);
  Swarm swarm(sim, net, alg, agents, comm);
  ThreadPool pool(1);
  Observer observer;
  run_driver(swarm, pool, {TimeMode::kSync, 2, {SimTime{}, SimTime{}}}, observer);
  CHECK(comm.tensor_sends() == std::vector<uint64_t>{4, 2});
  for (uint32_t i = 0; i < 2; ++i) {
    CHECK(comm.node(AgentId{i}).events == 2);
    CHECK(comm.node(AgentId{i}).model_messages == 2);
    CHECK(comm.node(AgentId{i}).tensor_sends == 3);
  }
  // 6 tensor sends of 1 neighbour x 2 tensors x 2 agents x 2 iterations = 8 possible.
  RunFacts facts;
  facts.agents = 2;
  facts.decisions = 4;
  const nlohmann::json s = make_summary(facts, comm, nullptr);
  CHECK(s["comm"]["tensor_sends"] == 6);
  CHECK(s["comm"]["tensor_sends_by_name"] == nlohmann::json{{"fc.weight", 4}, {"fc.bias", 2}});
  CHECK(s["comm"]["tensor_savings"].get<double>() == doctest::Approx(0.25));
  CHECK(s["comm"]["savings"].get<double>() == 0.0);  // every decision was an event
}

TEST_CASE("tensor savings are null when no message carries tensors") {
  CommRecorder comm(2, {"x"});
  comm.trigger_fired(AgentId{0}, 0, SimTime{});
  RunFacts facts;
  facts.agents = 2;
  facts.decisions = 2;
  CHECK(make_summary(facts, comm, nullptr)["comm"]["tensor_savings"].is_null());
}
