#include "sim/agents/algorithm.hpp"

#include <cmath>

#include "sim/core/error.hpp"

namespace dlsim {

void Algorithm::receive_service(const Message& m, Outbox&) {
  DLSIM_CHECK(false, "algorithm {} has no service node, but node {} got a message from agent {}",
              name(), m.to.value, m.from.value);
}

double DecaySchedule::at(int64_t k) const {
  return a / std::pow(eps * static_cast<double>(k) + 1.0, d);
}

}  // namespace dlsim
