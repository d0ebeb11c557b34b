#include "sim/agents/easgd.hpp"

#include <doctest/doctest.h>

#include "algorithm_harness.hpp"

using namespace dlsim;
using namespace dlsim::testing;

namespace {

TriggerSpec always() { return TriggerSpec{}; }

}  // namespace

TEST_CASE("EASGD sync: z moves by beta (mean x - z), workers by alpha (x_i - z) with the old z") {
  Easgd alg(0.25, always(), TimeMode::kSync);
  // lr 0.1, targets c0 = 2, c1 = 4 (second coordinate: every gradient zero).
  auto agents = make_agents({vec({0, 1}), vec({4, 3})}, {vec({2, 1}), vec({4, 3})}, 0.1f);
  alg.start(agents);
  EventCounts events;
  CHECK(alg.center()[0] == doctest::Approx(2));  // z_0: the mean of the initial models
  CHECK(alg.center()[1] == doctest::Approx(2));
  CHECK(run_round(alg, agents, &events) == 4);  // each worker: x_i to the server, d_i back
  // d0 = 0.25 (0 - 2) = -0.5, d1 = 0.25 (4 - 2) = 0.5: z = 2 + 0 = 2.
  // x0 = 0 - 0.1 (0 - 2) + 0.5 = 0.7; x1 = 4 - 0 - 0.5 = 3.5.
  CHECK(agents[0].x[0] == doctest::Approx(0.7));
  CHECK(agents[1].x[0] == doctest::Approx(3.5));
  CHECK(alg.center()[0] == doctest::Approx(2));
  // Second coordinate: d = 0.25 (1 - 2), 0.25 (3 - 2): x = 1.25, 2.75, z = 2.
  CHECK(agents[0].x[1] == doctest::Approx(1.25));
  CHECK(agents[1].x[1] == doctest::Approx(2.75));
  run_round(alg, agents, &events);
  // z = 2 + beta ((0.7 + 3.5)/2 - 2) with beta = 2 x 0.25: 2.05.
  // x0 = 0.7 - 0.1 (0.7 - 2) - 0.25 (0.7 - 2) = 1.155; x1 = 3.5 + 0.05 - 0.25 (3.5 - 2) = 3.175.
  CHECK(alg.center()[0] == doctest::Approx(2.05));
  CHECK(agents[0].x[0] == doctest::Approx(1.155));
  CHECK(agents[1].x[0] == doctest::Approx(3.175));
  CHECK(events[0] == 2);
}

TEST_CASE("EASGD async: each arrival moves z at once, and the next one sees the new z") {
  Easgd alg(0.25, always(), TimeMode::kAsync);
  auto agents = make_agents({vec({0}), vec({4})}, {vec({2}), vec({4})}, 0.1f);
  alg.start(agents);
  CHECK(run_round(alg, agents) == 4);
  // x0 arrives first: d0 = 0.25 (0 - 2) = -0.5, z = 1.5; then d1 = 0.25 (4 - 1.5) = 0.625,
  // z = 2.125. x0 = 0 + 0.2 + 0.5 = 0.7; x1 = 4 - 0.625 = 3.375.
  CHECK(alg.center()[0] == doctest::Approx(2.125));
  CHECK(agents[0].x[0] == doctest::Approx(0.7));
  CHECK(agents[1].x[0] == doctest::Approx(3.375));
  // Elastic symmetry: what left the workers reached z; only the gradient step (+0.2) adds.
  CHECK(agents[0].x[0] + agents[1].x[0] + alg.center()[0] == doctest::Approx(6.2));
}

TEST_CASE("EASGD reuses its buffers: two per worker, one reply per worker at the server") {
  for (const TimeMode mode : {TimeMode::kSync, TimeMode::kAsync}) {
    Easgd alg(0.25, always(), mode);
    auto agents = make_agents({vec({0, 1}), vec({4, 3}), vec({1, 1})},
                              {vec({2, 1}), vec({4, 3}), vec({0, 0})}, 0.1f);
    alg.start(agents);
    for (int k = 0; k < 10; ++k) run_round(alg, agents);
    // A worker's new copy is made while the last one is still its drift reference; every reply
    // of a round has been applied (and dropped) before the next round's replies are made.
    for (uint32_t i = 0; i < 3; ++i) CHECK(alg.worker_buffers(AgentId{i}) == 2);
    CHECK(alg.server_buffers() == 3);
  }
}

TEST_CASE("EASGD with one agent is plain SGD plus the elastic pull, in both modes") {
  for (TimeMode mode : {TimeMode::kSync, TimeMode::kAsync}) {
    Easgd alg(0.5, always(), mode);
    auto agents = make_agents({vec({1, -3})}, {vec({0, 2})}, 0.1f);
    alg.start(agents);
    ParamVector x = agents[0].x, z = x, c = vec({0, 2});
    for (int k = 0; k < 5; ++k) {
      CHECK(run_round(alg, agents) == 2);
      const ParamVector d = 0.5f * (x - z);
      x = x - 0.1f * (x - c) - d;
      z += d;
    }
    for (int i = 0; i < 2; ++i) {
      CHECK(agents[0].x[i] == doctest::Approx(x[i]));
      CHECK(alg.center()[i] == doctest::Approx(z[i]));
    }
  }
}

TEST_CASE("EASGD communicates only when the trigger fires: periodic tau") {
  TriggerSpec every2;
  every2.kind = TriggerKind::kPeriodic;
  every2.period = 2;
  Easgd alg(0.5, every2, TimeMode::kSync);
  auto agents = make_agents({vec({0}), vec({4})}, {vec({0}), vec({4})}, 0.0f);
  alg.start(agents);
  EventCounts events;
  CHECK(run_round(alg, agents, &events) ==
        4);  // k = 0: z = 2, d = 0.5 (0 - 2), 0.5 (4 - 2) = -1, 1
  CHECK(agents[0].x[0] == doctest::Approx(1));
  CHECK(agents[1].x[0] == doctest::Approx(3));
  CHECK(alg.center()[0] == doctest::Approx(2));
  CHECK(run_round(alg, agents, &events) == 0);  // k = 1: local steps only
  CHECK(agents[0].x[0] == doctest::Approx(1));
  CHECK(run_round(alg, agents, &events) == 4);  // k = 2: d = 0.5 (1 - 2) = -0.5, 0.5
  CHECK(agents[0].x[0] == doctest::Approx(1.5));
  CHECK(events[0] == 2);
}
