#include "sim/agents/churn.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace dlsim;

TEST_CASE("a churn trace: offline from offline_from up to online_again, returns flagged once") {
  ChurnSpec spec;
  spec.kind = ChurnKind::kTrace;
  spec.offline = {{}, {{SimTime::from_ms(10), SimTime::from_ms(20)},
                       {SimTime::from_ms(30), SimTime::max()}}};
  Churn churn(spec, 2, 1);
  const auto at = [&](int64_t ms) {
    churn.begin_round(SimTime::from_ms(ms));
    return churn.online(1);
  };
  CHECK(at(0));
  CHECK(at(9));
  CHECK_FALSE(at(10));  // from is inclusive
  CHECK(churn.online_count() == 1);
  CHECK_FALSE(at(19));
  CHECK(at(20));  // until is exclusive
  CHECK(churn.returned(1));
  CHECK(at(25));
  CHECK_FALSE(churn.returned(1));
  CHECK_FALSE(at(30));
  CHECK_FALSE(at(1000000));  // "inf": never back
  CHECK(churn.online(0));
}

TEST_CASE("markov churn: the online fraction is mean_online / (mean_online + mean_offline) within "
          "3 standard errors") {
  ChurnSpec spec;
  spec.kind = ChurnKind::kMarkov;
  spec.mean_online = SimTime::from_ms(600);
  spec.mean_offline = SimTime::from_ms(200);
  spec.start_offline = 0.25;  // the stationary share: every sample is unbiased
  constexpr uint32_t kAgents = 200;
  constexpr int kSamples = 100;
  Churn churn(spec, kAgents, 3);
  double online = 0;
  // 4 s apart: the chain forgets its state (correlation exp(-4 (1/0.6 + 1/0.2)) ~ 2e-12).
  for (int k = 0; k < kSamples; ++k) {
    churn.begin_round(SimTime::from_ms(4000 * k));
    online += churn.online_count();
  }
  const double n = double(kAgents) * kSamples;
  const double p = 0.75;
  CHECK(std::abs(online / n - p) < 3 * std::sqrt(p * (1 - p) / n));
  // Mean offline stretch, from one agent's switches on a fine grid: about 200 ms.
  Churn fine(spec, 1, 5);
  int64_t offline_rounds = 0, stretches = 0;
  bool was = true;
  for (int64_t t = 0; t < 2000000; ++t) {  // 1 ms rounds, 2000 s
    fine.begin_round(SimTime::from_ms(t));
    const bool now = fine.online(0);
    if (!now) ++offline_rounds;
    if (!now && was) ++stretches;
    was = now;
  }
  const double mean_ms = double(offline_rounds) / double(stretches);
  CHECK(mean_ms == doctest::Approx(200).epsilon(0.1));  // ~2,500 stretches: 2 % standard error
}

TEST_CASE("markov churn is the same for the same seed and differs for another") {
  ChurnSpec spec;
  spec.kind = ChurnKind::kMarkov;
  spec.mean_online = SimTime::from_ms(50);
  spec.mean_offline = SimTime::from_ms(50);
  spec.start_offline = 0.5;
  Churn a(spec, 20, 1), b(spec, 20, 1), c(spec, 20, 2);
  int differ = 0;
  for (int64_t t = 0; t < 100; ++t) {
    a.begin_round(SimTime::from_ms(7 * t));
    b.begin_round(SimTime::from_ms(7 * t));
    c.begin_round(SimTime::from_ms(7 * t));
    for (uint32_t i = 0; i < 20; ++i) {
      CHECK(a.online(i) == b.online(i));
      differ += a.online(i) != c.online(i);
    }
  }
  CHECK(differ > 100);
}

TEST_CASE("async churn: each agent's own iteration starts decide its state, as rounds would") {
  // Agents decided at their own times (agent 0 every 3 ms, agent 1 every 7 ms) end in the states
  // a churn of the same seed gives at those times through rounds; the others are untouched.
  ChurnSpec spec;
  spec.kind = ChurnKind::kMarkov;
  spec.mean_online = SimTime::from_ms(20);
  spec.mean_offline = SimTime::from_ms(10);
  spec.start_offline = 0.3;
  Churn own(spec, 2, 9), by_round_0(spec, 2, 9), by_round_1(spec, 2, 9);
  int changes = 0;
  for (int64_t k = 0; k < 200; ++k) {
    own.begin_iteration(0, SimTime::from_ms(3 * k));
    by_round_0.begin_round(SimTime::from_ms(3 * k));
    CHECK(own.online(0) == by_round_0.online(0));
    CHECK(own.returned(0) == by_round_0.returned(0));
    changes += own.online(0) != own.was_online(0);
    if (k % 3 == 0) {  // agent 1 decides less often, and later
      own.begin_iteration(1, SimTime::from_ms(7 * k / 3));
      by_round_1.begin_round(SimTime::from_ms(7 * k / 3));
      CHECK(own.online(1) == by_round_1.online(1));
    }
    CHECK(own.online_count() == uint32_t(own.online(0)) + uint32_t(own.online(1)));
  }
  CHECK(changes > 10);  // the states did change
}
