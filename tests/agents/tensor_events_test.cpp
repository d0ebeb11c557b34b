#include "sim/agents/tensor_events.hpp"

#include <doctest/doctest.h>

#include <limits>

#include "algorithm_harness.hpp"

using namespace dlsim;
using namespace dlsim::testing;

namespace {

TriggerSpec adaptive(double horizon, int64_t warmup) {
  TriggerSpec t;
  t.kind = TriggerKind::kAdaptive;
  t.horizon = horizon;
  t.warmup = warmup;
  return t;
}

std::vector<uint32_t> fired(const Parts& parts) {
  return parts ? *parts : std::vector<uint32_t>{};
}

}  // namespace

TEST_CASE("EventGraD's adaptive threshold by hand: decay, compare the norm change, new slope") {
  TensorEvents events(adaptive(0.5, 1));
  events.start(1, {{0, 1}, {1, 1}}, 2);
  // k = 0: thresholds 0 * 0.5; norms 3 and 1 change from 0: both fire (warmup too). The slopes
  // 3 / 1 and 1 / 1 join a history of 0: thresholds (0 + 3) / 2 and (0 + 1) / 2.
  CHECK(fired(events.decide(0, 0, vec({-3.0f, 1.0f}), nullptr, 0.0)) ==
        std::vector<uint32_t>{0, 1});
  CHECK(events.threshold(0, 0) == doctest::Approx(1.5));
  CHECK(events.threshold(0, 1) == doctest::Approx(0.5));
  // k = 1: thresholds 0.75 and 0.25; the norms change by 0.5 and 0.125: no event.
  CHECK(fired(events.decide(0, 1, vec({3.5f, 1.125f}), nullptr, 0.0)).empty());
  CHECK(events.threshold(0, 0) == doctest::Approx(0.75));
  CHECK(events.threshold(0, 1) == doctest::Approx(0.25));
  // k = 2: thresholds 0.375 and 0.125; the norms (4, 1.25) change by 1 and 0.25: both fire, with
  // slopes over 2 iterations 0.5 and 0.125; thresholds (3 + 0.5) / 2 and (1 + 0.125) / 2.
  CHECK(fired(events.decide(0, 2, vec({-4.0f, 1.25f}), nullptr, 0.0)) ==
        std::vector<uint32_t>{0, 1});
  CHECK(events.threshold(0, 0) == doctest::Approx(1.75));
  CHECK(events.threshold(0, 1) == doctest::Approx(0.5625));
  // k = 3: thresholds 0.875 and 0.28125; changes 2 (fires: slope 2, threshold (0.5 + 2) / 2) and
  // 0.25 (does not).
  CHECK(fired(events.decide(0, 3, vec({6.0f, 1.5f}), nullptr, 0.0)) == std::vector<uint32_t>{0});
  CHECK(events.threshold(0, 0) == doctest::Approx(1.25));
  CHECK(events.threshold(0, 1) == doctest::Approx(0.28125));
}

TEST_CASE("EventGraD's adaptive threshold sends every tensor during the warmup") {
  TensorEvents events(adaptive(1.0, 2));
  events.start(2, {{0, 2}, {2, 2}}, 4);
  const ParamVector x = vec({1, 1, 1, 1});
  // k = 0 sets the thresholds to sqrt(2) / 2; the norms do not change after it: k = 1 sends only
  // because of the warmup (its slope 0 keeps the mean at sqrt(2) / 2), k = 2 does not.
  for (int64_t k = 0; k < 2; ++k)
    CHECK(fired(events.decide(1, k, x, nullptr, 0.0)) == std::vector<uint32_t>{0, 1});
  CHECK(fired(events.decide(1, 2, x, nullptr, 0.0)).empty());
  CHECK(events.threshold(1, 0) == doctest::Approx(std::sqrt(2.0) / 2));
}

TEST_CASE("a per-tensor threshold sends only the tensors that crossed, bytes by hand") {
  TensorEvents events(per_tensor_threshold(1.0));
  events.start(1, {{0, 6}, {6, 3}, {9, 2}}, 11);
  const ParamVector sent = ParamVector::Zero(11);
  ParamVector x = ParamVector::Zero(11);
  x[0] = 2.0f;   // tensor 0 drifted by 2 > 1
  x[6] = 0.5f;   // tensor 1 by 0.5
  x[10] = 1.5f;  // tensor 2 by 1.5
  const Parts parts = events.decide(0, 5, x, &sent, 0.0);
  REQUIRE(fired(parts) == std::vector<uint32_t>{0, 2});
  CHECK(events.payload_bytes(*parts) == (6 + 2) * 4 + 1);  // the floats and a 3-bit mask
  // x^ after the event: the fired tensors from x, the others as before.
  SnapshotPool pool;
  const Snapshot next = events.next_sent(pool, &sent, x, *parts);
  ParamVector expected = x;
  expected[6] = 0.0f;
  CHECK(*next == expected);
  // k = 0 and a first event send everything; an infinite threshold nothing.
  CHECK(fired(events.decide(0, 0, sent, &sent, 0.0)).size() == 3);
  CHECK(fired(events.decide(0, 7, sent, nullptr, 0.0)).size() == 3);
  TensorEvents never(per_tensor_threshold(std::numeric_limits<double>::infinity()));
  never.start(1, {{0, 6}, {6, 3}, {9, 2}}, 11);
  CHECK(fired(never.decide(0, 0, x, nullptr, 0.0)).empty());
}

TEST_CASE("a model that is one tensor is sent without a mask") {
  TensorEvents events(adaptive(0.9, 30));
  events.start(1, {}, 5);
  const Parts parts = events.decide(0, 0, ParamVector::Ones(5), nullptr, 0.0);
  REQUIRE(fired(parts) == std::vector<uint32_t>{0});
  CHECK(events.payload_bytes(*parts) == 20);
}
