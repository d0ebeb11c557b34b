#include "sim/scenario/run_plan.hpp"

#include "sim/core/system_memory.hpp"
#include "sim/scenario/algorithm_descriptor.hpp"
#include "sim/scenario/underlay.hpp"
#include "topologies/generators.hpp"

namespace dlsim {

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
  plan.held = NodeBlock{0, plan.agents};
  return plan;
}

RunPlan plan_run(const ScenarioSpec& spec, uint64_t available_bytes) {
  const MemoryEstimator estimator(spec, available_bytes);
  check_memory_fits(spec, estimator.before_graphs(), available_bytes);
  RunPlan plan = plan_graphs(spec);
  plan.memory = estimator.estimate(plan.degrees);
  check_memory_fits(spec, plan.memory, available_bytes);
  return plan;
}

MemoryEstimate estimate_memory(const ScenarioSpec& spec, uint64_t available_bytes) {
  return MemoryEstimator(spec, available_bytes).estimate(plan_graphs(spec).degrees);
}

RunPlan plan_run(const ScenarioSpec& spec) {
  return plan_run(spec, available_memory_bytes().value_or(UINT64_MAX));
}

}  // namespace dlsim
