// Byzantine D-PSGD senders (sim/agents/byzantine.hpp): what each honest target receives, per
// attack and knowledge, on a ring of four quadratic agents with agent 1 Byzantine. Each check
// recomputes the attack (sim/robust/attacks.hpp) on the vectors the attacker should read, so a
// wrong choice of vectors fails.
#include <doctest/doctest.h>

#include "algorithm_harness.hpp"
#include "graphs.hpp"
#include "models/model.hpp"
#include "sim/agents/dpsgd.hpp"
#include "sim/agents/model_learner.hpp"
#include "sim/robust/attacks.hpp"

using namespace dlsim;
using namespace dlsim::testing;

namespace {

constexpr uint64_t kSeed = 5;

std::span<const float> view(const ParamVector& x) {
  return {x.data(), static_cast<size_t>(x.size())};
}

ByzantineSpec attack_by(std::vector<uint32_t> byzantine, AttackKind kind,
                        AttackKnowledge knowledge = AttackKnowledge::kReceived) {
  ByzantineSpec b;
  b.agents = std::move(byzantine);
  b.attack.kind = kind;
  b.attack.knowledge = knowledge;
  b.attack.z = 1.5;
  b.attack.epsilon = kind == AttackKind::kIpm ? 0.1 : 1.0;
  b.attack.sigma = 0.5;
  return b;
}

// A ring of 4 (Metropolis: every weight 1/3), 2 parameters, learning rate 0 (models move by
// mixing only).
struct Ring {
  explicit Ring(const ByzantineSpec& spec)
      : alg(Overlay(ring_graph(4), topo::MixingRule::kMetropolisHastings), {}),
        agents(make_agents({vec({0, 1}), vec({5, 5}), vec({2, -1}), vec({4, 3})},
                           {vec({0, 0}), vec({0, 0}), vec({0, 0}), vec({0, 0})}, 0.0f)) {
    alg.set_byzantine(spec, kSeed);
    alg.start(agents);
  }
  // The messages of one round's sends (no delivery, no update), by (from, to).
  std::vector<Message> sends() {
    QueueOutbox out;
    for (Agent& a : agents) {
      alg.prepare(a);
      a.loss = a.learner->gradient(a.x, a.g);
    }
    for (Agent& a : agents) alg.communicate(a, out);
    return {out.queue.begin(), out.queue.end()};
  }
  Dpsgd alg;
  std::vector<Agent> agents;
};

const ParamVector& received(const std::vector<Message>& sent, uint32_t from, uint32_t to) {
  for (const Message& m : sent)
    if (m.from.value == from && m.to.value == to) return *m.params;
  FAIL("no message from " << from << " to " << to);
  static const ParamVector kNone;
  return kNone;
}

ParamVector alie_of(std::vector<ParamVector> honest, double z) {
  std::vector<std::span<const float>> views;
  for (const ParamVector& h : honest) views.push_back(view(h));
  ParamVector out(2);
  alie(views, z, {out.data(), 2});
  return out;
}

}  // namespace

TEST_CASE("omniscient ALIE and IPM read the target and its honest neighbours") {
  for (AttackKind kind : {AttackKind::kAlie, AttackKind::kIpm}) {
    Ring r(attack_by({1}, kind, AttackKnowledge::kOmniscient));
    const std::vector<Message> sent = r.sends();
    CHECK(sent.size() == 8);
    // Target 0's honest neighbourhood: 0 itself and 3; target 2's: 2 and 3.
    for (const auto& [t, other] : {std::pair{0u, 3u}, std::pair{2u, 3u}}) {
      const std::vector<std::span<const float>> h{view(r.agents[t].x), view(r.agents[other].x)};
      ParamVector expected(2);
      if (kind == AttackKind::kAlie)
        alie(h, 1.5, {expected.data(), 2});
      else
        ipm(h, 0.1, {expected.data(), 2});
      CHECK(received(sent, 1, t) == expected);
    }
    CHECK(received(sent, 0, 3) == r.agents[0].x);  // honest agents send their models
  }
}

TEST_CASE("received ALIE reads the attacker's own model and the copies it holds") {
  Ring r(attack_by({1}, AttackKind::kAlie));
  const std::vector<ParamVector> before{r.agents[0].x, r.agents[1].x, r.agents[2].x};
  // Round 0: nothing has arrived yet, so the attacker knows only its own model (sigma 0).
  const std::vector<Message> first = r.sends();
  CHECK(received(first, 1, 0) == r.agents[1].x);
  CHECK(received(first, 1, 2) == alie_of({r.agents[1].x}, 1.5));
  run_round(r.alg, r.agents);  // the same round again, delivered
  // Round 1: its own current model and the round-0 copies of 0 and 2.
  const std::vector<Message> second = r.sends();
  const ParamVector expected = alie_of({r.agents[1].x, before[0], before[2]}, 1.5);
  CHECK(received(second, 1, 0) == expected);
  CHECK(received(second, 1, 2) == expected);
  CHECK(expected != r.agents[1].x);
}

TEST_CASE("sign flip sends -x_b, and a fellow attacker gets the attacker's own model") {
  Ring r(attack_by({1, 2}, AttackKind::kSignFlip));
  const std::vector<Message> sent = r.sends();
  CHECK(received(sent, 1, 0) == vec({-5, -5}));
  CHECK(received(sent, 1, 2) == vec({5, 5}));
  CHECK(received(sent, 2, 3) == vec({-2, 1}));
  CHECK(received(sent, 2, 1) == vec({2, -1}));
}

TEST_CASE("gaussian draws from the attacker's (seed, byzantine attack, agent) stream, per target") {
  Ring r(attack_by({1}, AttackKind::kGaussian));
  const std::vector<Message> sent = r.sends();
  RandomStream random(kSeed, "byzantine attack", 1);
  ParamVector to0(2), to2(2);
  gaussian(view(r.agents[1].x), 0.5, random, {to0.data(), 2});  // target 0 is sent first
  gaussian(view(r.agents[1].x), 0.5, random, {to2.data(), 2});
  CHECK(received(sent, 1, 0) == to0);
  CHECK(received(sent, 1, 2) == to2);
  CHECK(to0 != to2);
}

TEST_CASE("omniscient dissensus with epsilon 1 holds its target still under gossip") {
  // Target 0 mixes 1/3 x0 + 1/3 c1 + 1/3 x3 with c1 = x0 - (1/3)(x3 - x0) / (1/3) = 2 x0 - x3:
  // x0 again. Agent 2 likewise.
  Ring r(attack_by({1}, AttackKind::kDissensus, AttackKnowledge::kOmniscient));
  const ParamVector x0 = r.agents[0].x, x2 = r.agents[2].x, x3 = r.agents[3].x;
  CHECK(run_round(r.alg, r.agents) == 8);
  CHECK(r.agents[0].x[0] == doctest::Approx(x0[0]));
  CHECK(r.agents[0].x[1] == doctest::Approx(x0[1]));
  CHECK(r.agents[2].x[0] == doctest::Approx(x2[0]));
  CHECK(r.agents[2].x[1] == doctest::Approx(x2[1]));
  // Agent 3 has no Byzantine neighbour: (x0 + x2 + x3) / 3.
  CHECK(r.agents[3].x[0] == doctest::Approx((x0[0] + x2[0] + x3[0]) / 3));
}

TEST_CASE("received dissensus uses the attacker's copy of its target") {
  // Agent 1 does not hear 0's other neighbour (3): it pushes with x_t alone, its round-0 copy.
  Ring r(attack_by({1}, AttackKind::kDissensus));
  const ParamVector x0 = r.agents[0].x;
  CHECK(received(r.sends(), 1, 0) == r.agents[1].x);  // nothing held yet: its own model
  run_round(r.alg, r.agents);
  CHECK(received(r.sends(), 1, 0) == x0);
}

TEST_CASE("placement by count is distinct, sorted and fixed by the seed") {
  const std::vector<uint32_t> a = place_byzantine(3, 20, 5);
  CHECK(a == place_byzantine(3, 20, 5));
  CHECK(a != place_byzantine(4, 20, 5));
  REQUIRE(a.size() == 5);
  for (size_t k = 1; k < a.size(); ++k) CHECK(a[k - 1] < a[k]);
  CHECK(a.back() < 20);
}

TEST_CASE("label_flip trains on 9 - y, and only the learner told to") {
  // Five samples whose one feature is their index, labels 0, 3, 9, 4, 7; a batch of the whole
  // shard (shuffled), so each column says which sample it is.
  auto train = std::make_shared<models::Dataset>();
  train->features.resize(1, 5);
  train->features << 0, 1, 2, 3, 4;
  train->labels = {0, 3, 9, 4, 7};
  const auto learner = [&](bool flip) {
    RandomStream rng(1, "target", 0);
    models::MlpSpec mlp;
    mlp.hidden = {2};
    models::ModelSpec spec;
    spec.arch = mlp;
    models::Model model = models::Model::build(spec, models::InputShape{1, 1, 1, 10}, rng);
    auto l = std::make_unique<ModelLearner>(std::move(model), models::OptimizerSpec{}, train,
                                            std::vector<uint32_t>{0, 1, 2, 3, 4}, 5, 1, AgentId{0});
    if (flip) l->flip_labels();
    return l;
  };
  for (bool flip : {false, true}) {
    auto l = learner(flip);
    CHECK(l->flips_labels() == flip);
    ParamVector x = ParamVector::Zero(l->model().parameter_count()), g = x;
    for (int round = 0; round < 2; ++round) {  // the flip is not undone by a second batch
      l->gradient(x, g);
      const models::Batch& b = l->batch();
      REQUIRE(b.size() == 5);
      for (Eigen::Index s = 0; s < 5; ++s) {
        const auto sample = static_cast<size_t>(b.features()(0, s));
        const uint8_t y = train->labels[sample];
        CHECK(b.labels()[static_cast<size_t>(s)] == (flip ? 9 - y : y));
      }
    }
  }
}
