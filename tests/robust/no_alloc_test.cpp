// Counts heap allocations around every rule and attack once the workspace is sized, as
// tests/models/no_alloc_test.cpp does for training steps (tests/malloc_count.hpp); skipped under
// AddressSanitizer, which owns malloc.
#include <doctest/doctest.h>

#include <vector>

#include "../malloc_count.hpp"
#include "../skip.hpp"
#include "robust_fixture.hpp"
#include "sim/core/random.hpp"
#include "sim/robust/aggregation_rule.hpp"
#include "sim/robust/attacks.hpp"

using namespace dlsim;
using dlsim::testing::allocations_during;

namespace {

volatile const void* g_sink = nullptr;

}  // namespace

TEST_CASE("every robust rule and attack allocates nothing once its workspace is sized") {
  if (!testing::kCountsMalloc)
    return dlsim::skip_test("malloc is not glibc's here (AddressSanitizer owns it)");
  // The counter sees an allocation: the zeros below are not vacuous.
  CHECK(allocations_during([] {
          std::vector<float> v(100);
          g_sink = v.data();
        }) >= 1);
  RandomStream rng(3, "robust-test", 0);
  auto draw = [&] {
    std::vector<float> v(300);
    for (float& x : v) x = static_cast<float>(rng.normal());
    return v;
  };
  testing::Hood h(draw(), {draw(), draw(), draw(), draw(), draw(), draw()}, 0.4,
                  {0.1, 0.1, 0.1, 0.1, 0.1, 0.1});
  std::vector<double> honest_w{0.1, 0.1, 0.1};
  std::vector<float> attack(h.own.size());
  AggregationSpec spec;
  auto all = [&] {
    for (AggregationKind kind :
         {AggregationKind::kMean, AggregationKind::kClippedGossip, AggregationKind::kTrimmedMean,
          AggregationKind::kMedian, AggregationKind::kKrum, AggregationKind::kMultiKrum,
          AggregationKind::kGeometricMedian, AggregationKind::kBalance}) {
      spec.kind = kind;
      spec.byzantine = 2;
      spec.selected = 3;
      aggregate(spec, h.in(), 0.5, h.out, h.ws);
    }
    clipped_gossip(h.in(), ClipRadius::kAdaptive, 0.0, h.out, h.ws);
    const auto honest = h.in().others.first(3);
    alie(honest, 1.0, attack);
    ipm(honest, 0.1, attack);
    sign_flip(h.own, attack);
    gaussian(h.own, 0.5, rng, attack);
    dissensus(h.own, honest, honest_w, 0.3, 1.0, attack);
    g_sink = attack.data();
  };
  all();  // nothing to warm up, but the same shape as the models test
  CHECK(allocations_during(all) == 0);
  // A neighbourhood whose size changes builds new selection networks in the workspace, in place.
  CHECK(allocations_during([&] {
          for (const size_t k : {2, 5, 3, 4, 6, 2}) {
            Neighbourhood in = h.in();
            in.others = in.others.first(k);
            in.weights = in.weights.first(k);
            coordinate_median(in, h.out, h.ws);
            trimmed_mean(in, 1, h.out, h.ws);
          }
        }) == 0);
}
