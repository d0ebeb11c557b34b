#include "sim/run/learning_suspect.hpp"

#include <cmath>

#include "sim/scenario/algorithm_descriptor.hpp"

namespace dlsim {

std::string learning_suspect(const ScenarioSpec& s) {
  const AlgorithmDescriptor& algorithm = *s.algorithm.descriptor;
  if (std::string own = algorithm.learning_suspect(s); !own.empty()) return own;
  if (s.algorithm.compression.enabled())
    return "check /algorithm/compression: naive compression replaces the neighbours' models by "
           "their compressed copies and does not keep the average (CHOCO-SGD feeds the error "
           "back)";
  if (s.trigger && s.trigger->kind == TriggerKind::kThreshold && std::isinf(s.trigger->v0))
    return "check /trigger/v0: an infinite threshold never communicates";
  if (s.trigger && s.trigger->kind == TriggerKind::kThreshold)
    return "check /trigger/v0 (a threshold above what an agent drifts sends nothing after "
           "iteration 0) and the step size";
  return algorithm.step_size_advice();
}

}  // namespace dlsim
