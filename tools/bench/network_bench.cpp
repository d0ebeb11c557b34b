// Communication-only speed of the network model: N agents on a 2-D torus (built by hand here),
// each sending a 1 KB message to each of its 4 neighbours every 1 ms over 1 ms, 1 Gbps links,
// for a fixed simulated time. Modes: "direct" (neighbours, one event per message), "nic" (the
// same through 1 Gbps NIC uplinks: one more event per message) and "routed" (to the 4 diagonal
// agents instead, two hops each: routes cached per pair). After 2 ms of warm-up (first arrivals,
// route computations; its CPU time is reported apart), reports events/s and messages/s (CPU
// time, median of the repeats) and the peak resident memory of the run (VmHWM). Each mode runs
// under network.sharing "fifo", "maxmin" or both (the default: repeats alternate between the
// two, and the last column is maxmin's msgs/s over fifo's, medians of the same run).
// Usage: network_bench [repeats = 3] [fifo | maxmin | both = both] [side simulated_ms]
// (the last two: one torus of side^2 agents instead of the 1,024- and 99,856-agent ones).
#include <fmt/format.h>
#include <malloc.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "sim/core/simulator.hpp"
#include "sim/metrics/comm_recorder.hpp"
#include "sim/network/network.hpp"
#include "topologies/graph.hpp"

using namespace dlsim;

namespace {

constexpr uint64_t kMessageBytes = 1000;
constexpr SimTime kPeriod = SimTime::from_ms(1);
constexpr SimTime kWarmUp = SimTime::from_ms(2);

enum class Mode { kDirect, kNic, kRouted };
const char* name(Mode m) {
  return m == Mode::kDirect ? "direct" : m == Mode::kNic ? "nic" : "routed";
}

uint32_t at(uint32_t side, uint32_t r, uint32_t c) { return (r % side) * side + (c % side); }

topo::Graph torus(uint32_t side) {
  std::vector<topo::Edge> edges;
  for (uint32_t r = 0; r < side; ++r)
    for (uint32_t c = 0; c < side; ++c) {
      edges.push_back({at(side, r, c), at(side, r, c + 1), SimTime::from_ms(1), 1000000000});
      edges.push_back({at(side, r, c), at(side, r + 1, c), SimTime::from_ms(1), 1000000000});
    }
  return topo::Graph(side * side, std::move(edges));
}

// The 4 agents an agent sends to: its neighbours, or its diagonal agents (two hops away).
std::vector<uint32_t> partners(uint32_t side, Mode mode) {
  std::vector<uint32_t> p;
  p.reserve(4 * side * side);
  for (uint32_t r = side; r < 2 * side; ++r)  // offset by side: r - 1 never wraps below 0
    for (uint32_t c = side; c < 2 * side; ++c) {
      if (mode == Mode::kRouted) {
        p.insert(p.end(), {at(side, r - 1, c - 1), at(side, r - 1, c + 1), at(side, r + 1, c - 1),
                           at(side, r + 1, c + 1)});
      } else {
        p.insert(p.end(),
                 {at(side, r - 1, c), at(side, r, c - 1), at(side, r, c + 1), at(side, r + 1, c)});
      }
    }
  return p;
}

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

long peak_rss_kb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  return -1;
}

void reset_peak_rss() {
  malloc_trim(0);
  std::ofstream("/proc/self/clear_refs") << "5";
}

struct Result {
  uint64_t events = 0;    // after the warm-up
  uint64_t messages = 0;  // received after the warm-up
  double seconds = 0;
  double warm_up_seconds = 0;
  long peak_kb = 0;  // whole run, including the graph and the warm-up
};

Result run_once(uint32_t side, Mode mode, Sharing sharing, SimTime duration) {
  reset_peak_rss();
  const topo::Graph graph = torus(side);
  NetworkConfig config;
  config.sharing = sharing;
  if (mode == Mode::kNic) config.nic_uplink_bps = 1000000000;
  Network net(graph, config, 1);
  CommRecorder comm(graph.node_count());  // a run's recorder: its cost is part of the rate
  net.set_listener(comm);
  Simulator sim(1);
  const std::vector<uint32_t> to = partners(side, mode);
  RandomStream phase(1, "bench-phase", 0);
  for (uint32_t i = 0; i < graph.node_count(); ++i)
    sim.schedule_at(SimTime{static_cast<int64_t>(phase.below(kPeriod.ns))}, EventKind::kTimer,
                    AgentId{i});
  auto handler = [&](const Event& e) {
    if (net.handle(sim, e)) return;
    if (e.kind() == EventKind::kDelivery) {
      net.release(e.payload);
      return;
    }
    for (size_t k = 4 * e.agent.value; k < 4 * e.agent.value + 4; ++k)
      net.send(sim, e.agent, AgentId{to[k]}, kMessageBytes);
    sim.schedule_in(kPeriod, EventKind::kTimer, e.agent);
  };
  // Warm-up: the first messages arrive after 1 ms, and routes are computed on first use.
  double start = cpu_seconds();
  sim.run(handler, kWarmUp);
  Result r;
  r.warm_up_seconds = cpu_seconds() - start;
  const uint64_t events = sim.events_processed();
  const uint64_t messages = comm.total().received.messages;
  start = cpu_seconds();
  sim.run(handler, kWarmUp + duration);
  r.seconds = cpu_seconds() - start;
  r.events = sim.events_processed() - events;
  r.messages = comm.total().received.messages - messages;
  r.peak_kb = peak_rss_kb();
  return r;
}

Result median(std::vector<Result> runs) {
  std::sort(runs.begin(), runs.end(),
            [](const Result& a, const Result& b) { return a.seconds < b.seconds; });
  return runs[runs.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 3;
  const std::string which = argc > 2 ? argv[2] : "both";
  if (repeats < 1 || (which != "fifo" && which != "maxmin" && which != "both") || argc == 4) {
    fmt::print(stderr, "usage: network_bench [repeats >= 1] [fifo | maxmin | both] [side ms]\n");
    return 2;
  }
  std::vector<Sharing> sharings;
  if (which != "maxmin") sharings.push_back(Sharing::kFifo);
  if (which != "fifo") sharings.push_back(Sharing::kMaxMin);
  struct Config {
    uint32_t side;
    SimTime duration;
  };
  fmt::print("1 KB to 4 partners every 1 ms, 1 ms / 1 Gbps links; median of {} runs (CPU time)\n",
             repeats);
  fmt::print(
      "{:>7} | {:>6} | {:>6} | {:>7} | {:>10} | {:>10} | {:>10} | {:>10} | {:>8} | {:>9} | {:>6}\n",
      "agents", "mode", "share", "sim ms", "events", "messages", "events/s", "msgs/s", "peak MB",
      "warm-up s", "ratio");
  std::vector<Config> configs{{32, SimTime::from_ms(1000)}, {316, SimTime::from_ms(20)}};
  if (argc > 4)
    configs = {{static_cast<uint32_t>(std::atoi(argv[3])), SimTime::from_ms(std::atoi(argv[4]))}};
  for (const Config& c : configs)
    for (Mode mode : {Mode::kDirect, Mode::kNic, Mode::kRouted}) {
      std::vector<std::vector<Result>> runs(sharings.size());
      for (int k = 0; k < repeats; ++k)  // alternating, so both see the same load
        for (size_t s = 0; s < sharings.size(); ++s)
          runs[s].push_back(run_once(c.side, mode, sharings[s], c.duration));
      double fifo_rate = 0;
      for (size_t s = 0; s < sharings.size(); ++s) {
        const Result m = median(runs[s]);
        const double rate = m.messages / m.seconds;
        if (sharings[s] == Sharing::kFifo) fifo_rate = rate;
        const std::string ratio = sharings[s] == Sharing::kMaxMin && fifo_rate > 0
                                      ? fmt::format("{:.2f}", rate / fifo_rate)
                                      : "";
        fmt::print(
            "{:>7} | {:>6} | {:>6} | {:>7} | {:>10} | {:>10} | {:>8.2f} M | {:>8.2f} M | {:>8.1f} "
            "| "
            "{:>9.2f} | {:>6}\n",
            c.side * c.side, name(mode), sharings[s] == Sharing::kFifo ? "fifo" : "maxmin",
            c.duration.ns / 1000000, m.events, m.messages, m.events / m.seconds / 1e6, rate / 1e6,
            m.peak_kb / 1024.0, m.warm_up_seconds, ratio);
      }
    }
}
