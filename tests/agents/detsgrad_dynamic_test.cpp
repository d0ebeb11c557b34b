// DETSGRAD on dynamic overlays: forced sends on new edges, copies dropped with their edges, and
// a sequence of identical graphs giving the static run bit for bit.
#include <doctest/doctest.h>

#include "algorithm_harness.hpp"
#include "graphs.hpp"
#include "sim/agents/detsgrad.hpp"

using namespace dlsim;
using namespace dlsim::testing;

namespace {

// Consensus only (alpha = 0), beta = 0.2 constant.
DetsgradSpec consensus_only() {
  DetsgradSpec s;
  s.alpha = {0.0, 0.0, 1.0};
  s.beta = {0.2, 0.0, 1.0};
  return s;
}

TriggerSpec threshold(double v0, double decay) {
  TriggerSpec t;
  t.kind = TriggerKind::kThreshold;
  t.v0 = v0;
  t.decay = decay;
  return t;
}

Overlay sequence_of(std::vector<topo::Graph> graphs, int64_t every) {
  topo::DynamicSpec spec;
  spec.kind = topo::DynamicKind::kSequence;
  spec.every = every;
  const auto n = graphs.front().node_count();
  return Overlay(spec, std::move(graphs), n, topo::MixingRule::kMetropolisHastings, 7);
}

}  // namespace

TEST_CASE(
    "dynamic DETSGRAD: a new edge gets the sender's current model (a message, not an "
    "event), and a copy is dropped with its edge") {
  // Line 0-1-2-3 for rounds 0-1, the ring (adds 0-3) for rounds 2-3, the line again, ...
  // v0 = 1e30: only round 0's first broadcasts fire (the drift is infinite before them).
  Detsgrad alg(consensus_only(), threshold(1e30, 0.0),
               sequence_of({line_graph(4), ring_graph(4)}, 2));
  auto agents = make_agents({vec({0}), vec({4}), vec({8}), vec({12})},
                            {vec({0}), vec({0}), vec({0}), vec({0})});
  alg.start(agents);
  EventCounts events;
  // Round 0: every agent broadcasts along the line (6 messages). x^ = (0, 4, 8, 12):
  // x0 = 0 - 0.2 (0 - 4) = 0.8, x3 = 12 - 0.2 (12 - 8) = 11.2, x1 and x2 stay.
  CHECK(run_round(alg, agents, &events) == 6);
  CHECK(events == EventCounts{1, 1, 1, 1});
  // Round 1: the same graph, no event, the same consensus term: x0 = 1.6, x3 = 10.4.
  CHECK(run_round(alg, agents, &events) == 0);
  CHECK(agents[0].x[0] == doctest::Approx(1.6));
  CHECK(agents[3].x[0] == doctest::Approx(10.4));
  const ParamVector x3 = agents[3].x;
  // Round 2: the ring's new edge 0-3 carries one forced send each way, no event.
  // x0 = 1.6 - 0.2 (2 * 0 - 4 - 10.4) = 4.48 (its own term reads x^_0 = 0).
  CHECK(run_round(alg, agents, &events) == 2);
  CHECK(events == EventCounts{1, 1, 1, 1});
  CHECK(same_bits(alg.neighbour_copy(AgentId{0}, 1), x3));   // sources of 0: {1, 3}
  CHECK(alg.public_copy(AgentId{3})->coeffRef(0) == 12.0f);  // the drift reference stays
  CHECK(agents[0].x[0] == doctest::Approx(4.48));
  // Round 3: the ring again, nothing new. x0 = 4.48 + 2.88 = 7.36.
  CHECK(run_round(alg, agents, &events) == 0);
  CHECK(agents[0].x[0] == doctest::Approx(7.36));
  // Round 4: the line; edge 0-3 is gone and so is 0's copy of 3: x0 = 7.36 + 0.8 = 8.16.
  CHECK(run_round(alg, agents, &events) == 0);
  CHECK(agents[0].x[0] == doctest::Approx(8.16));
  CHECK(run_round(alg, agents, &events) == 0);
  // Round 6: the ring: 0-3 is new again.
  CHECK(run_round(alg, agents, &events) == 2);
  CHECK(events == EventCounts{1, 1, 1, 1});
}

TEST_CASE(
    "dynamic DETSGRAD: a sequence of identical graphs switching every iteration gives the "
    "static graph's run bit for bit") {
  const WaveProblem p = wave_problem(6, 5000);  // several blocks of the update pass
  DetsgradSpec spec;
  spec.alpha = {0.05, 0.5, 1.0};
  spec.beta = {0.2, 0.1, 1.0};
  for (ConsensusBase base : {ConsensusBase::kBroadcast, ConsensusBase::kState}) {
    CAPTURE(static_cast<int>(base));
    spec.consensus = base;
    const topo::Graph ring = ring_graph(6);
    Detsgrad fixed(spec, threshold(2.0, 0.3), Overlay(ring));
    Detsgrad switching(spec, threshold(2.0, 0.3), sequence_of({ring_graph(6), ring_graph(6)}, 1));
    auto a = make_agents(p.x0, p.c), b = make_agents(p.x0, p.c);
    fixed.start(a);
    switching.start(b);
    EventCounts events_a, events_b;
    int messages = 0;
    for (int k = 0; k < 30; ++k) {
      const int sent = run_round(fixed, a, &events_a);
      CHECK(sent == run_round(switching, b, &events_b));
      messages += sent;
    }
    CHECK(events_a == events_b);
    CHECK(messages > 12);  // events beyond round 0's: the comparison covers held copies
    CHECK(messages < 30 * 12);
    for (size_t i = 0; i < a.size(); ++i) CHECK(same_bits(&b[i].x, a[i].x));
  }
}

TEST_CASE(
    "dynamic DETSGRAD on one-peer exponential: every round's edge is new, so every agent "
    "sends every round") {
  topo::DynamicSpec spec;
  spec.kind = topo::DynamicKind::kOnePeerExponential;
  Detsgrad alg(consensus_only(), threshold(1e30, 0.0),
               Overlay(spec, {}, 8, topo::MixingRule::kMetropolisHastings, 7));
  std::vector<ParamVector> x0, c;
  for (int i = 0; i < 8; ++i) {
    x0.push_back(vec({static_cast<float>(i)}));
    c.push_back(vec({0}));
  }
  auto agents = make_agents(x0, c);
  alg.start(agents);
  EventCounts events;
  // Periods of 3 rounds: each round's target differs from the previous one's.
  for (int k = 0; k < 6; ++k) CHECK(run_round(alg, agents, &events) == 8);
  CHECK(events == EventCounts(8, 1));  // round 0's broadcasts only; the rest are forced
}
