#include <doctest/doctest.h>

#include <vector>

#include "sim/core/event_queue.hpp"
#include "sim/core/random.hpp"
#include "sim/core/simulator.hpp"

using namespace dlsim;

TEST_CASE("equal-time events run in the order they were scheduled") {
  Simulator sim(1);
  for (uint32_t i = 0; i < 50; ++i)
    sim.schedule_at(SimTime::from_ms(i % 2 == 0 ? 5 : 3), EventKind::kTimer, AgentId{i});
  std::vector<uint32_t> order;
  sim.run([&](const Event& e) { order.push_back(e.agent.value); });
  REQUIRE(order.size() == 50);
  // All odd agents (t = 3 ms) first, ascending, then all even agents (t = 5 ms), ascending.
  for (uint32_t k = 0; k < 25; ++k) {
    CHECK(order[k] == 2 * k + 1);
    CHECK(order[25 + k] == 2 * k);
  }
}

TEST_CASE("the queue pops a random workload in (time, seq) order") {
  EventQueue q;
  RandomStream rng(7);
  uint64_t seq = 0;
  for (int i = 0; i < 20000; ++i)
    q.push(Event{SimTime{static_cast<int64_t>(rng.below(100))}, (seq++ << 8), AgentId{}, 0});
  Event previous = q.pop();
  while (!q.empty()) {
    const Event e = q.pop();
    CHECK_FALSE(runs_before(e, previous));
    previous = e;
  }
}

TEST_CASE("events scheduled while running interleave by time") {
  Simulator sim(1);
  sim.schedule_at(SimTime::from_ns(10), EventKind::kTimer, AgentId{0});
  std::vector<int64_t> times;
  sim.run([&](const Event& e) {
    times.push_back(sim.now().ns);
    if (e.agent.value < 3) sim.schedule_in(SimTime::from_ns(5), EventKind::kTimer, AgentId{e.agent.value + 1});
  });
  CHECK(times == std::vector<int64_t>{10, 15, 20, 25});
  CHECK(sim.events_processed() == 4);
}

TEST_CASE("run stops at the time bound and resumes later") {
  Simulator sim(1);
  for (int i = 1; i <= 10; ++i) sim.schedule_at(SimTime::from_ns(i), EventKind::kTimer, AgentId{});
  CHECK(sim.run([](const Event&) {}, SimTime::from_ns(4)) == 4);
  CHECK(sim.pending() == 6);
  CHECK(sim.run([](const Event&) {}) == 6);
}

TEST_CASE("scheduling in the past is an invariant violation naming the time") {
  Simulator sim(1);
  sim.schedule_at(SimTime::from_ns(10), EventKind::kTimer, AgentId{3});
  sim.run([&](const Event&) {
    CHECK_THROWS_WITH_AS(sim.schedule_at(SimTime::from_ns(5), EventKind::kTimer, AgentId{}),
                         doctest::Contains("t=10ns agent=3"), InvariantError);
  });
}
