#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "algorithm_harness.hpp"
#include "graphs.hpp"
#include "sim/agents/dpsgd.hpp"
#include "sim/agents/overlay.hpp"

using namespace dlsim;
using namespace dlsim::testing;

namespace {

topo::DynamicSpec dynamic(topo::DynamicKind kind, uint32_t s = 0) {
  topo::DynamicSpec spec;
  spec.kind = kind;
  spec.s = s;
  return spec;
}

Overlay overlay_of(const topo::DynamicSpec& spec, uint32_t n, std::vector<topo::Graph> graphs = {},
                   uint64_t seed = 7) {
  return Overlay(spec, std::move(graphs), n, topo::MixingRule::kMetropolisHastings, seed);
}

// Largest |x_i - mean| over agents and coordinates.
double spread(const std::vector<Agent>& agents, const ParamVector& mean) {
  double worst = 0;
  for (const Agent& a : agents) worst = std::max(worst, double((a.x - mean).cwiseAbs().maxCoeff()));
  return worst;
}

// Every source list is the transpose of the target lists, ascending, without self-loops.
void check_consistent(const Overlay& o) {
  const uint32_t n = o.node_count();
  for (uint32_t i = 0; i < n; ++i) {
    CHECK(std::is_sorted(o.sources(i).begin(), o.sources(i).end()));
    CHECK(std::is_sorted(o.targets(i).begin(), o.targets(i).end()));
    double sum = o.self_weight(i);
    for (double w : o.weights(i)) sum += w;
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-12));
    for (uint32_t t : o.targets(i)) {
      CHECK(t != i);
      const auto in = o.sources(t);
      CHECK(std::find(in.begin(), in.end(), i) != in.end());
    }
    for (uint32_t j : o.sources(i)) {
      const auto out = o.targets(j);
      CHECK(std::find(out.begin(), out.end(), i) != out.end());
    }
  }
}

}  // namespace

TEST_CASE("one-peer exponential: D-PSGD with zero steps holds the exact average after log2 n "
          "iterations, not before") {
  for (uint32_t n : {8u, 16u}) {
    const auto tau = static_cast<int>(std::log2(n));
    std::vector<ParamVector> x0, c;
    RandomStream draws(n, "x0", 0);
    for (uint32_t i = 0; i < n; ++i) {
      ParamVector x(3);
      for (int k = 0; k < 3; ++k) x[k] = static_cast<float>(draws.uniform(-1, 1));
      x0.push_back(x);
      c.push_back(ParamVector::Zero(3));
    }
    ParamVector mean = ParamVector::Zero(3);
    for (const ParamVector& x : x0) mean += x / static_cast<float>(n);
    auto agents = make_agents(x0, c, 0.0f);  // lr 0: only the mixing moves x
    Dpsgd alg(overlay_of(dynamic(topo::DynamicKind::kOnePeerExponential), n), {});
    alg.start(agents);
    for (int k = 0; k < tau - 1; ++k) CHECK(run_round(alg, agents) == static_cast<int>(n));
    CAPTURE(n);
    CHECK(spread(agents, mean) > 1e-2);  // one iteration short: not yet
    run_round(alg, agents);
    CHECK(spread(agents, mean) < 1e-6);
  }
}

TEST_CASE("one-peer exponential: agent i sends to i + 2^(k mod ceil(log2 n)) mod n") {
  Overlay o = overlay_of(dynamic(topo::DynamicKind::kOnePeerExponential), 6);  // period 3
  for (int64_t k : {0, 1, 2, 3, 7}) {
    o.begin_round(k, SimTime{});
    const uint32_t hop = 1u << (k % 3);
    for (uint32_t i = 0; i < 6; ++i) {
      REQUIRE(o.targets(i).size() == 1);
      CHECK(o.targets(i)[0] == (i + hop) % 6);
      CHECK(o.sources(i)[0] == (i + 6 - hop) % 6);
      CHECK(o.weights(i)[0] == 0.5);
      CHECK(o.self_weight(i) == 0.5);
    }
  }
}

TEST_CASE("random_matching is a maximal matching every iteration, over all pairs or a base "
          "graph") {
  for (uint32_t n : {8u, 9u}) {
    Overlay o = overlay_of(dynamic(topo::DynamicKind::kRandomMatching), n);
    for (int64_t k = 0; k < 200; ++k) {
      o.begin_round(k, SimTime{});
      uint32_t unmatched = 0;
      for (uint32_t i = 0; i < n; ++i) {
        REQUIRE(o.targets(i).size() <= 1);
        if (o.targets(i).empty()) {
          ++unmatched;
          CHECK(o.self_weight(i) == 1.0);
          continue;
        }
        const uint32_t j = o.targets(i)[0];
        REQUIRE(o.targets(j).size() == 1);
        CHECK(o.targets(j)[0] == i);  // partners pick each other
        CHECK(o.weights(i)[0] == 0.5);
      }
      CHECK(unmatched == n % 2);  // perfect for even n, one left out for odd n
    }
  }
  const topo::Graph ring = ring_graph(7);
  Overlay o = overlay_of(dynamic(topo::DynamicKind::kRandomMatching), 7, {ring});
  std::vector<int> times_matched(ring.edges().size(), 0);
  for (int64_t k = 0; k < 200; ++k) {
    o.begin_round(k, SimTime{});
    check_consistent(o);
    for (size_t k_edge = 0; k_edge < ring.edges().size(); ++k_edge) {
      const topo::Edge& e = ring.edges()[k_edge];  // maximal: no base edge with both ends free
      CHECK((!o.targets(e.u).empty() || !o.targets(e.v).empty()));
      if (!o.targets(e.u).empty() && o.targets(e.u)[0] == e.v) ++times_matched[k_edge];
    }
    for (uint32_t i = 0; i < 7; ++i)
      if (!o.targets(i).empty()) CHECK(ring.has_edge(i, o.targets(i)[0]));
  }
  for (int m : times_matched) CHECK(m > 0);  // every edge of the ring gets its turn
}

TEST_CASE("epidemic: s distinct targets drawn uniformly (chi-square), receivers average "
          "uniformly") {
  constexpr uint32_t kN = 10, kS = 3;
  constexpr int kRounds = 30000;
  Overlay o = overlay_of(dynamic(topo::DynamicKind::kEpidemic, kS), kN);
  std::vector<double> chosen(kN, 0.0);  // agent 4's picks
  for (int k = 0; k < kRounds; ++k) {
    o.begin_round(k, SimTime{});
    if (k < 50) check_consistent(o);
    const auto t = o.targets(4);
    REQUIRE(t.size() == kS);
    CHECK(std::adjacent_find(t.begin(), t.end()) == t.end());  // distinct (and ascending)
    for (uint32_t j : t) chosen[j] += 1;
    if (k < 50)
      for (uint32_t i = 0; i < kN; ++i)
        CHECK(o.self_weight(i) == 1.0 / (1.0 + o.sources(i).size()));
  }
  CHECK(chosen[4] == 0);
  const double expected = kRounds * kS / double(kN - 1);
  double chi2 = 0;
  for (uint32_t j = 0; j < kN; ++j)
    if (j != 4) chi2 += (chosen[j] - expected) * (chosen[j] - expected) / expected;
  CHECK(chi2 < 26.12);  // 8 degrees of freedom, p = 0.001
}

TEST_CASE("epidemic D-PSGD: an agent averages its model and every model it received") {
  std::vector<ParamVector> x0, c;
  for (uint32_t i = 0; i < 5; ++i) {
    x0.push_back(vec({static_cast<float>(i * i)}));
    c.push_back(vec({0}));
  }
  auto agents = make_agents(x0, c, 0.0f);
  Overlay reference = overlay_of(dynamic(topo::DynamicKind::kEpidemic, 2), 5);
  reference.begin_round(0, SimTime{});  // the same seed draws the same graph
  Dpsgd alg(overlay_of(dynamic(topo::DynamicKind::kEpidemic, 2), 5), {});
  alg.start(agents);
  CHECK(run_round(alg, agents) == 10);
  for (uint32_t i = 0; i < 5; ++i) {
    double sum = x0[i][0];
    for (uint32_t j : reference.sources(i)) sum += x0[j][0];
    CAPTURE(i);
    CHECK(agents[i].x[0] == doctest::Approx(sum / (1.0 + reference.sources(i).size())));
  }
}

TEST_CASE("sequence: each graph takes over every `every` iterations, cycling, or at its time") {
  topo::DynamicSpec spec = dynamic(topo::DynamicKind::kSequence);
  spec.every = 2;
  Overlay o = overlay_of(spec, 4, {ring_graph(4), star_graph(4)});
  const auto degree0 = [&] { return o.targets(0).size(); };
  CHECK(o.begin_round(0, SimTime{}));
  CHECK(degree0() == 2);  // the ring
  CHECK(!o.begin_round(1, SimTime{}));
  CHECK(o.begin_round(2, SimTime{}));
  CHECK(degree0() == 3);  // the star's hub
  CHECK(o.begin_round(4, SimTime{}));
  CHECK(degree0() == 2);
  spec.every = 0;
  spec.at = {SimTime{}, SimTime::from_ms(5)};
  Overlay timed = overlay_of(spec, 4, {ring_graph(4), star_graph(4)});
  timed.begin_round(0, SimTime::from_ms(4));
  CHECK(timed.targets(0).size() == 2);
  timed.begin_round(1, SimTime::from_ms(5));
  CHECK(timed.targets(0).size() == 3);
  timed.begin_round(2, SimTime::from_ms(500));
  CHECK(timed.targets(0).size() == 3);  // the last one stays
}

TEST_CASE("a sequence of identical graphs switching every iteration gives the static graph's "
          "D-PSGD bit for bit") {
  const WaveProblem p = wave_problem(6, 40);
  auto fixed = make_agents(p.x0, p.c, 0.1f), switching = make_agents(p.x0, p.c, 0.1f);
  Dpsgd static_ring(Overlay(ring_graph(6), topo::MixingRule::kMetropolisHastings), {});
  topo::DynamicSpec spec = dynamic(topo::DynamicKind::kSequence);
  spec.every = 1;
  Dpsgd dynamic_ring(overlay_of(spec, 6, {ring_graph(6), ring_graph(6)}), {});
  static_ring.start(fixed);
  dynamic_ring.start(switching);
  for (int k = 0; k < 20; ++k) {
    CHECK(run_round(static_ring, fixed) == run_round(dynamic_ring, switching));
    CHECK(dynamic_ring.overlay().generation() == static_cast<uint64_t>(k + 1));  // redrawn
  }
  for (size_t i = 0; i < fixed.size(); ++i) CHECK(same_bits(&switching[i].x, fixed[i].x));
}
