#include "sim/run/swarm.hpp"

#include <doctest/doctest.h>

#include <memory>

#include "../agents/algorithm_harness.hpp"
#include "../agents/graphs.hpp"
#include "sim/agents/choco.hpp"
#include "sim/agents/detsgrad.hpp"

using namespace dlsim;
using namespace dlsim::testing;

namespace {

// Sends one snapshot from agent 0 to agent 1 over a link that loses everything; returns how
// many owners the snapshot has after the send and after the event queue ran dry.
std::pair<long, long> owners_of_lost_message(uint64_t nic_uplink_bps) {
  const topo::Graph g = line_graph(2);
  NetworkConfig config;
  config.loss_probability = 1.0;
  config.nic_uplink_bps = nic_uplink_bps;
  Simulator sim(1);
  Network net(g, config, 1);
  Detsgrad alg(DetsgradSpec{}, TriggerSpec{}, Overlay(g));
  auto agents = make_agents({vec({1}), vec({2})}, {vec({0}), vec({0})});
  alg.start(agents);
  Swarm swarm(sim, net, alg, agents);
  const Snapshot snapshot = std::make_shared<const ParamVector>(vec({1, 2, 3}));
  swarm.send(Message{MessageKind::kParams, AgentId{0}, AgentId{1}, snapshot, 12});
  const long after_send = snapshot.use_count();
  sim.run([&](const Event& e) { CHECK(swarm.dispatch(e)); });
  return {after_send, snapshot.use_count()};
}

}  // namespace

TEST_CASE("a message lost on its first link keeps no reference to its snapshot") {
  CHECK(owners_of_lost_message(0) == std::pair<long, long>{1, 1});
}

TEST_CASE("a message lost after its NIC uplink releases its snapshot when the link loses it") {
  CHECK(owners_of_lost_message(1000000000) == std::pair<long, long>{2, 1});
}

TEST_CASE("DETSGRAD reuses its snapshot buffers: two per agent when it broadcasts every round") {
  const topo::Graph g = line_graph(3);
  TriggerSpec always;
  Detsgrad alg(DetsgradSpec{}, always, Overlay(g));
  auto agents =
      make_agents({vec({1, 2}), vec({3, 4}), vec({5, 6})}, {vec({0, 0}), vec({1, 1}), vec({2, 2})});
  alg.start(agents);
  for (int k = 0; k < 10; ++k) run_round(alg, agents);
  for (uint32_t i = 0; i < 3; ++i) CHECK(alg.snapshot_buffers(AgentId{i}) == 2);
}

namespace {

struct DeliveryLog final : SignalListener {
  std::vector<std::pair<SimTime, uint64_t>> delivered;  // time, wire bytes
  uint64_t uncompressed = 0, compressed = 0;
  void message_delivered(const MessageSignal& m) override {
    delivered.emplace_back(m.time, m.wire_bytes);
  }
  void message_compressed(AgentId, uint64_t raw, uint64_t wire) override {
    uncompressed += raw;
    compressed += wire;
  }
};

}  // namespace

TEST_CASE("a compressed message takes the link for its wire size, to the nanosecond") {
  // Two agents, 1 ms and 10 Mbit/s, 40 header bytes. CHOCO with top_k 3 of 1000 parameters:
  // 3 indices of 32 bits (< a 1000-bit mask) + 3 floats = 24 bytes; + 40 header = 64 bytes,
  // 51,200 ns on the wire.
  const topo::Graph g(2, {topo::Edge{0, 1, SimTime::from_ms(1), 10000000}});
  NetworkConfig config;
  config.header_bytes = 40;
  Simulator sim(1);
  Network net(g, config, 1);
  CompressionSpec top3;
  top3.sparsifier = Sparsifier::kTopK;
  top3.k = 3;
  Choco alg(Overlay(g), 0.5, TriggerSpec{}, top3);
  const WaveProblem p = wave_problem(2, 1000);
  auto agents = make_agents(p.x0, p.c);
  alg.start(agents);
  DeliveryLog log;
  net.set_listener(log);
  Swarm swarm(sim, net, alg, agents, log);
  for (Agent& a : agents) {
    alg.prepare(a);
    a.loss = a.learner->gradient(a.x, a.g);
    alg.after_gradient(a);
    alg.communicate(a, swarm);
  }
  sim.run([&](const Event& e) { CHECK(swarm.dispatch(e)); });
  REQUIRE(log.delivered.size() == 2);
  for (const auto& [time, bytes] : log.delivered) {
    CHECK(bytes == 64);
    CHECK(time == SimTime::from_ms(1) + SimTime::from_ns(51200));
  }
  CHECK(log.compressed == 2 * 24);
  CHECK(log.uncompressed == 2 * 4000);
}
