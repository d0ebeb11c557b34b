// Constant DETSGRAD step sizes (d = 0), so that hand arithmetic stays simple: alpha = 0.1,
// beta = 0.2. Shared by the DETSGRAD tests.
#pragma once

#include "sim/agents/detsgrad.hpp"

namespace dlsim::testing {

inline DetsgradSpec constant_steps() {
  DetsgradSpec s;
  s.alpha = {0.1, 0.0, 1.0};
  s.beta = {0.2, 0.0, 1.0};
  return s;
}

}  // namespace dlsim::testing
