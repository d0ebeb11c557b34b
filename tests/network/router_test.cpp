// Link numbering and shortest-latency routes, with their deterministic tie-breaks and cache.
#include "sim/network/router.hpp"

#include <doctest/doctest.h>

#include <vector>

#include "harness.hpp"

using namespace dlsim;
using namespace dlsim::test;

namespace {

// The nodes a route visits, from `from` to `to`.
std::vector<uint32_t> route_nodes(const topo::Graph& g, Router& router, uint32_t from,
                                  uint32_t to) {
  std::vector<uint32_t> nodes{from};
  for (uint32_t i = router.route(from, to); router.hop(i) != kNoLink; ++i) {
    const topo::Edge& e = g.edges()[router.hop(i) / 2];
    nodes.push_back(router.hop(i) % 2 == 0 ? e.v : e.u);
  }
  return nodes;
}

}  // namespace

TEST_CASE("edge k carries link 2k from its lower node and 2k+1 back") {
  const topo::Graph g(3, {edge(1, 2, SimTime{}), edge(0, 2, SimTime{})});  // sorted: {0,2}, {1,2}
  CHECK(directed_link(g, 0, 2) == 0);
  CHECK(directed_link(g, 2, 0) == 1);
  CHECK(directed_link(g, 1, 2) == 2);
  CHECK(directed_link(g, 2, 1) == 3);
  CHECK(directed_link(g, 0, 1) == kNoLink);
}

TEST_CASE("routes minimise latency first, even over more hops") {
  const topo::Graph g(5, {edge(0, 1, SimTime::from_ms(10)), edge(1, 3, SimTime::from_ms(10)),
                          edge(0, 2, SimTime::from_ms(1)), edge(2, 4, SimTime::from_ms(1)),
                          edge(3, 4, SimTime::from_ms(1))});
  Router router(g);
  CHECK(route_nodes(g, router, 0, 3) == std::vector<uint32_t>{0, 2, 4, 3});
  CHECK(route_nodes(g, router, 3, 0) == std::vector<uint32_t>{3, 4, 2, 0});
  CHECK(route_nodes(g, router, 1, 4) == std::vector<uint32_t>{1, 3, 4});  // 11 ms against 12 ms
}

TEST_CASE("between routes of equal latency the one with fewer hops wins") {
  // 0-1-4: 2 + 2 ms; 0-2-3-4: 1 + 1 + 2 ms. Same latency, two hops against three.
  const topo::Graph g(5, {edge(0, 1, SimTime::from_ms(2)), edge(1, 4, SimTime::from_ms(2)),
                          edge(0, 2, SimTime::from_ms(1)), edge(2, 3, SimTime::from_ms(1)),
                          edge(3, 4, SimTime::from_ms(2))});
  Router router(g);
  CHECK(route_nodes(g, router, 0, 4) == std::vector<uint32_t>{0, 1, 4});
  CHECK(route_nodes(g, router, 4, 0) == std::vector<uint32_t>{4, 1, 0});
}

TEST_CASE("between equal routes each step goes to the lowest-numbered node") {
  // A 2x3 grid, all links 1 ms: 0 1 2 over 3 4 5. Three shortest routes from 0 to 5.
  const SimTime ms = SimTime::from_ms(1);
  const topo::Graph g(6, {edge(0, 1, ms), edge(1, 2, ms), edge(3, 4, ms), edge(4, 5, ms),
                          edge(0, 3, ms), edge(1, 4, ms), edge(2, 5, ms)});
  Router router(g);
  CHECK(route_nodes(g, router, 0, 5) == std::vector<uint32_t>{0, 1, 2, 5});
  CHECK(route_nodes(g, router, 5, 0) == std::vector<uint32_t>{5, 2, 1, 0});
  CHECK(route_nodes(g, router, 2, 3) == std::vector<uint32_t>{2, 1, 0, 3});
}

TEST_CASE("zero-latency links still give loop-free routes, by hop count") {
  const topo::Graph g = line(5, SimTime{});
  Router router(g);
  CHECK(route_nodes(g, router, 0, 4) == std::vector<uint32_t>{0, 1, 2, 3, 4});
  CHECK(route_nodes(g, router, 3, 1) == std::vector<uint32_t>{3, 2, 1});
}

TEST_CASE("a route is computed once per pair and then served from the cache") {
  const topo::Graph g = line(6, SimTime::from_ms(1));
  Router router(g);
  const uint32_t first = router.route(0, 5);
  CHECK(router.route(0, 5) == first);
  CHECK(router.routes_computed() == 1);
  router.route(5, 0);
  router.route(1, 4);
  CHECK(router.routes_computed() == 3);
  CHECK(route_nodes(g, router, 0, 5) == std::vector<uint32_t>{0, 1, 2, 3, 4, 5});  // still valid
}

TEST_CASE("messages to neighbours are never routed") {
  const topo::Graph g = line(4, SimTime::from_ms(1));
  Network net(g, NetworkConfig{}, 1);
  Simulator sim(1);
  for (uint32_t i = 0; i < 3; ++i) net.send(sim, AgentId{i}, AgentId{i + 1}, 1);
  CHECK(net.router().routes_computed() == 0);
  net.send(sim, AgentId{0}, AgentId{2}, 1);
  net.send(sim, AgentId{0}, AgentId{2}, 1);
  CHECK(net.router().routes_computed() == 1);
}
