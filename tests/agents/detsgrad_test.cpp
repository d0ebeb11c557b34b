#include "sim/agents/detsgrad.hpp"

#include <doctest/doctest.h>

#include <limits>

#include "algorithm_harness.hpp"
#include "detsgrad_steps.hpp"
#include "graphs.hpp"

using namespace dlsim;
using namespace dlsim::testing;

namespace {

TriggerSpec constant_threshold(double v0) {
  TriggerSpec t;
  t.kind = TriggerKind::kThreshold;
  t.v0 = v0;
  t.decay = 0.0;
  return t;
}

}  // namespace

TEST_CASE("DETSGRAD on two agents matches hand arithmetic over two iterations") {
  const topo::Graph g = line_graph(2);
  Detsgrad alg(constant_steps(), constant_threshold(0.5), Overlay(g));
  auto agents = make_agents({vec({1}), vec({3})}, {vec({0}), vec({0})});
  alg.start(agents);
  EventCounts events;

  // k = 0: both broadcast. x0 = 1 - 0.2*(1 - 3) - 0.1*1 = 1.3; x1 = 3 - 0.2*(3 - 1) - 0.1*3 = 2.3.
  CHECK(run_round(alg, agents, &events) == 2);
  CHECK(agents[0].x[0] == doctest::Approx(1.3));
  CHECK(agents[1].x[0] == doctest::Approx(2.3));

  // k = 1: drift 0.3 (agent 0) stays under 0.5, drift 0.7 (agent 1) fires and sends 2.3.
  // x0 = 1.3 - 0.2*(1 - 2.3) - 0.1*1.3 = 1.43; x1 = 2.3 - 0.2*(2.3 - 1) - 0.1*2.3 = 1.81.
  CHECK(run_round(alg, agents, &events) == 1);
  CHECK(alg.last_drift(AgentId{0}) == doctest::Approx(0.3));
  CHECK(alg.last_drift(AgentId{1}) == doctest::Approx(0.7));
  CHECK(agents[0].x[0] == doctest::Approx(1.43));
  CHECK(agents[1].x[0] == doctest::Approx(1.81));
  CHECK(events[0] == 1);
  CHECK(events[1] == 2);
}

TEST_CASE("DETSGRAD consensus on the state uses x_i instead of the broadcast copy") {
  const topo::Graph g = line_graph(2);
  DetsgradSpec spec = constant_steps();
  spec.consensus = ConsensusBase::kState;
  Detsgrad alg(spec, constant_threshold(0.5), Overlay(g));
  auto agents = make_agents({vec({1}), vec({3})}, {vec({0}), vec({0})});
  alg.start(agents);
  run_round(alg, agents);
  run_round(alg, agents);
  // k = 1: x0 = 1.3 - 0.2*(1.3 - 2.3) - 0.13 = 1.37; x1 = 2.3 - 0.2*(2.3 - 1) - 0.23 = 1.81.
  CHECK(agents[0].x[0] == doctest::Approx(1.37));
  CHECK(agents[1].x[0] == doctest::Approx(1.81));
}

TEST_CASE("DETSGRAD with v0 = 0 communicates every iteration, v0 = infinity never") {
  const topo::Graph g = line_graph(3);  // degrees 1, 2, 1: 4 messages per full round
  for (double v0 : {0.0, std::numeric_limits<double>::infinity()}) {
    Detsgrad alg(constant_steps(), constant_threshold(v0), Overlay(g));
    auto agents = make_agents({vec({1, 2}), vec({3, 4}), vec({5, 6})},
                              {vec({0, 0}), vec({1, 1}), vec({2, 2})});
    alg.start(agents);
    int messages = 0;
    for (int k = 0; k < 10; ++k) messages += run_round(alg, agents);
    CHECK(messages == (v0 == 0.0 ? 40 : 0));
    if (v0 != 0.0) {
      // No communication: each agent runs plain gradient descent, x <- x - 0.1 (x - c).
      CHECK(agents[2].x[0] == doctest::Approx(2 + 3 * std::pow(0.9, 10)));
    }
  }
}

TEST_CASE("DETSGRAD scales the gradient by s") {
  const topo::Graph g = line_graph(2);
  DetsgradSpec spec = constant_steps();
  spec.gradient_scale = 2.0;
  Detsgrad alg(spec, constant_threshold(std::numeric_limits<double>::infinity()), Overlay(g));
  auto agents = make_agents({vec({1}), vec({3})}, {vec({0}), vec({0})});
  alg.start(agents);
  run_round(alg, agents);
  CHECK(agents[0].x[0] == doctest::Approx(0.8));  // 1 - 0.1 * 2 * 1
}

namespace {

// DETSGRAD as docs/algorithms.md writes it, in double, one plain loop per rule: the reference the
// blocked, fused implementation must agree with.
struct NaiveDetsgrad {
  std::vector<std::vector<double>> x;     // x_i
  std::vector<std::vector<double>> own;   // x^_i, as agent i last broadcast it
  std::vector<std::vector<double>> held;  // held[j]: x^_j as j's neighbours hold it
  std::vector<std::vector<double>> c;     // quadratic targets
  int events = 0;

  double norm(const std::vector<double>& v, DriftNorm kind) const {
    double r = 0;
    for (double e : v)
      r = kind == DriftNorm::kL1     ? r + std::abs(e)
          : kind == DriftNorm::kLinf ? std::max(r, std::abs(e))
                                     : r + e * e;
    return kind == DriftNorm::kL2 ? std::sqrt(r) : r;
  }

  void round(int64_t k, const DetsgradSpec& s, const TriggerSpec& t, const topo::Graph& g) {
    const size_t n = x.size(), d = x[0].size();
    const double alpha = s.alpha.a / std::pow(s.alpha.eps * k + 1, s.alpha.d);
    const double beta = s.beta.a / std::pow(s.beta.eps * k + 1, s.beta.d);
    const double v = t.v0 / std::pow(t.eps * k + 1, t.decay);
    std::vector<std::vector<double>> grad(n, std::vector<double>(d));
    for (size_t i = 0; i < n; ++i) {
      std::vector<double> drift(d);
      for (size_t e = 0; e < d; ++e) {
        grad[i][e] = x[i][e] - c[i][e];
        drift[e] = x[i][e] - own[i][e];
      }
      if (k == 0 || norm(drift, t.norm) > v) {
        own[i] = x[i];
        held[i] = x[i];
        ++events;
      }
    }
    for (size_t i = 0; i < n; ++i)
      for (size_t e = 0; e < d; ++e) {
        double consensus = 0;
        for (uint32_t j : g.neighbors(static_cast<uint32_t>(i)))
          consensus +=
              (s.consensus == ConsensusBase::kBroadcast ? own[i][e] : x[i][e]) - held[j][e];
        x[i][e] -= beta * consensus + alpha * s.gradient_scale * grad[i][e];
      }
  }
};

}  // namespace

TEST_CASE(
    "DETSGRAD agrees with a naive reference: several blocks, both consensus forms, all norms") {
  const topo::Graph g = complete_graph(4);  // degree 3
  const Eigen::Index d = 5000;              // three 2048-float blocks, the last one partial
  for (ConsensusBase base : {ConsensusBase::kBroadcast, ConsensusBase::kState}) {
    for (DriftNorm kind : {DriftNorm::kL2, DriftNorm::kL1, DriftNorm::kLinf}) {
      CAPTURE(static_cast<int>(base));
      CAPTURE(static_cast<int>(kind));
      DetsgradSpec spec;
      spec.alpha = {0.05, 1.0, 0.01};
      spec.beta = {0.1, 0.1, 0.01};
      spec.consensus = base;
      TriggerSpec trigger;
      trigger.kind = TriggerKind::kThreshold;
      trigger.norm = kind;
      trigger.v0 = kind == DriftNorm::kL1 ? 60.0 : kind == DriftNorm::kL2 ? 1.2 : 0.05;
      trigger.decay = 0.2;
      trigger.eps = 0.05;
      const auto [x0, c] = wave_problem(4, d);
      NaiveDetsgrad ref;
      for (uint32_t i = 0; i < 4; ++i) {
        ref.x.emplace_back(x0[i].data(), x0[i].data() + d);
        ref.c.emplace_back(c[i].data(), c[i].data() + d);
      }
      ref.own = ref.held = std::vector<std::vector<double>>(4, std::vector<double>(d, 0.0));
      auto agents = make_agents(x0, c, 0.0f);
      Detsgrad alg(spec, trigger, Overlay(g));
      alg.start(agents);
      int sent = 0;
      for (int64_t k = 0; k < 12; ++k) {
        sent += run_round(alg, agents);
        ref.round(k, spec, trigger, g);
      }
      CHECK(sent == 3 * ref.events);  // each event: one message to each of 3 neighbours
      CHECK(ref.events > 4);          // more than the first broadcasts,
      CHECK(ref.events < 4 * 12);     // and fewer than every iteration
      double worst = 0;
      for (uint32_t i = 0; i < 4; ++i)
        for (Eigen::Index e = 0; e < d; ++e)
          worst = std::max(worst, std::abs(agents[i].x[e] - ref.x[i][static_cast<size_t>(e)]));
      CHECK(worst < 1e-4);
    }
  }
}

namespace {

CompressionSpec top_k_qsgd(uint64_t k, uint32_t levels) {
  CompressionSpec c;
  c.sparsifier = Sparsifier::kTopK;
  c.k = k;
  c.quantizer = Quantizer::kQsgd;
  c.levels = levels;
  return c;
}

TriggerSpec decaying_threshold(double v0) {
  TriggerSpec t;
  t.kind = TriggerKind::kThreshold;
  t.v0 = v0;
  t.decay = 0.5;
  t.eps = 0.01;
  return t;
}

}  // namespace

TEST_CASE(
    "SPARQ (DETSGRAD + top_k + qsgd): every holder's copy of x^_j is the sender's, bit for bit") {
  const topo::Graph g = ring_graph(5);
  Detsgrad alg(constant_steps(), decaying_threshold(4.0), Overlay(g), top_k_qsgd(4, 8));
  const WaveProblem p = wave_problem(5, 40);
  auto agents = make_agents(p.x0, p.c);
  alg.start(agents);
  int messages = 0;
  for (int round = 0; round < 40; ++round) {
    run_round(alg, agents, nullptr, [&](const Message& m) {
      REQUIRE(delta_of(m));
      // 4 indices of 32 bits (< a 40-bit mask? no: 128 > 40, so the mask) + 4 x (sign + 4 level
      // bits) + the norm: 40 + 20 + 32 = 92 bits = 12 bytes.
      REQUIRE(m.size_bytes == 12);
      REQUIRE(m.uncompressed_bytes == 40 * 4);
      ++messages;
      return true;
    });
    REQUIRE(copies_match_senders(alg, g));
  }
  CHECK(messages > 10);
  CHECK(messages < 40 * 10);  // the trigger skipped some iterations
}

TEST_CASE("SPARQ: after a lost message the holder adds each later q to its own copy") {
  const topo::Graph g = line_graph(2);
  // Fires always.
  Detsgrad alg(constant_steps(), decaying_threshold(0.0), Overlay(g), top_k_qsgd(3, 4));
  const WaveProblem p = wave_problem(2, 30);
  auto agents = make_agents(p.x0, p.c);
  alg.start(agents);
  ParamVector shadow = ParamVector::Zero(30);  // agent 1's copy of x^_0, kept by hand
  for (int round = 0; round < 12; ++round) {
    run_round(alg, agents, nullptr, [&](const Message& m) {
      if (m.from.value != 0) return true;
      if (round == 3) return false;  // lost
      delta_of(m)->add_to(std::span<float>(shadow.data(), 30));
      return true;
    });
    const ParamVector* held = alg.neighbour_copy(AgentId{1}, 0);
    REQUIRE(same_bits(held, shadow));
    // Before the loss it is agent 0's own x^_0; after it, not any more (a q is missing).
    CHECK(same_bits(alg.public_copy(AgentId{0}), shadow) == (round < 3));
  }
}

TEST_CASE("DETSGRAD with local_steps H decides and averages only every H iterations") {
  const topo::Graph g = line_graph(2);
  DetsgradSpec spec = constant_steps();
  spec.local_steps = 3;
  Detsgrad alg(spec, constant_threshold(0.0), Overlay(g));
  auto agents = make_agents({vec({1}), vec({3})}, {vec({0}), vec({0})});
  alg.start(agents);
  std::vector<int> sent;
  for (int round = 0; round < 3; ++round) sent.push_back(run_round(alg, agents));
  // k = 0 as in DETSGRAD: 1.3 and 2.3; k = 1, 2: local steps only, x <- x - 0.1 x.
  CHECK(agents[0].x[0] == doctest::Approx(1.3 * 0.9 * 0.9));
  CHECK(agents[1].x[0] == doctest::Approx(2.3 * 0.9 * 0.9));
  for (int round = 3; round < 7; ++round) sent.push_back(run_round(alg, agents));
  CHECK(sent == std::vector<int>{2, 0, 0, 2, 0, 0, 2});
}

TEST_CASE("SPARQ on quadratics: the average follows gradient descent and the agents agree") {
  // Copies agree, so the consensus term sums to zero over the agents and the average of x moves
  // by -alpha * (mean x - mean c): it converges whatever the compressor drops.
  const uint32_t n = 8;
  const Eigen::Index d = 100;
  const topo::Graph g = ring_graph(n);
  const WaveProblem p = wave_problem(n, d);
  ParamVector optimum = ParamVector::Zero(d);
  for (const ParamVector& c : p.c) optimum += c / static_cast<float>(n);
  auto agents = make_agents(p.x0, p.c);
  Detsgrad alg(constant_steps(), decaying_threshold(4.0), Overlay(g), top_k_qsgd(10, 16));
  alg.start(agents);
  auto average_distance = [&] {
    ParamVector mean = ParamVector::Zero(d);
    for (const Agent& a : agents) mean += a.x / static_cast<float>(n);
    return static_cast<double>((mean - optimum).norm());
  };
  auto worst_distance = [&] {
    double worst = 0.0;
    for (const Agent& a : agents)
      worst = std::max(worst, static_cast<double>((a.x - optimum).norm()));
    return worst;
  };
  const double start = average_distance();
  const double worst_start = worst_distance();
  for (int round = 0; round < 300; ++round) run_round(alg, agents);
  MESSAGE("average: " << average_distance() / start
                      << ", worst agent: " << worst_distance() / worst_start << " of the start");
  CHECK(average_distance() < 1e-3 * start);
  CHECK(worst_distance() < 0.5 * worst_start);
}
