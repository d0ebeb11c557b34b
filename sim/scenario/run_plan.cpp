#include "sim/scenario/run_plan.hpp"

#include <algorithm>

#include "sim/core/system_memory.hpp"
#include "sim/scenario/algorithm_descriptor.hpp"
#include "sim/scenario/underlay.hpp"
#include "topologies/generators.hpp"

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

RunPlan plan_graphs(const ScenarioSpec& spec) {
  RunPlan plan;
  plan.agents = spec.algorithm.descriptor->capabilities().centralized ? 1 : spec.agents;
  if (plan.agents == 1) {
    plan.graph = topo::Graph(1, {});
  } else if (implicit_complete_underlay(spec)) {
    plan.graph = topo::Graph(plan.agents, {});  // the links stay implicit
  } else {
    plan.graph = topo::build_topology(spec.topology, spec.seed);
  }
  if (spec.dynamic)
    for (const topo::TopologySpec& g : spec.dynamic->graphs)
      plan.dynamic_graphs.push_back(topo::build_topology(g, spec.seed));
  plan.degrees = degrees_of(plan.graph, plan.dynamic_graphs);
  return plan;
}

RunPlan plan_run(const ScenarioSpec& spec, uint64_t available_bytes) {
  const MemoryEstimator estimator(spec, available_bytes);
  check_memory_fits(spec, estimator.estimate(GraphDegrees{}), available_bytes);
  RunPlan plan = plan_graphs(spec);
  plan.memory = estimator.estimate(plan.degrees);
  check_memory_fits(spec, plan.memory, available_bytes);
  return plan;
}

RunPlan plan_run(const ScenarioSpec& spec) {
  return plan_run(spec, available_memory_bytes().value_or(UINT64_MAX));
}

}  // namespace dlsim
