// Robust mixing allocates nothing per update once started: D-PSGD and EventGraD with a robust
// rule, DETSGRAD with a robust consensus term. The only file of test_agents that counts allocations
// (malloc_count.hpp wraps malloc for the whole executable).
#include <doctest/doctest.h>

#include "../malloc_count.hpp"
#include "../skip.hpp"
#include "algorithm_harness.hpp"
#include "detsgrad_steps.hpp"
#include "graphs.hpp"
#include "sim/agents/detsgrad.hpp"
#include "sim/agents/dpsgd.hpp"
#include "sim/agents/eventgrad.hpp"

using namespace dlsim;
using namespace dlsim::testing;

TEST_CASE("D-PSGD with a robust rule allocates nothing per update once started") {
  if (!kCountsMalloc) {
    skip_test("the sanitizer owns malloc");
    return;
  }
  for (AggregationKind kind : {AggregationKind::kTrimmedMean, AggregationKind::kClippedGossip,
                               AggregationKind::kGeometricMedian, AggregationKind::kKrum}) {
    CAPTURE(to_string(kind));
    AggregationSpec rule;
    rule.kind = kind;
    rule.byzantine = 0;  // Krum on a ring: 3 models, 2f + 3 = 3
    rule.radius = ClipRadius::kAdaptive;
    const WaveProblem p = wave_problem(6, 100);
    auto agents = make_agents(p.x0, p.c);
    Dpsgd alg(Overlay(ring_graph(6), topo::MixingRule::kMetropolisHastings), {},
              MixingOrder::kCombineThenAdapt, rule, 10);
    alg.start(agents);
    run_round(alg, agents);  // every copy held
    for (Agent& a : agents) a.learner->gradient(a.x, a.g);
    CHECK(allocations_during([&] {
            for (Agent& a : agents) alg.update(a);
          }) == 0);
  }
}

TEST_CASE("robust DETSGRAD allocates nothing per update once started") {
  if (!kCountsMalloc) {
    skip_test("the sanitizer owns malloc");
    return;
  }
  for (AggregationKind kind : {AggregationKind::kTrimmedMean, AggregationKind::kClippedGossip,
                               AggregationKind::kMedian, AggregationKind::kGeometricMedian}) {
    CAPTURE(to_string(kind));
    AggregationSpec r;
    r.kind = kind;
    r.radius = ClipRadius::kAdaptive;
    const WaveProblem p = wave_problem(6, 100);
    auto agents = make_agents(p.x0, p.c);
    TriggerSpec first_only;  // everyone fires at its first iteration, then never
    first_only.kind = TriggerKind::kThreshold;
    first_only.v0 = 1e9;
    first_only.decay = 0.0;
    Detsgrad alg(constant_steps(), first_only, Overlay(ring_graph(6)));
    alg.set_aggregation(r, 10);
    alg.start(agents);
    run_round(alg, agents);  // every copy held
    for (Agent& a : agents) a.learner->gradient(a.x, a.g);
    CHECK(allocations_during([&] {
            for (Agent& a : agents) alg.update(a);
          }) == 0);
  }
}

TEST_CASE("EventGraD with a robust rule allocates nothing per update once started") {
  if (!kCountsMalloc) {
    skip_test("the sanitizer owns malloc");
    return;
  }
  AggregationSpec median;
  median.kind = AggregationKind::kMedian;
  const WaveProblem p = wave_problem(6, 100);
  auto agents = make_agents(p.x0, p.c, 0.1f, {{0, 40}, {40, 60}});
  Eventgrad alg(Overlay(ring_graph(6)), per_tensor_threshold(0.0));
  alg.set_aggregation(median, 10);
  alg.start(agents);
  run_round(alg, agents);  // every copy held
  for (Agent& a : agents) a.learner->gradient(a.x, a.g);
  CHECK(allocations_during([&] {
          for (Agent& a : agents) alg.update(a);
        }) == 0);
}
