#include "sim/scenario/graph_degrees.hpp"

#include <algorithm>

namespace dlsim {
namespace {

uint32_t largest_degree(const topo::Graph& g) {
  uint32_t most = 0;
  for (uint32_t i = 0; i < g.node_count(); ++i) most = std::max(most, g.degree(i));
  return most;
}

double mean_degree(const topo::Graph& g) {
  return g.node_count() == 0
             ? 0.0
             : 2.0 * static_cast<double>(g.edges().size()) / static_cast<double>(g.node_count());
}

}  // namespace

GraphDegrees degrees_of(const topo::Graph& graph, const std::vector<topo::Graph>& dynamic_graphs) {
  GraphDegrees d;
  d.largest = largest_degree(graph);
  d.mean = mean_degree(graph);
  for (const topo::Graph& g : dynamic_graphs) {
    d.dynamic_largest = std::max(d.dynamic_largest, largest_degree(g));
    d.dynamic_mean = std::max(d.dynamic_mean, mean_degree(g));
  }
  return d;
}

}  // namespace dlsim
