// The simulator's partitioned runs (virtual ranks): windows of the lookahead, events between
// partitions, the drivers' horizon. Each test compares against one partition, the reference.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/random.hpp"
#include "sim/core/simulator.hpp"

using namespace dlsim;

namespace {

constexpr SimTime kLookahead = SimTime::from_ms(1);

// What each node handled, in its order: (time, origin, counter) per event.
using NodeLogs = std::map<uint32_t, std::vector<std::tuple<int64_t, uint32_t, uint32_t>>>;

// A workload of `nodes` nodes in which every event schedules a few more: for its own node at any
// delay (zero included), for other nodes no sooner than the lookahead. Draws come from the
// handled event's node and counter, so they do not depend on the order events run in.
// With `pairs`, also for its pair node (0-1, 2-3, ...) at any delay: partitions must keep
// pairs together then.
NodeLogs run_workload(uint32_t nodes, uint32_t partitions, SimTime window_lookahead,
                      bool pairs = false) {
  Simulator sim(1);
  if (partitions > 1) {
    Partitions p = contiguous_partitions(nodes, partitions, window_lookahead);
    sim.partition(p);
  }
  for (uint32_t i = 0; i < nodes; ++i)
    sim.schedule_at(SimTime::from_us(i % 3 * 250), EventKind::kTimer, AgentId{i});
  NodeLogs logs;
  sim.run([&](const Event& e) {
    logs[e.agent.value].emplace_back(e.time.ns, e.origin().value, e.counter());
    if (e.time > SimTime::from_ms(20)) return;
    RandomStream draw(e.key, "workload", e.agent.value);
    const uint32_t more = 1 + static_cast<uint32_t>(draw.below(2));
    for (uint32_t k = 0; k < more; ++k) {
      uint32_t to = static_cast<uint32_t>(draw.below(nodes));
      if (pairs && draw.below(2) == 0) to = e.agent.value ^ 1;
      const bool near = to == e.agent.value || (pairs && to == (e.agent.value ^ 1));
      const SimTime delay =
          near ? SimTime{static_cast<int64_t>(draw.below(3)) * 500'000}
               : kLookahead + SimTime{static_cast<int64_t>(draw.below(4)) * 250'000};
      sim.schedule_in(delay, EventKind::kTimer, AgentId{to});
    }
  });
  return logs;
}

}  // namespace

TEST_CASE("partitioned runs give every node the events, times and order of one partition") {
  const NodeLogs one = run_workload(12, 1, kLookahead);
  REQUIRE(one.size() == 12);
  for (uint32_t partitions : {2u, 3u, 5u, 12u}) {
    CAPTURE(partitions);
    CHECK(run_workload(12, partitions, kLookahead) == one);
  }
}

TEST_CASE("zero-delay events between nodes of one partition keep the one-partition order") {
  const NodeLogs one = run_workload(12, 1, kLookahead, true);
  for (uint32_t partitions : {2u, 3u, 6u}) {  // blocks of 6, 4 and 2 nodes: pairs stay together
    CAPTURE(partitions);
    CHECK(run_workload(12, partitions, kLookahead, true) == one);
  }
}

TEST_CASE("a lookahead longer than the shortest delay between partitions does not go unnoticed") {
  // The same workload with windows twice the shortest delay between partitions: a partition
  // would run its own later events before an earlier message from a partition that ran after
  // it. The simulator stops on the first such message (an invariant violation), or the order
  // differs; never the same results by luck.
  const NodeLogs one = run_workload(12, 1, kLookahead);
  bool differs = false;
  try {
    differs = run_workload(12, 3, kLookahead + kLookahead) != one;
  } catch (const InvariantError&) {
    differs = true;
  }
  CHECK(differs);
}

TEST_CASE("a message sent into the next partition arrives at its time, however the windows fall") {
  // Node 1 (partition 1, run second in each window) sends node 0 (partition 0, run first) a
  // message exactly one lookahead ahead; node 0 has its own event half a lookahead after that.
  // Node 0 must see the message first, at its time.
  Simulator sim(1);
  sim.partition(contiguous_partitions(2, 2, kLookahead));
  sim.schedule_at(SimTime{}, EventKind::kTimer, AgentId{1});
  sim.schedule_at(kLookahead + SimTime::from_us(500), EventKind::kTimer, AgentId{0});
  std::vector<std::pair<uint32_t, int64_t>> at_node_0;
  sim.run([&](const Event& e) {
    if (e.agent.value == 0) at_node_0.emplace_back(e.origin().value, e.time.ns);
    if (e.agent.value == 1) sim.schedule_in(kLookahead, EventKind::kTimer, AgentId{0});
  });
  REQUIRE(at_node_0.size() == 2);
  CHECK(at_node_0[0] == std::pair<uint32_t, int64_t>{1, kLookahead.ns});
  CHECK(at_node_0[1] == std::pair<uint32_t, int64_t>{0, (kLookahead + SimTime::from_us(500)).ns});
  CHECK(sim.now() == kLookahead + SimTime::from_us(500));  // the latest event of any partition
}

TEST_CASE("an event for another partition sooner than the lookahead is an invariant violation") {
  Simulator sim(1);
  sim.partition(contiguous_partitions(2, 2, kLookahead));
  sim.schedule_at(SimTime{}, EventKind::kTimer, AgentId{0});
  CHECK_THROWS_AS(sim.run([&](const Event& e) {
    if (e.agent.value == 0) sim.schedule_in(kLookahead - SimTime{1}, EventKind::kTimer, AgentId{1});
  }),
                  InvariantError);
}

namespace {

// Bounds the first window by the event `at`, then ends the run.
class StopAfter final : public WindowControl {
 public:
  explicit StopAfter(EventBound at) : at_(at) {}
  EventBound horizon() override { return at_; }
  bool window_done() override { return false; }

 private:
  EventBound at_;
};

}  // namespace

TEST_CASE("a horizon stops every partition after one event of the one-partition order") {
  // Nodes 0..3 on 2 partitions, each with events every 100 us; the horizon is node 2's third
  // event (t = 200 us): nodes 0 and 1 (the other partition) run theirs at 0, 100 and 200 us
  // too, nothing after, though the window (1 ms) reaches further.
  Simulator sim(1);
  sim.partition(contiguous_partitions(4, 2, kLookahead));
  std::vector<EventBound> third(4);
  for (uint32_t i = 0; i < 4; ++i)
    for (int k = 0; k < 5; ++k) {
      const uint64_t id = sim.schedule_at(SimTime::from_us(100 * k), EventKind::kTimer, AgentId{i});
      if (k == 2) third[i] = EventBound{SimTime::from_us(200), key_of_id(id, EventKind::kTimer)};
    }
  StopAfter control(third[2]);
  std::vector<uint32_t> handled(4, 0);
  sim.run([&](const Event& e) { ++handled[e.agent.value]; }, SimTime::max(), &control);
  // Node 3's event at 200 us comes after node 2's in the order (a larger origin): not run.
  CHECK(handled == std::vector<uint32_t>{3, 3, 3, 2});
  CHECK(sim.now() == SimTime::from_us(200));
}

TEST_CASE("contiguous_block is each partition's block of contiguous_partitions") {
  for (uint32_t nodes : {1u, 2u, 7u, 16u, 100u, 1001u})
    for (uint32_t count = 1; count <= std::min(nodes, 9u); ++count) {
      const Partitions p = contiguous_partitions(nodes, count, SimTime{1});
      uint32_t largest = 0;
      for (uint32_t r = 0; r < count; ++r) {
        const NodeBlock b = contiguous_block(nodes, count, r);
        CAPTURE(nodes);
        CAPTURE(count);
        CAPTURE(r);
        REQUIRE(b.first < b.end);
        for (uint32_t i = 0; i < nodes; ++i) CHECK(b.contains(i) == (p.of_node[i] == r));
        largest = std::max(largest, b.size());
      }
      CHECK(largest_contiguous_block(nodes, count) == largest);
    }
}
