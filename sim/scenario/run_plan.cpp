#include "sim/scenario/run_plan.hpp"

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/core/system_memory.hpp"
#include "sim/scenario/algorithm_descriptor.hpp"
#include "sim/scenario/underlay.hpp"
#include "topologies/generators.hpp"

namespace dlsim {

uint32_t running_agents(const ScenarioSpec& spec) {
  return spec.algorithm.descriptor->capabilities().centralized ? 1 : spec.agents;
}

RunPlan plan_graphs(const ScenarioSpec& spec) {
  RunPlan plan;
  plan.agents = running_agents(spec);
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

namespace {

// Per block of contiguous_partitions: the nodes of other blocks with a neighbour in it.
std::vector<uint64_t> senders_into_blocks(const topo::Graph& g, uint32_t ranks) {
  const uint32_t n = g.node_count();
  std::vector<uint64_t> senders(ranks, 0);
  std::vector<uint32_t> seen(ranks, UINT32_MAX);  // the last node counted in each block
  const auto block_of = [&](uint32_t v) { return static_cast<uint32_t>(uint64_t{v} * ranks / n); };
  for (uint32_t u = 0; u < n; ++u)
    for (uint32_t v : g.neighbors(u)) {
      const uint32_t b = block_of(v);
      if (b == block_of(u) || seen[b] == u) continue;
      seen[b] = u;
      ++senders[b];
    }
  return senders;
}

}  // namespace

RankShare rank_share(const ScenarioSpec& spec, const RunPlan& plan, uint32_t ranks) {
  RankShare share{ranks, largest_contiguous_block(plan.agents, ranks), 0};
  if (ranks < 2) return share;
  std::vector<const topo::Graph*> graphs;
  if (!plan.graph.edges().empty()) graphs.push_back(&plan.graph);  // not an implicit underlay
  for (const topo::Graph& g : plan.dynamic_graphs) graphs.push_back(&g);
  const bool drawn = spec.dynamic && plan.dynamic_graphs.empty();  // epidemic peers, say
  if (drawn || graphs.empty()) {
    const uint64_t degree =
        std::max<uint64_t>({plan.degrees.largest, plan.degrees.dynamic_largest, 1});
    share.senders = std::min<uint64_t>(share.held * degree, plan.agents - share.held);
    return share;
  }
  for (const topo::Graph* g : graphs)
    for (uint64_t senders : senders_into_blocks(*g, ranks))
      share.senders = std::max(share.senders, senders);
  return share;
}

RunPlan plan_run(const ScenarioSpec& spec, uint64_t available_bytes, uint32_t ranks,
                 uint32_t rank) {
  DLSIM_CHECK(ranks > 1 && rank < ranks, "rank {} of {}", rank, ranks);
  const MemoryEstimator estimator(spec, available_bytes);
  const uint32_t agents = running_agents(spec);
  check_memory_fits(
      spec, estimator.before_graphs(RankShare{ranks, largest_contiguous_block(agents, ranks), 0}),
      available_bytes);
  RunPlan plan = plan_graphs(spec);
  DLSIM_CHECK(plan.agents >= ranks, "{} agents over {} ranks", plan.agents, ranks);
  plan.memory = estimator.estimate(plan.degrees, rank_share(spec, plan, ranks));
  check_memory_fits(spec, plan.memory, available_bytes);
  plan.held = contiguous_block(plan.agents, ranks, rank);
  return plan;
}

MemoryEstimate estimate_memory(const ScenarioSpec& spec, uint64_t available_bytes) {
  return MemoryEstimator(spec, available_bytes).estimate(plan_graphs(spec).degrees);
}

RunPlan plan_run(const ScenarioSpec& spec) {
  return plan_run(spec, available_memory_bytes().value_or(UINT64_MAX));
}

RunPlan plan_run(const ScenarioSpec& spec, uint32_t ranks, uint32_t rank) {
  return plan_run(spec, available_memory_bytes().value_or(UINT64_MAX), ranks, rank);
}

}  // namespace dlsim
