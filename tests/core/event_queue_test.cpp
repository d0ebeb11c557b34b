#include <doctest/doctest.h>

#include <array>
#include <vector>

#include "sim/core/event_queue.hpp"
#include "sim/core/random.hpp"
#include "sim/core/simulator.hpp"

using namespace dlsim;

TEST_CASE("equal-time events scheduled outside a handler run in the order of their nodes") {
  Simulator sim(1);
  // Scheduled from the last node to the first: each is its own node's first event (origin i,
  // counter 0), so they run by node, not in the order they were scheduled.
  for (uint32_t i = 50; i-- > 0;)
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

TEST_CASE("the queue pops a random workload in (time, key) order") {
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

// Nodes 0-3 each handle one event at a time of their own (`start`) and schedule from it, for
// nodes 4-5, two events at 100 ns and one at 200 ns each, payload = 10 * node + k. Returns the
// (agent, payload, origin, counter) of the events at 100 ns or later, in the order they ran.
std::vector<std::array<uint32_t, 4>> simultaneous_order(const std::array<int64_t, 4>& start) {
  Simulator sim(1);
  for (uint32_t n = 0; n < 4; ++n)
    sim.schedule_at(SimTime::from_ns(start[n]), EventKind::kTimer, AgentId{n});
  std::vector<std::array<uint32_t, 4>> order;
  sim.run([&](const Event& e) {
    if (e.time.ns >= 100) {
      order.push_back({e.agent.value, e.payload, e.origin().value, e.counter()});
      return;
    }
    const uint32_t n = e.agent.value;
    sim.schedule_at(SimTime::from_ns(100), EventKind::kDelivery, AgentId{4 + n % 2}, 10 * n);
    sim.schedule_at(SimTime::from_ns(200), EventKind::kTimer, AgentId{4}, 10 * n + 1);
    sim.schedule_at(SimTime::from_ns(100), EventKind::kTimer, AgentId{5 - n % 2}, 10 * n + 2);
  });
  return order;
}

TEST_CASE("the order of simultaneous events does not depend on how nodes' scheduling interleaves") {
  // Node 0 schedules first and node 3 last, then the reverse: each node's own events are the
  // same, so the runs agree, event for event.
  const auto forward = simultaneous_order({10, 20, 30, 40});
  const auto backward = simultaneous_order({40, 30, 20, 10});
  REQUIRE(forward.size() == 12);
  CHECK(forward == backward);
  // By time, then origin, then the origin's counter (its initial event was its counter 0).
  CHECK(forward[0] == std::array<uint32_t, 4>{4, 0, 0, 1});
  CHECK(forward[1] == std::array<uint32_t, 4>{5, 2, 0, 3});
  CHECK(forward[2] == std::array<uint32_t, 4>{5, 10, 1, 1});
  CHECK(forward[7] == std::array<uint32_t, 4>{4, 32, 3, 3});
  for (uint32_t n = 0; n < 4; ++n)
    CHECK(forward[8 + n] == std::array<uint32_t, 4>{4, 10 * n + 1, n, 2});
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
