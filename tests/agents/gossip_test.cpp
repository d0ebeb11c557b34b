#include <doctest/doctest.h>

#include "algorithm_harness.hpp"
#include "graphs.hpp"
#include "sim/agents/dpsgd.hpp"
#include "sim/agents/elastic_gossip.hpp"
#include "sim/agents/gossip.hpp"

using namespace dlsim;
using namespace dlsim::testing;

namespace {

TriggerSpec always() { return TriggerSpec{}; }

// Two agents that both fire: both prepare, agent 0 sends its parameters to 1 and they arrive
// before agent 1 has sent anything; what 1 answers is left in `out`.
void deliver_first_pick(Algorithm& alg, std::vector<Agent>& agents, QueueOutbox& out) {
  alg.start(agents);
  for (Agent& a : agents) {
    a.loss = a.learner->gradient(a.x, a.g);
    alg.prepare(a);
  }
  alg.communicate(agents[0], out);
  const Message first = out.queue.front();
  out.queue.pop_front();
  alg.receive(agents[1], first, out);
}

}  // namespace

TEST_CASE("gossip pull: each initiator moves to the midpoint with its peer, then steps") {
  const topo::Graph g = line_graph(2);
  GossipSgd alg(GossipMode::kPull, always(), Overlay(g));
  auto agents = make_agents({vec({1}), vec({3})}, {vec({0}), vec({0})}, 0.1f);
  alg.start(agents);
  CHECK(run_round(alg, agents) == 4);  // two requests, two replies
  // x0 = (1 + 3)/2 - 0.1 * g(1) = 1.9; x1 = (3 + 1)/2 - 0.1 * 3 = 1.7.
  CHECK(agents[0].x[0] == doctest::Approx(1.9));
  CHECK(agents[1].x[0] == doctest::Approx(1.7));
}

TEST_CASE("gossip pull: only the initiator moves, the peer only answers") {
  const topo::Graph g = line_graph(3);
  TriggerSpec t;
  t.kind = TriggerKind::kPeriodic;
  t.period = 2;  // k = 0 fires for everyone: 0 and 2 must pull from 1; 1 pulls from 0 or 2
  GossipSgd alg(GossipMode::kPull, t, Overlay(g));
  auto agents = make_agents({vec({0}), vec({4}), vec({8})}, {vec({0}), vec({4}), vec({8})}, 0.0f);
  alg.start(agents);
  CHECK(run_round(alg, agents) == 6);
  CHECK(agents[0].x[0] == doctest::Approx(2));
  CHECK(agents[2].x[0] == doctest::Approx(6));
  CHECK((agents[1].x[0] == doctest::Approx(2) || agents[1].x[0] == doctest::Approx(6)));
  CHECK(run_round(alg, agents) == 0);  // k = 1: nobody communicates
}

TEST_CASE("gossip push: push-sum keeps the weights summing to n and mixes by weight") {
  const topo::Graph g = line_graph(2);
  GossipSgd alg(GossipMode::kPush, always(), Overlay(g));
  auto agents = make_agents({vec({1}), vec({3})}, {vec({0}), vec({0})}, 0.0f);
  alg.start(agents);
  CHECK(run_round(alg, agents) == 2);
  // Each keeps weight 1/2 and receives the other's x with weight 1/2: both land on 2, weight 1.
  CHECK(agents[0].x[0] == doctest::Approx(2));
  CHECK(agents[1].x[0] == doctest::Approx(2));
  CHECK(alg.weight(AgentId{0}) == doctest::Approx(1));

  const topo::Graph line3 = line_graph(3);
  GossipSgd alg3(GossipMode::kPush, always(), Overlay(line3));
  auto three = make_agents({vec({0}), vec({4}), vec({8})}, {vec({0}), vec({0}), vec({0})}, 0.0f);
  alg3.start(three);
  double mass_before = 0;
  for (const Agent& a : three) mass_before += alg3.weight(a.id) * a.x[0];
  for (int k = 0; k < 5; ++k) run_round(alg3, three);
  double weights = 0, mass = 0;
  for (const Agent& a : three) {
    weights += alg3.weight(a.id);
    mass += alg3.weight(a.id) * a.x[0];
  }
  CHECK(weights == doctest::Approx(3));
  CHECK(mass == doctest::Approx(mass_before));  // push-sum conserves sum w*x without steps
}

TEST_CASE("elastic gossip with alpha = 0.5 lands a pair on its midpoint") {
  const topo::Graph g = line_graph(2);
  ElasticGossip alg(0.5, always(), Overlay(g), TimeMode::kSync);
  auto agents = make_agents({vec({1, -2}), vec({3, 6})}, {vec({0, 0}), vec({0, 0})}, 0.0f);
  alg.start(agents);
  CHECK(run_round(alg, agents) == 2);  // they pick each other: one exchange of two messages
  CHECK(agents[0].x[0] == doctest::Approx(2));
  CHECK(agents[1].x[0] == doctest::Approx(2));
  CHECK(agents[0].x[1] == doctest::Approx(2));
  CHECK(agents[1].x[1] == doctest::Approx(2));
}

TEST_CASE("elastic gossip pulls toward every partner, with pre-step values") {
  const topo::Graph g = line_graph(3);
  ElasticGossip alg(0.25, always(), Overlay(g), TimeMode::kSync);
  // c = x0 so the gradient at x0 is 0 for agent 1, lr 0.1 elsewhere shows the step ordering.
  auto agents = make_agents({vec({0}), vec({4}), vec({8})}, {vec({2}), vec({4}), vec({8})}, 0.1f);
  alg.start(agents);
  // 0 and 2 pick 1, and 1 picks one of them: that pair exchanges once (2 messages), the
  // other pair with a request and a reply (2 more).
  CHECK(run_round(alg, agents) == 4);
  // P_0 = {1}: x0 = 0 - 0.1*(0-2) - 0.25*(0-4) = 1.2. P_2 = {1}: x2 = 8 - 0 - 0.25*(8-4) = 7.
  // P_1 = {0, 2}: x1 = 4 - 0 - 0.25*((4-0) + (4-8)) = 4.
  CHECK(agents[0].x[0] == doctest::Approx(1.2));
  CHECK(agents[1].x[0] == doctest::Approx(4));
  CHECK(agents[2].x[0] == doctest::Approx(7));
}

TEST_CASE("D-PSGD mixes with Metropolis weights, then steps") {
  const topo::Graph g = line_graph(3);  // degrees 1, 2, 1: every W_ij = 1/3, W_00 = W_22 = 2/3
  Dpsgd alg(Overlay(g, topo::MixingRule::kMetropolisHastings), {});
  auto agents = make_agents({vec({0}), vec({3}), vec({9})}, {vec({0}), vec({0}), vec({0})}, 0.1f);
  alg.start(agents);
  CHECK(run_round(alg, agents) == 4);
  // x0 = 2/3*0 + 1/3*3 - 0.1*0 = 1; x1 = (0 + 3 + 9)/3 - 0.3 = 3.7; x2 = 2/3*9 + 1 - 0.9 = 6.1.
  CHECK(agents[0].x[0] == doctest::Approx(1.0));
  CHECK(agents[1].x[0] == doctest::Approx(3.7));
  CHECK(agents[2].x[0] == doctest::Approx(6.1));
}

TEST_CASE("elastic gossip: a mutual pick is one exchange even when one side sends late") {
  // Agent 1 receives agent 0's parameters before its own step: it must not answer, since its own
  // send (later in the round) is the answer. Delivering 0's message first shows the order.
  const topo::Graph g = line_graph(2);
  ElasticGossip alg(0.5, always(), Overlay(g), TimeMode::kSync);
  auto agents = make_agents({vec({0}), vec({4})}, {vec({0}), vec({4})}, 0.0f);
  QueueOutbox out;
  deliver_first_pick(alg, agents, out);
  CHECK(out.queue.empty());  // no reply from 1
  alg.communicate(agents[1], out);
  const Message second = out.queue.front();
  out.queue.pop_front();
  alg.receive(agents[0], second, out);
  CHECK(out.queue.empty());
  CHECK(out.sent == 2);
  for (Agent& a : agents) alg.update(a);
  CHECK(agents[0].x[0] == doctest::Approx(2));
  CHECK(agents[1].x[0] == doctest::Approx(2));
}

TEST_CASE("elastic gossip in async mode answers every pick, a mutual one too") {
  // In async mode agent 1's current pick of 0 may belong to a later iteration than 0's message,
  // so 1 answers: no pick is left without its partner's parameters.
  const topo::Graph g = line_graph(2);
  ElasticGossip alg(0.5, always(), Overlay(g), TimeMode::kAsync);
  auto agents = make_agents({vec({0}), vec({4})}, {vec({0}), vec({4})}, 0.0f);
  QueueOutbox out;
  deliver_first_pick(alg, agents, out);
  REQUIRE(out.queue.size() == 1);
  CHECK(out.queue.front().kind == MessageKind::kPullReply);
  CHECK(out.queue.front().to == agents[0].id);
}
