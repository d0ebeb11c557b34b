// Each robust rule on small hand-made neighbourhoods, against values derived by hand in the
// comments (docs/algorithms.md, "Robust aggregation").
#include "sim/robust/aggregation_rule.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "robust_fixture.hpp"
#include "sim/core/error.hpp"
#include "sim/core/random.hpp"

using namespace dlsim;
using dlsim::testing::Hood;

TEST_CASE("mean is the gossip step W_ii x_i + sum_j W_ij x_j") {
  // 0.5 [1, 2] + 0.25 [3, 6] + 0.25 [5, -2] = [0.5 + 0.75 + 1.25, 1 + 1.5 - 0.5] = [2.5, 2]
  Hood h({1, 2}, {{3, 6}, {5, -2}}, 0.5, {0.25, 0.25});
  mean_rule(h.in(), h.out, h.ws);
  CHECK(h.out == std::vector<float>{2.5f, 2.0f});
}

TEST_CASE("clipped_gossip clips each difference x_j - x_i to length tau") {
  // x_i = [2, 2], W_ii = 0.5, W = 0.25 each, tau = 5. x_a - x_i = [6, 8] (length 10) clips to
  // [3, 4]; x_b - x_i = [1, 0] (length 1) stays. [2, 2] + 0.25 [3, 4] + 0.25 [1, 0] = [3, 3]
  // (unclipped it would be [3.75, 4]).
  Hood h({2, 2}, {{8, 10}, {3, 2}}, 0.5, {0.25, 0.25});
  clipped_gossip(h.in(), ClipRadius::kFixed, 5.0, h.out, h.ws);
  CHECK(h.out == std::vector<float>{3.0f, 3.0f});
}

TEST_CASE("adaptive clipped_gossip takes the second largest distance as tau") {
  // x_i = 0; distances 5 ([3, 4]), 1 ([0, 1]) and 10 ([6, 8]): tau = 5, so only [6, 8] is
  // clipped, to [3, 4]. 0.25 ([3, 4] + [0, 1] + [3, 4]) = [1.5, 2.25].
  Hood h({0, 0}, {{3, 4}, {0, 1}, {6, 8}}, 0.25, {0.25, 0.25, 0.25});
  CHECK(adaptive_clip_radius(h.in(), h.ws) == 5.0);
  clipped_gossip(h.in(), ClipRadius::kAdaptive, 0.0, h.out, h.ws);
  CHECK(h.out == std::vector<float>{1.5f, 2.25f});
  // A single neighbour: tau is its own distance, nothing is clipped: 0.5 [0, 0] + 0.5 [6, 8].
  Hood one({0, 0}, {{6, 8}}, 0.5, {0.5});
  CHECK(adaptive_clip_radius(one.in(), one.ws) == 10.0);
  clipped_gossip(one.in(), ClipRadius::kAdaptive, 0.0, one.out, one.ws);
  CHECK(one.out == std::vector<float>{3.0f, 4.0f});
}

TEST_CASE("clipped_gossip with a huge tau and no attacker equals mean bit for bit") {
  // Random models and uneven weights: any other way of summing would differ in the last bits.
  RandomStream rng(11, "robust-test", 0);
  auto draw = [&] {
    std::vector<float> v(1000);
    for (float& x : v) x = static_cast<float>(rng.normal(0.0, 3.0));
    return v;
  };
  Hood h(draw(), {draw(), draw(), draw(), draw()}, 0.1, {0.3, 0.2, 0.25, 0.15});
  std::vector<float> mean(h.out.size());
  mean_rule(h.in(), mean, h.ws);
  clipped_gossip(h.in(), ClipRadius::kFixed, 1e30, h.out, h.ws);
  CHECK(std::memcmp(h.out.data(), mean.data(), mean.size() * sizeof(float)) == 0);
  // And a tau that clips does change it (the check above is not vacuous).
  clipped_gossip(h.in(), ClipRadius::kFixed, 1.0, h.out, h.ws);
  CHECK(std::memcmp(h.out.data(), mean.data(), mean.size() * sizeof(float)) != 0);
}

TEST_CASE("the coordinate-wise median takes the middle value, ties included") {
  // Five members, coordinate by coordinate: {1, 3, 2, 7, 4} -> 3, {5, 5, 2, 5, 0} -> 5,
  // {0, 0, 0, 100, -100} -> 0, {1, 1, 1, 4, 7} -> 1.
  Hood h({1, 5, 0, 1}, {{3, 5, 0, 1}, {2, 2, 0, 1}, {7, 5, 100, 4}, {4, 0, -100, 7}});
  coordinate_median(h.in(), h.out, h.ws);
  CHECK(h.out == std::vector<float>{3, 5, 0, 1});
}

TEST_CASE("the median of an even count is the mean of the two middle values") {
  // {1, 3, 10, 2} sorts to 1 2 3 10 -> (2 + 3) / 2 = 2.5; {4, -2, 4, 100} -> (4 + 4) / 2 = 4;
  // {3e38, 3e38, 3e38, -1}: the two middle values are 3e38, whose float sum would overflow.
  Hood h({1, 4, 3e38f}, {{3, -2, 3e38f}, {10, 4, 3e38f}, {2, 100, -1}});
  coordinate_median(h.in(), h.out, h.ws);
  CHECK(h.out[0] == 2.5f);
  CHECK(h.out[1] == 4.0f);
  CHECK(h.out[2] == 3e38f);
}

TEST_CASE("the trimmed mean drops b values per side and averages the rest") {
  // Same five members as the median test. b = 1: {1, 3, 2, 7, 4} keeps 3 2 4 -> 3;
  // {5, 5, 2, 5, 0} keeps 2 5 5 -> 4 (a tie at the top: one 5 goes); {0, 0, 0, 100, -100} -> 0;
  // {1, 1, 1, 4, 7} keeps 1 1 4 -> 2 (a tie at the bottom: one 1 goes).
  Hood h({1, 5, 0, 1}, {{3, 5, 0, 1}, {2, 2, 0, 1}, {7, 5, 100, 4}, {4, 0, -100, 7}});
  trimmed_mean(h.in(), 1, h.out, h.ws);
  CHECK(h.out == std::vector<float>{3, 4, 0, 2});
  // b = 2 keeps only the median: 3, 5, 0, 1.
  trimmed_mean(h.in(), 2, h.out, h.ws);
  CHECK(h.out == std::vector<float>{3, 5, 0, 1});
  // b = 0 is the plain mean: 17 / 5, 17 / 5, 0, 14 / 5.
  trimmed_mean(h.in(), 0, h.out, h.ws);
  CHECK(h.out == std::vector<float>{3.4f, 3.4f, 0.0f, 2.8f});
  // 2b >= n is refused.
  CHECK_THROWS_AS(trimmed_mean(h.in(), 3, h.out, h.ws), InvariantError);
  AggregationSpec spec{.kind = AggregationKind::kTrimmedMean, .trim = 3};
  CHECK(refusal(spec, 5) ==
        "trimmed_mean drops 2b = 6 values per coordinate, needs more than 6 models (own "
        "included), has 5");
  spec.trim = 2;
  CHECK(refusal(spec, 5).empty());
}

TEST_CASE("krum keeps the member with the lowest score, multi_krum averages the m lowest") {
  // f = 1, n = 5: a score sums the n - f - 2 = 2 smallest squared distances. First coordinates
  // 0 (own), 1, 3, 10, -1 (the second is 7 for all):
  //   0: 1 (to 1), 1 (to -1)  -> 2      1: 1, 4 -> 5      3: 4, 9 -> 13
  //  10: 49, 81 -> 130               -1: 1, 4 -> 5
  // Krum: own, [0, 7]. m = 2: own and the tie at 5 goes to the lower index (1, not -1):
  // [(0 + 1) / 2, 7] = [0.5, 7].
  Hood h({0, 7}, {{1, 7}, {3, 7}, {10, 7}, {-1, 7}});
  krum(h.in(), 1, h.out, h.ws);
  CHECK(h.out == std::vector<float>{0, 7});
  multi_krum(h.in(), 1, 2, h.out, h.ws);
  CHECK(h.out == std::vector<float>{0.5f, 7});
  // m = 4 drops only 10: (0 + 1 + 3 - 1) / 4 = 0.75.
  multi_krum(h.in(), 1, 4, h.out, h.ws);
  CHECK(h.out == std::vector<float>{0.75f, 7});
}

TEST_CASE("krum breaks a tie of scores towards the lower member index") {
  // f = 0, n = 3, one nearest: own 5 -> 16 (to 1), 0 -> 1, 1 -> 1: members 1 and 2 tie, 1 wins.
  Hood h({5}, {{0}, {1}});
  krum(h.in(), 0, h.out, h.ws);
  CHECK(h.out == std::vector<float>{0});
}

TEST_CASE("krum refuses a neighbourhood smaller than 2f + 3 with a clear error") {
  Hood h({0}, {{1}, {2}, {3}});  // n = 4 < 2 * 1 + 3
  AggregationSpec spec{.kind = AggregationKind::kKrum, .byzantine = 1};
  CHECK(refusal(spec, 4) ==
        "krum needs at least 2f + 3 = 5 models (own included) for f = 1, has 4");
  CHECK(refusal(spec, 5).empty());
  CHECK_THROWS_WITH_AS(aggregate(spec, h.in(), 0.0, h.out, h.ws),
                       doctest::Contains("krum needs at least 2f + 3 = 5 models"), InvariantError);
  CHECK_THROWS_WITH_AS(multi_krum(h.in(), 1, 1, h.out, h.ws),
                       doctest::Contains("2f + 3 = 5 models (own included) for f = 1, has 4"),
                       InvariantError);
  spec.kind = AggregationKind::kMultiKrum;
  spec.selected = 6;
  CHECK(refusal(spec, 5) == "multi_krum needs 1 <= m <= 5 (models, own included), got m = 6");
}

TEST_CASE("geometric_median runs smoothed Weiszfeld steps from the mean") {
  // Members [0, 0], [0, 0], [3, 4]; z0 = mean = [1, 4/3]. Distances 5/3, 5/3, 10/3, so the
  // weights 0.6, 0.6, 0.3 give z1 = 0.3 [3, 4] / 1.5 = [0.6, 0.8]. From z1 the distances are
  // 1, 1, 4: weights 1, 1, 0.25, z2 = 0.25 [3, 4] / 2.25 = [1/3, 4/9].
  Hood h({0, 0}, {{0, 0}, {3, 4}});
  geometric_median(h.in(), 0, 0.1, h.out, h.ws);
  CHECK(h.out[0] == 1.0f);
  CHECK(h.out[1] == doctest::Approx(4.0 / 3.0).epsilon(1e-6));
  geometric_median(h.in(), 1, 0.1, h.out, h.ws);
  CHECK(h.out[0] == doctest::Approx(0.6).epsilon(1e-6));
  CHECK(h.out[1] == doctest::Approx(0.8).epsilon(1e-6));
  geometric_median(h.in(), 2, 0.1, h.out, h.ws);
  CHECK(h.out[0] == doctest::Approx(1.0 / 3.0).epsilon(1e-6));
  CHECK(h.out[1] == doctest::Approx(4.0 / 9.0).epsilon(1e-6));
}

TEST_CASE("geometric_median's nu caps the weight of members close to z") {
  // Members 0, 0, 0.06: z0 = 0.02, distances 0.02, 0.02, 0.04, all below nu = 0.1: equal
  // weights keep z at the mean. Without the cap (weights 50, 50, 25) z would be 0.012.
  Hood h({0}, {{0}, {0.06f}});
  geometric_median(h.in(), 3, 0.1, h.out, h.ws);
  CHECK(h.out[0] == doctest::Approx(0.02).epsilon(1e-6));
}

TEST_CASE("balance mixes with the neighbours within its radius, and keeps x_i when none is") {
  // x_i = [3, 4], ||x_i|| = 5; gamma 1, kappa 1, alpha 0.5. At t/T = 0 the radius is 5:
  // [3, 8] (distance 4) and [0, 0] (distance 5, on the boundary) are accepted, [3, 10]
  // (distance 6) is not. 0.5 [3, 4] + 0.5 mean([3, 8], [0, 0]) = [1.5 + 0.75, 2 + 2] = [2.25, 4].
  Hood h({3, 4}, {{3, 8}, {3, 10}, {0, 0}});
  balance(h.in(), 1.0, 1.0, 0.5, 0.0, h.out, h.ws);
  CHECK(h.out == std::vector<float>{2.25f, 4.0f});
  // At t/T = 1 the radius is 5 / e = 1.84: every neighbour is rejected, x_i stays.
  balance(h.in(), 1.0, 1.0, 0.5, 1.0, h.out, h.ws);
  CHECK(h.out == std::vector<float>{3.0f, 4.0f});
}

TEST_CASE("aggregate dispatches on the rule's kind") {
  Hood h({1, 5, 0, 1}, {{3, 5, 0, 1}, {2, 2, 0, 1}, {7, 5, 100, 4}, {4, 0, -100, 7}}, 0.2,
         {0.2, 0.2, 0.2, 0.2});
  std::vector<float> direct(4);
  aggregate(AggregationSpec{.kind = AggregationKind::kMedian}, h.in(), 0.0, h.out, h.ws);
  coordinate_median(h.in(), direct, h.ws);
  CHECK(h.out == direct);
  aggregate(AggregationSpec{.kind = AggregationKind::kTrimmedMean, .trim = 1}, h.in(), 0.0, h.out,
            h.ws);
  CHECK(h.out == std::vector<float>{3, 4, 0, 2});
  CHECK(to_string(AggregationKind::kGeometricMedian) == "geometric_median");
}

TEST_CASE("a rule refuses a neighbourhood that does not fit its workspace") {
  Hood h({0, 0}, {{1, 1}, {2, 2}});
  AggregationWorkspace small(2, 1);
  CHECK_THROWS_AS(coordinate_median(h.in(), h.out, small), InvariantError);
  AggregationWorkspace wide(3, 2);
  CHECK_THROWS_AS(coordinate_median(h.in(), h.out, wide), InvariantError);
  CHECK_THROWS_AS(small.views(2), InvariantError);
  // out may not be one of the inputs.
  CHECK_THROWS_AS(coordinate_median(h.in(), std::span<float>(h.others[0]), h.ws), InvariantError);
}
