#include "sim/agents/agent.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace dlsim {

const Agent& first_held(std::span<const Agent> agents) {
  const auto it =
      std::find_if(agents.begin(), agents.end(), [](const Agent& a) { return a.held(); });
  DLSIM_CHECK(it != agents.end(), "none of {} agents is held here", agents.size());
  return *it;
}

}  // namespace dlsim
