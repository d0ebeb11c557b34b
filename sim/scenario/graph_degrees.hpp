// What the memory estimate and the algorithms read of a run's graphs: their degrees, counted once
// from the graphs a run plan builds (run_plan.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "topologies/graph.hpp"

namespace dlsim {

struct GraphDegrees {
  uint32_t largest = 0;  ///< the agents' graph's largest degree
  double mean = 0.0;     ///< its mean degree
  /// A dynamic topology's graphs (a sequence's members, random_matching's base graph): the
  /// largest degree among them, and the largest of their mean degrees.
  uint32_t dynamic_largest = 0;
  double dynamic_mean = 0.0;
};

/// The degrees of `graph` and of a dynamic topology's `dynamic_graphs` (empty for a static one).
GraphDegrees degrees_of(const topo::Graph& graph, const std::vector<topo::Graph>& dynamic_graphs);

}  // namespace dlsim
