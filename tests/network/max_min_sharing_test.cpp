// network.sharing "maxmin": messages crossing a link or NIC at the same time share it max-min
// fairly, each as one flow over its whole route. Times by hand: a flow's bits / its rate, rounded
// up to whole ns, plus the route's latencies.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "harness.hpp"
#include "sim/core/state_archive.hpp"

using namespace dlsim;
using namespace dlsim::test;

namespace {

NetworkConfig max_min() {
  NetworkConfig config;
  config.sharing = Sharing::kMaxMin;
  return config;
}

}  // namespace

TEST_CASE("maxmin: two equal messages entering one link together both end at 2T, FIFO at T, 2T") {
  const topo::Graph g = line(2, SimTime::from_ms(1));  // 1 Gbps; S = 1e6 bytes: T = 8 ms
  for (const Sharing sharing : {Sharing::kFifo, Sharing::kMaxMin}) {
    NetworkConfig config;
    config.sharing = sharing;
    Network net(g, config, 1);
    Simulator sim(1);
    net.send(sim, AgentId{0}, AgentId{1}, 1000000);
    net.send(sim, AgentId{0}, AgentId{1}, 1000000);
    const auto got = run(sim, net);
    REQUIRE(got.size() == 2);
    const bool fifo = sharing == Sharing::kFifo;
    CHECK(got[0].at_ns == (fifo ? 9000000 : 17000000));  // T + L, or 2T + L (0.5 Gbps each)
    CHECK(got[1].at_ns == 17000000);
  }
}

TEST_CASE("maxmin: three flows on two links, one crossing both, get the textbook rates") {
  // Link 0->1: 10 Mbps, link 1->2: 4 Mbps, 1 ms each. A: 0->2 (10,000 bytes = 80,000 bits),
  // B: 0->1 (80,000 bits), C: 1->2 (5,000 bytes = 40,000 bits). Link 1->2 is the bottleneck:
  // A = C = 2 Mbps, B = 10 - 2 = 8 Mbps.
  //   B ends at 80,000 / 8e6 = 10 ms (A and C keep 2 Mbps: link 1->2 still binds them);
  //   C ends at 40,000 / 2e6 = 20 ms; A has sent 40,000 bits and now gets min(10, 4) = 4 Mbps:
  //   A ends at 20 + 40,000 / 4e6 = 30 ms. Deliveries add 1 ms per link.
  const topo::Graph g(
      3, {edge(0, 1, SimTime::from_ms(1), 10000000), edge(1, 2, SimTime::from_ms(1), 4000000)});
  Network net(g, max_min(), 1);
  Simulator sim(1);
  net.send(sim, AgentId{0}, AgentId{2}, 10000);
  net.send(sim, AgentId{0}, AgentId{1}, 10000);
  net.send(sim, AgentId{1}, AgentId{2}, 5000);
  const auto got = run(sim, net);
  REQUIRE(got.size() == 3);
  CHECK((got[0].from == 0 && got[0].to == 1 && got[0].at_ns == 11000000));
  CHECK((got[1].from == 1 && got[1].to == 2 && got[1].at_ns == 21000000));
  CHECK((got[2].from == 0 && got[2].to == 2 && got[2].at_ns == 32000000));
}

TEST_CASE("maxmin: a flow ending frees its share for a flow that started later") {
  // 1 Gbps, 1 ms; M1 (8e6 bits) at 0, M2 (8e6 bits) at 4 ms. M1 alone sends 4e6 bits by 4 ms,
  // then both get 0.5 Gbps: M1 ends at 4 + 8 = 12 ms. M2 has 4e6 bits left, alone at 1 Gbps:
  // ends at 16 ms. Deliveries at 13 and 17 ms (FIFO: 9 and 17 ms).
  const topo::Graph g = line(2, SimTime::from_ms(1));
  Network net(g, max_min(), 1);
  Simulator sim(1);
  net.send(sim, AgentId{0}, AgentId{1}, 1000000);
  sim.schedule_at(SimTime::from_ms(4), EventKind::kTimer, AgentId{0});
  const auto got = run(sim, net, SimTime::max(),
                       [&](const Event&) { net.send(sim, AgentId{0}, AgentId{1}, 1000000); });
  REQUIRE(got.size() == 2);
  CHECK(got[0].at_ns == 13000000);
  CHECK(got[1].at_ns == 17000000);
  // M2's first end event (4 + 16 = 20 ms) went stale when M1 ended: it must not move the clock.
  CHECK(sim.now().ns == 17000000);
}

TEST_CASE("maxmin: ends round up to whole ns, and floating-point error adds no ns") {
  // Three 5-byte messages on 1 Gbps: 40 bits at 1/3 Gbps = 120 ns exactly, which doubles give as
  // 120.00000000000001 (FIFO: 40, 80, 120 ns).
  const topo::Graph g = line(2, SimTime::from_ms(1));
  Network net(g, max_min(), 1);
  Simulator sim(1);
  for (int i = 0; i < 3; ++i) net.send(sim, AgentId{0}, AgentId{1}, 5);
  const auto got = run(sim, net);
  REQUIRE(got.size() == 3);
  for (const Delivery& d : got) CHECK(d.at_ns == 1000120);
  // One byte alone on 6 Gbps: 8 / 6 = 1.33 ns, rounded up to 2 as FIFO's T(S).
  const topo::Graph fast = line(2, SimTime::from_ms(1), 6 * kGbps);
  Network one(fast, max_min(), 1);
  Simulator sim2(1);
  one.send(sim2, AgentId{0}, AgentId{1}, 1);
  const auto alone = run(sim2, one);
  REQUIRE(alone.size() == 1);
  CHECK(alone[0].at_ns == 1000002);
}

TEST_CASE("maxmin: a NIC uplink is shared by the flows leaving it, pipelined with their links") {
  // Star, links 10 Gbps and 1 ms, uplink 1 Gbps, S = 125000 bytes (1e6 bits) to each of 4
  // leaves: each flow gets 0.25 Gbps of the uplink, all end at 4 ms, arrive at 5 ms (FIFO: the
  // k-th at k + 0.1 + 1 ms).
  const topo::Graph g = star(4, SimTime::from_ms(1), 10 * kGbps);
  NetworkConfig config = max_min();
  config.nic_uplink_bps = kGbps;
  Network net(g, config, 1);
  Simulator sim(1);
  for (uint32_t leaf = 1; leaf <= 4; ++leaf) net.send(sim, AgentId{0}, AgentId{leaf}, 125000);
  const auto got = run(sim, net);
  REQUIRE(got.size() == 4);
  for (const Delivery& d : got) CHECK(d.at_ns == 5000000);
}

TEST_CASE("maxmin: a multi-hop message alone takes S / B + every latency, and counts per link") {
  const topo::Graph g = line(4, SimTime::from_ms(2));  // FIFO: 3 x (1 + 2) ms
  Network net(g, max_min(), 1);
  Simulator sim(1);
  net.send(sim, AgentId{0}, AgentId{3}, 125000);  // 1e6 bits at 1 Gbps = 1 ms
  const auto got = run(sim, net);
  REQUIRE(got.size() == 1);
  CHECK(got[0].at_ns == 1000000 + 3 * 2000000);
  for (uint32_t i = 0; i < 3; ++i) {
    const LinkCounters& c = net.link(net.link_between(AgentId{i}, AgentId{i + 1})).counters();
    CHECK(c.sent == TrafficCount{1, 125000});
    CHECK(c.delivered == TrafficCount{1, 125000});
  }
}

TEST_CASE("maxmin: a lost message is dropped when its bits are out, and an offline receiver's") {
  const topo::Graph g = line(2, SimTime::from_ms(1));
  NetworkConfig config = max_min();
  config.loss_probability = 1.0;
  Network lossy(g, config, 1);
  NodeCounts counts(2);
  lossy.set_listener(counts);
  Simulator sim(1);
  const uint32_t slot = lossy.send(sim, AgentId{0}, AgentId{1}, 1000000);
  CHECK(lossy.in_flight(slot));
  CHECK(run(sim, lossy).empty());
  CHECK(sim.now().ns == 8000000);  // the flow's end; no propagation
  CHECK(counts.dropped[0] == TrafficCount{1, 1000000});
  CHECK(lossy.live_messages() == 0);

  Network net(g, max_min(), 1);
  NodeCounts seen(2);
  net.set_listener(seen);
  Simulator sim2(1);
  net.send(sim2, AgentId{0}, AgentId{1}, 1000000);
  net.set_online(AgentId{1}, false);
  CHECK(run(sim2, net).empty());
  CHECK(seen.dropped[0] == TrafficCount{1, 1000000});
  CHECK(net.live_messages() == 0);
}

TEST_CASE("maxmin: a ring round with one message per link at a time delivers exactly as fifo") {
  // 8 nodes, each sending to both neighbours: every directed link carries one message alone.
  std::vector<topo::Edge> edges;
  for (uint32_t i = 0; i < 8; ++i)
    edges.push_back(edge(std::min(i, (i + 1) % 8), std::max(i, (i + 1) % 8),
                         SimTime::from_us(300 + 10 * i), 100000000));
  const topo::Graph g(8, edges);
  std::vector<Delivery> got[2];
  for (const Sharing sharing : {Sharing::kFifo, Sharing::kMaxMin}) {
    NetworkConfig config;
    config.sharing = sharing;
    Network net(g, config, 1);
    Simulator sim(1);
    for (uint32_t i = 0; i < 8; ++i) {
      net.send(sim, AgentId{i}, AgentId{(i + 1) % 8}, 12345 + i);
      net.send(sim, AgentId{i}, AgentId{(i + 7) % 8}, 54321 + i);
    }
    got[sharing == Sharing::kMaxMin] = run(sim, net);
  }
  REQUIRE(got[0].size() == 16);
  REQUIRE(got[1].size() == 16);
  for (size_t k = 0; k < 16; ++k) {
    CHECK(got[0][k].from == got[1][k].from);
    CHECK(got[0][k].to == got[1][k].to);
    CHECK(got[0][k].at_ns == got[1][k].at_ns);
  }
}

TEST_CASE("maxmin: a full send buffer coalesces a copy into the newest flow of its pair") {
  // Bound 1: the first copy's flow holds the buffer until it ends; the next two copies of the
  // same size take its place (same slot, same timing): one delivery, at T + L = 9 ms.
  const topo::Graph g = line(2, SimTime::from_ms(1));
  NetworkConfig config = max_min();
  config.send_buffer = SendBufferConfig{1, 0, WhenFull::kCoalesce};
  Network net(g, config, 1);
  Simulator sim(1);
  const SendResult first = net.offer(sim, AgentId{0}, AgentId{1}, 1000000, Buffering::kLatestValue);
  CHECK(first.outcome == SendOutcome::kSent);
  for (int k = 0; k < 2; ++k) {
    const SendResult r = net.offer(sim, AgentId{0}, AgentId{1}, 1000000, Buffering::kLatestValue);
    CHECK(r.outcome == SendOutcome::kSuperseded);
    CHECK(r.slot == first.slot);
  }
  const auto got = run(sim, net);
  REQUIRE(got.size() == 1);
  CHECK(got[0].at_ns == 9000000);
  // Its flow ended: the buffer has room again, the next copy starts a flow of its own.
  CHECK(net.offer(sim, AgentId{0}, AgentId{1}, 1000000, Buffering::kLatestValue).outcome ==
        SendOutcome::kSent);
}

TEST_CASE("maxmin: a blocked sender learns when its buffer has room from a kSenderReady event") {
  // Bound 1, messages that must arrive: M1 (8e6 bits) and M2 (16e6 bits) both start at once and
  // share 1 Gbps; the sender is blocked (2 held > 1) until M1 ends at 16 ms (M2 then ends at
  // 16 + 8e6 / 1e9 s = 24 ms). No time is known in advance: blocked_until is SimTime::max().
  const topo::Graph g = line(2, SimTime::from_ms(1));
  NetworkConfig config = max_min();
  config.send_buffer = SendBufferConfig{1, 0, WhenFull::kBlock};
  Network net(g, config, 1);
  Simulator sim(1);
  net.offer(sim, AgentId{0}, AgentId{1}, 1000000, Buffering::kEveryMessage);
  CHECK(net.blocked_until(AgentId{0}) == SimTime{});
  net.offer(sim, AgentId{0}, AgentId{1}, 2000000, Buffering::kEveryMessage);
  CHECK(net.blocked_until(AgentId{0}) == SimTime::max());
  std::vector<int64_t> ready_at, delivered_at;
  sim.run([&](const Event& e) {
    if (net.handle(sim, e)) return;
    if (e.kind() == EventKind::kSenderReady) {
      CHECK(e.agent == AgentId{0});
      CHECK(net.blocked_until(AgentId{0}) == SimTime{});
      ready_at.push_back(sim.now().ns);
    } else if (e.kind() == EventKind::kDelivery) {
      delivered_at.push_back(sim.now().ns);
      net.release(e.payload);
    }
  });
  CHECK(ready_at == std::vector<int64_t>{16000000});
  CHECK(delivered_at == std::vector<int64_t>{17000000, 25000000});
}

TEST_CASE("maxmin: a network saved with flows in flight and loaded elsewhere goes on the same") {
  // Triangle of 100 Mbps, 1 ms links; NICs: uplinks 10 Mbps, downlinks 4 Mbps. A: 0->1 and
  // C: 2->1 share 1's downlink (2 Mbps each); B: 0->2 and D: 0->2 (20,000 bits) share 2's (2
  // each). D ends at 10 ms; B's end then moves from 40 to 25 ms, leaving a stale event. Saved at
  // 15 ms with A, B and C in flight. (One-hop messages only: the router's route cache is not
  // part of a checkpoint yet.)
  const topo::Graph g(
      3, {edge(0, 1, SimTime::from_ms(1), 100000000), edge(0, 2, SimTime::from_ms(1), 100000000),
          edge(1, 2, SimTime::from_ms(1), 100000000)});
  NetworkConfig config = max_min();
  config.nic_uplink_bps = 10000000;
  config.nic_downlink_bps = 4000000;
  const auto start = [](Simulator& sim, Network& net) {
    net.send(sim, AgentId{0}, AgentId{1}, 10000);
    net.send(sim, AgentId{0}, AgentId{2}, 10000);
    net.send(sim, AgentId{2}, AgentId{1}, 5000);
    net.send(sim, AgentId{0}, AgentId{2}, 2500);
  };
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("dlsim-maxmin-" + std::to_string(getpid()) + ".bin"))
                               .string();
  Network net(g, config, 1);
  Simulator sim(1);
  start(sim, net);
  const auto before = run(sim, net, SimTime::from_ms(15));
  REQUIRE(before.size() == 1);
  CHECK(before[0].at_ns == 11000000);  // D
  {
    StateWriter out(path);
    StateArchive ar(out);
    sim.archive(ar);
    net.archive(ar);
    out.finish();
  }
  const auto after = run(sim, net);
  Network copy(g, config, 1);
  Simulator copy_sim(1);
  {
    StateReader in(path);
    StateArchive ar(in);
    copy_sim.archive(ar);
    copy.archive(ar);
    in.finish();
  }
  std::filesystem::remove(path);
  const auto resumed = run(copy_sim, copy);
  REQUIRE(after.size() == 3);
  CHECK(after[0].at_ns == 21000000);  // C: 40,000 bits at 2 Mbps
  CHECK(after[1].at_ns == 26000000);  // B: 20,000 bits by 10 ms, then 60,000 at 4 Mbps
  CHECK(after[2].at_ns == 31000000);  // A: 40,000 bits by 20 ms, then 40,000 at 4 Mbps
  REQUIRE(resumed.size() == 3);
  for (size_t k = 0; k < 3; ++k) {
    CHECK(resumed[k].from == after[k].from);
    CHECK(resumed[k].at_ns == after[k].at_ns);
  }
  CHECK(copy_sim.now() == sim.now());
  CHECK(copy_sim.events_processed() == sim.events_processed());
  CHECK(copy_sim.fingerprint().value() == sim.fingerprint().value());
}
