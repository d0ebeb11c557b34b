// D-PSGD with a robust aggregation rule in place of the weighted mean (sim/robust/; docs/
// algorithms.md, "Robust aggregation"): hand-derived values on a line, a missing copy counting as
// the agent's own model, both mixing orders.
#include <doctest/doctest.h>

#include <cmath>

#include "algorithm_harness.hpp"
#include "graphs.hpp"
#include "sim/agents/dpsgd.hpp"
#include "sim/core/error.hpp"

using namespace dlsim;
using namespace dlsim::testing;

namespace {

// Line 0 - 1 - 2, x = (0, 3, 9), f_i = 0.5 (x - c_i)^2 with c = (3, 0, 0), lr 0.1: the gradients
// are g = (-3, 3, 9) (as in mixing_order_test.cpp, whose mean gives 1.3, 3.7, 6.1).
std::vector<Agent> three_agents() {
  return make_agents({vec({0}), vec({3}), vec({9})}, {vec({3}), vec({0}), vec({0})}, 0.1f);
}

Dpsgd with_rule(const AggregationSpec& rule, MixingOrder order, int64_t iterations = 10) {
  return Dpsgd(Overlay(line_graph(3), topo::MixingRule::kMetropolisHastings), {}, order, rule,
               iterations);
}

AggregationSpec median() {
  AggregationSpec s;
  s.kind = AggregationKind::kMedian;
  return s;
}

}  // namespace

TEST_CASE("D-PSGD with the median mixes by the coordinate-wise median, then takes the step") {
  Dpsgd alg = with_rule(median(), MixingOrder::kCombineThenAdapt);
  auto agents = three_agents();
  alg.start(agents);
  CHECK(run_round(alg, agents) == 4);
  // Agent 0: median{0, 3} = 1.5, + 0.3 = 1.8. Agent 1: median{3, 0, 9} = 3, - 0.3 = 2.7.
  // Agent 2: median{9, 3} = 6, - 0.9 = 5.1.
  CHECK(agents[0].x[0] == doctest::Approx(1.8));
  CHECK(agents[1].x[0] == doctest::Approx(2.7));
  CHECK(agents[2].x[0] == doctest::Approx(5.1));
}

TEST_CASE("D-PSGD with a robust rule counts a copy not received as the agent's own model") {
  Dpsgd alg = with_rule(median(), MixingOrder::kCombineThenAdapt);
  auto agents = three_agents();
  alg.start(agents);
  const Delivery only_from_2 = [](const Message& m) { return m.from.value == 2; };
  run_round(alg, agents, nullptr, only_from_2);
  // Agent 0 heard nothing: median{0, 0} = 0, + 0.3. Agent 1 holds 9 and counts 0's copy as its
  // own 3: median{3, 3, 9} = 3, - 0.3. Agent 2 heard nothing: 9 - 0.9.
  CHECK(agents[0].x[0] == doctest::Approx(0.3));
  CHECK(agents[1].x[0] == doctest::Approx(2.7));
  CHECK(agents[2].x[0] == doctest::Approx(8.1));
}

TEST_CASE("Byzantine agents that craft their messages mix with the mean, honest ones by the rule") {
  // The trimmed mean (b = 1) needs 3 models: the ends of the line hold 2, so only with both
  // ends Byzantine (sign flip: they send -x) does the run start.
  AggregationSpec trimmed;
  trimmed.kind = AggregationKind::kTrimmedMean;
  trimmed.trim = 1;
  Dpsgd alg = with_rule(trimmed, MixingOrder::kCombineThenAdapt);
  ByzantineSpec ends;
  ends.agents = {0, 2};
  ends.attack.kind = AttackKind::kSignFlip;
  alg.set_byzantine(ends, 5);
  auto agents = three_agents();
  alg.start(agents);
  run_round(alg, agents);
  // Agent 0 mixes by the Metropolis mean, 2/3 * 0 + 1/3 * 3 = 1, + 0.3. Agent 1 trims
  // {3, -0, -9} to 0, - 0.3. Agent 2: 2/3 * 9 + 1/3 * 3 = 7, - 0.9.
  CHECK(agents[0].x[0] == doctest::Approx(1.3));
  CHECK(agents[1].x[0] == doctest::Approx(-0.3));
  CHECK(agents[2].x[0] == doctest::Approx(6.1));
}

TEST_CASE("Byzantine label flippers apply the robust rule like honest agents") {
  // The same line and rule as above, but label_flip crafts nothing: the ends mix by the rule
  // too, and their 2 models are too few for the trimmed mean.
  AggregationSpec trimmed;
  trimmed.kind = AggregationKind::kTrimmedMean;
  trimmed.trim = 1;
  ByzantineSpec ends;
  ends.agents = {0, 2};
  ends.attack.kind = AttackKind::kLabelFlip;
  CHECK_FALSE(ends.mixes_with_mean(0));
  Dpsgd alg = with_rule(trimmed, MixingOrder::kCombineThenAdapt);
  alg.set_byzantine(ends, 5);
  auto agents = three_agents();
  CHECK_THROWS_WITH_AS(alg.start(agents), doctest::Contains("trimmed_mean drops 2b = 2"),
                       InvariantError);
  ends.attack.kind = AttackKind::kSignFlip;
  CHECK(ends.mixes_with_mean(0));
  CHECK(ends.mixes_with_mean(2));
  CHECK_FALSE(ends.mixes_with_mean(1));
}

TEST_CASE("D-PSGD adapt-then-combine applies the robust rule to the stepped models") {
  Dpsgd alg = with_rule(median(), MixingOrder::kAdaptThenCombine);
  auto agents = three_agents();
  alg.start(agents);
  run_round(alg, agents);
  // psi = (0.3, 2.7, 8.1): agent 0 median{0.3, 2.7} = 1.5, agent 1 median{2.7, 0.3, 8.1} = 2.7,
  // agent 2 median{8.1, 2.7} = 5.4.
  CHECK(agents[0].x[0] == doctest::Approx(1.5));
  CHECK(agents[1].x[0] == doctest::Approx(2.7));
  CHECK(agents[2].x[0] == doctest::Approx(5.4));
}

TEST_CASE("D-PSGD's balance rule reads progress as iteration over the run's iterations") {
  // gamma 1, kappa ln 4, alpha 0.5: at t = 0 the radius is ||x_1|| = 3, so agent 1 accepts x_0
  // (distance 3) and rejects x_2 (distance 6); at t / T = 1/2 the radius is 3 / 2 and agent 1
  // rejects both.
  AggregationSpec b;
  b.kind = AggregationKind::kBalance;
  b.gamma = 1.0;
  b.kappa = 2.0 * std::log(2.0);
  b.alpha = 0.5;
  Dpsgd early = with_rule(b, MixingOrder::kCombineThenAdapt, 2);
  auto agents = three_agents();
  early.start(agents);
  run_round(early, agents);
  CHECK(agents[1].x[0] == doctest::Approx(0.5 * 3 + 0.5 * 0 - 0.3));
  Dpsgd late = with_rule(b, MixingOrder::kCombineThenAdapt, 2);
  auto later = three_agents();
  for (Agent& a : later) a.iteration = 1;
  late.start(later);
  run_round(late, later);
  CHECK(later[1].x[0] == doctest::Approx(3 - 0.3));
}
