// A toy network for the engine's windows over MPI ranks (tests/distributed/): nodes tick, fold
// what they receive into a 64-bit state and send their neighbours messages whose content travels
// in a slot (the payload), shipped between ranks by an EventShipping hook. What a node does next
// depends on its state, so any change in the order a node sees its events changes the result.
// Usage: toy_network GRAPH NODES [--virtual R] [--throw-at NODE:US]
//   GRAPH: ring, random (3 random neighbours each, and the ring), pair (2 nodes; every tick of
//   node 0 sends node 1 a message exactly one lookahead ahead, onto node 1's own ticks).
// Without an MPI launcher: one process, one queue (or R virtual ranks); under mpirun -np R: R
// ranks. Rank 0 prints "fingerprint 0x.. events N digest 0x.." (digest: the nodes' states).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/fingerprint.hpp"
#include "sim/core/random.hpp"
#include "sim/core/rank_totals.hpp"
#include "sim/core/simulator.hpp"
#include "sim/distributed/mpi_partition_exchange.hpp"

using namespace dlsim;

namespace {

constexpr SimTime kLookahead = SimTime::from_ms(1);
// k quarters of a lookahead: every delay is one, so events often fall on the same instant.
constexpr SimTime quarters(uint64_t k) { return SimTime{static_cast<int64_t>(k) * 250'000}; }
constexpr SimTime kHorizon = SimTime::from_ms(30);  // no new sends after it

struct Edge {
  uint32_t to;
  SimTime latency;  // >= kLookahead, a third of them exactly
};

std::vector<std::vector<Edge>> build_graph(const std::string& kind, uint32_t n) {
  std::vector<std::vector<Edge>> out(n);
  auto link = [&](uint32_t u, uint32_t v) {
    if (u == v) return;
    for (const Edge& e : out[u])
      if (e.to == v) return;
    const uint64_t h = mix64(uint64_t{std::min(u, v)} << 32 | std::max(u, v));
    const SimTime latency = kind == "pair" ? kLookahead : kLookahead + quarters(h % 3);
    out[u].push_back({v, latency});
    out[v].push_back({u, latency});
  };
  for (uint32_t i = 0; i < n; ++i) link(i, (i + 1) % n);
  if (kind == "random") {
    RandomStream draw(7, "toy graph", n);
    for (uint32_t i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) link(i, static_cast<uint32_t>(draw.below(n)));
  }
  return out;
}

// Messages' contents, by slot: a free list per process (per rank), as the network's slots are.
class Slots final : public EventShipping {
 public:
  uint32_t put(uint64_t content) {
    if (free_.empty()) {
      content_.push_back(content);
      live_.push_back(true);
      return static_cast<uint32_t>(content_.size() - 1);
    }
    const uint32_t slot = free_.back();
    free_.pop_back();
    content_[slot] = content;
    live_[slot] = true;
    return slot;
  }
  uint64_t take(uint32_t slot) {
    DLSIM_CHECK(slot < content_.size() && live_[slot], "message slot {} is not in use", slot);
    live_[slot] = false;
    free_.push_back(slot);
    return content_[slot];
  }
  void pack(const Event& e, uint32_t, std::vector<std::byte>& out) override {
    const uint64_t content = take(e.payload);
    const size_t at = out.size();
    out.resize(at + sizeof content);
    std::memcpy(out.data() + at, &content, sizeof content);
  }
  uint32_t unpack(const Event&, uint32_t, std::span<const std::byte> content) override {
    DLSIM_CHECK(content.size() == sizeof(uint64_t), "a message of {} bytes", content.size());
    uint64_t value;
    std::memcpy(&value, content.data(), sizeof value);
    return put(value);
  }

 private:
  std::vector<uint64_t> content_;
  std::vector<bool> live_;
  std::vector<uint32_t> free_;
};

struct Options {
  std::string graph;
  uint32_t nodes = 0;
  uint32_t virtual_ranks = 1;
  int64_t throw_node = -1;
  SimTime throw_at;
  size_t round_bytes = 0;  // the shipping's rounds (0: the default)
};

Options parse(int argc, char** argv) {
  if (argc < 3)
    throw InputError(
        "usage: toy_network GRAPH NODES [--virtual R] [--throw-at N:US] [--round-bytes B]");
  Options o;
  o.graph = argv[1];
  o.nodes = static_cast<uint32_t>(std::stoul(argv[2]));
  if (o.graph == "pair") o.nodes = 2;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--virtual") {
      o.virtual_ranks = static_cast<uint32_t>(std::stoul(value));
    } else if (flag == "--round-bytes") {
      o.round_bytes = std::stoul(value);
    } else if (flag == "--throw-at") {
      o.throw_node = std::stoll(value.substr(0, value.find(':')));
      o.throw_at = SimTime::from_us(std::stoll(value.substr(value.find(':') + 1)));
    } else {
      throw InputError("toy_network: unknown flag " + flag);
    }
  }
  return o;
}

bool under_mpi_launcher() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr;
}

// Runs the toy on this process's share of the nodes; on rank 0 (or alone) returns its line.
std::string run_toy(const Options& o, PartitionExchange* exchange) {
  const std::vector<std::vector<Edge>> graph = build_graph(o.graph, o.nodes);
  Simulator sim(1);
  const uint32_t ranks = exchange ? exchange->ranks() : o.virtual_ranks;
  if (exchange)
    sim.partition(contiguous_partitions(o.nodes, ranks, kLookahead), *exchange);
  else if (ranks > 1)
    sim.partition(contiguous_partitions(o.nodes, ranks, kLookahead));
  if (o.round_bytes > 0) sim.set_shipping_round_bytes(o.round_bytes);
  Slots slots;
  sim.set_shipping(EventKind::kDelivery, slots);
  std::vector<uint64_t> state(o.nodes);
  for (uint32_t i = 0; i < o.nodes; ++i) {
    state[i] = mix64(i + 1);
    if (sim.runs_here(AgentId{i})) sim.schedule_at(quarters(i % 3), EventKind::kTimer, AgentId{i});
  }
  const bool pair = o.graph == "pair";
  sim.run([&](const Event& e) {
    const uint32_t v = e.agent.value;
    if (static_cast<int64_t>(v) == o.throw_node && e.time >= o.throw_at)
      throw std::runtime_error(
          fmt::format("toy: node {} failed on purpose at {} ns", v, e.time.ns));
    uint64_t& h = state[v];
    if (e.kind() == EventKind::kDelivery)
      h = mix64(h * 31 + slots.take(e.payload));  // not commutative: the order counts
    else
      h = mix64(h ^ static_cast<uint64_t>(e.time.ns));
    if (e.time > kHorizon) return;
    RandomStream draw(h, "toy", v);
    if (e.kind() == EventKind::kTimer) {
      const SimTime next = quarters(pair ? 1 : draw.below(5));
      sim.schedule_in(next, EventKind::kTimer, AgentId{v});  // 0 to 1 ms: ties with messages
    }
    const bool send = pair ? v == 0 && e.kind() == EventKind::kTimer : draw.below(3) != 0;
    if (!send) return;
    const Edge& to = graph[v][draw.below(graph[v].size())];
    const SimTime extra = pair || draw.below(2) == 0 ? SimTime{} : quarters(draw.below(3));
    sim.schedule_in(to.latency + extra, EventKind::kDelivery, AgentId{to.to},
                    slots.put(mix64(h + v)));
  });
  // The digest: every node's state in node order, from the rank that ran it.
  std::vector<uint64_t> mine;
  for (uint32_t i = 0; i < o.nodes; ++i)
    if (sim.runs_here(AgentId{i})) mine.insert(mine.end(), {i, state[i]});
  RankTotals totals{sim.fingerprint(), sim.events_processed()};
  std::vector<uint64_t> all = mine;
  if (exchange) {
    totals = totals_over_ranks(sim, *exchange);
    all.clear();
    for (const std::vector<std::byte>& bytes :
         exchange->gather_to_rank_0(std::as_bytes(std::span(mine)))) {
      if (bytes.empty()) continue;  // memcpy takes no null pointer, even for 0 bytes
      const size_t at = all.size();
      all.resize(at + bytes.size() / sizeof(uint64_t));
      std::memcpy(all.data() + at, bytes.data(), bytes.size());
    }
    if (exchange->rank() != 0) return {};
  }
  std::vector<uint64_t> by_node(o.nodes);
  for (size_t k = 0; k + 1 < all.size(); k += 2) by_node[all[k]] = all[k + 1];
  Fingerprint digest;
  for (uint64_t s : by_node) digest.add(s);
  return fmt::format("fingerprint {:#018x} events {} digest {:#018x}\n", totals.fingerprint.value(),
                     totals.events_handled, digest.value());
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = [&] {
    try {
      return parse(argc, argv);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      std::exit(2);
    }
  }();
  if (!under_mpi_launcher()) {
    try {
      std::fputs(run_toy(o, nullptr).c_str(), stdout);
      return 0;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "toy_network: %s\n", e.what());
      return 1;
    }
  }
  MPI_Init(&argc, &argv);
  int code = 0;
  {
    MpiPartitionExchange exchange;
    try {
      std::fputs(run_toy(o, &exchange).c_str(), stdout);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "toy_network rank %u: %s\n", exchange.rank(), e.what());
      code = 1;
    }
  }
  MPI_Finalize();
  return code;
}
