#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "sim/agents/trigger.hpp"

using namespace dlsim;

namespace {

TriggerSpec threshold_spec(double v0) {
  TriggerSpec s;
  s.kind = TriggerKind::kThreshold;
  s.v0 = v0;
  s.decay = 0.5;
  s.eps = 1.0;
  return s;
}

}  // namespace

TEST_CASE("always and never ignore everything") {
  RandomStream rng(1);
  TriggerSpec s;
  s.kind = TriggerKind::kAlways;
  CHECK(Trigger(s).decide({5, 0.0, 0.0}, rng));
  s.kind = TriggerKind::kNever;
  CHECK_FALSE(Trigger(s).decide({0, 1e9, 0.0}, rng));
}

TEST_CASE("periodic fires on multiples of tau, starting at 0") {
  RandomStream rng(1);
  TriggerSpec s;
  s.kind = TriggerKind::kPeriodic;
  s.period = 4;
  const Trigger t(s);
  int fired = 0;
  for (int64_t k = 0; k < 12; ++k) fired += t.decide({k, 0.0, 0.0}, rng);
  CHECK(fired == 3);
  CHECK(t.decide({8, 0.0, 0.0}, rng));
  CHECK_FALSE(t.decide({9, 0.0, 0.0}, rng));
}

TEST_CASE("probability p fires in about p of the iterations, the same way for the same stream") {
  TriggerSpec s;
  s.kind = TriggerKind::kProbability;
  s.probability = 0.125;
  const Trigger t(s);
  RandomStream a(3, "trigger", 0), b(3, "trigger", 0);
  int fired = 0;
  for (int64_t k = 0; k < 80000; ++k) {
    const bool x = t.decide({k, 0.0, 0.0}, a);
    CHECK(x == t.decide({k, 0.0, 0.0}, b));
    fired += x;
  }
  CHECK(fired / 80000.0 == doctest::Approx(0.125).epsilon(0.03));
}

TEST_CASE("threshold decays as v0/(eps*k+1)^dv and compares the drift strictly") {
  RandomStream rng(1);
  const Trigger t(threshold_spec(2.0));
  CHECK(t.threshold(0, 0.0) == doctest::Approx(2.0));
  CHECK(t.threshold(3, 0.0) == doctest::Approx(1.0));  // 2 / sqrt(4)
  CHECK(t.decide({3, 1.01, 0.0}, rng));
  CHECK_FALSE(t.decide({3, 1.0, 0.0}, rng));
  CHECK_FALSE(t.decide({3, 0.5, 0.0}, rng));
  CHECK(t.decide({0, 0.0, 0.0}, rng));  // k = 0 always broadcasts
}

TEST_CASE("threshold in alpha form is v0 times the step size") {
  RandomStream rng(1);
  TriggerSpec s = threshold_spec(10.0);
  s.form = ThresholdForm::kAlpha;
  const Trigger t(s);
  CHECK(t.threshold(7, 0.05) == doctest::Approx(0.5));
  CHECK(t.decide({7, 0.6, 0.05}, rng));
  CHECK_FALSE(t.decide({7, 0.4, 0.05}, rng));
}

TEST_CASE("v0 = 0 always communicates and v0 = infinity never does") {
  RandomStream rng(1);
  const Trigger zero(threshold_spec(0.0));
  const Trigger inf(threshold_spec(std::numeric_limits<double>::infinity()));
  for (int64_t k = 0; k < 5; ++k) {
    CHECK(zero.decide({k, 0.0, 0.0}, rng));
    CHECK_FALSE(inf.decide({k, 1e30, 0.0}, rng));
  }
}

TEST_CASE("a decider replaces the rule: it gets agent, iteration, drift and step, and no draw") {
  struct Recorder final : TriggerDecider {
    bool decide(AgentId agent, const TriggerInput& in) override {
      calls.push_back({agent.value, in.iteration, in.drift, in.alpha_k});
      return agent.value == 1;
    }
    struct Call {
      uint32_t agent;
      int64_t iteration;
      double drift, alpha;
    };
    std::vector<Call> calls;
  };
  TriggerSpec s;
  s.kind = TriggerKind::kProbability;  // a rule that draws, and needs no drift
  s.probability = 0.5;
  Trigger t(s);
  CHECK_FALSE(t.needs_drift());
  Recorder recorder;
  t.set_decider(recorder);
  CHECK(t.needs_drift());  // the algorithm now computes the drift for the decider
  RandomStream rng(7), untouched(7);
  CHECK(t.decide(AgentId{1}, {3, 0.25, 0.1}, rng));
  CHECK_FALSE(t.decide(AgentId{2}, {3, 9.0, 0.1}, rng));
  REQUIRE(recorder.calls.size() == 2);
  CHECK(recorder.calls[0].iteration == 3);
  CHECK(recorder.calls[0].drift == 0.25);
  CHECK(recorder.calls[1].agent == 2);
  CHECK(recorder.calls[1].alpha == 0.1);
  CHECK(rng.next_u64() == untouched.next_u64());
}
