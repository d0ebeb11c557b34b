// The implicit complete underlay (complete_links.hpp) against a materialised complete graph:
// the same messages get the same fates at the same nanoseconds, while only the links in use
// are remembered.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "harness.hpp"
#include "sim/core/random.hpp"

using namespace dlsim;
using namespace dlsim::test;

namespace {

constexpr uint64_t kMbps = 1000000;

topo::Graph complete(uint32_t n, SimTime latency, uint64_t bandwidth_bps) {
  std::vector<topo::Edge> edges;
  for (uint32_t u = 0; u < n; ++u)
    for (uint32_t v = u + 1; v < n; ++v) edges.push_back(edge(u, v, latency, bandwidth_bps));
  return topo::Graph(n, edges);
}

NetworkConfig implicit(NetworkConfig config, SimTime latency, uint64_t bandwidth_bps) {
  config.complete_underlay = LinkSpec{latency, bandwidth_bps, 0.0, SimTime{}};
  return config;
}

// Everything a run of the script shows from outside: deliveries, overload reports, drops.
struct Seen final : SignalListener {
  void message_dropped(const MessageSignal& m, DropReason) override {
    drops.push_back({int64_t{m.from.value}, int64_t{m.to.value}, m.time.ns});
  }
  void message_discarded(const MessageSignal& m, BufferDiscard d) override {
    discards.push_back(
        {int64_t{m.from.value}, int64_t{m.to.value}, m.time.ns, static_cast<int64_t>(d)});
  }
  void link_overloaded(const LinkOverload& o) override {
    overloads.push_back({int64_t{o.from.value}, int64_t{o.to.value}, o.at.ns, o.since.ns});
  }
  std::vector<std::vector<int64_t>> drops, discards, overloads;
};

struct Outcome {
  std::vector<Delivery> deliveries;
  Seen seen;
  uint64_t fingerprint = 0;
  size_t most_remembered = 0;
  size_t pairs = 0;  // distinct (from, to) in the script
};

// `messages` messages, one every 0-3 ms, 1-20 KB (over 10 Mbit/s links: 0.8-16 ms each, so
// links queue), from and to random nodes of `n`; with HotLink::kTwice, every fourth of the
// first and last thirds goes 0 -> 1, which overloads that link (8.4 ms of bits every 6 ms on average) for
// about 1.5 s twice, with a quiet stretch between: a link warns once per run.
enum class HotLink : uint8_t { kTwice, kNone };

Outcome run_script(uint32_t n, const NetworkConfig& config, const topo::Graph& graph,
                   int messages, HotLink hot = HotLink::kTwice) {
  Network net(graph, config, 7);
  Outcome o;
  net.set_listener(o.seen);
  Simulator sim(1);
  RandomStream script(2024);
  struct Send {
    uint32_t from, to;
    uint64_t bytes;
  };
  std::vector<Send> sends;
  SimTime at{};
  for (int k = 0; k < messages; ++k) {
    auto from = static_cast<uint32_t>(script.below(n));
    auto to = static_cast<uint32_t>((from + 1 + script.below(n - 1)) % n);
    const bool hot_third = 3 * k < messages || 3 * k > 2 * messages;
    if (hot == HotLink::kTwice && k % 4 == 0 && hot_third) from = 0, to = 1;
    sends.push_back({from, to, 1000 * (1 + script.below(20))});
    at += SimTime::from_ms(static_cast<int64_t>(script.below(4)));
    sim.schedule_at(at, EventKind::kTimer, AgentId{0}, static_cast<uint32_t>(k));
  }
  std::set<std::pair<uint32_t, uint32_t>> pairs;
  for (const Send& s : sends) pairs.emplace(s.from, s.to);
  o.pairs = pairs.size();
  o.deliveries = run(sim, net, SimTime::max(), [&](const Event& e) {
    const Send& s = sends[e.payload];
    net.offer(sim, AgentId{s.from}, AgentId{s.to}, s.bytes, Buffering::kLatestValue);
    o.most_remembered = std::max(o.most_remembered, net.remembered_links());
  });
  o.fingerprint = sim.fingerprint().value();
  return o;
}

void check_same(const Outcome& a, const Outcome& b) {
  REQUIRE(a.deliveries.size() == b.deliveries.size());
  for (size_t i = 0; i < a.deliveries.size(); ++i) {
    CAPTURE(i);
    CHECK(a.deliveries[i].from == b.deliveries[i].from);
    CHECK(a.deliveries[i].to == b.deliveries[i].to);
    CHECK(a.deliveries[i].slot == b.deliveries[i].slot);
    CHECK(a.deliveries[i].at_ns == b.deliveries[i].at_ns);
  }
  CHECK(a.seen.drops == b.seen.drops);
  CHECK(a.seen.discards == b.seen.discards);
  CHECK(a.seen.overloads == b.seen.overloads);
  CHECK(a.fingerprint == b.fingerprint);
}

NetworkConfig coalescing() {
  NetworkConfig c;
  c.send_buffer = SendBufferConfig{1, 0, WhenFull::kCoalesce};
  return c;
}

}  // namespace

TEST_CASE("an implicit complete underlay times every message as the materialised complete graph") {
  const uint32_t n = 12;
  const SimTime latency = SimTime::from_ms(1);
  const Outcome materialised = run_script(n, coalescing(), complete(n, latency, 10 * kMbps), 3000);
  const Outcome lazy =
      run_script(n, implicit(coalescing(), latency, 10 * kMbps), topo::Graph(n, {}), 3000);
  check_same(materialised, lazy);
  // The script queues links, coalesces copies and overloads some links: it tests those paths.
  CHECK(materialised.deliveries.size() > 1000);
  CHECK(!materialised.seen.discards.empty());
  CHECK(!materialised.seen.overloads.empty());

  // With NIC downlinks every message ends with a link arrival, then the downlink.
  NetworkConfig nics = coalescing();
  nics.nic_downlink_bps = 20 * kMbps;
  check_same(run_script(n, nics, complete(n, latency, 10 * kMbps), 1000),
             run_script(n, implicit(nics, latency, 10 * kMbps), topo::Graph(n, {}), 1000));
}

TEST_CASE("an implicit complete underlay remembers the links in use, not every pair that talked") {
  // 64 nodes, 4,032 directed pairs; 20,000 messages touch almost all of them, but each sender
  // has only a few links busy at once (a sender keeps as many entries as it once had busy
  // links: a materialised graph would hold all 4,032).
  const uint32_t n = 64;
  const Outcome o = run_script(n, implicit(NetworkConfig{}, SimTime::from_ms(1), 10 * kMbps),
                               topo::Graph(n, {}), 20000, HotLink::kNone);
  CHECK(o.deliveries.size() == 20000);
  CHECK(o.pairs > 3900);
  CHECK(o.most_remembered >= 1);
  CHECK(o.most_remembered <= 4 * n);
}

TEST_CASE("an implicit complete underlay saved with busy links carries on as without a save") {
  const uint32_t n = 6;
  const NetworkConfig config = implicit(NetworkConfig{}, SimTime::from_ms(1), kMbps);
  const topo::Graph graph(n, {});
  // Two 10 KB messages 0 -> 1 (80 ms each: the second queues) and one 2 -> 3.
  const auto script = [](Simulator& sim, Network& net) {
    net.send(sim, AgentId{0}, AgentId{1}, 10000);
    net.send(sim, AgentId{0}, AgentId{1}, 10000);
    net.send(sim, AgentId{2}, AgentId{3}, 10000);
  };
  Network whole_net(graph, config, 1);
  Simulator whole(1);
  script(whole, whole_net);
  const auto expected = run(whole, whole_net);
  REQUIRE(expected.size() == 3);
  CHECK(expected[2].at_ns == 161000000);  // queued behind the first: 2 x 80 ms + 1 ms

  Network before(graph, config, 1);
  Simulator first(1);
  script(first, before);
  REQUIRE(run(first, before, SimTime::from_ms(40)).empty());
  Network after(graph, config, 1);
  Simulator second(1);
  save_and_load(first, before, second, after, "complete-links.bin");
  CHECK(after.remembered_links() == 2);
  // A message offered now on 0 -> 1 queues behind both saved ones: 3 x 80 ms + 1 ms.
  after.send(second, AgentId{0}, AgentId{1}, 10000);
  const auto got = run(second, after);
  REQUIRE(got.size() == 4);
  CHECK(got[3].at_ns == 241000000);
  for (size_t i = 0; i < 3; ++i) CHECK(got[i].at_ns == expected[i].at_ns);
}
