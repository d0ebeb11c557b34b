// EASGD driven over the network model: the server node's traffic, as the recorders count it.
#include <doctest/doctest.h>

#include "../agents/algorithm_harness.hpp"
#include "sim/agents/easgd.hpp"
#include "sim/metrics/comm_recorder.hpp"
#include "sim/run/driver.hpp"

using namespace dlsim;
using namespace dlsim::testing;

namespace {

TriggerSpec always() { return TriggerSpec{}; }

// Workers 0..n-1 each linked to the server, node n, with one latency and bandwidth.
topo::Graph star_with_server(uint32_t n, SimTime latency, uint64_t bps) {
  std::vector<topo::Edge> edges;
  for (uint32_t i = 0; i < n; ++i) edges.push_back({i, n, latency, bps});
  return topo::Graph(n + 1, edges);
}

class Observer final : public RunObserver {
 public:
  bool on_iterations_done(int64_t) override { return true; }
};

}  // namespace

TEST_CASE("EASGD sync round over the network: worker to server and back, every byte counted") {
  const uint32_t n = 3;
  const topo::Graph g = star_with_server(n, SimTime::from_ms(1), 1000000000);
  Simulator sim(1);
  Network net(g, NetworkConfig{}, 1);
  CommRecorder comm(g.node_count());
  net.set_listener(comm);
  Easgd alg(0.1, always(), TimeMode::kSync);
  auto agents = make_agents({vec({0, 0, 0, 0}), vec({1, 1, 1, 1}), vec({2, 2, 2, 2})},
                            {vec({0, 0, 0, 0}), vec({0, 0, 0, 0}), vec({0, 0, 0, 0})});
  alg.start(agents);
  Swarm swarm(sim, net, alg, agents, comm);
  ThreadPool pool(1);
  Observer observer;
  run_driver(swarm, pool, {TimeMode::kSync, 2, std::vector<SimTime>(n, SimTime::from_ms(1))},
             observer);
  // A round: 1 ms compute, then 16 bytes (128 ns at 1 Gbit/s) + 1 ms each way.
  CHECK(sim.now() == SimTime::from_ns(2 * (3000000 + 256)));
  CHECK(comm.total().sent.messages == 2 * 2 * n);
  CHECK(comm.total().sent.bytes == 2 * 2 * n * 16);
  CHECK(comm.node(AgentId{n}).sent.messages == 2 * n);  // the server's replies
  CHECK(comm.node(AgentId{n}).received.messages == 2 * n);
  CHECK(comm.total().events == 2 * n);  // every worker fired in both rounds
}
