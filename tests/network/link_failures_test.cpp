// Links that fail: the failure state over time (trace and Markov), messages dropped on entering
// a down link or lost on one that fails under them, routes around down links, and a route store
// that stays bounded however often links change state. Times by hand from T = S/B and L.
#include "sim/network/link_failures.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "harness.hpp"

using namespace dlsim;
using namespace dlsim::test;

namespace {

LinkFailureSpec trace(std::vector<LinkDownInterval> intervals) {
  LinkFailureSpec f;
  f.kind = FailureKind::kTrace;
  f.file = "failures.csv";
  f.intervals = std::move(intervals);
  return f;
}

LinkFailureSpec markov(SimTime mtbf, SimTime mttr) {
  LinkFailureSpec f;
  f.kind = FailureKind::kMarkov;
  f.mtbf = mtbf;
  f.mttr = mttr;
  return f;
}

NetworkConfig with_failures(const LinkFailureSpec& f) {
  NetworkConfig c;
  c.failures = f;
  return c;
}

// 0 - 1 - 2 - 3 - 0, 1 ms per link; at 1 Gbit/s 125,000 bytes take T = 1 ms per hop.
topo::Graph ring4(uint64_t bandwidth_bps = kGbps) {
  return topo::Graph(4, {edge(0, 1, ms(1), bandwidth_bps), edge(1, 2, ms(1), bandwidth_bps),
                         edge(2, 3, ms(1), bandwidth_bps), edge(0, 3, ms(1), bandwidth_bps)});
}

struct Drops final : SignalListener {
  std::vector<DropReason> reasons;
  void message_dropped(const MessageSignal&, DropReason why) override { reasons.push_back(why); }
};

}  // namespace

TEST_CASE("a trace takes a link down from each interval's start up to, not including, its end") {
  const topo::Graph g = line(3, ms(1));
  LinkFailures f(trace({{1, 2, {ms(5), ms(8)}, 1}, {1, 2, {ms(8), ms(9)}, 2}}), g, 1);
  const auto edge12 = static_cast<uint32_t>(g.edge_index(1, 2));
  CHECK_FALSE(f.advance(ms(4)));
  CHECK_FALSE(f.down(edge12));
  CHECK(f.advance(ms(5)));
  CHECK(f.down(edge12));
  CHECK(f.failed_after(edge12, ms(4)));
  CHECK_FALSE(f.failed_after(edge12, ms(5)));
  f.advance(ms(8));  // up and down again at 8 ms: two intervals end to end
  CHECK(f.down(edge12));
  CHECK(f.failed_after(edge12, ms(7)));
  f.advance(ms(9));
  CHECK_FALSE(f.down(edge12));
  CHECK(f.failures() == 2);
  CHECK_FALSE(f.down(static_cast<uint32_t>(g.edge_index(0, 1))));
}

TEST_CASE("a trace naming two nodes that are not neighbours names its file and line") {
  CHECK_THROWS_WITH_AS(LinkFailures(trace({{0, 2, {ms(1), ms(2)}, 7}}), line(3, ms(1)), 1),
                       "failures.csv:7: no link between 0 and 2 in the physical network",
                       InputError);
}

TEST_CASE("Markov failures: the share of links down matches mttr / (mtbf + mttr)") {
  // 20,000 independent links looked at once, long after the start: each is down with
  // probability 1/10, so the share is within 3 standard errors (3 x 0.0021) of it.
  const topo::Graph g = line(20001, ms(1));
  LinkFailures f(markov(SimTime::from_seconds(9), SimTime::from_seconds(1)), g, 5);
  f.advance(SimTime::from_seconds(1000));
  double down = 0;
  for (uint32_t e = 0; e < 20000; ++e) down += f.down(e) ? 1 : 0;
  const double share = down / 20000;
  CHECK(std::abs(share - 0.1) < 3 * std::sqrt(0.1 * 0.9 / 20000));
  // Each link failed about 1000 s / 10 s = 100 times.
  CHECK(f.failures() / 20000.0 == doctest::Approx(100).epsilon(0.02));
}

TEST_CASE("a message entering a link at the moment it fails is dropped, with its reason") {
  // 0 -> 2 over 0 - 1 - 2 (no other path): it reaches node 1 at T + L = 2 ms and enters the
  // link 1 - 2 then, exactly when the trace takes that link down.
  const topo::Graph g = line(3, ms(1));
  Network net(g, with_failures(trace({{1, 2, {ms(2), ms(50)}, 1}})), 1);
  Drops drops;
  net.set_listener(drops);
  Simulator sim(1);
  net.send(sim, AgentId{0}, AgentId{2}, 125000);
  CHECK(run(sim, net).empty());
  REQUIRE(drops.reasons.size() == 1);
  CHECK(drops.reasons[0] == DropReason::kLinkDown);
  CHECK(net.live_messages() == 0);
  // A link up again at that moment ([1 ms, 2 ms) down) takes it: the interval's end is excluded.
  Network earlier(g, with_failures(trace({{1, 2, {ms(1), ms(2)}, 1}})), 1);
  Simulator sim2(1);
  earlier.send(sim2, AgentId{0}, AgentId{2}, 125000);
  const auto got = run(sim2, earlier);
  REQUIRE(got.size() == 1);
  CHECK(got[0].at_ns == 4000000);
}

TEST_CASE("a message on a link when it fails is lost at its arrival time, and the link counts it") {
  const topo::Graph g = line(2, ms(1));
  Network net(g, with_failures(trace({{0, 1, {ms(1), ms(1) + SimTime{1}}, 1}})), 1);
  Drops drops;
  net.set_listener(drops);
  Simulator sim(1);
  net.send(sim, AgentId{0}, AgentId{1}, 125000);  // on the link from 0 to 2 ms
  CHECK(run(sim, net).empty());
  REQUIRE(drops.reasons.size() == 1);
  CHECK(drops.reasons[0] == DropReason::kLinkDown);
  CHECK(sim.now() == ms(2));
  const LinkCounters& c = net.link(net.link_between(AgentId{0}, AgentId{1})).counters();
  CHECK(c.sent.messages == 1);
  CHECK(c.dropped.messages == 1);
  CHECK(c.delivered.messages == 0);
}

TEST_CASE("a message to a neighbour whose link is down goes around it, then direct once it is up") {
  // 0 - 1 down over [0, 10 ms): 0 -> 1 takes 0 - 3 - 2 - 1, three hops of T + L = 2 ms.
  Network net(ring4(), with_failures(trace({{0, 1, {ms(0), ms(10)}, 1}})), 1);
  Simulator sim(1);
  net.send(sim, AgentId{0}, AgentId{1}, 125000);
  auto got = run(sim, net, ms(9));
  REQUIRE(got.size() == 1);
  CHECK(got[0].at_ns == 6000000);
  sim.schedule_at(ms(10), EventKind::kTimer, AgentId{0});
  got = run(sim, net, SimTime::max(), [&](const Event&) {
    net.send(sim, AgentId{0}, AgentId{1}, 125000);  // up again at 10 ms: direct, 2 ms
  });
  REQUIRE(got.size() == 1);
  CHECK(got[0].at_ns == 12000000);
}

TEST_CASE("routes between distant nodes avoid a down link, and take it when nothing else leads") {
  // 0 -> 2 on the ring: 0 - 1 - 2 (lowest-numbered first step); with 1 - 2 down, 0 - 3 - 2.
  Network net(ring4(), with_failures(trace({{1, 2, {ms(0), SimTime::max()}, 1}})), 1);
  Simulator sim(1);
  net.send(sim, AgentId{0}, AgentId{2}, 125000);
  const auto got = run(sim, net);
  REQUIRE(got.size() == 1);
  CHECK(got[0].at_ns == 4000000);
  CHECK(net.link(net.link_between(AgentId{3}, AgentId{2})).counters().delivered.messages == 1);
  CHECK(net.link(net.link_between(AgentId{0}, AgentId{1})).counters().sent.messages == 0);
}

TEST_CASE("a message on its way goes around a link that went down ahead of it, or is dropped "
          "there when nothing else leads") {
  // 0 -> 2 leaves on 0 - 1 at 0; 1 - 2 fails at 1 ms, before the message reaches node 1 at
  // 2 ms. From 1 it takes 1 - 0 - 3 - 2, three hops of T + L = 2 ms: delivered at 8 ms.
  Network net(ring4(), with_failures(trace({{1, 2, {ms(1), SimTime::max()}, 1}})), 1);
  Simulator sim(1);
  net.send(sim, AgentId{0}, AgentId{2}, 125000);
  const auto got = run(sim, net);
  REQUIRE(got.size() == 1);
  CHECK(got[0].at_ns == 8000000);
  CHECK(net.link(net.link_between(AgentId{1}, AgentId{0})).counters().delivered.messages == 1);
  CHECK(net.link(net.link_between(AgentId{3}, AgentId{2})).counters().delivered.messages == 1);

  // On the line 0 - 1 - 2 there is no other way: dropped at node 1.
  Network line3(line(3, ms(1)), with_failures(trace({{1, 2, {ms(1), SimTime::max()}, 1}})), 1);
  Drops drops;
  line3.set_listener(drops);
  Simulator sim3(1);
  line3.send(sim3, AgentId{0}, AgentId{2}, 125000);
  CHECK(run(sim3, line3).empty());
  CHECK(drops.reasons == std::vector<DropReason>{DropReason::kLinkDown});
}

TEST_CASE("a message leaving its sender's uplink after its first link went down goes around it") {
  // A 1 Mbit/s uplink: 125,000 bytes take 1 s in it. 0 -> 1 was to go direct; the link 0 - 1
  // fails at 500 ms, so at 1 s the message leaves the uplink for 0 - 3 - 2 - 1 (3 x 2 ms).
  NetworkConfig c = with_failures(trace({{0, 1, {ms(500), SimTime::max()}, 1}}));
  c.nic_uplink_bps = 1000000;
  Network net(ring4(), c, 1);
  Simulator sim(1);
  net.send(sim, AgentId{0}, AgentId{1}, 125000);
  const auto got = run(sim, net);
  REQUIRE(got.size() == 1);
  CHECK(got[0].at_ns == 1006000000);
}

TEST_CASE("links changing state often keep the route store bounded, and every message accounted") {
  // 16 nodes on a ring, links failing every ~20 ms for ~1 ms (1.5 changes per ms), 200,000
  // routed messages over 20 s: each change forgets the routes, so without compaction the store
  // would grow with the run.
  std::vector<topo::Edge> edges;
  for (uint32_t i = 0; i < 16; ++i) edges.push_back(edge(i, (i + 1) % 16, SimTime::from_us(10)));
  const topo::Graph g(16, edges);
  Network net(g, with_failures(markov(ms(20), ms(1))), 3);
  NodeCounts counts(16);
  net.set_listener(counts);
  Simulator sim(1);
  RandomStream pick(3, "test", 0);
  size_t peak_store = 0;
  sim.schedule_at(SimTime{}, EventKind::kTimer, AgentId{0});
  int sent = 0;
  const auto got = run(sim, net, SimTime::max(), [&](const Event&) {
    const auto from = static_cast<uint32_t>(pick.below(16));
    const auto to = static_cast<uint32_t>((from + 2 + pick.below(13)) % 16);
    net.send(sim, AgentId{from}, AgentId{to}, 100);
    peak_store = std::max(peak_store, net.router().store_size());
    if (++sent < 200000) sim.schedule_in(SimTime::from_us(100), EventKind::kTimer, AgentId{0});
  });
  uint64_t dropped = 0;
  for (const TrafficCount& d : counts.dropped) dropped += d.messages;
  CHECK(got.size() + dropped == 200000);
  CHECK(dropped > 1000);
  CHECK(got.size() > 150000);
  CHECK(peak_store < 20000);
}

TEST_CASE("a detour may overtake messages still waiting for the failed link, which are lost") {
  // 1 Mbit/s: 1,000 bytes take 8 ms. Three messages 0 -> 1 at 0 (one on the wire, two waiting in
  // the link's queue); the link fails at 1 ms and takes all three. A fourth at 1 ms goes around,
  // 0 - 3 - 2 - 1, at once: 1 + 3 x (8 + 1) = 28 ms, ahead of what still waited in its buffer.
  NetworkConfig c = with_failures(trace({{0, 1, {ms(1), SimTime::max()}, 1}}));
  c.send_buffer.messages = 2;
  Network net(ring4(1000000), c, 1);
  Drops drops;
  net.set_listener(drops);
  Simulator sim(1);
  for (int i = 0; i < 3; ++i)
    net.offer(sim, AgentId{0}, AgentId{1}, 1000, Buffering::kEveryMessage);
  sim.schedule_at(ms(1), EventKind::kTimer, AgentId{0});
  uint32_t detour = 0;
  const auto got = run(sim, net, SimTime::max(), [&](const Event&) {
    detour = net.offer(sim, AgentId{0}, AgentId{1}, 1000, Buffering::kEveryMessage).slot;
  });
  REQUIRE(got.size() == 1);
  CHECK(got[0].slot == detour);
  CHECK(got[0].at_ns == 28000000);
  CHECK(drops.reasons == std::vector<DropReason>(3, DropReason::kLinkDown));
}

TEST_CASE("a copy coalesced after a detour never joins the detour, which is already on the wire") {
  // As above with a bound of 2: m1 on the wire, m2 and m3 waiting for the link 0 - 1, which
  // fails at 1 ms; m4 detours at once. A newer copy at 2 ms finds the buffer full and takes the
  // newest waiting message's place: m3's, not m4's (on the wire since 1 ms).
  NetworkConfig c = with_failures(trace({{0, 1, {ms(1), SimTime::max()}, 1}}));
  c.send_buffer.messages = 2;
  c.send_buffer.when_full = WhenFull::kCoalesce;
  Network net(ring4(1000000), c, 1);
  Simulator sim(1);
  std::vector<uint32_t> slots;
  for (int i = 0; i < 3; ++i)
    slots.push_back(net.offer(sim, AgentId{0}, AgentId{1}, 1000, Buffering::kEveryMessage).slot);
  sim.schedule_at(ms(1), EventKind::kTimer, AgentId{0});
  sim.schedule_at(ms(2), EventKind::kTimer, AgentId{0});
  SendResult newer;
  run(sim, net, SimTime::max(), [&](const Event&) {
    if (sim.now() == ms(1)) {
      slots.push_back(net.offer(sim, AgentId{0}, AgentId{1}, 1000, Buffering::kEveryMessage).slot);
    } else {
      newer = net.offer(sim, AgentId{0}, AgentId{1}, 1000, Buffering::kLatestValue);
    }
  });
  CHECK(newer.outcome == SendOutcome::kSuperseded);
  CHECK(newer.slot == slots[2]);
  CHECK(newer.slot != slots[3]);
}

TEST_CASE("a copy superseding a waiting message its down link lost at once is lost with it") {
  // One 1 Mbit/s link 0 - 1 (no way around), down from 1 ms: m1 is on it until 8 ms; m2, offered
  // at 2 ms, waits for it in the buffer (bound 1) but is lost at once, its link down; a newer
  // copy at 3 ms supersedes it and is lost with it: no slot in flight, and m2's loss is the one
  // drop (what Swarm::send relies on: it read that slot's content and crashed).
  NetworkConfig c = with_failures(trace({{0, 1, {ms(1), SimTime::max()}, 1}}));
  c.send_buffer.messages = 1;
  c.send_buffer.when_full = WhenFull::kCoalesce;
  Network net(line(2, ms(1), 1000000), c, 1);
  Drops drops;
  net.set_listener(drops);
  Simulator sim(1);
  const uint32_t m1 = net.offer(sim, AgentId{0}, AgentId{1}, 1000, Buffering::kLatestValue).slot;
  sim.schedule_at(ms(2), EventKind::kTimer, AgentId{0});
  sim.schedule_at(ms(3), EventKind::kTimer, AgentId{0});
  SendResult m2, newer;
  run(sim, net, SimTime::max(), [&](const Event&) {
    if (sim.now() == ms(2))
      m2 = net.offer(sim, AgentId{0}, AgentId{1}, 1000, Buffering::kLatestValue);
    else
      newer = net.offer(sim, AgentId{0}, AgentId{1}, 1000, Buffering::kLatestValue);
  });
  CHECK(m2.outcome == SendOutcome::kSent);
  CHECK_FALSE(net.in_flight(m2.slot));  // lost at once
  CHECK(newer.outcome == SendOutcome::kSuperseded);
  CHECK_FALSE(net.in_flight(newer.slot));
  CHECK(newer.slot != m1);
  // m1, on the link when it failed, is lost at its arrival; m2 at once.
  CHECK(drops.reasons == std::vector<DropReason>(2, DropReason::kLinkDown));
}

TEST_CASE("link_down reports a failed link under either sharing model, and none without failures") {
  // 0 -> 2 over 0 - 1 - 2, the link 1 - 2 down from 2 ms. FIFO: the message enters it at
  // T + L = 2 ms and is dropped then. Maxmin: its flow holds both links over [0, T = 1 ms), then
  // propagates 2 L; at its would-be delivery (3 ms) the link has failed since it started: lost.
  const topo::Graph g = line(3, ms(1));
  for (const Sharing sharing : {Sharing::kFifo, Sharing::kMaxMin}) {
    CAPTURE(static_cast<int>(sharing));
    NetworkConfig c = with_failures(trace({{1, 2, {ms(2), ms(50)}, 1}}));
    c.sharing = sharing;
    Network net(g, c, 1);
    Drops drops;
    net.set_listener(drops);
    Simulator sim(1);
    net.send(sim, AgentId{0}, AgentId{2}, 125000);
    CHECK_FALSE(net.link_down(net.link_between(AgentId{1}, AgentId{2})));
    CHECK(run(sim, net).empty());
    REQUIRE(drops.reasons.size() == 1);
    CHECK(drops.reasons[0] == DropReason::kLinkDown);
    CHECK(sim.now() == (sharing == Sharing::kFifo ? ms(2) : ms(3)));
    CHECK(net.link_down(net.link_between(AgentId{1}, AgentId{2})));
    CHECK(net.link_down(net.link_between(AgentId{2}, AgentId{1})));
    CHECK_FALSE(net.link_down(net.link_between(AgentId{0}, AgentId{1})));
    NetworkConfig never;
    never.sharing = sharing;
    Network steady(g, never, 1);
    CHECK_FALSE(steady.link_down(steady.link_between(AgentId{1}, AgentId{2})));
  }
}
