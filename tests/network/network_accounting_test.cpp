// What the network counts, loses and recycles: loss, jitter, counters, message slots, misuse.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "harness.hpp"

using namespace dlsim;
using namespace dlsim::test;

TEST_CASE("loss 1.0 drops every message, counts it for sender and link, and frees its slot") {
  const topo::Graph g = line(2, SimTime::from_ms(1));
  NetworkConfig config;
  config.loss_probability = 1.0;
  Network net(g, config, 1);
  NodeCounts counts(2);
  net.set_listener(counts);
  Simulator sim(1);
  for (int i = 0; i < 100; ++i) net.send(sim, AgentId{0}, AgentId{1}, 10);
  CHECK(net.live_messages() == 0);
  CHECK(run(sim, net).empty());
  CHECK(sim.events_processed() == 0);
  CHECK(counts.sent[0] == TrafficCount{100, 1000});
  CHECK(counts.dropped[0] == TrafficCount{100, 1000});
  CHECK(counts.received[1] == TrafficCount{0, 0});
  const Link& link = net.link(net.link_between(AgentId{0}, AgentId{1}));
  CHECK(link.counters().dropped == TrafficCount{100, 1000});
  CHECK(link.counters().delivered == TrafficCount{0, 0});
}

TEST_CASE("loss 0.3 drops about 30 percent of messages, the same ones for the same seed") {
  const topo::Graph g = line(2, SimTime::from_ms(1));
  NetworkConfig config;
  config.loss_probability = 0.3;
  auto deliveries = [&](uint64_t seed) {
    Network net(g, config, seed);
    NodeCounts counts(2);
    net.set_listener(counts);
    Simulator sim(seed);
    for (uint64_t i = 0; i < 10000; ++i) net.send(sim, AgentId{0}, AgentId{1}, 1);
    // A lost message still takes its turn on the wire, so message i arrives (or would) at
    // 1 ms + 8 (i + 1) ns: the arrival times name the messages kept.
    std::vector<int64_t> kept;
    for (const Delivery& d : run(sim, net)) kept.push_back(d.at_ns);
    CHECK(counts.dropped[0].messages + kept.size() == 10000);
    return kept;
  };
  const std::vector<int64_t> kept = deliveries(7);
  // Binomial(10000, 0.3) losses: mean 3000, standard deviation 46; five deviations either side.
  CHECK(kept.size() >= 10000 - 3230);
  CHECK(kept.size() <= 10000 - 2770);
  CHECK(deliveries(7) == kept);
  CHECK(deliveries(8) != kept);
}

TEST_CASE("on a route every hop may lose the message, and losses count for the sender") {
  const topo::Graph g = line(3, SimTime::from_ms(1));
  NetworkConfig config;
  config.loss_probability = 0.5;
  Network net(g, config, 3);
  NodeCounts counts(3);
  net.set_listener(counts);
  Simulator sim(3);
  for (int i = 0; i < 4000; ++i) net.send(sim, AgentId{0}, AgentId{2}, 1);
  const auto got = run(sim, net);
  const TrafficCount first = net.link(net.link_between(AgentId{0}, AgentId{1})).counters().dropped;
  const TrafficCount second = net.link(net.link_between(AgentId{1}, AgentId{2})).counters().dropped;
  CHECK(first.messages + second.messages == counts.dropped[0].messages);
  CHECK(got.size() + first.messages + second.messages == 4000);
  // Each hop keeps half: about 1000 of 4000 arrive (standard deviation 27).
  CHECK(got.size() > 850);
  CHECK(got.size() < 1150);
  CHECK(counts.sent[1].messages == 0);  // forwarding is not sending
}

TEST_CASE("jitter delays each delivery by at most the jitter, per hop") {
  const topo::Graph g = line(3, SimTime::from_ms(1));
  NetworkConfig config;
  config.jitter = SimTime::from_us(200);
  Network net(g, config, 5);
  Simulator sim(5);
  // One message every 10 ms, so none ever queues behind another: base = 1 ms + 1000 ns per hop.
  for (int i = 0; i < 200; ++i)
    sim.schedule_at(SimTime::from_ms(10 * i), EventKind::kTimer, AgentId{});
  const auto got = run(sim, net, SimTime::max(), [&](const Event& e) {
    net.send(sim, AgentId{0}, AgentId{e.time.ns % 20000000 == 0 ? 1u : 2u}, 125);
  });
  REQUIRE(got.size() == 200);
  int64_t highest[3] = {0, 0, 0};
  for (const Delivery& d : got) {
    const int64_t extra = d.at_ns - d.sent_ns - d.to * 1001000;
    CHECK(extra >= 0);
    CHECK(extra <= d.to * 200000);  // each hop adds up to 200 us
    highest[d.to] = std::max(highest[d.to], extra);
  }
  CHECK(highest[1] > 180000);
  CHECK(highest[2] > 200000);  // two hops can add more than one jitter
}

TEST_CASE("signals and link counters: sent when sent, received and delivered when arrived") {
  // Line 0-1-2, 1 ms links, 100 bytes = 800 ns. Agent 0 sends 2 x 100 B to 2 (via 1) and
  // 50 B to 1; agent 2 sends 10 B to 1.
  const topo::Graph g = line(3, SimTime::from_ms(1));
  Network net(g, NetworkConfig{}, 1);
  NodeCounts counts(3);
  net.set_listener(counts);
  Simulator sim(1);
  net.send(sim, AgentId{0}, AgentId{2}, 100);
  net.send(sim, AgentId{0}, AgentId{2}, 100);
  net.send(sim, AgentId{0}, AgentId{1}, 50);
  net.send(sim, AgentId{2}, AgentId{1}, 10);
  const LinkCounters& l01 = net.link(net.link_between(AgentId{0}, AgentId{1})).counters();
  const LinkCounters& l12 = net.link(net.link_between(AgentId{1}, AgentId{2})).counters();
  CHECK(l01.sent == TrafficCount{3, 250});
  CHECK(l01.delivered == TrafficCount{0, 0});  // nothing has arrived yet
  CHECK(counts.received[1] == TrafficCount{0, 0});
  run(sim, net, SimTime::from_us(1500));  // first hop done, second in flight
  CHECK(l01.delivered == TrafficCount{3, 250});
  CHECK(l12.sent == TrafficCount{2, 200});
  CHECK(counts.received[1] == TrafficCount{2, 60});
  CHECK(counts.received[2] == TrafficCount{0, 0});
  run(sim, net);
  CHECK(l12.delivered == TrafficCount{2, 200});
  CHECK(net.link(net.link_between(AgentId{2}, AgentId{1})).counters().delivered ==
        TrafficCount{1, 10});
  CHECK(net.link(net.link_between(AgentId{1}, AgentId{0})).counters().sent == TrafficCount{0, 0});
  CHECK(counts.sent[0] == TrafficCount{3, 250});
  CHECK(counts.sent[1] == TrafficCount{0, 0});
  CHECK(counts.sent[2] == TrafficCount{1, 10});
  CHECK(counts.received[2] == TrafficCount{2, 200});
  TrafficCount sent, received, dropped;
  for (uint32_t i = 0; i < 3; ++i) {
    sent += counts.sent[i];
    received += counts.received[i];
    dropped += counts.dropped[i];
  }
  CHECK(sent == TrafficCount{4, 260});
  CHECK(received == TrafficCount{4, 260});
  CHECK(dropped == TrafficCount{0, 0});
}

TEST_CASE("a delivered message carries sender, receiver, size and send time") {
  const topo::Graph g = line(2, SimTime::from_ms(1));
  Network net(g, NetworkConfig{}, 1);
  Simulator sim(1);
  sim.schedule_at(SimTime::from_ms(5), EventKind::kTimer, AgentId{1});
  const auto got = run(sim, net, SimTime::max(),
                       [&](const Event& e) { net.send(sim, e.agent, AgentId{0}, 125); });
  REQUIRE(got.size() == 1);
  CHECK(got[0].from == 1);
  CHECK(got[0].to == 0);
  CHECK(got[0].size_bytes == 125);
  CHECK(got[0].sent_ns == 5000000);
  CHECK(got[0].at_ns == 6001000);
}

TEST_CASE("message slots are recycled after release, so steady traffic reuses them") {
  const topo::Graph g = line(2, SimTime::from_ms(1));
  Network net(g, NetworkConfig{}, 1);
  Simulator sim(1);
  const uint32_t a = net.send(sim, AgentId{0}, AgentId{1}, 1);
  const uint32_t b = net.send(sim, AgentId{0}, AgentId{1}, 1);
  CHECK(a != b);
  CHECK(net.live_messages() == 2);
  run(sim, net);
  CHECK(net.live_messages() == 0);
  const uint32_t c = net.send(sim, AgentId{0}, AgentId{1}, 1);
  CHECK((c == a || c == b));
}

TEST_CASE("handle takes the network's events and leaves the agents' to them") {
  const topo::Graph g = line(3, SimTime::from_ms(1));
  NetworkConfig config;
  config.nic_uplink_bps = kGbps;
  Network net(g, config, 1);
  Simulator sim(1);
  net.send(sim, AgentId{0}, AgentId{2}, 1);
  sim.schedule_at(SimTime::from_ms(10), EventKind::kTimer, AgentId{0});
  std::vector<std::pair<EventKind, bool>> seen;
  sim.run([&](const Event& e) {
    seen.emplace_back(e.kind(), net.handle(sim, e));
    if (e.kind() == EventKind::kDelivery) net.release(e.payload);
  });
  CHECK(seen == std::vector<std::pair<EventKind, bool>>{{EventKind::kNicRelease, true},
                                                        {EventKind::kLinkArrival, true},
                                                        {EventKind::kDelivery, false},
                                                        {EventKind::kTimer, false}});
}

TEST_CASE("releasing a message that was not delivered through handle is an invariant error") {
  const topo::Graph g = line(2, SimTime::from_ms(1));
  Network net(g, NetworkConfig{}, 1);
  Simulator sim(1);
  const uint32_t slot = net.send(sim, AgentId{0}, AgentId{1}, 1);
  CHECK_THROWS_AS(net.release(slot), InvariantError);
  sim.run([&](const Event& e) { CHECK_THROWS_AS(net.release(e.payload), InvariantError); });
}

TEST_CASE("sending to oneself or to an unreachable agent is an invariant error") {
  const topo::Graph g(4, {edge(0, 1, SimTime::from_ms(1)), edge(2, 3, SimTime::from_ms(1))});
  Network net(g, NetworkConfig{}, 1);
  Simulator sim(1);
  CHECK_THROWS_AS(net.send(sim, AgentId{0}, AgentId{0}, 1), InvariantError);
  CHECK_THROWS_WITH_AS(net.send(sim, AgentId{0}, AgentId{3}, 1),
                       doctest::Contains("disconnected"), InvariantError);
  CHECK_THROWS_AS(net.send(sim, AgentId{0}, AgentId{4}, 1), InvariantError);
}
