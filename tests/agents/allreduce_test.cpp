#include <doctest/doctest.h>

#include "algorithm_harness.hpp"
#include "graphs.hpp"
#include "sim/agents/detsgrad.hpp"
#include "sim/agents/elastic_gossip.hpp"
#include "sim/agents/gossip.hpp"
#include "sim/agents/no_communication.hpp"
#include "sim/agents/ring_allreduce.hpp"

using namespace dlsim;
using namespace dlsim::testing;

TEST_CASE("all-reduce SGD steps every agent with the mean gradient and keeps them identical") {
  RingAllReduce alg(ReduceWhat::kGradients, TriggerSpec{});
  auto agents = make_agents({vec({0, 0}), vec({0, 0}), vec({0, 0})},
                            {vec({0, 3}), vec({1, 3}), vec({2, 6})}, 0.1f);
  alg.start(agents);
  // 3 agents, 2(n-1) = 4 stages, one chunk per agent per stage.
  CHECK(run_round(alg, agents) == 12);
  // g_i = -c_i, mean (-1, -4): x = (0.1, 0.4) everywhere.
  for (const Agent& a : agents) {
    CHECK(a.x[0] == doctest::Approx(0.1));
    CHECK(a.x[1] == doctest::Approx(0.4));
  }
  for (int k = 0; k < 5; ++k) run_round(alg, agents);
  CHECK(agents[0].x == agents[1].x);
  CHECK(agents[1].x == agents[2].x);
}

TEST_CASE("local SGD averages the models after every tau local steps") {
  TriggerSpec every2;
  every2.kind = TriggerKind::kPeriodic;
  every2.period = 2;
  RingAllReduce alg(ReduceWhat::kModels, every2);
  auto agents = make_agents({vec({0}), vec({0})}, {vec({1}), vec({3})}, 0.5f);
  alg.start(agents);
  // k = 0: local steps only, to 0.5 and 1.5.
  CHECK(run_round(alg, agents) == 0);
  CHECK(agents[0].x[0] == doctest::Approx(0.5));
  CHECK(agents[1].x[0] == doctest::Approx(1.5));
  // k = 1: local steps to 0.75 and 2.25, then the mean 1.5 for both (2 agents, 2 stages).
  CHECK(run_round(alg, agents) == 4);
  CHECK(agents[0].x[0] == doctest::Approx(1.5));
  CHECK(agents[1].x[0] == doctest::Approx(1.5));
}

TEST_CASE("one agent with any algorithm equals plain SGD") {
  const topo::Graph single(1, {});
  TriggerSpec threshold;
  threshold.kind = TriggerKind::kThreshold;
  threshold.v0 = 0.0;
  DetsgradSpec d;  // alpha_k = 0.1/(1e-5 k + 1): compare with the same schedule
  std::vector<std::unique_ptr<Algorithm>> algorithms;
  algorithms.push_back(std::make_unique<NoCommunication>());
  algorithms.push_back(
      std::make_unique<GossipSgd>(GossipMode::kPull, TriggerSpec{}, Overlay(single)));
  algorithms.push_back(
      std::make_unique<GossipSgd>(GossipMode::kPush, TriggerSpec{}, Overlay(single)));
  algorithms.push_back(
      std::make_unique<ElasticGossip>(0.5, TriggerSpec{}, Overlay(single), TimeMode::kSync));
  algorithms.push_back(std::make_unique<RingAllReduce>(ReduceWhat::kGradients, TriggerSpec{}));
  algorithms.push_back(std::make_unique<RingAllReduce>(ReduceWhat::kModels, TriggerSpec{}));
  for (size_t which = 0; which < algorithms.size(); ++which) {
    Algorithm* alg = algorithms[which].get();
    auto agents = make_agents({vec({5, -1})}, {vec({1, 1})}, 0.1f);
    alg->start(agents);
    for (int k = 0; k < 20; ++k) run_round(*alg, agents);
    ParamVector sgd = vec({5, -1});
    for (int k = 0; k < 20; ++k) sgd -= 0.1f * (sgd - vec({1, 1}));
    CAPTURE(which);  // its place in the list above
    CHECK(agents[0].x == sgd);
  }
  Detsgrad det(d, threshold, Overlay(single));
  auto agents = make_agents({vec({5, -1})}, {vec({1, 1})});
  det.start(agents);
  ParamVector sgd = vec({5, -1});
  for (int k = 0; k < 20; ++k) {
    run_round(det, agents);
    sgd -= static_cast<float>(d.alpha.at(k)) * (sgd - vec({1, 1}));
  }
  CHECK(agents[0].x == sgd);
}
