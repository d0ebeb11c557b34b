// SPARQ (DETSGRAD with a compression): how the sender keeps its public copy x^_i.
#include <doctest/doctest.h>

#include "algorithm_harness.hpp"
#include "graphs.hpp"
#include "sim/agents/detsgrad.hpp"

using namespace dlsim;
using namespace dlsim::testing;

TEST_CASE("SPARQ: x^_i made in the buffer of the one before is the sum of its q's, bit for bit") {
  // Every round is an event (threshold 0). From the third on, the sender makes x^_i in the
  // buffer of the x^_i before last, copying the entries the last q changed and adding the new
  // q; it must hold what adding every q to zero gives. A holder that misses a message keeps the
  // old buffer (the sender then copies x^_i whole) and makes a copy of its own from then on.
  for (const bool lossy : {false, true}) {
    CAPTURE(lossy);
    const topo::Graph g = ring_graph(3);
    DetsgradSpec spec;
    spec.alpha = {0.1, 0.0, 1.0};
    spec.beta = {0.2, 0.0, 1.0};
    TriggerSpec always;
    always.kind = TriggerKind::kThreshold;
    always.v0 = 0.0;
    always.decay = 0.0;
    CompressionSpec top;
    top.sparsifier = Sparsifier::kTopK;
    top.k = 4;
    Detsgrad alg(spec, always, Overlay(g), top);
    const WaveProblem p = wave_problem(3, 50);
    auto agents = make_agents(p.x0, p.c);
    alg.start(agents);
    std::vector<ParamVector> sums(3, ParamVector::Zero(50));
    for (int round = 0; round < 30; ++round) {
      std::vector<bool> added(3, false);
      run_round(alg, agents, nullptr, [&](const Message& m) {
        REQUIRE(delta_of(m));
        REQUIRE(delta_of(m)->indices.size() == 4);
        const uint32_t from = m.from.value;
        if (!added[from]) {  // one q per event, sent to both neighbours
          delta_of(m)->add_to(std::span<float>(sums[from].data(), 50));
          added[from] = true;
        }
        return !(lossy && from == 0 && m.to.value == 1 && round % 9 == 4);
      });
      for (uint32_t i = 0; i < 3; ++i) REQUIRE(same_bits(alg.public_copy(AgentId{i}), sums[i]));
      // Holders that missed nothing hold the sender's own x^_j.
      if (!lossy) REQUIRE(copies_match_senders(alg, g));
      // Two buffers per sender (x^_i and the one before, where the next is made). With losses
      // a holder that missed a message keeps an old one a while, and makes copies of its own.
      for (uint32_t i = 0; i < 3; ++i) CHECK(alg.snapshot_buffers(AgentId{i}) <= (lossy ? 4u : 2u));
    }
  }
}
