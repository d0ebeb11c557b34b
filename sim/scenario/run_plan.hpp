// What a run will build, decided once from its validated scenario: the graphs, their degrees and
// the memory estimate that counts them. The estimate is checked in two passes so that nothing
// large is built before it could be refused: from the scenario alone (a lower bound, before any
// graph exists: a complete graph of many agents is itself large), then with the graphs' degrees.
// build_world takes the plan over, so no graph is built twice.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/partitions.hpp"
#include "sim/scenario/graph_degrees.hpp"
#include "sim/scenario/memory_estimate.hpp"
#include "sim/scenario/scenario_spec.hpp"
#include "topologies/graph.hpp"

namespace dlsim {

struct RunPlan {
  uint32_t agents = 1;  ///< the agents that run: 1 for a centralized run
  /// The agents' graph of links: the topology, or with a dynamic topology its underlay (nodes
  /// only while its complete links stay implicit, sim/network/complete_links.hpp).
  topo::Graph graph;
  /// A dynamic topology's graphs (topo::DynamicSpec::graphs: a sequence's, in order, or
  /// random_matching's base graph); empty otherwise.
  std::vector<topo::Graph> dynamic_graphs;
  GraphDegrees degrees;   ///< of the graphs above
  MemoryEstimate memory;  ///< of the run, counting the graphs above
  /// The agents this process holds in full: all of them, or over MPI ranks its contiguous block
  /// (World::held).
  NodeBlock held;
};

/// Plans a run of `spec` within `available_bytes` of memory; InputError (check_memory_fits:
/// naming the file, the key and the estimate) when it cannot fit, before the graphs are built
/// if the scenario alone says so.
RunPlan plan_run(const ScenarioSpec& spec, uint64_t available_bytes);
/// plan_run against available_memory_bytes() (no bound when it cannot be read).
RunPlan plan_run(const ScenarioSpec& spec);
/// The plan of one rank of a run over `ranks` MPI ranks (> 1): the estimate and the check are
/// those of the largest rank's share (rank_share) against `available_bytes` (its share of its
/// machine's memory, when ranks share one), and `held` is rank `rank`'s block.
RunPlan plan_run(const ScenarioSpec& spec, uint64_t available_bytes, uint32_t ranks, uint32_t rank);
RunPlan plan_run(const ScenarioSpec& spec, uint32_t ranks, uint32_t rank);
/// The agents that run: the scenario's, or 1 for a centralized run.
uint32_t running_agents(const ScenarioSpec& spec);

/// The largest share of one rank when the agents of `plan` are split over `ranks` contiguous
/// blocks: the largest block, and the most agents of other blocks with a neighbour in one block
/// (over the agents' graph, and each of a dynamic topology's graphs; with graphs whose links are
/// implicit or drawn as the run goes, every held agent's largest degree, at most the agents
/// outside).
RankShare rank_share(const ScenarioSpec& spec, const RunPlan& plan, uint32_t ranks);

/// The graphs of a run of `spec` and their degrees, without an estimate or a memory check.
RunPlan plan_graphs(const ScenarioSpec& spec);

/// The estimate of a run of `spec` over the graphs it would build, without checking that they
/// fit: for the estimate's tests, which read estimates of runs too large to make. A run estimates
/// once, in plan_run.
MemoryEstimate estimate_memory(const ScenarioSpec& spec, uint64_t available_bytes);

}  // namespace dlsim
