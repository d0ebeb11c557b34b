// "gossip": Gossiping SGD's options (docs/algorithms.md, "Gossiping SGD").
#pragma once

#include "sim/agents/gossip.hpp"
#include "sim/agents/mixing_step.hpp"
#include "sim/scenario/algorithm_descriptor.hpp"

namespace dlsim {

/// Where Gossiping SGD runs, and Elastic Gossip with it (one random peer per event, whose model
/// travels whole or compressed): both time modes, dynamic graphs in both, churn.
AlgorithmCapabilities gossip_capabilities();

struct GossipOptions final : AlgorithmOptions {
  GossipMode mode = GossipMode::kPull;
  MixingOrder order = MixingOrder::kCombineThenAdapt;
};

}  // namespace dlsim
