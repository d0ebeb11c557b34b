// Shared by the network tests: small hand-built graphs and a run loop that records deliveries.
#pragma once

#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "sim/core/simulator.hpp"
#include "sim/core/state_archive.hpp"
#include "sim/network/network.hpp"
#include "topologies/graph.hpp"

namespace dlsim::test {

constexpr uint64_t kGbps = 1000000000;
constexpr SimTime ms(int64_t n) { return SimTime::from_ms(n); }

inline topo::Edge edge(uint32_t u, uint32_t v, SimTime latency, uint64_t bandwidth_bps = kGbps) {
  return topo::Edge{u, v, latency, bandwidth_bps};
}

/// 0 - 1 - ... - (n-1), every edge with the same latency and bandwidth.
inline topo::Graph line(uint32_t n, SimTime latency, uint64_t bandwidth_bps = kGbps) {
  std::vector<topo::Edge> edges;
  for (uint32_t i = 0; i + 1 < n; ++i) edges.push_back(edge(i, i + 1, latency, bandwidth_bps));
  return topo::Graph(n, edges);
}

/// Node 0 in the middle, joined to 1..leaves.
inline topo::Graph star(uint32_t leaves, SimTime latency, uint64_t bandwidth_bps) {
  std::vector<topo::Edge> edges;
  for (uint32_t i = 1; i <= leaves; ++i) edges.push_back(edge(0, i, latency, bandwidth_bps));
  return topo::Graph(leaves + 1, edges);
}

struct Delivery {
  uint32_t from = 0;
  uint32_t to = 0;
  uint64_t size_bytes = 0;
  uint32_t slot = 0;  // the message's slot, as send() returned it
  int64_t sent_ns = 0;
  int64_t at_ns = 0;
};

/// Runs the simulator, passing every event to the network first, as the agent layer will;
/// records and releases every delivered message and calls on_timer for kTimer events.
/// Each node's traffic, from the network's signals. Bytes are wire bytes.
struct NodeCounts final : SignalListener {
  explicit NodeCounts(uint32_t nodes) : sent(nodes), received(nodes), dropped(nodes) {}
  void message_sent(const MessageSignal& m) override { sent[m.from.value].add(m.wire_bytes); }
  void message_dropped(const MessageSignal& m, DropReason) override {
    dropped[m.from.value].add(m.wire_bytes);
  }
  void message_delivered(const MessageSignal& m) override {
    received[m.to.value].add(m.wire_bytes);
  }
  std::vector<TrafficCount> sent, received, dropped;
};

inline std::vector<Delivery> run(Simulator& sim, Network& net, SimTime until = SimTime::max(),
                                 const std::function<void(const Event&)>& on_timer = {}) {
  std::vector<Delivery> out;
  sim.run(
      [&](const Event& e) {
        if (e.kind() == EventKind::kTimer && on_timer) on_timer(e);
        if (net.handle(sim, e) || e.kind() != EventKind::kDelivery) return;
        const NetMessage& m = net.message(e.payload);
        CHECK(m.to == e.agent);
        out.push_back(
            {m.from.value, m.to.value, m.size_bytes, e.payload, m.sent_at.ns, sim.now().ns});
        net.release(e.payload);
      },
      until);
  return out;
}

/// Writes a checkpoint of (sim, net) to a scratch file and loads it into (into_sim, into_net),
/// as a resumed run does; `name` keeps concurrent tests' files apart.
inline void save_and_load(const Simulator& sim, const Network& net, Simulator& into_sim,
                          Network& into_net, const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "dlsim-tests";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / (std::to_string(getpid()) + "-" + name)).string();
  {
    StateWriter out(path);
    StateArchive ar(out);
    save_part(sim, ar);
    save_part(net, ar);
    out.finish();
  }
  {
    StateReader in(path);
    StateArchive ar(in);
    into_sim.archive(ar);
    into_net.archive(ar);
    in.finish();
  }
  std::filesystem::remove(path);
}

}  // namespace dlsim::test
