#include "sim/agents/algorithm.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"

namespace dlsim {

void Algorithm::receive_service(const Message& m, Outbox&) {
  DLSIM_CHECK(false, "algorithm {} has no service node, but node {} got a message from agent {}",
              name(), m.to.value, m.from.value);
}

void update_in_blocks(Algorithm& algorithm, std::span<Agent> agents) {
  const Eigen::Index block = algorithm.update_block_size();
  DLSIM_CHECK(block > 0, "algorithm {} does not update in blocks", algorithm.name());
  Eigen::Index size = 0;
  for (Agent& a : agents) {
    algorithm.update_begin(a);
    size = std::max(size, a.x.size());
  }
  for (Eigen::Index start = 0; start < size; start += block)
    for (Agent& a : agents)
      if (start < a.x.size()) algorithm.update_block(a, start, std::min(block, a.x.size() - start));
  for (Agent& a : agents) algorithm.update_end(a);
}

double DecaySchedule::at(int64_t k) const {
  return a / std::pow(eps * static_cast<double>(k) + 1.0, d);
}

}  // namespace dlsim
