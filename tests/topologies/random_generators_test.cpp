// Random generators: the structure each promises, connectivity, and determinism per seed.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "sim/core/error.hpp"
#include "topologies/generators.hpp"
#include "topologies/metrics.hpp"

using namespace dlsim;
using namespace dlsim::topo;

namespace {

std::set<std::pair<uint32_t, uint32_t>> edge_set(const Graph& g) {
  std::set<std::pair<uint32_t, uint32_t>> s;
  for (const Edge& e : g.edges()) s.emplace(e.u, e.v);
  return s;
}

TopologySpec random_spec(TopologyKind kind, uint32_t n) {
  TopologySpec s;
  s.kind = kind;
  s.n = n;
  s.degree = 3;
  s.p = 0.15;
  s.k = 4;
  s.beta = 0.3;
  s.m = 2;
  s.radius = 0.3;
  return s;
}

// Same seed: the same graph; another seed: a different one; always connected.
void check_seeded(const TopologySpec& spec) {
  const Graph a = build_topology(spec, 7);
  const Graph b = build_topology(spec, 7);
  const Graph c = build_topology(spec, 8);
  CHECK(count_components(a) == 1);
  CHECK(count_components(c) == 1);
  CHECK(edge_set(a) == edge_set(b));
  CHECK(edge_set(a) != edge_set(c));
}

}  // namespace

TEST_CASE("random regular graphs give every node the same degree") {
  const TopologySpec spec = random_spec(TopologyKind::kRandomRegular, 40);
  check_seeded(spec);
  const Graph g = build_topology(spec, 3);
  CHECK(g.edges().size() == 60);
  for (uint32_t i = 0; i < 40; ++i) CHECK(g.degree(i) == 3);
}

TEST_CASE("a large random regular graph is built without getting stuck") {
  TopologySpec spec = random_spec(TopologyKind::kRandomRegular, 2000);
  spec.degree = 8;
  const Graph g = build_topology(spec, 1);
  CHECK(g.edges().size() == 8000);
  for (uint32_t i = 0; i < g.node_count(); ++i) CHECK(g.degree(i) == 8);
}

TEST_CASE("Erdos-Renyi graphs are connected and seeded") {
  const TopologySpec spec = random_spec(TopologyKind::kErdosRenyi, 60);
  check_seeded(spec);
  // Expected edges p * n(n-1)/2 = 265.5; five standard deviations is about 70.
  const size_t edges = build_topology(spec, 7).edges().size();
  CHECK(edges > 195);
  CHECK(edges < 336);
}

TEST_CASE("Erdos-Renyi far below the connectivity threshold fails with a hint") {
  TopologySpec spec = random_spec(TopologyKind::kErdosRenyi, 200);
  spec.p = 0.001;
  CHECK_THROWS_WITH_AS(build_topology(spec, 1),
                       doctest::Contains("no connected erdos_renyi graph with n = 200 in 100 "
                                         "draws; raise p"),
                       InputError);
}

TEST_CASE("Watts-Strogatz without rewiring is the ring lattice") {
  TopologySpec spec = random_spec(TopologyKind::kWattsStrogatz, 30);
  spec.beta = 0;
  const Graph g = build_topology(spec, 1);
  CHECK(g.edges().size() == 60);
  for (uint32_t i = 0; i < 30; ++i) CHECK(g.degree(i) == 4);
  CHECK(g.has_edge(0, 28));
  CHECK(g.has_edge(0, 2));
}

TEST_CASE("Watts-Strogatz with rewiring is connected and seeded") {
  const TopologySpec spec = random_spec(TopologyKind::kWattsStrogatz, 30);
  check_seeded(spec);
  CHECK(build_topology(spec, 7).edges().size() <= 60);  // duplicates of rewiring are dropped
}

TEST_CASE("Barabasi-Albert adds m edges per node after a complete core") {
  const TopologySpec spec = random_spec(TopologyKind::kBarabasiAlbert, 30);
  check_seeded(spec);
  const Graph g = build_topology(spec, 7);
  CHECK(g.edges().size() == 3 + 27 * 2);  // K_3, then 27 nodes with m = 2 edges each
  CHECK(compute_metrics(g).degree_min == 2);
}

TEST_CASE("random geometric graphs are connected and seeded") {
  check_seeded(random_spec(TopologyKind::kRandomGeometric, 60));
}

TEST_CASE("latency drawn in a range stays in it and never shifts the structure") {
  TopologySpec spec = random_spec(TopologyKind::kErdosRenyi, 40);
  const Graph fixed = build_topology(spec, 5);
  spec.latency = {SimTime::from_ms(1), SimTime::from_ms(5)};
  const Graph drawn = build_topology(spec, 5);
  CHECK(edge_set(fixed) == edge_set(drawn));
  std::set<int64_t> seen;
  for (const Edge& e : drawn.edges()) {
    CHECK(e.latency >= SimTime::from_ms(1));
    CHECK(e.latency <= SimTime::from_ms(5));
    CHECK(e.bandwidth_bps == kDefaultBandwidthBps);
    seen.insert(e.latency.ns);
  }
  CHECK(seen.size() > 1);
  // Drawing bandwidths too leaves the latency draws as they were.
  spec.bandwidth_bps = {1000000, 9000000};
  const Graph both = build_topology(spec, 5);
  for (size_t i = 0; i < both.edges().size(); ++i)
    CHECK(both.edges()[i].latency == drawn.edges()[i].latency);
}

TEST_CASE("overrides set one edge and must name an existing edge") {
  TopologySpec spec;
  spec.kind = TopologyKind::kRing;
  spec.n = 5;
  spec.overrides = {EdgeOverride{1, 0, SimTime::from_ms(9), std::nullopt}};
  const Graph g = build_topology(spec, 1);
  CHECK(g.edges()[g.edge_index(0, 1)].latency == SimTime::from_ms(9));
  CHECK(g.edges()[g.edge_index(0, 1)].bandwidth_bps == kDefaultBandwidthBps);
  CHECK(g.edges()[g.edge_index(1, 2)].latency == kDefaultLatency);
  spec.overrides = {EdgeOverride{0, 2, SimTime::from_ms(9), std::nullopt}};
  CHECK_THROWS_WITH_AS(build_topology(spec, 1), "/overrides/0: the ring graph has no edge 0 -- 2",
                       InputError);
}

TEST_CASE("a seed in the spec takes precedence over the caller's") {
  TopologySpec spec = random_spec(TopologyKind::kErdosRenyi, 40);
  spec.seed = 11;
  CHECK(edge_set(build_topology(spec, 1)) == edge_set(build_topology(spec, 2)));
  TopologySpec plain = random_spec(TopologyKind::kErdosRenyi, 40);
  CHECK(edge_set(build_topology(spec, 1)) == edge_set(build_topology(plain, 11)));
}
