// "choco": CHOCO-SGD's options (docs/algorithms.md, "CHOCO-SGD").
#pragma once

#include <cstdint>

#include "sim/scenario/algorithm_descriptor.hpp"
#include "topologies/mixing.hpp"

namespace dlsim {

struct ChocoOptions final : AlgorithmOptions {
  topo::MixingRule mixing = topo::MixingRule::kMetropolisHastings;
  double gamma = 0.0;       // the consensus step size, in (0, 1]
  int64_t local_steps = 1;  // H: communicate every H-th iteration
};

}  // namespace dlsim
