// The attack vectors on hand-made models, against values derived by hand in the comments
// (docs/algorithms.md, "Attacks").
#include "sim/robust/attacks.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <span>
#include <vector>

#include "robust_fixture.hpp"
#include "sim/core/error.hpp"
#include "sim/core/random.hpp"
#include "sim/robust/aggregation_rule.hpp"

using namespace dlsim;

namespace {
std::vector<std::span<const float>> views(const std::vector<std::vector<float>>& models) {
  return {models.begin(), models.end()};
}
}  // namespace

TEST_CASE("alie sends the honest mean minus z sample standard deviations") {
  // Honest [1, 1], [3, 1], [5, 1]: mean [3, 1]; first coordinate deviations -2, 0, 2, sample
  // variance 8 / 2 = 4, sigma 2; second sigma 0. z = 1.5: [3 - 3, 1] = [0, 1].
  const std::vector<std::vector<float>> honest{{1, 1}, {3, 1}, {5, 1}};
  std::vector<float> out(2);
  alie(views(honest), 1.5, out);
  CHECK(out == std::vector<float>{0, 1});
  // A single honest model has no spread: the mean itself.
  alie(views({{4, -2}}), 1.5, out);
  CHECK(out == std::vector<float>{4, -2});
}

TEST_CASE("alie's z comes from n and f as in Baruch et al.") {
  // n = 20, f = 4: s = floor(20/2 + 1) - 4 = 7, z = Phi^-1((20 - 4 - 7) / 16) = Phi^-1(0.5625)
  // = 0.1573106846 (Python's statistics.NormalDist().inv_cdf).
  CHECK(alie_z(20, 4).value() == doctest::Approx(0.15731068461017067).epsilon(1e-12));
  // n = 10, f = 2: s = 4, Phi^-1(4 / 8) = 0. n = 4, f = 0: s = 3, Phi^-1(1 / 4) = -0.6745.
  CHECK(std::abs(alie_z(10, 2).value()) < 1e-12);
  CHECK(alie_z(4, 0).value() == doctest::Approx(-0.6744897501960817).epsilon(1e-12));
  CHECK(inverse_normal_cdf(0.975) == doctest::Approx(1.9599639845400536).epsilon(1e-12));
  // He et al.'s 16 agents with 11 attackers: s = -2, the probability 7/5 is no probability.
  CHECK_FALSE(alie_z(16, 11).has_value());
  CHECK_FALSE(alie_z(3, 3).has_value());
}

TEST_CASE("ipm sends minus epsilon times the honest mean") {
  // Mean of [1, 0], [3, 0], [5, 6] is [3, 2]; epsilon 0.5: [-1.5, -1].
  const std::vector<std::vector<float>> honest{{1, 0}, {3, 0}, {5, 6}};
  std::vector<float> out(2);
  ipm(views(honest), 0.5, out);
  CHECK(out == std::vector<float>{-1.5f, -1.0f});
}

TEST_CASE("sign_flip sends minus the attacker's model") {
  const std::vector<float> own{1, -2, 0.5f};
  std::vector<float> out(3);
  sign_flip(own, out);
  CHECK(out == std::vector<float>{-1, 2, -0.5f});
}

TEST_CASE("gaussian adds sigma times one normal draw per coordinate of the given stream") {
  const std::vector<float> own{1, -2, 0.5f};
  std::vector<float> out(3);
  RandomStream random(7, "byzantine", 3), same(7, "byzantine", 3);
  gaussian(own, 0.0, random, out);
  CHECK(out == own);  // sigma 0 still draws, leaving the model as it is
  for (int e = 0; e < 3; ++e) same.normal();
  gaussian(own, 2.0, random, out);
  for (size_t e = 0; e < 3; ++e)
    CHECK(out[e] == static_cast<float>(static_cast<double>(own[e]) + 2.0 * same.normal()));
  CHECK(out != own);
}

TEST_CASE("dissensus cancels epsilon times the target's honest pull") {
  // Target [1, 1]; honest neighbours [3, 1] and [1, 5], W 0.25 each; two attackers, W 0.25
  // each (0.5 together). Pull: 0.25 [2, 0] + 0.25 [0, 4] = [0.5, 1]; epsilon 1:
  // [1, 1] - [0.5, 1] / 0.5 = [0, -1].
  const std::vector<float> target{1, 1};
  const std::vector<std::vector<float>> honest{{3, 1}, {1, 5}};
  const std::vector<double> w{0.25, 0.25};
  std::vector<float> out(2);
  dissensus(target, views(honest), w, 0.5, 1.0, out);
  CHECK(out == std::vector<float>{0, -1});
  // With both attackers sending it, the target's gossip step (W_tt = 0) leaves it where it was:
  // 0.25 [3, 1] + 0.25 [1, 5] + 0.5 [0, -1] = [1, 1].
  dlsim::testing::Hood h(target, {honest[0], honest[1], out, out}, 0.0, {0.25, 0.25, 0.25, 0.25});
  mean_rule(h.in(), h.out, h.ws);
  CHECK(h.out == target);
  CHECK_THROWS_AS(dissensus(target, views(honest), w, 0.0, 1.0, out), InvariantError);
}
