// Churn in sync runs, checked on the signals a run emits (its event log).
#include <doctest/doctest.h>

#include "../agents/algorithm_harness.hpp"
#include "../agents/graphs.hpp"
#include "sim/agents/dpsgd.hpp"
#include "sim/run/driver.hpp"

using namespace dlsim;
using namespace dlsim::testing;

namespace {

struct Logged {
  enum Kind { kSent, kDelivered, kDropped, kFired, kOnline, kOffline } kind;
  SimTime time;
  uint32_t from = 0, to = 0;
  DropReason reason = DropReason::kLoss;
};

class SignalLog final : public SignalListener {
 public:
  void message_sent(const MessageSignal& m) override { add(Logged::kSent, m); }
  void message_delivered(const MessageSignal& m) override { add(Logged::kDelivered, m); }
  void message_dropped(const MessageSignal& m, DropReason why) override {
    add(Logged::kDropped, m);
    log.back().reason = why;
  }
  void trigger_fired(AgentId a, int64_t, SimTime t) override {
    log.push_back({Logged::kFired, t, a.value, a.value});
  }
  void agent_online(AgentId a, bool online, SimTime t) override {
    log.push_back({online ? Logged::kOnline : Logged::kOffline, t, a.value, a.value});
  }
  std::vector<Logged> log;

 private:
  void add(Logged::Kind k, const MessageSignal& m) {
    log.push_back({k, m.time, m.from.value, m.to.value});
  }
};

// Keeps every agent's parameters after each iteration.
class Snapshots final : public RunObserver {
 public:
  explicit Snapshots(const std::vector<Agent>& agents) : agents_(agents) {}
  bool on_iterations_done(int64_t) override {
    std::vector<ParamVector> x;
    for (const Agent& a : agents_) x.push_back(a.x);
    after.push_back(x);
    return true;
  }
  std::vector<std::vector<ParamVector>> after;  // after[k][i]: x_i after k + 1 iterations

 private:
  const std::vector<Agent>& agents_;
};

topo::Graph ring_1ms(uint32_t n) {
  const topo::Graph ring = ring_graph(n);
  std::vector<topo::Edge> edges(ring.edges().begin(), ring.edges().end());
  for (topo::Edge& e : edges) {
    e.latency = SimTime::from_ms(1);
    e.bandwidth_bps = 1000000000;
  }
  return topo::Graph(n, edges);
}

struct ChurnRun {
  SignalLog signals;
  std::vector<Agent> agents;
  std::unique_ptr<Snapshots> snapshots;
};

// D-PSGD on a ring of 4, 1 ms steps; agent 2 offline from 4 ms to 8 ms: rounds of 2.000096 ms
// (1 ms compute, 1 ms latency, 12 bytes at 1 Gbit/s) start at 0, 2.000096, 4.000192 (offline),
// 6.000288 (offline), 8.000384 (back).
void run(ChurnRun& r, Rejoin rejoin, int64_t iterations) {
  const topo::Graph g = ring_1ms(4);
  Simulator sim(7);
  Network net(g, NetworkConfig{}, 7);
  net.set_listener(r.signals);
  Dpsgd alg(Overlay(g, topo::MixingRule::kMetropolisHastings), {});
  std::vector<ParamVector> x0, c;
  for (uint32_t i = 0; i < 4; ++i) {
    x0.push_back(vec({float(i), 1.0f - float(i), 2.0f}));
    c.push_back(vec({1.0f, float(i), -1.0f}));
  }
  r.agents = make_agents(x0, c, 0.1f);
  alg.start(r.agents);
  ChurnSpec spec;
  spec.offline = {{}, {}, {{SimTime::from_ms(4), SimTime::from_ms(8)}}, {}};
  spec.rejoin = rejoin;
  Churn churn(spec, 4, 7);
  Swarm swarm(sim, net, alg, r.agents, r.signals);
  swarm.set_churn(&churn);
  ThreadPool pool(1);
  r.snapshots = std::make_unique<Snapshots>(r.agents);
  run_driver(swarm, pool, {TimeMode::kSync, iterations, std::vector<SimTime>(4, SimTime::from_ms(1))},
             *r.snapshots);
}

}  // namespace

TEST_CASE("churn: an offline agent sends and receives nothing inside its window, and keeps its "
          "model") {
  ChurnRun r;
  run(r, Rejoin::kStale, 6);
  SimTime off = SimTime::max(), on = SimTime::max();
  for (const Logged& l : r.signals.log) {
    if (l.kind == Logged::kOffline) off = l.time;
    if (l.kind == Logged::kOnline) on = l.time;
  }
  CHECK(off == SimTime{4000192});
  CHECK(on == SimTime{8000384});
  int dropped = 0;
  for (const Logged& l : r.signals.log) {
    // Rounds 2 and 3 span (off, on]: round 1's last deliveries arrive at `off`, round 3's at
    // `on`; a round's own sends come 1 ms after its start.
    const bool inside = off < l.time && l.time <= on;
    if (!inside) continue;
    CHECK_FALSE((l.kind == Logged::kSent && l.from == 2));
    CHECK_FALSE((l.kind == Logged::kDelivered && l.to == 2));
    CHECK_FALSE((l.kind == Logged::kFired && l.from == 2));
    if (l.kind == Logged::kDropped) {
      CHECK(l.to == 2);
      CHECK(l.reason == DropReason::kOffline);
      ++dropped;
    }
  }
  CHECK(dropped == 4);  // agents 1 and 3, two rounds each
  // x_2 after iterations 2 and 3 (the offline rounds) is its x after iteration 2.
  CHECK(r.snapshots->after[2][2] == r.snapshots->after[1][2]);
  CHECK(r.snapshots->after[3][2] == r.snapshots->after[1][2]);
  CHECK(r.snapshots->after[4][2] != r.snapshots->after[1][2]);  // stale rejoin: computes at once
}

TEST_CASE("churn rejoin pull: the returning agent takes a live neighbour's model, sits out one "
          "round, and the copy is a counted message") {
  ChurnRun r;
  run(r, Rejoin::kPull, 6);
  // The neighbour, drawn from (seed 7, "rejoin", agent 2) among the live ones {1, 3}.
  const uint32_t j = RandomStream(7, "rejoin", 2).below(2) == 0 ? 1 : 3;
  int pulls = 0;
  for (const Logged& l : r.signals.log)
    if (l.kind == Logged::kSent && l.to == 2 && l.time == SimTime{8000384}) {
      CHECK(l.from == j);
      ++pulls;
    }
  CHECK(pulls == 1);
  bool fired = false;
  for (const Logged& l : r.signals.log)
    fired |= l.kind == Logged::kFired && l.from == 2 && SimTime{8000384} <= l.time &&
             l.time < SimTime{10000000};
  CHECK_FALSE(fired);  // the pull round: no step of its own
  // After the pull round agent 2 holds j's model of that round's start, exactly.
  CHECK(r.snapshots->after[4][2] == r.snapshots->after[3][j]);
  CHECK(r.snapshots->after[5][2] != r.snapshots->after[4][2]);  // and computes again
}
