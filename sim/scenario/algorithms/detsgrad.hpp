// "detsgrad": DETSGRAD's options (docs/algorithms.md, "DETSGRAD").
#pragma once

#include "sim/agents/detsgrad.hpp"
#include "sim/scenario/algorithm_descriptor.hpp"

namespace dlsim {

struct DetsgradOptions final : AlgorithmOptions {
  DetsgradSpec spec;
  bool gradient_scale_is_n = false;  // "gradient_scale": "n" (written back as "n")
};

}  // namespace dlsim
