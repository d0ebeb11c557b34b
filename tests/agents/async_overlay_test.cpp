// Dynamic overlays in async mode (overlay.hpp, per-agent draws): each agent draws its targets
// from its own stream by its own iteration count; D-PSGD's receiver averages its own model and
// the latest model of every sender heard since its last update, uniformly.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "algorithm_harness.hpp"
#include "graphs.hpp"
#include "sim/agents/dpsgd.hpp"
#include "sim/agents/gossip.hpp"
#include "sim/agents/overlay.hpp"

using namespace dlsim;
using namespace dlsim::testing;

namespace {

Overlay async_overlay(topo::DynamicKind kind, uint32_t n, uint32_t s = 0,
                      std::vector<topo::Graph> graphs = {}) {
  topo::DynamicSpec spec;
  spec.kind = kind;
  spec.s = s;
  return Overlay(spec, std::move(graphs), n, topo::MixingRule::kMetropolisHastings, 7,
                 TimeMode::kAsync);
}

std::vector<uint32_t> targets_of(const Overlay& o, uint32_t i) {
  return {o.targets(i).begin(), o.targets(i).end()};
}

// The async driver's first half of a step: prepare, the gradient, communicate.
void start_iteration(Algorithm& alg, Agent& a, Outbox& out) {
  alg.prepare(a);
  a.loss = a.learner->gradient(a.x, a.g);
  alg.communicate(a, out);
}

// Delivers the queued messages whose sender is `from`, in send order; keeps the others.
void deliver_from(Algorithm& alg, std::vector<Agent>& agents, QueueOutbox& out, uint32_t from) {
  std::deque<Message> kept;
  for (const Message& m : out.queue) {
    if (m.from.value == from)
      alg.receive(agents[m.to.value], m, out);
    else
      kept.push_back(m);
  }
  out.queue = std::move(kept);
}

}  // namespace

TEST_CASE("async one-peer exponential: an agent's target follows its own iteration count") {
  Overlay o = async_overlay(topo::DynamicKind::kOnePeerExponential, 4);
  REQUIRE(o.per_agent());
  // n = 4: period ceil(log2 4) = 2, target (i + 2^(k mod 2)) mod 4.
  o.begin_iteration(0, 0);
  o.begin_iteration(3, 1);
  CHECK(targets_of(o, 0) == std::vector<uint32_t>{1});
  CHECK(targets_of(o, 3) == std::vector<uint32_t>{1});  // 3 + 2 = 5 mod 4
  CHECK(targets_of(o, 1).empty());                      // agent 1 has not started
  o.begin_iteration(0, 1);
  CHECK(targets_of(o, 0) == std::vector<uint32_t>{2});
  CHECK(targets_of(o, 3) == std::vector<uint32_t>{1});  // untouched by agent 0's draw
  o.begin_iteration(0, 2);
  CHECK(targets_of(o, 0) == std::vector<uint32_t>{1});
  // No rounds, no common weights: receivers average what arrived.
  CHECK(o.sources(0).empty());
  CHECK(o.self_weight(0) == 1.0);
}

TEST_CASE("async epidemic draws depend only on the agent's own stream, not on who drew before") {
  Overlay a = async_overlay(topo::DynamicKind::kEpidemic, 10, 3);
  Overlay b = async_overlay(topo::DynamicKind::kEpidemic, 10, 3);
  a.begin_iteration(0, 0);
  a.begin_iteration(1, 0);
  a.begin_iteration(0, 1);
  b.begin_iteration(1, 0);
  b.begin_iteration(0, 0);
  const std::vector<uint32_t> b0_first = targets_of(b, 0);
  b.begin_iteration(0, 1);
  CHECK(targets_of(a, 0) == targets_of(b, 0));
  CHECK(targets_of(a, 1) == targets_of(b, 1));
  CHECK(targets_of(b, 0) != b0_first);  // a new draw (equal with probability 1/120; not here)
  for (uint32_t i : {0u, 1u}) {
    const std::vector<uint32_t> t = targets_of(a, i);
    CHECK(t.size() == 3);
    CHECK(std::is_sorted(t.begin(), t.end()));
    CHECK(std::adjacent_find(t.begin(), t.end()) == t.end());
    CHECK(std::find(t.begin(), t.end(), i) == t.end());
  }
}

TEST_CASE("async random matching is pairwise gossip: one random neighbour of the base graph") {
  Overlay ring = async_overlay(topo::DynamicKind::kRandomMatching, 6, 0, {ring_graph(6)});
  std::set<uint32_t> seen;
  for (int k = 0; k < 200; ++k) {
    ring.begin_iteration(2, k);
    REQUIRE(ring.targets(2).size() == 1);
    seen.insert(ring.targets(2)[0]);
  }
  CHECK(seen == std::set<uint32_t>{1, 3});
  Overlay all = async_overlay(topo::DynamicKind::kRandomMatching, 5);
  seen.clear();
  for (int k = 0; k < 200; ++k) {
    all.begin_iteration(2, k);
    REQUIRE(all.targets(2).size() == 1);
    seen.insert(all.targets(2)[0]);
  }
  CHECK(seen == std::set<uint32_t>{0, 1, 3, 4});
  // An agent without a neighbour in the base graph has no target.
  Overlay line = async_overlay(topo::DynamicKind::kRandomMatching, 3, 0,
                               {topo::Graph(3, {{0, 1, SimTime{}, 1}})});
  line.begin_iteration(2, 0);
  CHECK(line.targets(2).empty());
}

TEST_CASE(
    "async D-PSGD averages its own model and the latest model of each sender uniformly, "
    "then steps") {
  // Epidemic with s = n - 1 = 2: every agent sends to both others. c = 0, lr 0.5: the step is
  // 0.5 * x at the pre-mixing x.
  auto agents = make_agents({vec({3, 0}), vec({0, 6}), vec({6, 3})},
                            {vec({0, 0}), vec({0, 0}), vec({0, 0})}, 0.5f);
  Dpsgd alg(async_overlay(topo::DynamicKind::kEpidemic, 3, 2), {});
  alg.start(agents);
  QueueOutbox out;
  for (Agent& a : agents) start_iteration(alg, a, out);
  CHECK(out.sent == 6);
  deliver_from(alg, agents, out, 0);
  deliver_from(alg, agents, out, 1);  // agent 2's models stay in flight
  // Agent 0 heard agent 1: (x0 + x1) / 2 - 0.5 x0 = ([3,0] + [0,6]) / 2 - [1.5,0] = [0,3].
  alg.update(agents[0]);
  CHECK(agents[0].x[0] == 0.0f);
  CHECK(agents[0].x[1] == 3.0f);
  // Agent 2 heard 0 and 1: ([6,3] + [3,0] + [0,6]) / 3 - [3,1.5] = [3,3] - [3,1.5] = [0,1.5].
  alg.update(agents[2]);
  CHECK(agents[2].x[0] == doctest::Approx(0.0).epsilon(1e-6));
  CHECK(agents[2].x[1] == doctest::Approx(1.5).epsilon(1e-6));
  // Agent 0 runs ahead: its next iteration sends [0,3]; agent 1 then holds two models of agent
  // 0 and keeps the newer only, and agent 2's first model arrives.
  ++agents[0].iteration;
  start_iteration(alg, agents[0], out);
  deliver_from(alg, agents, out, 0);
  deliver_from(alg, agents, out, 2);
  // ([0,6] + [0,3] + [6,3]) / 3 - 0.5 [0,6] = [2,4] - [0,3] = [2,1]. (Both models of agent 0
  // would give ([0,6] + [3,0] + [0,3] + [6,3]) / 4 - [0,3] = [2.25,0].)
  alg.update(agents[1]);
  CHECK(agents[1].x[0] == doctest::Approx(2.0).epsilon(1e-6));
  CHECK(agents[1].x[1] == doctest::Approx(1.0).epsilon(1e-6));
  // Since its update agent 2 heard agent 0's second model only: ([0,1.5] + [0,3]) / 2 -
  // 0.5 [0,1.5] = [0,2.25] - [0,0.75] = [0,1.5].
  ++agents[2].iteration;
  start_iteration(alg, agents[2], out);
  alg.update(agents[2]);
  CHECK(agents[2].x[0] == doctest::Approx(0.0).epsilon(1e-6));
  CHECK(agents[2].x[1] == doctest::Approx(1.5).epsilon(1e-6));
  // And then nothing: only the step, [0,1.5] - 0.5 [0,1.5].
  ++agents[2].iteration;
  start_iteration(alg, agents[2], out);
  alg.update(agents[2]);
  CHECK(agents[2].x[1] == doctest::Approx(0.75).epsilon(1e-6));
}

TEST_CASE(
    "async D-PSGD adapt-then-combine: at its step event an agent steps, sends the stepped model "
    "and averages it with what arrived") {
  // As the async driver does: a step event finishes the iteration (after_gradient, then update)
  // and starts the next (prepare, the gradient, communicate). c = 0, lr 0.5: a step halves x.
  auto agents = make_agents({vec({3, 0}), vec({0, 6}), vec({6, 3})},
                            {vec({0, 0}), vec({0, 0}), vec({0, 0})}, 0.5f);
  Dpsgd alg(async_overlay(topo::DynamicKind::kEpidemic, 3, 2), {}, MixingOrder::kAdaptThenCombine);
  alg.start(agents);
  QueueOutbox out;
  for (Agent& a : agents) start_iteration(alg, a, out);
  CHECK(out.sent == 0);  // nothing is stepped yet
  const auto step_event = [&](uint32_t i) {
    alg.after_gradient(agents[i]);
    alg.update(agents[i]);
    ++agents[i].iteration;
    start_iteration(alg, agents[i], out);
  };
  std::vector<std::vector<float>> carried(3);
  const auto deliver = [&](uint32_t from) {
    for (const Message& m : out.queue)
      if (m.from.value == from) carried[from].assign(m.params->begin(), m.params->end());
    deliver_from(alg, agents, out, from);
  };
  // Agent 0 heard nobody: x0 = [1.5, 0], and that is what it sends to both others.
  step_event(0);
  CHECK(out.sent == 2);
  deliver(0);
  CHECK(carried[0] == std::vector<float>{1.5f, 0.0f});
  CHECK(agents[0].x[0] == 1.5f);
  // Agent 1 steps to [0, 3], sends that, and averages it with 0's: [0.75, 1.5].
  step_event(1);
  deliver(1);
  CHECK(carried[1] == std::vector<float>{0.0f, 3.0f});
  CHECK(agents[1].x[0] == 0.75f);
  CHECK(agents[1].x[1] == 1.5f);
  // Agent 2 steps to [3, 1.5] and averages it with both: ([3,1.5] + [1.5,0] + [0,3]) / 3.
  step_event(2);
  CHECK(agents[2].x[0] == doctest::Approx(1.5).epsilon(1e-6));
  CHECK(agents[2].x[1] == doctest::Approx(1.5).epsilon(1e-6));
}

TEST_CASE("async gossip over one-peer exponential pulls from the target of its own iteration") {
  auto agents = make_agents({vec({1}), vec({2}), vec({3}), vec({4})},
                            {vec({0}), vec({0}), vec({0}), vec({0})}, 0.0f);
  TriggerSpec always;
  GossipSgd alg(GossipMode::kPull, always, async_overlay(topo::DynamicKind::kOnePeerExponential, 4),
                CompressionSpec{});
  alg.start(agents);
  QueueOutbox out;
  agents[0].iteration = 1;  // target 0 + 2^(1 mod 2) = 2
  start_iteration(alg, agents[0], out);
  REQUIRE(out.queue.size() == 1);
  CHECK(out.queue.front().kind == MessageKind::kPullRequest);
  CHECK(out.queue.front().to.value == 2);
  // Agent 2 answers with x_2 = 3; agent 0 moves to (1 + 3) / 2 (lr 0: no step).
  const Message request = out.queue.front();
  out.queue.pop_front();
  alg.receive(agents[2], request, out);
  const Message reply = out.queue.front();
  out.queue.pop_front();
  alg.receive(agents[0], reply, out);
  alg.update(agents[0]);
  CHECK(agents[0].x[0] == 2.0f);
}
