// Link failures under network.sharing "maxmin": a flow holds its whole route, so a link that
// fails cuts the flows crossing it at that instant (the others speed up from then), a message
// propagating over a link that failed since its flow started is lost when it would arrive,
// routes avoid down links at send time, and the change events neither hold a run open nor
// change a checkpointed run. Times by hand: bits / rate, rounded up to whole ns, plus latencies.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "harness.hpp"

using namespace dlsim;
using namespace dlsim::test;

namespace {

NetworkConfig max_min_with(std::vector<LinkDownInterval> down) {
  NetworkConfig c;
  c.sharing = Sharing::kMaxMin;
  c.failures.kind = FailureKind::kTrace;
  c.failures.file = "failures.csv";
  c.failures.intervals = std::move(down);
  return c;
}

struct Drops final : SignalListener {
  std::vector<DropReason> reasons;
  std::vector<int64_t> at_ns;
  void message_dropped(const MessageSignal& m, DropReason why) override {
    reasons.push_back(why);
    at_ns.push_back(m.time.ns);
  }
};

}  // namespace

TEST_CASE("maxmin failures: a link failing under a flow drops it at once, and its neighbour "
          "sharing a link speeds up from that instant") {
  // 0 - 1 - 2, 1 Gbps, 1 ms. Flow 1: 0 -> 1 (link A = 0->1); flow 2: 0 -> 2 (A, then B = 1->2),
  // 8e6 bits each, 0.5 Gbps each on A. B fails at 4 ms: each has 6e6 bits left; flow 2 is
  // dropped at 4 ms, flow 1 gets 1 Gbps: ends at 4 + 6 = 10 ms, delivered at 11 ms (not 17).
  Network net(line(3, ms(1)), max_min_with({{1, 2, {ms(4), SimTime::max()}, 1}}), 1);
  Drops drops;
  net.set_listener(drops);
  Simulator sim(1);
  net.send(sim, AgentId{0}, AgentId{1}, 1000000);
  net.send(sim, AgentId{0}, AgentId{2}, 1000000);
  const auto got = run(sim, net);
  REQUIRE(got.size() == 1);
  CHECK(got[0].to == 1);
  CHECK(got[0].at_ns == 11000000);
  CHECK(drops.reasons == std::vector<DropReason>{DropReason::kLinkDown});
  CHECK(drops.at_ns == std::vector<int64_t>{4000000});
  CHECK(net.live_messages() == 0);
  // sent = delivered + dropped on every link: A carried both, B lost flow 2.
  const LinkCounters& a = net.link(net.link_between(AgentId{0}, AgentId{1})).counters();
  const LinkCounters& b = net.link(net.link_between(AgentId{1}, AgentId{2})).counters();
  CHECK(a.sent.messages == 2);
  CHECK(a.delivered.messages == 2);
  CHECK(b.sent.messages == 1);
  CHECK(b.dropped.messages == 1);
  CHECK(b.delivered.messages == 0);
}

TEST_CASE("maxmin failures: a message whose bits are out is lost when a link of its route fails "
          "while it propagates, at its would-be delivery") {
  // 0 - 1 - 2, 1 Gbps, 10 ms: 1e6 bits are out at 1 ms, delivered at 21 ms. The link 0 - 1 is
  // down over [5 ms, 6 ms): the message is dropped at 21 ms, the first link counting the loss.
  const topo::Graph g = line(3, ms(10));
  Network net(g, max_min_with({{0, 1, {ms(5), ms(6)}, 1}}), 1);
  Drops drops;
  net.set_listener(drops);
  Simulator sim(1);
  net.send(sim, AgentId{0}, AgentId{2}, 125000);
  CHECK(run(sim, net).empty());
  CHECK(drops.reasons == std::vector<DropReason>{DropReason::kLinkDown});
  CHECK(drops.at_ns == std::vector<int64_t>{21000000});
  CHECK(net.live_messages() == 0);
  const LinkCounters& first = net.link(net.link_between(AgentId{0}, AgentId{1})).counters();
  const LinkCounters& second = net.link(net.link_between(AgentId{1}, AgentId{2})).counters();
  CHECK(first.dropped.messages == 1);
  CHECK(second.dropped.messages == 1);  // it never got there either
  CHECK(first.delivered.messages + second.delivered.messages == 0);

  // Down only after the delivery: delivered.
  Network later(g, max_min_with({{0, 1, {ms(22), ms(23)}, 1}}), 1);
  Simulator sim2(1);
  later.send(sim2, AgentId{0}, AgentId{2}, 125000);
  const auto got = run(sim2, later);
  REQUIRE(got.size() == 1);
  CHECK(got[0].at_ns == 21000000);
}

TEST_CASE("maxmin failures: a route chosen at send time avoids a down link, and one with no "
          "other way is dropped at once") {
  // Ring 0 - 1 - 2 - 3 - 0, 1 Gbps, 1 ms; 0 - 1 down over [0, 10 ms): 0 -> 1 takes 0 - 3 - 2 - 1
  // as one flow, 1e6 bits in 1 ms plus 3 latencies: 4 ms (FIFO: 3 x 2 ms).
  const topo::Graph ring(4, {edge(0, 1, ms(1)), edge(1, 2, ms(1)), edge(2, 3, ms(1)),
                             edge(0, 3, ms(1))});
  Network net(ring, max_min_with({{0, 1, {ms(0), ms(10)}, 1}}), 1);
  Simulator sim(1);
  net.send(sim, AgentId{0}, AgentId{1}, 125000);
  const auto got = run(sim, net);
  REQUIRE(got.size() == 1);
  CHECK(got[0].at_ns == 4000000);
  CHECK(net.link(net.link_between(AgentId{0}, AgentId{1})).counters().sent.messages == 0);
  CHECK(net.link(net.link_between(AgentId{2}, AgentId{1})).counters().delivered.messages == 1);

  // On the line 0 - 1 - 2 with 1 - 2 down nothing else leads: the flow would enter the down
  // link with its first bit, so the message is dropped when sent.
  Network line3(line(3, ms(1)), max_min_with({{1, 2, {ms(0), SimTime::max()}, 1}}), 1);
  Drops drops;
  line3.set_listener(drops);
  Simulator sim3(1);
  const uint32_t slot = line3.send(sim3, AgentId{0}, AgentId{2}, 125000);
  CHECK_FALSE(line3.in_flight(slot));
  CHECK(drops.reasons == std::vector<DropReason>{DropReason::kLinkDown});
  CHECK(run(sim3, line3).empty());
  CHECK(sim3.now() == SimTime{});
}

TEST_CASE("maxmin failures: no link change event keeps the queue busy once the flows are over") {
  // 0 - 1 - 2: 0 -> 1 carries 8e6 bits from 0 to 8 ms (delivered at 9 ms) while 1 - 2 changes
  // state at 1, 2, 50 and 60 ms; the changes under the flow cut nothing. As a sync round, the
  // run ends with the delivery: the pending change at 50 ms is dropped unseen.
  Network net(line(3, ms(1)),
              max_min_with({{1, 2, {ms(1), ms(2)}, 1}, {1, 2, {ms(50), ms(60)}, 2}}), 1);
  Simulator sim(1);
  net.send(sim, AgentId{0}, AgentId{1}, 1000000);
  const auto got = run(sim, net);
  REQUIRE(got.size() == 1);
  CHECK(got[0].at_ns == 9000000);
  CHECK(sim.now() == ms(9));
  CHECK(sim.pending() == 0);
  // Busy again later: the next change (50 ms) cuts a flow over 1 - 2 at once.
  Drops drops;
  net.set_listener(drops);
  sim.schedule_at(ms(49), EventKind::kTimer, AgentId{0});
  const auto more = run(sim, net, SimTime::max(), [&](const Event&) {
    net.send(sim, AgentId{1}, AgentId{2}, 1000000);  // would end at 57 ms
  });
  CHECK(more.empty());
  CHECK(drops.at_ns == std::vector<int64_t>{50000000});
  CHECK(sim.now() == ms(50));
}

TEST_CASE("maxmin failures: a network saved with a pending link change goes on as without a "
          "save") {
  // As the first case, saved at 3 ms (after a timer at 2 ms) before B fails at 4 ms; B is up at
  // 6 ms and down again at 12 ms, cutting a third flow, 1 -> 2 from 7 ms (to end at 15 ms).
  const topo::Graph g = line(3, ms(1));
  const NetworkConfig config =
      max_min_with({{1, 2, {ms(4), ms(6)}, 1}, {1, 2, {ms(12), SimTime::max()}, 2}});
  const auto on_timer = [](Simulator& sim, Network& net) {
    return [&sim, &net](const Event& e) {
      if (e.payload == 1) net.send(sim, AgentId{1}, AgentId{2}, 1000000);  // 7 ms: 8 ms alone
    };
  };
  const auto start = [](Simulator& sim, Network& net) {
    net.send(sim, AgentId{0}, AgentId{1}, 1000000);
    net.send(sim, AgentId{0}, AgentId{2}, 1000000);
    sim.schedule_at(ms(2), EventKind::kTimer, AgentId{0}, 0);
    sim.schedule_at(ms(7), EventKind::kTimer, AgentId{1}, 1);
  };
  Network whole(g, config, 1);
  Drops whole_drops;
  whole.set_listener(whole_drops);
  Simulator whole_sim(1);
  start(whole_sim, whole);
  const auto expected = run(whole_sim, whole, SimTime::max(), on_timer(whole_sim, whole));
  REQUIRE(expected.size() == 1);
  CHECK(expected[0].at_ns == 11000000);
  CHECK(whole_drops.at_ns == std::vector<int64_t>{4000000, 12000000});

  Network before(g, config, 1);
  Simulator first(1);
  start(first, before);
  REQUIRE(run(first, before, ms(3), on_timer(first, before)).empty());
  Network after(g, config, 1);
  Drops drops;
  after.set_listener(drops);
  Simulator second(1);
  save_and_load(first, before, second, after, "maxmin-failures.bin");
  const auto got = run(second, after, SimTime::max(), on_timer(second, after));
  REQUIRE(got.size() == 1);
  CHECK(got[0].at_ns == expected[0].at_ns);
  CHECK(drops.at_ns == whole_drops.at_ns);
  CHECK(second.fingerprint().value() == whole_sim.fingerprint().value());
  CHECK(second.now() == whole_sim.now());
}

TEST_CASE("maxmin failures: a network that goes idle and busy again many times between two "
          "changes keeps a bounded event queue") {
  // 0 - 1: a 1,000-byte message (8 us) every 1 ms for 2 s, each one alone: 2,000 busy spells,
  // each scheduling a change event at 10 s, the next state change. The stale ones are swept.
  Network net(line(2, ms(1)), max_min_with({{0, 1, {ms(10000), ms(11000)}, 1}}), 1);
  Simulator sim(1);
  size_t most_pending = 0;
  int sent = 0;
  sim.schedule_at(SimTime{}, EventKind::kTimer, AgentId{0});
  const auto got = run(sim, net, ms(3000), [&](const Event&) {
    net.send(sim, AgentId{0}, AgentId{1}, 1000);
    most_pending = std::max(most_pending, sim.pending());
    if (++sent < 2000) sim.schedule_in(ms(1), EventKind::kTimer, AgentId{0});
  });
  CHECK(got.size() == 2000);
  CHECK(most_pending < 100);
}
