// Graph metrics against closed forms: the ring's spectral gap, diameters, components, limits.
#include "topologies/metrics.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

#include "topologies/generators.hpp"

using namespace dlsim;
using namespace dlsim::topo;

namespace {

Graph make(TopologyKind kind, uint32_t n) {
  TopologySpec s;
  s.kind = kind;
  s.n = n;
  return build_topology(s, 1);
}

}  // namespace

TEST_CASE("the ring's spectral gap is 1 - (1/3 + 2/3 cos(2 pi / n))") {
  // Metropolis weights on a ring are 1/3 each; W's eigenvalues are 1/3 + 2/3 cos(2 pi k / n),
  // and for n >= 5 the second largest modulus is k = 1.
  for (uint32_t n : {5u, 16u, 40u}) {
    const double lambda2 = 1.0 / 3 + 2.0 / 3 * std::cos(2 * std::numbers::pi / n);
    const MixingWeights w(make(TopologyKind::kRing, n), MixingRule::kMetropolisHastings);
    CHECK(spectral_gap(w) == doctest::Approx(1 - lambda2).epsilon(1e-12));
  }
}

TEST_CASE("a complete graph mixes in one step: spectral gap 1") {
  const MixingWeights w(make(TopologyKind::kComplete, 8), MixingRule::kMetropolisHastings);
  CHECK(spectral_gap(w) == doctest::Approx(1.0));
}

TEST_CASE("components and diameter of a disconnected graph") {
  const Graph g(6, {Edge{0, 1, {}, 1}, Edge{3, 2, {}, 1}});
  CHECK(count_components(g) == 4);  // {0,1} {2,3} {4} {5}
  CHECK_FALSE(diameter(g).has_value());
  const GraphMetrics m = compute_metrics(g);
  CHECK(m.components == 4);
  CHECK_FALSE(m.diameter.has_value());
}

TEST_CASE("metrics summarise degrees, links and the 4 x 4 torus spectrum") {
  TopologySpec s;
  s.kind = TopologyKind::kTorus;
  s.rows = s.cols = 4;
  s.overrides = {EdgeOverride{0, 1, SimTime::from_ms(7), 5000}};
  const GraphMetrics m = compute_metrics(build_topology(s, 1));
  CHECK(m.nodes == 16);
  CHECK(m.edges == 32);
  CHECK(m.degree_min == 4);
  CHECK(m.degree_max == 4);
  CHECK(m.degree_mean == 4.0);
  CHECK(m.diameter == 4);
  // W = (I + A) / 5; eigenvalues (1 + 2 cos(pi a / 2) + 2 cos(pi b / 2)) / 5: 3/5 and -3/5.
  REQUIRE(m.spectral_gap.has_value());
  CHECK(*m.spectral_gap == doctest::Approx(0.4));
  CHECK(m.latency_min == kDefaultLatency);
  CHECK(m.latency_max == SimTime::from_ms(7));
  CHECK(m.bandwidth_min_bps == 5000);
  CHECK(m.bandwidth_max_bps == kDefaultBandwidthBps);
}

TEST_CASE("costly metrics are skipped above their node limits") {
  const GraphMetrics mid = compute_metrics(make(TopologyKind::kRing, kMaxSpectralNodes + 1));
  CHECK_FALSE(mid.spectral_gap.has_value());
  CHECK(mid.diameter == (kMaxSpectralNodes + 1) / 2);
  const GraphMetrics big = compute_metrics(make(TopologyKind::kRing, kMaxDiameterNodes + 1));
  CHECK_FALSE(big.diameter.has_value());
  CHECK(big.components == 1);
}
