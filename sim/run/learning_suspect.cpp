#include "sim/run/learning_suspect.hpp"

#include <cmath>

namespace dlsim {

std::string learning_suspect(const ScenarioSpec& s) {
  const AlgorithmSpec& a = s.algorithm;
  if (a.kind == AlgorithmKind::kNone)
    return "check /data/partition: every agent trains alone on its own shard, and a shard of "
           "few classes scores about its share of the test set";
  const bool compressed = a.compression.enabled();
  if (compressed && a.kind == AlgorithmKind::kDetsgrad)
    return "check /algorithm/b: a compressed consensus step (SPARQ-SGD) must be small enough "
           "for what the compression carries (docs/compression.md, \"Stable consensus steps\")";
  if (compressed && a.kind == AlgorithmKind::kChoco)
    return "check /algorithm/gamma: CHOCO's consensus step must be small enough for what the "
           "compression carries (docs/compression.md, \"Stable consensus steps\")";
  if (compressed)
    return "check /algorithm/compression: naive compression replaces the neighbours' models by "
           "their compressed copies and does not keep the average (CHOCO-SGD feeds the error "
           "back)";
  if (s.trigger && s.trigger->kind == TriggerKind::kThreshold && std::isinf(s.trigger->v0))
    return "check /trigger/v0: an infinite threshold never communicates";
  if (s.trigger && s.trigger->kind == TriggerKind::kThreshold)
    return "check /trigger/v0 (a threshold above what an agent drifts sends nothing after "
           "iteration 0) and the step size";
  if (a.kind == AlgorithmKind::kDetsgrad)
    return "check the step sizes /algorithm/a and /algorithm/b";
  return "check the step size /optimizer/lr";
}

}  // namespace dlsim
