// "dpsgd": D-PSGD's options (docs/algorithms.md, "D-PSGD").
#pragma once

#include "sim/agents/mixing_step.hpp"
#include "sim/scenario/algorithm_descriptor.hpp"
#include "topologies/mixing.hpp"

namespace dlsim {

struct DpsgdOptions final : AlgorithmOptions {
  topo::MixingRule mixing = topo::MixingRule::kMetropolisHastings;
  MixingOrder order = MixingOrder::kCombineThenAdapt;
};

}  // namespace dlsim
