// Bounded send buffers: coalescing, dropping and blocking when a (sender, destination) buffer
// holds its bound of messages not yet on the wire; the overload watch.
#include <doctest/doctest.h>

#include "harness.hpp"

using namespace dlsim;
using namespace dlsim::test;

namespace {

// 1 Mbit/s: a 1,000-byte message takes 8 ms on the wire.
constexpr uint64_t kMbps = 1000000;
constexpr SimTime kOnWire = SimTime::from_ms(8);

struct BufferCounts final : SignalListener {
  uint64_t sent = 0, superseded = 0, dropped = 0, peak_queued = 0;
  std::vector<LinkOverload> overloads;
  void message_sent(const MessageSignal&) override { ++sent; }
  void message_discarded(const MessageSignal&, BufferDiscard why) override {
    ++(why == BufferDiscard::kSuperseded ? superseded : dropped);
  }
  void send_buffers_hold(AgentId, SimTime, uint64_t bytes) override {
    peak_queued = std::max(peak_queued, bytes);
  }
  void link_overloaded(const LinkOverload& o) override { overloads.push_back(o); }
};

NetworkConfig bounded(uint64_t messages, WhenFull when_full) {
  NetworkConfig c;
  c.send_buffer.messages = messages;
  c.send_buffer.when_full = when_full;
  return c;
}

// Offers `count` 1,000-byte messages 0 -> 1 at t = 0 over one idle 1 Mbit/s, 1 ms link.
std::vector<SendResult> offer_burst(Simulator& sim, Network& net, int count, Buffering b) {
  std::vector<SendResult> out;
  for (int i = 0; i < count; ++i) out.push_back(net.offer(sim, AgentId{0}, AgentId{1}, 1000, b));
  return out;
}

}  // namespace

TEST_CASE("coalescing replaces the newest waiting message: the last copy offered is delivered") {
  Simulator sim(1);
  Network net(line(2, SimTime::from_ms(1), kMbps), bounded(2, WhenFull::kCoalesce), 1);
  BufferCounts counts;
  net.set_listener(counts);
  // The first goes on the wire at once; the next two wait (the bound); the 4th and 5th each
  // take the place of the newest waiting one, so the third slot carries the 5th message.
  const auto r = offer_burst(sim, net, 5, Buffering::kLatestValue);
  CHECK(r[0].outcome == SendOutcome::kSent);
  CHECK(r[2].outcome == SendOutcome::kSent);
  CHECK(r[3].outcome == SendOutcome::kSuperseded);
  CHECK(r[3].slot == r[2].slot);
  CHECK(r[4].slot == r[2].slot);
  CHECK(counts.sent == 3);
  CHECK(counts.superseded == 2);
  CHECK(counts.peak_queued == 2000);
  const auto d = run(sim, net);
  REQUIRE(d.size() == 3);
  CHECK(d[2].slot == r[4].slot);
  CHECK(d[2].at_ns == SimTime::from_ms(3 * 8 + 1).ns);  // timing as FIFO
}

TEST_CASE("sent plus superseded plus dropped is every message offered, in each mode") {
  for (const WhenFull mode : {WhenFull::kCoalesce, WhenFull::kDrop, WhenFull::kBlock}) {
    CAPTURE(static_cast<int>(mode));
    Simulator sim(1);
    Network net(star(3, SimTime::from_ms(1), kMbps), bounded(1, mode), 1);
    BufferCounts counts;
    net.set_listener(counts);
    // Every 1 ms the hub sends 1,000 bytes to each of its 3 leaves (8 ms on the wire): 20 times.
    for (int t = 0; t < 20; ++t) {
      sim.schedule_at(SimTime::from_ms(t), EventKind::kTimer, AgentId{0});
    }
    run(sim, net, SimTime::max(), [&](const Event&) {
      for (uint32_t leaf = 1; leaf <= 3; ++leaf)
        net.offer(sim, AgentId{0}, AgentId{leaf}, 1000, Buffering::kLatestValue);
    });
    CHECK(counts.sent + counts.superseded + counts.dropped == 20 * 3);
    if (mode == WhenFull::kBlock) CHECK(counts.sent == 60);
    if (mode == WhenFull::kCoalesce) CHECK(counts.dropped == 0);
    if (mode == WhenFull::kDrop) CHECK(counts.superseded == 0);
    if (mode != WhenFull::kBlock) {
      // Per leaf: on the wire at 0, 8, 16, 24 ms, each next one waiting from the offer after.
      CHECK(counts.sent == 3 * 4);
    }
  }
}

TEST_CASE("a message that must arrive is never coalesced: the sender blocks instead") {
  Simulator sim(1);
  Network net(line(2, SimTime::from_ms(1), kMbps), bounded(1, WhenFull::kCoalesce), 1);
  BufferCounts counts;
  net.set_listener(counts);
  const auto r = offer_burst(sim, net, 4, Buffering::kEveryMessage);
  for (const SendResult& s : r) CHECK(s.outcome == SendOutcome::kSent);
  CHECK(counts.superseded == 0);
  // On the wire at 0, 8, 16, 24 ms: the buffer of 1 holds one again once the 3rd has started.
  CHECK(net.blocked_until(AgentId{0}) == SimTime::from_ms(16));
  CHECK(net.blocked_until(AgentId{1}) == SimTime{});
}

TEST_CASE("block mode: a buffer bounded in bytes frees the sender when the excess is on the wire") {
  Simulator sim(1);
  NetworkConfig c;
  c.send_buffer.bytes = 2500;
  c.send_buffer.when_full = WhenFull::kBlock;
  Network net(line(2, SimTime::from_ms(1), kMbps), c, 1);
  offer_burst(sim, net, 3, Buffering::kLatestValue);  // 0 on the wire, 1 and 2 wait: 2,000 B
  CHECK(net.blocked_until(AgentId{0}) == SimTime{});
  net.offer(sim, AgentId{0}, AgentId{1}, 1000, Buffering::kLatestValue);  // 3,000 B waiting
  CHECK(net.blocked_until(AgentId{0}) == kOnWire);  // message 1 starts at 8 ms: 2,000 B
}

TEST_CASE("drop mode refuses a new copy when the buffer is full and keeps the waiting ones") {
  Simulator sim(1);
  Network net(line(2, SimTime::from_ms(1), kMbps), bounded(2, WhenFull::kDrop), 1);
  const auto r = offer_burst(sim, net, 4, Buffering::kLatestValue);
  CHECK(r[3].outcome == SendOutcome::kDropped);
  const auto d = run(sim, net);
  REQUIRE(d.size() == 3);
  CHECK(d[2].slot == r[2].slot);
}

TEST_CASE(
    "a message waits in its buffer until its first serialiser starts it, not until it arrives") {
  // 5 ms latency. At 0: two offers, the second waits until 8 ms. At 8 ms it starts (and the
  // first is still propagating): the buffer of 1 takes a new one, and refuses the one after.
  Simulator sim(1);
  Network net(line(2, SimTime::from_ms(5), kMbps), bounded(1, WhenFull::kDrop), 1);
  BufferCounts counts;
  net.set_listener(counts);
  sim.schedule_at(SimTime{}, EventKind::kTimer, AgentId{0});
  sim.schedule_at(kOnWire, EventKind::kTimer, AgentId{0});
  run(sim, net, SimTime::max(), [&](const Event&) {
    net.offer(sim, AgentId{0}, AgentId{1}, 1000, Buffering::kLatestValue);
    net.offer(sim, AgentId{0}, AgentId{1}, 1000, Buffering::kLatestValue);
  });
  CHECK(counts.sent == 3);
  CHECK(counts.dropped == 1);
  CHECK(counts.peak_queued == 1000);
}

TEST_CASE("an uplink is the first serialiser: its waiting messages count, across destinations") {
  // 0 sends 1,000 B to 1 and 2 through a 1 Mbit/s uplink and 1 Gbit/s links: the uplink queues.
  Simulator sim(1);
  NetworkConfig c = bounded(1, WhenFull::kCoalesce);
  c.nic_uplink_bps = kMbps;
  Network net(star(2, SimTime::from_ms(1), kGbps), c, 1);
  BufferCounts counts;
  net.set_listener(counts);
  for (int i = 0; i < 3; ++i)
    for (uint32_t leaf = 1; leaf <= 2; ++leaf)
      net.offer(sim, AgentId{0}, AgentId{leaf}, 1000, Buffering::kLatestValue);
  // Uplink order: to 1 (starts at 0), to 2 (waits), to 1 (waits), to 2 and then to 1 and 2
  // again supersede the waiting ones of their destination.
  CHECK(counts.sent == 3);
  CHECK(counts.superseded == 3);
  CHECK(counts.peak_queued == 2000);
}

TEST_CASE("the peak of waiting bytes is one sender's, not the network's sum") {
  // Leaves 1 and 2 each offer two 1,000 B messages to the hub through a 1 Mbit/s uplink: each
  // leaves one waiting. 1,000 B each, 2,000 B in the network at once; the peak is per sender,
  // so that it does not depend on how a run is partitioned (docs/partitioned-runs.md).
  Simulator sim(1);
  NetworkConfig c = bounded(2, WhenFull::kCoalesce);
  c.nic_uplink_bps = kMbps;
  Network net(star(2, SimTime::from_ms(1), kGbps), c, 1);
  BufferCounts counts;
  net.set_listener(counts);
  for (uint32_t leaf = 1; leaf <= 2; ++leaf)
    for (int i = 0; i < 2; ++i) net.offer(sim, AgentId{leaf}, AgentId{0}, 1000, Buffering::kLatestValue);
  CHECK(counts.sent == 4);
  CHECK(counts.peak_queued == 1000);
}

TEST_CASE("a link offered more than it carries for a second is reported once, with its load") {
  // 1,000 B (8 ms) offered every 4 ms from t = 0: twice the capacity. The stretch starts at 0;
  // the first offer at or after 1 s (t = 1000 ms, the 251st) reports (251 x 8 ms) / 1 s.
  Simulator sim(1);
  Network net(line(2, SimTime::from_ms(1), kMbps), bounded(1, WhenFull::kCoalesce), 1);
  BufferCounts counts;
  net.set_listener(counts);
  for (int t = 0; t <= 400; ++t)
    sim.schedule_at(SimTime::from_ms(4 * t), EventKind::kTimer, AgentId{0});
  run(sim, net, SimTime::max(),
      [&](const Event&) { net.offer(sim, AgentId{0}, AgentId{1}, 1000, Buffering::kLatestValue); });
  REQUIRE(counts.overloads.size() == 1);
  const LinkOverload& o = counts.overloads[0];
  CHECK(o.from == AgentId{0});
  CHECK(o.to == AgentId{1});
  CHECK(o.since == SimTime{});
  CHECK(o.at == SimTime::from_ms(1000));
  CHECK(o.utilisation == doctest::Approx(251 * 8 / 1000.0));
}

TEST_CASE("a link loaded below its capacity is never reported") {
  Simulator sim(1);
  Network net(line(2, SimTime::from_ms(1), kMbps), bounded(1, WhenFull::kCoalesce), 1);
  BufferCounts counts;
  net.set_listener(counts);
  for (int t = 0; t <= 400; ++t)
    sim.schedule_at(SimTime::from_ms(8 * t), EventKind::kTimer, AgentId{0});
  run(sim, net, SimTime::max(),
      [&](const Event&) { net.offer(sim, AgentId{0}, AgentId{1}, 1000, Buffering::kLatestValue); });
  CHECK(counts.overloads.empty());
}

TEST_CASE("a sender forgets its buffers once all it left waiting has started") {
  // Sender 0 meets 99 peers one after another, each time leaving one message waiting 8 ms
  // behind another: a buffer per peer while it waits, none kept after.
  SendBuffers buffers(SendBufferConfig{1, 0, WhenFull::kCoalesce}, 100);
  uint32_t slot = 0;
  for (uint32_t peer = 1; peer < 100; ++peer) {
    const SimTime now = SimTime::from_ms(100 * peer);
    CHECK(buffers.offer(now, 0, peer, 1000, now, Buffering::kLatestValue, slot++).verdict ==
          SendBuffers::Verdict::kEnter);
    CHECK(buffers.offer(now, 0, peer, 1000, now + kOnWire, Buffering::kLatestValue, slot++)
              .verdict == SendBuffers::Verdict::kEnter);
    CHECK(buffers.buffers_kept(0) == 1);
  }
}

TEST_CASE("a sender that always has something waiting keeps only the buffers that hold messages") {
  // A message to peer 1 waits until t = 1000 s (a backlogged uplink); meanwhile 98 other peers
  // get a message each that goes on the wire at once: their buffers are never kept.
  SendBuffers buffers(SendBufferConfig{1, 0, WhenFull::kCoalesce}, 100);
  const SimTime far = SimTime::from_ms(1000000);
  buffers.offer(SimTime{}, 0, 1, 1000, far, Buffering::kLatestValue, 0);
  for (uint32_t peer = 2; peer < 100; ++peer) {
    const SimTime now = SimTime::from_ms(peer);
    CHECK(buffers.offer(now, 0, peer, 1000, now, Buffering::kLatestValue, peer).verdict ==
          SendBuffers::Verdict::kEnter);
  }
  CHECK(buffers.buffers_kept(0) == 1);
}
