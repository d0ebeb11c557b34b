// A network saved with messages in flight and loaded into a fresh one carries on as if never
// interrupted: the same deliveries at the same times, also for messages half-way along a route.
#include <doctest/doctest.h>

#include "harness.hpp"

using namespace dlsim;
using namespace dlsim::test;

TEST_CASE("a message saved half-way along its route is delivered after loading as without a save") {
  // 0 - 1 - 2 - 3 with latencies 1, 2 and 3 ms, T = 1 ms per hop: a message that took another
  // link than its route's would arrive at another time.
  const topo::Graph g(4, {edge(0, 1, SimTime::from_ms(1)), edge(1, 2, SimTime::from_ms(2)),
                          edge(2, 3, SimTime::from_ms(3))});
  Network uninterrupted(g, NetworkConfig{}, 1);
  Simulator whole(1);
  uninterrupted.send(whole, AgentId{0}, AgentId{3}, 125000);
  const auto expected = run(whole, uninterrupted);
  REQUIRE(expected.size() == 1);
  REQUIRE(expected[0].at_ns == 9000000);  // 3 x 1 ms + 1 + 2 + 3 ms

  Network before(g, NetworkConfig{}, 1);
  Simulator first(1);
  before.send(first, AgentId{0}, AgentId{3}, 125000);
  REQUIRE(run(first, before, SimTime::from_ms(3)).empty());  // now on the link 1 -> 2
  Network after(g, NetworkConfig{}, 1);
  Simulator second(1);
  // A route store built in another order: the loaded message must not read its hops from it.
  after.send(second, AgentId{3}, AgentId{0}, 1);
  save_and_load(first, before, second, after, "route-in-flight.bin");
  const auto got = run(second, after);
  REQUIRE(got.size() == 1);
  CHECK(got[0].from == 0);
  CHECK(got[0].to == 3);
  CHECK(got[0].at_ns == expected[0].at_ns);
  CHECK(second.fingerprint().value() == whole.fingerprint().value());
  CHECK(after.link(after.link_between(AgentId{2}, AgentId{3})).counters().delivered.messages == 1);
}
