// CHOCO-SGD on dynamic overlays: a new edge carries the sender's whole public copy, copies
// leave with their edges, holders stay equal to senders bit for bit, and a sequence of identical
// graphs gives the static run bit for bit.
#include <doctest/doctest.h>

#include <cstring>

#include "algorithm_harness.hpp"
#include "graphs.hpp"
#include "sim/agents/choco.hpp"

using namespace dlsim;
using namespace dlsim::testing;

namespace {

CompressionSpec top_k_qsgd(uint64_t k) {
  CompressionSpec c;
  c.sparsifier = Sparsifier::kTopK;
  c.k = k;
  c.quantizer = Quantizer::kQsgd;  // random rounding: copies must still agree exactly
  c.levels = 4;
  return c;
}

Overlay sequence_of(std::vector<topo::Graph> graphs, int64_t every) {
  topo::DynamicSpec spec;
  spec.kind = topo::DynamicKind::kSequence;
  spec.every = every;
  const auto n = graphs.front().node_count();
  return Overlay(spec, std::move(graphs), n, topo::MixingRule::kMetropolisHastings, 7);
}

// Every holder's copy of each of its sources (g's neighbours, ascending) is that source's x^_j.
bool copies_agree(const Choco& alg, const topo::Graph& g) {
  for (uint32_t i = 0; i < g.node_count(); ++i) {
    const auto sources = g.neighbors(i);
    for (size_t n = 0; n < sources.size(); ++n) {
      const ParamVector& own = alg.public_copy(AgentId{sources[n]});
      if (!alg.holds_copy(AgentId{i}, n) ||
          std::memcmp(alg.neighbour_copy(AgentId{i}, n).data(), own.data(),
                      sizeof(float) * static_cast<size_t>(own.size())) != 0)
        return false;
    }
  }
  return true;
}

}  // namespace

TEST_CASE(
    "dynamic CHOCO: a new edge carries the sender's whole x^_j instead of q_j, and holders "
    "equal senders bit for bit") {
  // Line 0-1-2-3 for rounds 0-1, the ring (adds 0-3) for rounds 2-3, and so on.
  Choco alg(sequence_of({line_graph(4), ring_graph(4)}, 2), 0.3, TriggerSpec{}, top_k_qsgd(3));
  const WaveProblem p = wave_problem(4, 20);
  auto agents = make_agents(p.x0, p.c);
  alg.start(agents);
  const topo::Graph line = line_graph(4), ring = ring_graph(4);
  int whole = 0, compressed = 0;
  const auto count = [&](const Message& m) {
    ++(delta_of(m) ? compressed : whole);
    if (!delta_of(m)) CHECK(m.size_bytes >= 20 * sizeof(float));  // uncompressed
    return true;
  };
  EventCounts events;
  const auto round = [&] {
    whole = compressed = 0;
    return run_round(alg, agents, &events, count);
  };
  CHECK(round() == 6);  // round 0: every edge is new, but every x^_j is still 0: q's only
  CHECK(compressed == 6);
  CHECK(events == EventCounts{1, 1, 1, 1});
  CHECK(copies_agree(alg, line));
  CHECK(round() == 6);  // round 1: q's along the line
  CHECK(compressed == 6);
  CHECK(copies_agree(alg, line));
  CHECK(round() == 8);  // round 2: the ring; 0-3 is new: whole copies both ways, q elsewhere
  CHECK(whole == 2);
  CHECK(compressed == 6);
  CHECK(copies_agree(alg, ring));
  CHECK(round() == 8);
  CHECK(whole == 0);
  CHECK(copies_agree(alg, ring));
  CHECK(round() == 6);  // the line: 0 and 3 drop their copies of each other
  CHECK(copies_agree(alg, line));
  round();
  CHECK(round() == 8);  // the ring: 0-3 is new again
  CHECK(whole == 2);
  CHECK(copies_agree(alg, ring));
  CHECK(events == EventCounts(4, 7));
}

TEST_CASE(
    "dynamic CHOCO: a sequence of identical graphs switching every iteration gives the "
    "static graph's run bit for bit") {
  const WaveProblem p = wave_problem(6, 50);
  TriggerSpec threshold;
  threshold.kind = TriggerKind::kThreshold;
  threshold.v0 = 0.5;
  const topo::Graph g = ring_graph(6);
  Choco fixed(Overlay(g), 0.3, threshold, top_k_qsgd(5));
  Choco switching(sequence_of({ring_graph(6), ring_graph(6)}, 1), 0.3, threshold, top_k_qsgd(5));
  auto a = make_agents(p.x0, p.c), b = make_agents(p.x0, p.c);
  fixed.start(a);
  switching.start(b);
  // Round 0's edges are all new, but every x^_j is still 0: new copies start at 0 and take q_j,
  // as on the static graph.
  EventCounts events_a, events_b;
  for (int k = 0; k < 25; ++k) {
    const int sent_a = run_round(fixed, a, &events_a);
    const int sent_b = run_round(switching, b, &events_b);
    CHECK(sent_a == sent_b);
  }
  CHECK(events_a == events_b);
  for (size_t i = 0; i < a.size(); ++i) CHECK(same_bits(&b[i].x, a[i].x));
}
