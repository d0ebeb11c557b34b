#include "sim/run/virtual_ranks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

#include "sim/core/error.hpp"
#include "sim/scenario/algorithm_descriptor.hpp"
#include "sim/scenario/underlay.hpp"

namespace dlsim {
namespace {

// Why each is refused: docs/partitioned-runs.md, "Slice (b)", "Refused with R > 1", and
// "Slice (c)" for the MPI ranks.
void refuse_what_needs_one_view(const ScenarioSpec& spec, uint32_t ranks, PartitionsRun where) {
  auto refuse = [&](std::string_view key, std::string_view why) {
    throw InputError(fmt::format("{}: {}: {} (a run over {} {}ranks)", spec.file, key, why, ranks,
                                 where == PartitionsRun::kOverRanks ? "MPI " : ""));
  };
  if (where == PartitionsRun::kOverRanks && ranks > 1) {
    if (spec.churn && spec.churn->rejoin == Rejoin::kPull)
      refuse("/churn/rejoin",
             "\"pull\" cannot run over MPI ranks yet: a returning agent's model comes from a "
             "neighbour that another rank may hold");
    if (spec.dynamic && spec.algorithm.name() == "choco")
      refuse("/topology/dynamic",
             "\"choco\" on a changing graph cannot run over MPI ranks yet: a new edge's copy "
             "starts from whether the neighbour has published, which its own rank knows");
    if (spec.byzantine && spec.byzantine->attack.knowledge == AttackKnowledge::kOmniscient)
      refuse("/byzantine/attack/knowledge",
             "\"omniscient\" attackers read their targets' models, which other ranks may hold");
  }
  if (spec.network.sharing == Sharing::kMaxMin)
    refuse("/network/sharing",
           "\"maxmin\" cannot be partitioned yet: a flow's rate depends on every flow on its "
           "route, wherever its sender is");
  // Each MPI rank follows every link's state on its own clock; partitions taking turns in one
  // process would share one, which only goes forward.
  if (where == PartitionsRun::kInProcess && spec.network.failures.kind != FailureKind::kNone)
    refuse("/network/failures",
           "link failures cannot run over virtual ranks: the partitions taking turns in one "
           "process share the links' states, which follow one clock (MPI ranks can run them)");
  const AlgorithmCapabilities& can = spec.algorithm.descriptor->capabilities();
  if (can.service_node)
    refuse("/algorithm/kind", fmt::format("\"{}\" has a service node, which cannot be "
                                          "partitioned yet",
                                          spec.algorithm.name()));
  if (can.rounds_in_async)  // a collective (RoundHooks::collective)
    refuse("/algorithm/kind", fmt::format("\"{}\" is a collective, which cannot be partitioned "
                                          "yet",
                                          spec.algorithm.name()));
  if (spec.churn && spec.churn->rejoin == Rejoin::kPull && spec.time.mode == TimeMode::kAsync)
    refuse("/churn/rejoin",
           "\"pull\" in async mode cannot be partitioned yet: a returning agent reads its "
           "neighbour's model at its own time, which another rank has not reached");
}

}  // namespace

void refuse_partitioning(const ScenarioSpec& spec, uint32_t agents, uint32_t ranks,
                         PartitionsRun where) {
  if (where == PartitionsRun::kOverRanks && ranks > agents)
    throw InputError(
        fmt::format("{}: /agents: {} agents over {} MPI ranks: at most one rank per "
                    "agent",
                    spec.file, agents, ranks));
  if (ranks == 0 || ranks > agents)
    throw InputError(fmt::format("{}: --virtual-ranks {}: between 1 and the {} agents", spec.file,
                                 ranks, agents));
  refuse_what_needs_one_view(spec, ranks, where);
}

Partitions plan_partitions(const World& world, uint32_t ranks, PartitionsRun where) {
  const auto agents = static_cast<uint32_t>(world.agents.size());
  refuse_partitioning(world.spec, agents, ranks, where);
  // From here every node is an agent: no service node.
  DLSIM_CHECK(world.network->graph().node_count() == agents, "{} nodes, {} agents",
              world.network->graph().node_count(), agents);
  // No link between two blocks: they never meet, and the windows are as long as time.
  Partitions p = contiguous_partitions(agents, ranks, SimTime::max());
  if (ranks == 1) return p;
  auto zero = [&](const std::string& link) {
    return InputError(fmt::format(
        "{}: /network/latency: {} joins two ranks with zero latency, so no rank could run ahead "
        "of another (a run over {} ranks needs a latency > 0 between them)",
        world.spec.file, link, ranks));
  };
  if (const std::optional<LinkSpec> underlay = implicit_complete_underlay(world.spec)) {
    if (underlay->latency <= SimTime{}) throw zero("the complete underlay");
    p.lookahead = underlay->latency;
    return p;
  }
  const Network& network = *world.network;
  for (uint32_t u = 0; u < agents; ++u)
    for (uint32_t v : network.graph().neighbors(u)) {
      if (p.of_node[u] == p.of_node[v]) continue;
      const SimTime latency = network.link(network.link_between(AgentId{u}, AgentId{v})).latency();
      if (latency <= SimTime{}) throw zero(fmt::format("the link from node {} to node {}", u, v));
      p.lookahead = std::min(p.lookahead, latency);
    }
  return p;
}

}  // namespace dlsim
