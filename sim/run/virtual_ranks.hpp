// Virtual ranks (docs/partitioned-runs.md, slice (b)): one process runs a scenario's agents as R
// partitions advancing in windows, as R MPI ranks would, so that whatever depends on which
// partition holds whom shows as a fingerprint that differs from R = 1's. Here: which scenarios
// can be partitioned, and the partitions with their lookahead.
#pragma once

#include <cstdint>

#include "sim/core/partitions.hpp"
#include "sim/scenario/world.hpp"

namespace dlsim {

/// Where the partitions run: in this process (virtual ranks), or one per MPI rank.
enum class PartitionsRun : uint8_t { kInProcess, kOverRanks };

/// InputError, naming the scenario's file and key, for what `ranks` partitions of the `agents`
/// that run cannot do yet (max-min sharing, a service node or a collective, async rejoin pulls;
/// in this process also link failures; over MPI ranks also every rejoin pull, omniscient
/// attackers and CHOCO on a changing graph) and for more ranks than agents. A run over MPI ranks
/// checks them before it builds its share of the world, whose other agents are place-holders that a
/// refused algorithm could not start with.
void refuse_partitioning(const ScenarioSpec& spec, uint32_t agents, uint32_t ranks,
                         PartitionsRun where);
/// The agents of `world` in `ranks` contiguous blocks, and the lookahead: the smallest latency
/// of a physical link whose ends lie in two blocks. The refusals above, and InputError for a
/// zero lookahead.
Partitions plan_partitions(const World& world, uint32_t ranks,
                           PartitionsRun where = PartitionsRun::kInProcess);

}  // namespace dlsim
