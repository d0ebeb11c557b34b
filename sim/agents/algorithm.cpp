#include "sim/agents/algorithm.hpp"

#include <cmath>

namespace dlsim {

double DecaySchedule::at(int64_t k) const {
  return a / std::pow(eps * static_cast<double>(k) + 1.0, d);
}

}  // namespace dlsim
