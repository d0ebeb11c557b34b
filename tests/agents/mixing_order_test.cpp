// D-PSGD and Gossiping SGD in both orders (MixingOrder): combine-then-adapt x <- W x - step(g(x)) and
// adapt-then-combine x <- W (x - step(g(x))), on hand-made vectors with values derived by hand,
// and both converging to the optimum of a quadratic.
#include <doctest/doctest.h>

#include <cmath>

#include "algorithm_harness.hpp"
#include "graphs.hpp"
#include "sim/agents/dpsgd.hpp"
#include "sim/agents/gossip.hpp"

using namespace dlsim;
using namespace dlsim::testing;

namespace {

// Line 0 - 1 - 2 (degrees 1, 2, 1): Metropolis W_ij = 1/3 on each edge, W_00 = W_22 = 2/3,
// W_11 = 1/3. x = (0, 3, 9), f_i = 0.5 (x - c_i)^2 with c = (3, 0, 0), lr 0.1.
std::vector<Agent> three_agents() {
  return make_agents({vec({0}), vec({3}), vec({9})}, {vec({3}), vec({0}), vec({0})}, 0.1f);
}

}  // namespace

TEST_CASE("D-PSGD combine-then-adapt mixes the sent models, then subtracts the gradient taken "
          "before mixing") {
  Dpsgd alg(Overlay(line_graph(3), topo::MixingRule::kMetropolisHastings), {},
            MixingOrder::kCombineThenAdapt);
  auto agents = three_agents();
  alg.start(agents);
  CHECK(run_round(alg, agents) == 4);
  // g = x - c = (-3, 3, 9). x0 = 2/3*0 + 1/3*3 + 0.3 = 1.3; x1 = (0 + 3 + 9)/3 - 0.3 = 3.7;
  // x2 = 2/3*9 + 1/3*3 - 0.9 = 6.1.
  CHECK(agents[0].x[0] == doctest::Approx(1.3));
  CHECK(agents[1].x[0] == doctest::Approx(3.7));
  CHECK(agents[2].x[0] == doctest::Approx(6.1));
}

TEST_CASE("D-PSGD adapt-then-combine sends the stepped models and mixes them") {
  Dpsgd alg(Overlay(line_graph(3), topo::MixingRule::kMetropolisHastings), {},
            MixingOrder::kAdaptThenCombine);
  auto agents = three_agents();
  alg.start(agents);
  std::vector<float> carried(3, -1.0f);
  const Delivery record = [&](const Message& m) {
    carried[m.from.value] = (*m.params)[0];
    return true;
  };
  CHECK(run_round(alg, agents, nullptr, record) == 4);
  // psi = x - 0.1 (x - c) = (0.3, 2.7, 8.1) is what travels.
  CHECK(carried[0] == doctest::Approx(0.3));
  CHECK(carried[1] == doctest::Approx(2.7));
  CHECK(carried[2] == doctest::Approx(8.1));
  // x0 = 2/3*0.3 + 1/3*2.7 = 1.1; x1 = (0.3 + 2.7 + 8.1)/3 = 3.7; x2 = 2/3*8.1 + 1/3*2.7 = 6.3.
  CHECK(agents[0].x[0] == doctest::Approx(1.1));
  CHECK(agents[1].x[0] == doctest::Approx(3.7));
  CHECK(agents[2].x[0] == doctest::Approx(6.3));
}

TEST_CASE("D-PSGD adapt-then-combine: a copy that never arrived counts as the stepped own model") {
  Dpsgd alg(Overlay(line_graph(3), topo::MixingRule::kMetropolisHastings), {},
            MixingOrder::kAdaptThenCombine);
  auto agents = three_agents();
  alg.start(agents);
  run_round(alg, agents, nullptr, [](const Message& m) { return m.from.value != 2; });
  // Agent 1 misses 2's 8.1 and uses its own 2.7: (0.3 + 2.7 + 2.7)/3 = 1.9. Agent 2 got 2.7.
  CHECK(agents[0].x[0] == doctest::Approx(1.1));
  CHECK(agents[1].x[0] == doctest::Approx(1.9));
  CHECK(agents[2].x[0] == doctest::Approx(6.3));
}

TEST_CASE("naive compressed D-PSGD adapt-then-combine compresses the stepped model, then mixes") {
  CompressionSpec top1;
  top1.sparsifier = Sparsifier::kTopK;
  top1.k = 1;
  Dpsgd alg(Overlay(line_graph(2), topo::MixingRule::kMetropolisHastings), top1,
            MixingOrder::kAdaptThenCombine);
  auto agents = make_agents({vec({1, 0}), vec({4, 2})}, {vec({0, 0}), vec({0, 0})}, 0.5f);
  alg.start(agents);
  run_round(alg, agents);
  // psi = x / 2 = (0.5, 0) and (2, 1); top-1 sends (0.5, 0) and (2, 0); W = 1/2 everywhere:
  // x0 = (0.5 + 2, 0 + 0) / 2 = (1.25, 0); x1 = (2 + 0.5, 1 + 0) / 2 = (1.25, 0.5).
  CHECK(agents[0].x[0] == doctest::Approx(1.25));
  CHECK(agents[0].x[1] == doctest::Approx(0.0));
  CHECK(agents[1].x[0] == doctest::Approx(1.25));
  CHECK(agents[1].x[1] == doctest::Approx(0.5));
}

TEST_CASE("D-PSGD in both orders converges to the optimum of a sum of quadratics on a ring") {
  // f = sum_i 0.5 ||x - c_i||^2 has its optimum at mean(c); a step decaying as 1/k removes the
  // heterogeneity bias of a constant step, in both orders.
  const uint32_t n = 6;
  const WaveProblem p = wave_problem(n, 5);
  ParamVector optimum = ParamVector::Zero(5);
  for (const ParamVector& c : p.c) optimum += c / static_cast<float>(n);
  for (MixingOrder order : {MixingOrder::kCombineThenAdapt, MixingOrder::kAdaptThenCombine}) {
    CAPTURE(static_cast<int>(order));
    Dpsgd alg(Overlay(ring_graph(n), topo::MixingRule::kMetropolisHastings), {}, order);
    std::vector<Agent> agents;
    for (uint32_t i = 0; i < n; ++i)
      agents.emplace_back(AgentId{i}, 1, std::make_unique<QuadraticLearner>(p.c[i], 0.5f, 20.0),
                          p.x0[i]);
    alg.start(agents);
    double early = 0.0, late = 0.0;
    for (int k = 0; k < 4000; ++k) {
      run_round(alg, agents);
      if (k == 399 || k == 3999) {
        double worst = 0.0;
        for (const Agent& a : agents) worst = std::max(worst, double((a.x - optimum).norm()));
        (k == 399 ? early : late) = worst;
      }
    }
    CHECK(late < 0.02);
    CHECK(late < early / 4);
  }
}

TEST_CASE("Gossiping SGD adapt-then-combine averages the stepped models, pull and push") {
  // Two agents, both gossip every iteration: pull takes the peer's reply, push mixes with
  // push-sum weights 1/2 + 1/2. x = (0, 4), c = (2, 0), lr 0.5: psi = x - 0.5 (x - c) = (1, 2).
  const topo::Graph pair = line_graph(2);
  for (GossipMode mode : {GossipMode::kPull, GossipMode::kPush}) {
    CAPTURE(static_cast<int>(mode));
    TriggerSpec every;
    every.kind = TriggerKind::kAlways;
    GossipSgd atc(mode, every, Overlay(pair), {}, MixingOrder::kAdaptThenCombine);
    auto agents = make_agents({vec({0}), vec({4})}, {vec({2}), vec({0})}, 0.5f);
    atc.start(agents);
    run_round(atc, agents);
    // Both: (1 + 2) / 2 = 1.5.
    CHECK(agents[0].x[0] == doctest::Approx(1.5));
    CHECK(agents[1].x[0] == doctest::Approx(1.5));
    GossipSgd cta(mode, every, Overlay(pair), {}, MixingOrder::kCombineThenAdapt);
    agents = make_agents({vec({0}), vec({4})}, {vec({2}), vec({0})}, 0.5f);
    cta.start(agents);
    run_round(cta, agents);
    // (0 + 4) / 2 = 2, then minus 0.5 g(x_k): 2 + 1 = 3 and 2 - 2 = 0.
    CHECK(agents[0].x[0] == doctest::Approx(3.0));
    CHECK(agents[1].x[0] == doctest::Approx(0.0));
  }
}
