// Send buffers in a run: what a receiver ends with when copies are coalesced, and how long
// "block" holds an async agent, by hand to the nanosecond.
#include <doctest/doctest.h>

#include "../agents/algorithm_harness.hpp"
#include "../agents/graphs.hpp"
#include "sim/agents/detsgrad.hpp"
#include "sim/metrics/comm_recorder.hpp"
#include "sim/run/driver.hpp"

using namespace dlsim;
using namespace dlsim::testing;

namespace {

struct Observer final : RunObserver {
  bool on_iterations_done(int64_t) override { return true; }
};

// 12 bytes (3 floats) at 9,600 bit/s: 10 ms on the wire, no latency.
const topo::Graph kPair(2, {topo::Edge{0, 1, SimTime{}, 9600}});
constexpr SimTime kOnWire = SimTime::from_ms(10);

struct Run {
  SimTime end;
  NodeTraffic agent0;
  bool holds_latest = false;  // agent 1's copy of agent 0 is agent 0's last broadcast
};

// Async DETSGRAD (trigger always) between two agents whose steps take `compute`, then the
// queue runs dry (every message still on its way arrives).
Run run_pair(const SendBufferConfig& buffer, int64_t iterations, SimTime compute) {
  Simulator sim(3);
  NetworkConfig config;
  config.send_buffer = buffer;
  Network net(kPair, config, 3);
  CommRecorder comm(2);
  net.set_listener(comm);
  TriggerSpec always;
  Detsgrad alg(DetsgradSpec{}, always, Overlay(kPair));
  auto agents = make_agents({vec({1, 2, 3}), vec({-1, 0, 1})}, {vec({0, 0, 0}), vec({1, 1, 1})});
  alg.start(agents);
  Swarm swarm(sim, net, alg, agents, comm);
  ThreadPool pool(1);
  Observer observer;
  run_driver(swarm, pool, {TimeMode::kAsync, iterations, {compute, compute}}, observer);
  Run r;
  r.end = sim.now();
  sim.run([&](const Event& e) { CHECK(swarm.dispatch(e)); });
  r.agent0 = comm.node(AgentId{0});
  r.holds_latest = alg.neighbour_copy(AgentId{1}, 0) == alg.public_copy(AgentId{0});
  return r;
}

SendBufferConfig buffer_of(uint64_t messages, WhenFull when_full) {
  SendBufferConfig b;
  b.messages = messages;
  b.when_full = when_full;
  return b;
}

}  // namespace

TEST_CASE("coalescing keeps the newest copy: the receiver ends with the sender's last broadcast") {
  // A step every 1 ms, a message every 10 ms: most copies are superseded while they wait.
  const Run r = run_pair(buffer_of(2, WhenFull::kCoalesce), 50, SimTime::from_ms(1));
  CHECK(r.agent0.superseded.messages > 0);
  CHECK(r.agent0.sent.messages + r.agent0.superseded.messages == r.agent0.events);
  CHECK(r.agent0.events == 50);
  CHECK(r.holds_latest);
  // Tensor sends count what travelled: a superseded copy withdrew its model (one tensor here).
  CHECK(r.agent0.model_messages == r.agent0.sent.messages);
  CHECK(r.agent0.tensor_sends == r.agent0.sent.messages);
  // Dropping instead keeps the older copies waiting: the last broadcast never leaves.
  const Run dropped = run_pair(buffer_of(2, WhenFull::kDrop), 50, SimTime::from_ms(1));
  CHECK(dropped.agent0.buffer_dropped.messages == r.agent0.superseded.messages);
  CHECK_FALSE(dropped.holds_latest);
  CHECK(dropped.agent0.tensor_sends == dropped.agent0.sent.messages);  // refused: never counted
  CHECK(dropped.end == r.end);  // neither delays the agents
  CHECK(r.end == SimTime::from_ms(50));
}

TEST_CASE("block mode holds the sender until its buffer has room, by hand to the nanosecond") {
  // Buffer of 1, steps of 4 ms, 10 ms on the wire. Agent 0's sends: at 0 (on the wire at once),
  // at 4 (waits until 10), at 8: full, so it blocks until the one sent at 4 starts at 10, and
  // steps next at 14 (2 ms blocked); at 14 it waits for the one on the wire from 20: next at 24
  // (6 ms); at 24 until 30: its last step, finishing its 5th iteration, at 34 (6 ms).
  const Run r = run_pair(buffer_of(1, WhenFull::kBlock), 5, SimTime::from_ms(4));
  CHECK(r.end == SimTime::from_ms(34));
  CHECK(r.agent0.blocked == SimTime::from_ms(14));
  CHECK(r.agent0.sent.messages == 5);
  CHECK(r.agent0.superseded.messages + r.agent0.buffer_dropped.messages == 0);
  CHECK(kOnWire == transmission_time(12, 9600));
  // Unbounded, nothing waits: 5 iterations of 4 ms.
  const Run free = run_pair(SendBufferConfig{}, 5, SimTime::from_ms(4));
  CHECK(free.end == SimTime::from_ms(20));
  CHECK(free.agent0.blocked == SimTime{});
}
