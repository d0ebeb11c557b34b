// Mixing weights: the rules on graphs whose weights are known by hand, and the
// symmetry and double stochasticity every rule promises.
#include "topologies/mixing.hpp"

#include <doctest/doctest.h>

#include "sim/core/error.hpp"
#include "topologies/generators.hpp"

using namespace dlsim;
using namespace dlsim::topo;

namespace {

Graph make(TopologyKind kind, uint32_t n) {
  TopologySpec s;
  s.kind = kind;
  s.n = n;
  s.m = 2;
  return build_topology(s, 3);
}

void check_doubly_stochastic(const MixingWeights& w) {
  const Eigen::MatrixXd m = dense_matrix(w);
  CHECK((m - m.transpose()).cwiseAbs().maxCoeff() == 0.0);
  CHECK((m.rowwise().sum().array() - 1.0).abs().maxCoeff() < 1e-12);
  CHECK((m.colwise().sum().array() - 1.0).abs().maxCoeff() < 1e-12);
  CHECK(m.minCoeff() >= 0.0);
}

}  // namespace

TEST_CASE("Metropolis-Hastings weights on a star are 1/(1 + hub degree)") {
  const MixingWeights w(make(TopologyKind::kStar, 5), MixingRule::kMetropolisHastings);
  CHECK(w.weight(0, 3) == doctest::Approx(0.2));
  CHECK(w.weight(3, 0) == doctest::Approx(0.2));
  CHECK(w.self_weight(0) == doctest::Approx(0.2));
  CHECK(w.self_weight(3) == doctest::Approx(0.8));
  CHECK(w.weight(1, 2) == 0.0);
}

TEST_CASE("Metropolis-Hastings weights are symmetric and doubly stochastic") {
  check_doubly_stochastic(
      MixingWeights(make(TopologyKind::kBarabasiAlbert, 40), MixingRule::kMetropolisHastings));
  check_doubly_stochastic(
      MixingWeights(make(TopologyKind::kLine, 7), MixingRule::kMetropolisHastings));
}

TEST_CASE("max-degree weights use the largest degree everywhere") {
  const MixingWeights w(make(TopologyKind::kLine, 4), MixingRule::kMaxDegree);
  CHECK(w.weight(0, 1) == doctest::Approx(1.0 / 3));
  CHECK(w.self_weight(0) == doctest::Approx(2.0 / 3));
  CHECK(w.self_weight(1) == doctest::Approx(1.0 / 3));
  check_doubly_stochastic(w);
}

TEST_CASE("uniform weights are 1/(deg + 1) on a regular graph and refused otherwise") {
  const MixingWeights w(make(TopologyKind::kRing, 6), MixingRule::kUniform);
  CHECK(w.weight(2, 3) == doctest::Approx(1.0 / 3));
  CHECK(w.self_weight(2) == doctest::Approx(1.0 / 3));
  check_doubly_stochastic(w);
  CHECK_THROWS_WITH_AS(MixingWeights(make(TopologyKind::kLine, 6), MixingRule::kUniform),
                       doctest::Contains("need a regular graph"), InputError);
}

TEST_CASE("sparse rows list neighbours ascending, parallel to their weights") {
  const MixingWeights w(make(TopologyKind::kStar, 4), MixingRule::kMetropolisHastings);
  const auto nb = w.neighbors(0);
  REQUIRE(nb.size() == 3);
  CHECK(nb[0] == 1);
  CHECK(nb[1] == 2);
  CHECK(nb[2] == 3);
  CHECK(w.weights(0).size() == 3);
  CHECK(w.weights(0)[1] == doctest::Approx(0.25));
}

TEST_CASE("mixing rules have names") {
  CHECK(mixing_rule_from_string("max_degree") == MixingRule::kMaxDegree);
  CHECK(to_string(MixingRule::kMetropolisHastings) == "metropolis_hastings");
  CHECK_FALSE(mixing_rule_from_string("metropolis").has_value());
}

TEST_CASE("lazy Metropolis-Hastings weights are He et al.'s normalised ones on their malicious ring") {
  // 5 honest agents on a ring; agent i also has neighbours i + 5 and i + 10, agent 0 a third, 15
  // (their mr5,1,0). Their run's log prints row 0 as 6/11 on the diagonal and 1/11 for each of
  // its 5 neighbours, row 1 as 1/11 (to 0), 32/55 (self) and 6/55 (to 2, 6 and 11).
  std::vector<Edge> edges;
  for (uint32_t i = 0; i < 5; ++i) {
    edges.push_back(Edge{i, (i + 1) % 5, {}, 1});
    edges.push_back(Edge{i, i + 5, {}, 1});
    edges.push_back(Edge{i, i + 10, {}, 1});
  }
  edges.push_back(Edge{0, 15, {}, 1});
  const Graph g(16, edges);
  const MixingWeights w(g, MixingRule::kLazyMetropolisHastings);
  CHECK(w.self_weight(0) == doctest::Approx(6.0 / 11));
  for (uint32_t j : {1u, 4u, 5u, 10u, 15u}) CHECK(w.weight(0, j) == doctest::Approx(1.0 / 11));
  CHECK(w.self_weight(1) == doctest::Approx(32.0 / 55));
  CHECK(w.weight(1, 0) == doctest::Approx(1.0 / 11));
  for (uint32_t j : {2u, 6u, 11u}) CHECK(w.weight(1, j) == doctest::Approx(6.0 / 55));
  const Eigen::MatrixXd d = dense_matrix(w);
  CHECK((d - d.transpose()).cwiseAbs().maxCoeff() < 1e-15);
  CHECK((d.rowwise().sum().array() - 1.0).abs().maxCoeff() < 1e-12);
  CHECK(mixing_rule_from_string("lazy_metropolis_hastings") == MixingRule::kLazyMetropolisHastings);
}
