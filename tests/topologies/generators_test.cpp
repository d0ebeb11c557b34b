// Deterministic generators: edge counts, degrees, connectivity, and the diameters these
// families are known for.
#include "topologies/generators.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "sim/core/error.hpp"
#include "topologies/metrics.hpp"

using namespace dlsim;
using namespace dlsim::topo;

namespace {

TopologySpec spec_of(TopologyKind kind, uint32_t n) {
  TopologySpec s;
  s.kind = kind;
  s.n = n;
  return s;
}

TopologySpec lattice(TopologyKind kind, uint32_t rows, uint32_t cols) {
  TopologySpec s;
  s.kind = kind;
  s.rows = rows;
  s.cols = cols;
  return s;
}

std::vector<uint32_t> degrees(const Graph& g) {
  std::vector<uint32_t> d;
  for (uint32_t i = 0; i < g.node_count(); ++i) d.push_back(g.degree(i));
  return d;
}

bool all_degree(const Graph& g, uint32_t d) {
  const auto ds = degrees(g);
  return std::all_of(ds.begin(), ds.end(), [&](uint32_t x) { return x == d; });
}

}  // namespace

TEST_CASE("a ring has n edges, degree 2 and diameter n / 2") {
  const Graph g = build_topology(spec_of(TopologyKind::kRing, 10), 1);
  CHECK(g.node_count() == 10);
  CHECK(g.edges().size() == 10);
  CHECK(all_degree(g, 2));
  CHECK(g.has_edge(9, 0));
  CHECK(diameter(g) == 5);
}

TEST_CASE("a line has n - 1 edges, end degrees 1 and diameter n - 1") {
  const Graph g = build_topology(spec_of(TopologyKind::kLine, 10), 1);
  CHECK(g.edges().size() == 9);
  CHECK(g.degree(0) == 1);
  CHECK(g.degree(9) == 1);
  CHECK(g.degree(5) == 2);
  CHECK(diameter(g) == 9);
}

TEST_CASE("a complete graph has n(n-1)/2 edges and degree n - 1") {
  const Graph g = build_topology(spec_of(TopologyKind::kComplete, 7), 1);
  CHECK(g.edges().size() == 21);
  CHECK(all_degree(g, 6));
  CHECK(diameter(g) == 1);
}

TEST_CASE("a star has hub 0 of degree n - 1 and leaves of degree 1") {
  const Graph g = build_topology(spec_of(TopologyKind::kStar, 9), 1);
  CHECK(g.edges().size() == 8);
  CHECK(g.degree(0) == 8);
  for (uint32_t i = 1; i < 9; ++i) CHECK(g.degree(i) == 1);
  CHECK(diameter(g) == 2);
}

TEST_CASE("a 3 x 4 grid has 17 edges, degrees 2..4 and diameter 5") {
  const Graph g = build_topology(lattice(TopologyKind::kGrid, 3, 4), 1);
  CHECK(g.node_count() == 12);
  CHECK(g.edges().size() == 3 * 3 + 2 * 4);
  CHECK(g.degree(0) == 2);  // corner
  CHECK(g.degree(1) == 3);  // border
  CHECK(g.degree(5) == 4);  // row 1, col 1
  CHECK(g.has_edge(1, 5));  // vertical neighbour: node r * cols + c
  CHECK(diameter(g) == 5);
}

TEST_CASE("a 4 x 5 torus has 2n edges, degree 4 and diameter 4") {
  const Graph g = build_topology(lattice(TopologyKind::kTorus, 4, 5), 1);
  CHECK(g.node_count() == 20);
  CHECK(g.edges().size() == 40);
  CHECK(all_degree(g, 4));
  CHECK(g.has_edge(0, 4));   // row wrap
  CHECK(g.has_edge(0, 15));  // column wrap
  CHECK(diameter(g) == 4);
}

TEST_CASE("a 16-node hypercube has 32 edges, degree 4 and diameter 4") {
  const Graph g = build_topology(spec_of(TopologyKind::kHypercube, 16), 1);
  CHECK(g.edges().size() == 32);
  CHECK(all_degree(g, 4));
  CHECK(g.has_edge(5, 13));  // differ in bit 3
  CHECK_FALSE(g.has_edge(5, 6));
  CHECK(diameter(g) == 4);
}

TEST_CASE("exponential graphs link i to i +- 2^k mod n") {
  // n = 16: offsets 1, 2, 4, 8, 12, 14, 15 (8 is its own opposite): degree 7, 56 edges.
  const Graph g16 = build_topology(spec_of(TopologyKind::kExponential, 16), 1);
  CHECK(all_degree(g16, 7));
  CHECK(g16.edges().size() == 56);
  CHECK(g16.has_edge(3, 11));
  // n = 10: offsets 1, 2, 4, 6, 8, 9: degree 6, 30 edges.
  const Graph g10 = build_topology(spec_of(TopologyKind::kExponential, 10), 1);
  CHECK(all_degree(g10, 6));
  CHECK(g10.edges().size() == 30);
  CHECK(g10.has_edge(0, 6));
  CHECK_FALSE(g10.has_edge(0, 3));
}

TEST_CASE("specs out of range are input errors naming the key") {
  CHECK_THROWS_WITH_AS(build_topology(spec_of(TopologyKind::kRing, 2), 1),
                       "/n: a ring needs n >= 3, got 2", InputError);
  CHECK_THROWS_WITH_AS(build_topology(spec_of(TopologyKind::kHypercube, 12), 1),
                       "/n: a hypercube needs n a power of two, got 12", InputError);
  CHECK_THROWS_WITH_AS(build_topology(lattice(TopologyKind::kTorus, 2, 5), 1),
                       "/rows: a torus needs rows >= 3, got 2", InputError);
  TopologySpec rr = spec_of(TopologyKind::kRandomRegular, 9);
  rr.degree = 3;
  rr.source_file = "s.json";
  rr.source_pointer = "/topology";
  CHECK_THROWS_WITH_AS(build_topology(rr, 1),
                       "s.json: /topology/degree: n x degree must be even, got 9 x 3", InputError);
  CHECK_THROWS_WITH_AS(build_topology(spec_of(TopologyKind::kComplete, 5000), 1),
                       doctest::Contains("more than the limit of 10000000"), InputError);
}
