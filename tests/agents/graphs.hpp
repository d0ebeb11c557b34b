// Small hand-made graphs for algorithm tests.
#pragma once

#include <vector>

#include "topologies/graph.hpp"

namespace dlsim::testing {

inline topo::Graph line_graph(uint32_t n) {
  std::vector<topo::Edge> edges;
  for (uint32_t i = 0; i + 1 < n; ++i) edges.push_back({i, i + 1, SimTime{}, 1});
  return topo::Graph(n, edges);
}

inline topo::Graph ring_graph(uint32_t n) {  // n >= 3
  std::vector<topo::Edge> edges;
  for (uint32_t i = 0; i < n; ++i) edges.push_back({i, (i + 1) % n, SimTime{}, 1});
  return topo::Graph(n, edges);
}

inline topo::Graph star_graph(uint32_t n) {  // hub 0
  std::vector<topo::Edge> edges;
  for (uint32_t i = 1; i < n; ++i) edges.push_back({0, i, SimTime{}, 1});
  return topo::Graph(n, edges);
}

inline topo::Graph complete_graph(uint32_t n) {
  std::vector<topo::Edge> edges;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = i + 1; j < n; ++j) edges.push_back({i, j, SimTime{}, 1});
  return topo::Graph(n, edges);
}

}  // namespace dlsim::testing
