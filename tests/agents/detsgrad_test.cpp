#include <doctest/doctest.h>

#include <limits>

#include "algorithm_harness.hpp"
#include "graphs.hpp"
#include "sim/agents/detsgrad.hpp"

using namespace dlsim;
using namespace dlsim::testing;

namespace {

// Constant steps (d = 0) so the arithmetic stays by hand: alpha = 0.1, beta = 0.2.
DetsgradSpec constant_steps() {
  DetsgradSpec s;
  s.alpha = {0.1, 0.0, 1.0};
  s.beta = {0.2, 0.0, 1.0};
  return s;
}

TriggerSpec constant_threshold(double v0) {
  TriggerSpec t;
  t.kind = TriggerKind::kThreshold;
  t.v0 = v0;
  t.decay = 0.0;
  return t;
}

}  // namespace

TEST_CASE("DETSGRAD on two agents matches hand arithmetic over two iterations") {
  const topo::Graph g = line_graph(2);
  Detsgrad alg(constant_steps(), constant_threshold(0.5), g);
  auto agents = make_agents({vec({1}), vec({3})}, {vec({0}), vec({0})});
  alg.start(agents);

  // k = 0: both broadcast. x0 = 1 - 0.2*(1 - 3) - 0.1*1 = 1.3; x1 = 3 - 0.2*(3 - 1) - 0.1*3 = 2.3.
  CHECK(run_round(alg, agents) == 2);
  CHECK(agents[0].x[0] == doctest::Approx(1.3));
  CHECK(agents[1].x[0] == doctest::Approx(2.3));

  // k = 1: drift 0.3 (agent 0) stays under 0.5, drift 0.7 (agent 1) fires and sends 2.3.
  // x0 = 1.3 - 0.2*(1 - 2.3) - 0.1*1.3 = 1.43; x1 = 2.3 - 0.2*(2.3 - 1) - 0.1*2.3 = 1.81.
  CHECK(run_round(alg, agents) == 1);
  CHECK(alg.last_drift(AgentId{0}) == doctest::Approx(0.3));
  CHECK(alg.last_drift(AgentId{1}) == doctest::Approx(0.7));
  CHECK(agents[0].x[0] == doctest::Approx(1.43));
  CHECK(agents[1].x[0] == doctest::Approx(1.81));
  CHECK(agents[0].events == 1);
  CHECK(agents[1].events == 2);
}

TEST_CASE("DETSGRAD consensus on the state uses x_i instead of the broadcast copy") {
  const topo::Graph g = line_graph(2);
  DetsgradSpec spec = constant_steps();
  spec.consensus = ConsensusBase::kState;
  Detsgrad alg(spec, constant_threshold(0.5), g);
  auto agents = make_agents({vec({1}), vec({3})}, {vec({0}), vec({0})});
  alg.start(agents);
  run_round(alg, agents);
  run_round(alg, agents);
  // k = 1: x0 = 1.3 - 0.2*(1.3 - 2.3) - 0.13 = 1.37; x1 = 2.3 - 0.2*(2.3 - 1) - 0.23 = 1.81.
  CHECK(agents[0].x[0] == doctest::Approx(1.37));
  CHECK(agents[1].x[0] == doctest::Approx(1.81));
}

TEST_CASE("DETSGRAD with v0 = 0 communicates every iteration, v0 = infinity never") {
  const topo::Graph g = line_graph(3);  // degrees 1, 2, 1: 4 messages per full round
  for (double v0 : {0.0, std::numeric_limits<double>::infinity()}) {
    Detsgrad alg(constant_steps(), constant_threshold(v0), g);
    auto agents = make_agents({vec({1, 2}), vec({3, 4}), vec({5, 6})},
                              {vec({0, 0}), vec({1, 1}), vec({2, 2})});
    alg.start(agents);
    int messages = 0;
    for (int k = 0; k < 10; ++k) messages += run_round(alg, agents);
    CHECK(messages == (v0 == 0.0 ? 40 : 0));
    if (v0 != 0.0) {
      // No communication: each agent runs plain gradient descent, x <- x - 0.1 (x - c).
      CHECK(agents[2].x[0] == doctest::Approx(2 + 3 * std::pow(0.9, 10)));
    }
  }
}

TEST_CASE("DETSGRAD scales the gradient by s") {
  const topo::Graph g = line_graph(2);
  DetsgradSpec spec = constant_steps();
  spec.gradient_scale = 2.0;
  Detsgrad alg(spec, constant_threshold(std::numeric_limits<double>::infinity()), g);
  auto agents = make_agents({vec({1}), vec({3})}, {vec({0}), vec({0})});
  alg.start(agents);
  run_round(alg, agents);
  CHECK(agents[0].x[0] == doctest::Approx(0.8));  // 1 - 0.1 * 2 * 1
}
