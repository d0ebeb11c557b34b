// Gossiping SGD and Elastic Gossip on dynamic overlays: the peer is drawn among the round's
// targets, and a sequence of identical graphs gives the static run bit for bit.
#include <doctest/doctest.h>

#include <memory>

#include "algorithm_harness.hpp"
#include "graphs.hpp"
#include "sim/agents/elastic_gossip.hpp"
#include "sim/agents/gossip.hpp"

using namespace dlsim;
using namespace dlsim::testing;

namespace {

TriggerSpec probability(double p) {
  TriggerSpec t;
  t.kind = TriggerKind::kProbability;
  t.probability = p;
  return t;
}

Overlay one_peer(uint32_t n) {
  topo::DynamicSpec spec;
  spec.kind = topo::DynamicKind::kOnePeerExponential;
  return Overlay(spec, {}, n, topo::MixingRule::kMetropolisHastings, 7);
}

Overlay sequence_of(std::vector<topo::Graph> graphs) {
  topo::DynamicSpec spec;
  spec.kind = topo::DynamicKind::kSequence;
  spec.every = 1;
  const auto n = graphs.front().node_count();
  return Overlay(spec, std::move(graphs), n, topo::MixingRule::kMetropolisHastings, 7);
}

enum class Kind { kPull, kPush, kElastic };

std::unique_ptr<Algorithm> make(Kind kind, const TriggerSpec& t, Overlay overlay) {
  if (kind == Kind::kElastic)
    return std::make_unique<ElasticGossip>(0.5, t, std::move(overlay), TimeMode::kSync,
                                           CompressionSpec{});
  return std::make_unique<GossipSgd>(kind == Kind::kPull ? GossipMode::kPull : GossipMode::kPush, t,
                                     std::move(overlay), CompressionSpec{});
}

std::unique_ptr<Algorithm> make(Kind kind, const TriggerSpec& t, const topo::Graph& g) {
  return make(kind, t, Overlay(g));
}

}  // namespace

TEST_CASE(
    "dynamic gossip on one_peer_exponential: every initiator picks exactly the round's "
    "target") {
  for (Kind kind : {Kind::kPull, Kind::kPush, Kind::kElastic}) {
    CAPTURE(static_cast<int>(kind));
    auto alg = make(kind, TriggerSpec{}, one_peer(8));  // always
    std::vector<ParamVector> x0, c;
    for (int i = 0; i < 8; ++i) {
      x0.push_back(vec({static_cast<float>(i)}));
      c.push_back(vec({0}));
    }
    auto agents = make_agents(x0, c);
    alg->start(agents);
    for (int64_t k = 0; k < 6; ++k) {
      int initiated = 0;
      const auto record = [&](const Message& m) {
        // The initiator's message: pull request, pushed model, or elastic's first kParams.
        const bool first = m.kind == MessageKind::kPullRequest || (m.kind == MessageKind::kParams);
        if (first) {
          ++initiated;
          CHECK(m.to.value == topo::one_peer_target(8, k, m.from.value));
        }
        return true;
      };
      run_round(*alg, agents, nullptr, record);
      CHECK(initiated == 8);
    }
  }
}

TEST_CASE(
    "dynamic gossip: a sequence of identical graphs switching every iteration gives the "
    "static graph's run bit for bit") {
  const WaveProblem p = wave_problem(6, 40);
  for (Kind kind : {Kind::kPull, Kind::kPush, Kind::kElastic}) {
    CAPTURE(static_cast<int>(kind));
    const topo::Graph ring = ring_graph(6);
    auto fixed = make(kind, probability(0.5), ring);
    auto switching = make(kind, probability(0.5), sequence_of({ring_graph(6), ring_graph(6)}));
    auto a = make_agents(p.x0, p.c), b = make_agents(p.x0, p.c);
    fixed->start(a);
    switching->start(b);
    EventCounts events_a, events_b;
    for (int k = 0; k < 20; ++k)
      CHECK(run_round(*fixed, a, &events_a) == run_round(*switching, b, &events_b));
    CHECK(events_a == events_b);
    for (size_t i = 0; i < a.size(); ++i) CHECK(same_bits(&b[i].x, a[i].x));
  }
}

TEST_CASE("dynamic gossip: an agent a matching leaves out does not gossip that round") {
  // 3 agents, all pairs: every round one is unmatched and initiates nothing, even if it fires.
  topo::DynamicSpec spec;
  spec.kind = topo::DynamicKind::kRandomMatching;
  GossipSgd alg(GossipMode::kPush, TriggerSpec{},
                Overlay(spec, {}, 3, topo::MixingRule::kMetropolisHastings, 7), CompressionSpec{});
  auto agents = make_agents({vec({0}), vec({3}), vec({6})}, {vec({0}), vec({0}), vec({0})});
  alg.start(agents);
  EventCounts events;
  for (int k = 0; k < 5; ++k) CHECK(run_round(alg, agents, &events) == 2);  // the pair pushes
  events.resize(3, 0);
  CHECK(events[0] + events[1] + events[2] == 10);
}
