#include "sim/run/driver.hpp"

#include <doctest/doctest.h>

#include "../agents/algorithm_harness.hpp"
#include "../agents/graphs.hpp"
#include "sim/agents/detsgrad.hpp"
#include "sim/agents/elastic_gossip.hpp"
#include "sim/agents/gossip.hpp"
#include "sim/core/units.hpp"
#include "sim/metrics/comm_recorder.hpp"

using namespace dlsim;
using namespace dlsim::testing;

namespace {

class CountingObserver final : public RunObserver {
 public:
  bool on_iterations_done(int64_t k) override {
    seen.push_back(k);
    return k < stop_after;
  }
  std::vector<int64_t> seen;
  int64_t stop_after = 1 << 30;
};

topo::Graph with_links(const topo::Graph& g, SimTime latency, uint64_t bps) {
  std::vector<topo::Edge> edges(g.edges().begin(), g.edges().end());
  for (topo::Edge& e : edges) {
    e.latency = latency;
    e.bandwidth_bps = bps;
  }
  return topo::Graph(g.node_count(), edges);
}

struct Result {
  std::vector<ParamVector> x;
  SimTime end;
  uint64_t messages = 0;
};

enum class Which { kDetsgrad, kPull, kElastic };

std::unique_ptr<Algorithm> make_algorithm(Which which, const topo::Graph& g, TimeMode mode) {
  TriggerSpec threshold;
  threshold.kind = TriggerKind::kThreshold;
  threshold.v0 = 0.05;
  TriggerSpec half;
  half.kind = TriggerKind::kProbability;
  half.probability = 0.5;
  switch (which) {
    case Which::kDetsgrad:
      return std::make_unique<Detsgrad>(DetsgradSpec{}, threshold, Overlay(g));
    case Which::kPull:
      return std::make_unique<GossipSgd>(GossipMode::kPull, half, Overlay(g));
    case Which::kElastic:
      return std::make_unique<ElasticGossip>(0.3, half, Overlay(g), mode);
  }
  return nullptr;
}

// dim = 3: small hand-made vectors; larger: patterns spanning several update blocks.
Result simulate(Which which, TimeMode mode, unsigned threads, const topo::Graph& g,
                int64_t iterations, SimTime compute, Eigen::Index dim = 3) {
  Simulator sim(7);
  Network net(g, NetworkConfig{}, 7);
  CommRecorder comm(g.node_count());
  net.set_listener(comm);
  auto alg = make_algorithm(which, g, mode);
  WaveProblem p;
  if (dim != 3) p = wave_problem(g.node_count(), dim);
  for (uint32_t i = 0; dim == 3 && i < g.node_count(); ++i) {
    p.x0.push_back(vec({float(i), -float(i), 1.0f}));
    p.c.push_back(vec({float(i % 3), 1.0f, -2.0f}));
  }
  auto agents = make_agents(p.x0, p.c, 0.1f);
  alg->start(agents);
  Swarm swarm(sim, net, *alg, agents, comm);
  ThreadPool pool(threads);
  CountingObserver observer;
  DriverConfig config{mode, iterations, std::vector<SimTime>(g.node_count(), compute)};
  const RunOutcome out = run_driver(swarm, pool, config, observer);
  CHECK(out.status == RunStatus::kOk);
  CHECK(out.iterations_done == iterations);
  CHECK(observer.seen.size() == static_cast<size_t>(iterations));
  Result r;
  for (const Agent& a : agents) r.x.push_back(a.x);
  r.end = sim.now();
  r.messages = comm.total().sent.messages;
  return r;
}

}  // namespace

TEST_CASE("a sync round of 800 KB models over 1 ms, 1 Gbit/s links takes exactly 7.4 ms") {
  const topo::Graph ring = with_links(line_graph(16), SimTime::from_ms(1), 1000000000);
  Simulator sim(1);
  Network net(ring, NetworkConfig{}, 1);
  TriggerSpec always;
  Detsgrad alg(DetsgradSpec{}, always, Overlay(ring));
  std::vector<ParamVector> x0(16, ParamVector::Zero(200000)), c(16, ParamVector::Ones(200000));
  auto agents = make_agents(x0, c);
  alg.start(agents);
  Swarm swarm(sim, net, alg, agents);
  ThreadPool pool(1);
  CountingObserver observer;
  run_driver(swarm, pool, {TimeMode::kSync, 2, std::vector<SimTime>(16, SimTime{})}, observer);
  CHECK(sim.now() == SimTime::from_us(2 * 7400));  // two rounds, each latency + 6.4 ms
}

// 1 ns, not 0: a zero-latency message sent at a step's instant is simultaneous with the other
// agents' steps, and runs before those of agents with larger ids (events run in origin order,
// sim/core/simulator.hpp), so async would mix some messages one step earlier than sync does.
TEST_CASE("async with 1 ns latency and equal speeds matches sync") {
  const topo::Graph g = with_links(complete_graph(4), SimTime::from_ns(1), 1000000000000ull);
  for (Which which : {Which::kDetsgrad, Which::kPull, Which::kElastic}) {
    CAPTURE(static_cast<int>(which));
    const Result sync = simulate(which, TimeMode::kSync, 1, g, 30, SimTime::from_ms(1));
    const Result async = simulate(which, TimeMode::kAsync, 1, g, 30, SimTime::from_ms(1));
    // Async Elastic Gossip answers every pick, also a mutual one (two extra messages each).
    if (which == Which::kElastic)
      CHECK(sync.messages < async.messages);
    else
      CHECK(sync.messages == async.messages);
    for (size_t i = 0; i < sync.x.size(); ++i) CHECK(sync.x[i] == async.x[i]);
  }
}

TEST_CASE("threads 1 and 2 give bit-identical results in both time modes") {
  const topo::Graph g = with_links(line_graph(5), SimTime::from_us(300), 100000000);
  for (TimeMode mode : {TimeMode::kSync, TimeMode::kAsync}) {
    const Result one = simulate(Which::kElastic, mode, 1, g, 40, SimTime::from_us(500));
    const Result two = simulate(Which::kElastic, mode, 2, g, 40, SimTime::from_us(500));
    CHECK(one.end == two.end);
    for (size_t i = 0; i < one.x.size(); ++i) CHECK(one.x[i] == two.x[i]);
  }
}

TEST_CASE("DETSGRAD's sync update in blocks gives the same results for 1, 2 and 7 threads") {
  // 5 agents: 2 threads take ranges of 2 and 3 agents, 7 threads more ranges than agents.
  const topo::Graph g = with_links(ring_graph(5), SimTime::from_us(300), 100000000);
  const Eigen::Index dim = 20000;  // several of the driver's update blocks, the last partial
  const Result one =
      simulate(Which::kDetsgrad, TimeMode::kSync, 1, g, 12, SimTime::from_us(500), dim);
  for (unsigned threads : {2u, 7u}) {
    CAPTURE(threads);
    const Result other =
        simulate(Which::kDetsgrad, TimeMode::kSync, threads, g, 12, SimTime::from_us(500), dim);
    CHECK(one.messages == other.messages);
    for (size_t i = 0; i < one.x.size(); ++i) CHECK(one.x[i] == other.x[i]);
  }
}

TEST_CASE("async agents keep their own clocks: latency makes copies stale, not the run longer") {
  const topo::Graph g = with_links(line_graph(3), SimTime::from_ms(5), 1000000000);
  const Result sync = simulate(Which::kDetsgrad, TimeMode::kSync, 1, g, 10, SimTime::from_ms(1));
  const Result async = simulate(Which::kDetsgrad, TimeMode::kAsync, 1, g, 10, SimTime::from_ms(1));
  // Sync waits for the 5 ms messages each round; async agents step every 1 ms regardless.
  CHECK(sync.end > SimTime::from_ms(50));
  CHECK(async.end == SimTime::from_ms(10));
  CHECK(sync.x[0] != async.x[0]);
}
