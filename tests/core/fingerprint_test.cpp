#include <doctest/doctest.h>

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
