// The gossip averaging step that D-PSGD and EventGraD share: x_i <- W_ii x_i + sum_j W_ij c_j
// over the copies c_j an agent holds of its neighbours (a copy not yet received counts as x_i, so
// the row still sums to one).
#pragma once

#include <span>

#include "sim/agents/learner.hpp"
#include "topologies/mixing.hpp"

namespace dlsim {

/// held: agent i's copies in neighbour order (null: none yet); workspace: any vector, reused.
inline void mix_with_copies(const topo::MixingWeights& weights, uint32_t i,
                            std::span<const Snapshot> held, ParamVector& x,
                            ParamVector& workspace) {
  workspace = static_cast<float>(weights.self_weight(i)) * x;
  const auto w = weights.weights(i);
  for (size_t k = 0; k < held.size(); ++k)  // neighbour order: float sums are order-sensitive
    workspace += static_cast<float>(w[k]) * (held[k] ? *held[k] : x);
  x.swap(workspace);
}

}  // namespace dlsim
