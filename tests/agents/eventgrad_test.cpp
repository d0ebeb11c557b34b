#include "sim/agents/eventgrad.hpp"

#include <doctest/doctest.h>

#include "algorithm_harness.hpp"
#include "graphs.hpp"
#include "sim/agents/detsgrad.hpp"

using namespace dlsim;
using namespace dlsim::testing;

namespace {

const std::vector<TensorRange> kTwoTensors = {{0, 1}, {1, 3}};

uint64_t floats_of(const std::vector<uint32_t>& parts, const std::vector<TensorRange>& layout) {
  uint64_t floats = 0;
  for (uint32_t part : parts) floats += static_cast<uint64_t>(layout[part].size);
  return floats;
}

}  // namespace

TEST_CASE("EventGraD sends only the tensors that crossed and receivers replace only those") {
  const topo::Graph g = line_graph(2);  // Metropolis weights: 1/2 and 1/2
  Eventgrad alg(Overlay(g), per_tensor_threshold(0.5));
  // lr 0: pure averaging, so every value is exact by hand.
  auto agents = make_agents({vec({0, 0, 0, 0}), vec({2, 0.2f, 0.2f, 0.2f})},
                            {vec({0, 0, 0, 0}), vec({0, 0, 0, 0})}, 0.0f, kTwoTensors);
  alg.start(agents);
  std::vector<Message> seen;
  const Delivery record = [&](const Message& m) {
    seen.push_back(m);
    return true;
  };
  // k = 0: both send everything (4 floats and a 1-byte mask); both end at (1, .1, .1, .1).
  CHECK(run_round(alg, agents, nullptr, record) == 2);
  for (const Message& m : seen) CHECK(m.size_bytes == 4 * 4 + 1);
  CHECK(agents[0].x == vec({1, 0.1f, 0.1f, 0.1f}));
  CHECK(agents[1].x == vec({1, 0.1f, 0.1f, 0.1f}));
  // k = 1: tensor 0 drifted by 1 > 0.5 at both, tensor 1 by |0.1 - 0| or |0.1 - 0.2| * sqrt(3)
  // < 0.5: only tensor 0 travels (1 float and the mask).
  seen.clear();
  CHECK(run_round(alg, agents, nullptr, record) == 2);
  for (const Message& m : seen) {
    REQUIRE(parts_of(m));
    CHECK(*parts_of(m) == std::vector<uint32_t>{0});
    CHECK(m.size_bytes == 4 + 1);
  }
  // Agent 1 holds (1, 0, 0, 0) of agent 0 (tensor 1 still the k = 0 value), agent 0 holds
  // (1, .2, .2, .2) of agent 1.
  CHECK(*alg.neighbour_copy(AgentId{1}, 0) == vec({1, 0, 0, 0}));
  CHECK(*alg.neighbour_copy(AgentId{0}, 0) == vec({1, 0.2f, 0.2f, 0.2f}));
  CHECK(agents[0].x.isApprox(vec({1, 0.15f, 0.15f, 0.15f})));
  CHECK(agents[1].x.isApprox(vec({1, 0.05f, 0.05f, 0.05f})));
}

TEST_CASE("EventGraD steps with the gradient at the x it had before averaging") {
  const topo::Graph g = line_graph(2);
  Eventgrad alg(Overlay(g), per_tensor_threshold(0.0));
  auto agents = make_agents({vec({1}), vec({3})}, {vec({0}), vec({0})}, 0.1f);
  alg.start(agents);
  run_round(alg, agents);
  // (1 + 3) / 2 - 0.1 * 1 and (1 + 3) / 2 - 0.1 * 3.
  CHECK(agents[0].x[0] == doctest::Approx(1.9));
  CHECK(agents[1].x[0] == doctest::Approx(1.7));
}

TEST_CASE("EventGraD with the median mixes by the coordinate-wise median, then takes the step") {
  // Line 0 - 1 - 2, x = (0, 3, 9), c = (3, 0, 0), lr 0.1, every tensor sent: as D-PSGD's median
  // (dpsgd_aggregation_test.cpp): 1.5 + 0.3, 3 - 0.3, 6 - 0.9. The mean gives agent 1 3.7.
  AggregationSpec median;
  median.kind = AggregationKind::kMedian;
  Eventgrad alg(Overlay(line_graph(3)), per_tensor_threshold(0.0));
  alg.set_aggregation(median, 10);
  auto agents = make_agents({vec({0}), vec({3}), vec({9})}, {vec({3}), vec({0}), vec({0})}, 0.1f);
  alg.start(agents);
  CHECK(run_round(alg, agents) == 4);
  CHECK(agents[0].x[0] == doctest::Approx(1.8));
  CHECK(agents[1].x[0] == doctest::Approx(2.7));
  CHECK(agents[2].x[0] == doctest::Approx(5.1));
}

TEST_CASE("EventGraD holders keep the sender's x^ bit for bit, and their own after a loss") {
  const topo::Graph g = ring_graph(5);
  TriggerSpec t;
  t.kind = TriggerKind::kAdaptive;
  t.horizon = 0.9;
  t.warmup = 3;
  Eventgrad alg(Overlay(g), t);
  const WaveProblem p = wave_problem(5, 40);
  const std::vector<TensorRange> layout = {{0, 10}, {10, 15}, {25, 15}};
  auto agents = make_agents(p.x0, p.c, 0.05f, layout);
  alg.start(agents);
  ParamVector shadow;  // agent 1's copy of agent 0's x^, kept by hand
  int partial = 0, messages = 0;
  int lost_in = -1;  // the round of the one lost message: agent 0's first to agent 1 from round 7
  for (int round = 0; round < 40; ++round) {
    run_round(alg, agents, nullptr, [&](const Message& m) {
      REQUIRE(parts_of(m));
      REQUIRE(m.size_bytes == floats_of(*parts_of(m), layout) * 4 + 1);
      partial += parts_of(m)->size() < 3 ? 1 : 0;
      ++messages;
      if (m.from.value != 0 || m.to.value != 1) return true;
      if (round >= 7 && lost_in < 0) {
        lost_in = round;
        return false;
      }
      if (shadow.size() == 0) shadow = *m.params;
      for (uint32_t part : *parts_of(m))
        shadow.segment(layout[part].offset, layout[part].size) =
            m.params->segment(layout[part].offset, layout[part].size);
      return true;
    });
    // Agent 1's copy of agent 0 (its neighbour number 0): the parts that arrived. Before the loss
    // that is the sender's x^; right after it, not (until every lost tensor is sent again).
    REQUIRE(same_bits(alg.neighbour_copy(AgentId{1}, 0), shadow));
    if (lost_in < 0) CHECK(same_bits(alg.public_copy(AgentId{0}), shadow));
    if (round == lost_in) CHECK(!same_bits(alg.public_copy(AgentId{0}), shadow));
    // Everybody else's copies are the senders' own.
    for (uint32_t i = 2; i < 5; ++i) {
      const auto neighbours = g.neighbors(i);
      for (size_t n = 0; n < neighbours.size(); ++n)
        REQUIRE(
            same_bits(alg.neighbour_copy(AgentId{i}, n), *alg.public_copy(AgentId{neighbours[n]})));
    }
  }
  CHECK(lost_in >= 0);
  CHECK(partial > 0);              // some events sent some tensors only
  CHECK(messages < 40 * 10 - 20);  // and some iterations sent nothing
}

TEST_CASE("DETSGRAD per tensor with every tensor firing is DETSGRAD on the whole model") {
  const topo::Graph g = ring_graph(4);
  DetsgradSpec spec;
  spec.alpha = {0.1, 0.0, 1.0};
  spec.beta = {0.2, 0.0, 1.0};
  TriggerSpec whole;
  whole.kind = TriggerKind::kThreshold;
  whole.v0 = 0.0;  // fires every iteration
  Detsgrad per_model(spec, whole, Overlay(g));
  Detsgrad per_tensor(spec, per_tensor_threshold(0.0), Overlay(g));
  const WaveProblem p = wave_problem(4, 30);
  auto a = make_agents(p.x0, p.c, 0.1f, {{0, 7}, {7, 23}});
  auto b = make_agents(p.x0, p.c, 0.1f, {{0, 7}, {7, 23}});
  per_model.start(a);
  per_tensor.start(b);
  for (int round = 0; round < 20; ++round) {
    run_round(per_model, a);
    run_round(per_tensor, b);
    for (size_t i = 0; i < 4; ++i) REQUIRE(same_bits(&a[i].x, b[i].x));
  }
}

TEST_CASE("DETSGRAD per tensor: only crossing tensors travel and copies stay the sender's") {
  const topo::Graph g = ring_graph(5);
  DetsgradSpec spec;
  spec.alpha = {0.05, 0.0, 1.0};
  spec.beta = {0.1, 0.0, 1.0};
  Detsgrad alg(spec, per_tensor_threshold(0.3), Overlay(g));
  const WaveProblem p = wave_problem(5, 40);
  auto agents = make_agents(p.x0, p.c, 0.1f, {{0, 30}, {30, 10}});
  alg.start(agents);
  int partial = 0;
  for (int round = 0; round < 30; ++round) {
    run_round(alg, agents, nullptr, [&](const Message& m) {
      REQUIRE(parts_of(m));
      REQUIRE(m.size_bytes == floats_of(*parts_of(m), {{0, 30}, {30, 10}}) * 4 + 1);
      partial += parts_of(m)->size() == 1 ? 1 : 0;
      return true;
    });
    REQUIRE(copies_match_senders(alg, g));
  }
  CHECK(partial > 0);
}
