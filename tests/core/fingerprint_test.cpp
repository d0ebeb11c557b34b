#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "sim/core/simulator.hpp"

using namespace dlsim;

namespace {

// A small random workload: each event reschedules itself after a delay drawn from the agent's
// stream, so the trajectory depends on the seed.
uint64_t run_workload(uint64_t seed) {
  Simulator sim(seed);
  std::vector<RandomStream> streams;
  for (uint32_t a = 0; a < 8; ++a) {
    streams.push_back(sim.stream("delay", a));
    sim.schedule_at(SimTime{}, EventKind::kTimer, AgentId{a});
  }
  sim.run([&](const Event& e) {
    sim.schedule_in(SimTime::from_ns(1 + static_cast<int64_t>(streams[e.agent.value].below(100))),
                    EventKind::kTimer, e.agent);
  }, SimTime::from_ns(5000));
  return sim.fingerprint().value();
}

}  // namespace

TEST_CASE("the same seed gives the same fingerprint and another seed a different one") {
  CHECK(run_workload(1) == run_workload(1));
  CHECK(run_workload(1) != run_workload(2));
}

TEST_CASE("the fingerprint sees parameter bytes") {
  Fingerprint a, b;
  const float x[3] = {1.0f, 2.0f, 3.0f};
  const float y[3] = {1.0f, 2.0f, 3.0000002f};
  a.add_bytes(std::as_bytes(std::span(x)));
  b.add_bytes(std::as_bytes(std::span(y)));
  CHECK(a.value() != b.value());
}

TEST_CASE("the fingerprint does not depend on the order in which different nodes' events ran") {
  // A run's events as handled, then the same events grouped by node (each node's own sequence
  // unchanged, the interleaving of nodes changed): one fingerprint. The payload, a slot from a
  // run-wide free list, is not part of it.
  Simulator sim(5);
  std::vector<RandomStream> streams;
  for (uint32_t a = 0; a < 6; ++a) {
    streams.push_back(sim.stream("delay", a));
    sim.schedule_at(SimTime{}, EventKind::kTimer, AgentId{a});
  }
  std::vector<Event> handled;
  sim.run(
      [&](const Event& e) {
        handled.push_back(e);
        RandomStream& s = streams[e.agent.value];
        const AgentId to{static_cast<uint32_t>(s.below(6))};
        sim.schedule_in(SimTime::from_ns(static_cast<int64_t>(s.below(4))), EventKind::kDelivery,
                        to, static_cast<uint32_t>(handled.size()));
      },
      SimTime::from_ns(60));
  REQUIRE(handled.size() > 100);
  std::vector<Event> by_node = handled;
  std::stable_sort(by_node.begin(), by_node.end(),
                   [](const Event& a, const Event& b) { return a.agent < b.agent; });
  REQUIRE_FALSE(std::equal(by_node.begin(), by_node.end(), handled.begin(),
                           [](const Event& a, const Event& b) { return a.agent == b.agent; }));
  for (Event& e : by_node) e.payload = 0;
  EventFingerprints replayed;
  for (const Event& e : by_node) replayed.add(e);
  CHECK(replayed.combined().value() == sim.fingerprint().value());
  // A node's own order does count.
  const auto second_of_node_0 = std::find_if(by_node.begin() + 1, by_node.end(),
                                             [](const Event& e) { return e.agent.value == 0; });
  std::swap(by_node.front(), *second_of_node_0);
  EventFingerprints swapped;
  for (const Event& e : by_node) swapped.add(e);
  CHECK(swapped.combined().value() != sim.fingerprint().value());
}
