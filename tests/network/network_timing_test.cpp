// When messages arrive: single links, FIFO queues, store-and-forward routes, NICs, headers.
// Every time below is derived by hand from T = ceil(8e9 S / B) ns and the latencies.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "harness.hpp"

using namespace dlsim;
using namespace dlsim::test;

TEST_CASE("a 1-byte message to a neighbour is latency-bound: 1 ms plus 8 ns") {
  const topo::Graph g = line(2, SimTime::from_ms(1));
  Network net(g, NetworkConfig{}, 1);
  Simulator sim(1);
  const uint32_t slot = net.send(sim, AgentId{0}, AgentId{1}, 1);
  const auto got = run(sim, net);
  REQUIRE(got.size() == 1);
  CHECK(got[0].at_ns == 1000008);
  CHECK(got[0].slot == slot);
  CHECK(sim.events_processed() == 1);  // one event per hop: the last one is the delivery itself
}

TEST_CASE("a 1e9-byte message over 1 Gbps is bandwidth-bound: 8 s plus the latency") {
  const topo::Graph g = line(2, SimTime::from_ms(1));
  Network net(g, NetworkConfig{}, 1);
  Simulator sim(1);
  net.send(sim, AgentId{1}, AgentId{0}, 1000000000);
  const auto got = run(sim, net);
  REQUIRE(got.size() == 1);
  CHECK(got[0].at_ns == 8001000000);
}

TEST_CASE("two messages on one link arrive FIFO, the second one serialisation after the first") {
  const topo::Graph g = line(2, SimTime::from_ms(1));
  Network net(g, NetworkConfig{}, 1);
  Simulator sim(1);
  const uint32_t first = net.send(sim, AgentId{0}, AgentId{1}, 1000000);  // T = 8 ms
  const uint32_t second = net.send(sim, AgentId{0}, AgentId{1}, 1000000);
  const auto got = run(sim, net);
  REQUIRE(got.size() == 2);
  CHECK(got[0].slot == first);
  CHECK(got[0].at_ns == 9000000);  // 8 ms + 1 ms
  CHECK(got[1].slot == second);
  CHECK(got[1].at_ns == 17000000);  // 16 ms + 1 ms
}

TEST_CASE("a three-hop route on a line is store-and-forward: 3 x (S/B + L)") {
  const topo::Graph g = line(4, SimTime::from_ms(2));
  Network net(g, NetworkConfig{}, 1);
  Simulator sim(1);
  net.send(sim, AgentId{0}, AgentId{3}, 125000);  // T = 1 ms per hop
  const auto got = run(sim, net);
  REQUIRE(got.size() == 1);
  CHECK(got[0].at_ns == 3 * (1000000 + 2000000));
  CHECK(sim.events_processed() == 3);  // two link arrivals at 1 and 2, then the delivery
  for (uint32_t i = 0; i < 3; ++i) {
    CHECK(net.link(net.link_between(AgentId{i}, AgentId{i + 1})).counters().delivered ==
          TrafficCount{1, 125000});
    CHECK(net.link(net.link_between(AgentId{i + 1}, AgentId{i})).counters().sent.messages == 0);
  }
}

TEST_CASE("the shortest-latency route wins over the one with fewest hops") {
  // 0-1-3 costs 20 ms in two hops; 0-2-4-3 costs 3 ms in three hops.
  const SimTime slow = SimTime::from_ms(10);
  const SimTime fast = SimTime::from_ms(1);
  const topo::Graph g(5, {edge(0, 1, slow), edge(1, 3, slow), edge(0, 2, fast), edge(2, 4, fast),
                          edge(3, 4, fast)});
  Network net(g, NetworkConfig{}, 1);
  Simulator sim(1);
  net.send(sim, AgentId{0}, AgentId{3}, 125);  // T = 1000 ns per hop
  const auto got = run(sim, net);
  REQUIRE(got.size() == 1);
  CHECK(got[0].at_ns == 3 * (1000 + 1000000));
  CHECK(net.link(net.link_between(AgentId{0}, AgentId{1})).counters().sent.messages == 0);
  CHECK(net.link(net.link_between(AgentId{4}, AgentId{3})).counters().sent.messages == 1);
}

TEST_CASE("intermediate links serve messages in the order they actually reach them") {
  // 0 -1.5ms- 2 -1ms- 3 and 1 -1ms- 2; S = 125000 bytes, T = 1 ms on every link. Both send to
  // 3 at t = 0, agent 0 first. Agent 1's message reaches node 2 at 2 ms and holds link 2->3
  // until 3 ms (arrival 4 ms); agent 0's reaches node 2 at 2.5 ms, waits, leaves at 4 ms and
  // arrives at 5 ms. Reserving the whole path at send time would have put agent 0's first.
  const topo::Graph g(4, {edge(0, 2, SimTime::from_us(1500)), edge(1, 2, SimTime::from_ms(1)),
                          edge(2, 3, SimTime::from_ms(1))});
  Network net(g, NetworkConfig{}, 1);
  Simulator sim(1);
  net.send(sim, AgentId{0}, AgentId{3}, 125000);
  net.send(sim, AgentId{1}, AgentId{3}, 125000);
  const auto got = run(sim, net);
  REQUIRE(got.size() == 2);
  CHECK(got[0].from == 1);
  CHECK(got[0].at_ns == 4000000);
  CHECK(got[1].from == 0);
  CHECK(got[1].at_ns == 5000000);
}

TEST_CASE("a broadcast through a NIC uplink: the k-th of d arrives at k S/B_nic + S/B_link + L") {
  // d = 4 leaves, links 10 Gbps and 1 ms, uplink 1 Gbps, S = 125000 bytes:
  // S/B_nic = 1 ms, S/B_link = 0.1 ms, so arrivals at 2.1, 3.1, 4.1 and 5.1 ms.
  const topo::Graph g = star(4, SimTime::from_ms(1), 10 * kGbps);
  NetworkConfig config;
  config.nic_uplink_bps = kGbps;
  Network net(g, config, 1);
  Simulator sim(1);
  for (uint32_t leaf = 1; leaf <= 4; ++leaf) net.send(sim, AgentId{0}, AgentId{leaf}, 125000);
  CHECK(net.uplink(AgentId{0}).busy_until().ns == 4000000);  // d S / B_nic until the last leaves
  const auto got = run(sim, net);
  REQUIRE(got.size() == 4);
  for (uint32_t k = 1; k <= 4; ++k) {
    CHECK(got[k - 1].to == k);
    CHECK(got[k - 1].at_ns == k * 1000000 + 100000 + 1000000);
  }
}

TEST_CASE("messages into a NIC downlink serialise after their last link, in arrival order") {
  // Leaves 1..3 each send S = 125000 bytes to 0 over 10 Gbps, 1 ms links: all reach node 0 at
  // 1.1 ms, then the 1 Gbps downlink takes 1 ms each: 2.1, 3.1, 4.1 ms.
  const topo::Graph g = star(3, SimTime::from_ms(1), 10 * kGbps);
  NetworkConfig config;
  config.nic_downlink_bps = kGbps;
  Network net(g, config, 1);
  Simulator sim(1);
  for (uint32_t leaf = 1; leaf <= 3; ++leaf) net.send(sim, AgentId{leaf}, AgentId{0}, 125000);
  const auto got = run(sim, net);
  REQUIRE(got.size() == 3);
  for (uint32_t k = 1; k <= 3; ++k) {
    CHECK(got[k - 1].from == k);
    CHECK(got[k - 1].at_ns == 1100000 + k * 1000000);
  }
}

TEST_CASE("per-agent NIC rates override the common one, and zero means no NIC") {
  const topo::Graph g = line(3, SimTime::from_ms(1));
  NetworkConfig config;
  config.nic_uplink_bps = kGbps;
  config.nic_uplink_bps_per_agent = {kGbps / 2, 0, kGbps};
  Network net(g, config, 1);
  Simulator sim(1);
  const uint32_t slow = net.send(sim, AgentId{0}, AgentId{1}, 125000);  // uplink 2 ms + 1 + 1
  const uint32_t fast = net.send(sim, AgentId{1}, AgentId{2}, 125000);  // no uplink: 1 + 1 ms
  const auto got = run(sim, net);
  REQUIRE(got.size() == 2);
  CHECK(got[0].slot == fast);
  CHECK(got[0].at_ns == 2000000);
  CHECK(got[1].slot == slow);
  CHECK(got[1].at_ns == 4000000);
}

TEST_CASE("header bytes travel on the wire and are counted, the payload size is kept") {
  const topo::Graph g = line(2, SimTime::from_ms(1));
  NetworkConfig config;
  config.header_bytes = 25;
  Network net(g, config, 1);
  NodeCounts counts(2);
  net.set_listener(counts);
  Simulator sim(1);
  net.send(sim, AgentId{0}, AgentId{1}, 100);  // 125 bytes on the wire: 1000 ns
  const auto got = run(sim, net);
  REQUIRE(got.size() == 1);
  CHECK(got[0].size_bytes == 100);
  CHECK(got[0].at_ns == 1001000);
  CHECK(counts.sent[0] == TrafficCount{1, 125});
  CHECK(counts.received[1] == TrafficCount{1, 125});
}

TEST_CASE("16 agents on a 4x4 torus exchanging 800000-byte messages all arrive at 7.4 ms") {
  // 800000 bytes at 1 Gbit/s = 6.4 ms, plus 1 ms; each directed link carries one message.
  std::vector<topo::Edge> edges;
  for (uint32_t r = 0; r < 4; ++r)
    for (uint32_t c = 0; c < 4; ++c) {
      edges.push_back(edge(4 * r + c, 4 * r + (c + 1) % 4, SimTime::from_ms(1)));
      edges.push_back(edge(4 * r + c, 4 * ((r + 1) % 4) + c, SimTime::from_ms(1)));
    }
  const topo::Graph g(16, edges);
  Network net(g, NetworkConfig{}, 1);
  Simulator sim(1);
  for (uint32_t i = 0; i < 16; ++i)
    for (uint32_t j : g.neighbors(i)) net.send(sim, AgentId{i}, AgentId{j}, 800000);
  const auto got = run(sim, net);
  CHECK(got.size() == 64);
  CHECK(std::all_of(got.begin(), got.end(), [](const Delivery& d) { return d.at_ns == 7400000; }));
  CHECK(net.live_messages() == 0);
}
