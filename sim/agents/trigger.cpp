#include "sim/agents/trigger.hpp"

#include <cmath>

#include "sim/core/error.hpp"

namespace dlsim {

double Trigger::threshold(int64_t iteration, double alpha_k) const {
  if (spec_.form == ThresholdForm::kAlpha) return spec_.v0 * alpha_k;
  return spec_.v0 / std::pow(spec_.eps * static_cast<double>(iteration) + 1.0, spec_.decay);
}

bool Trigger::threshold_fires(const TriggerInput& in) const {
  // v0 = infinity is "no communication" (not even the first broadcast); v0 = 0 is continuous
  // communication (D-PSGD's pattern) even when an agent did not move.
  if (std::isinf(spec_.v0)) return false;
  if (in.iteration == 0 || spec_.v0 == 0.0) return true;  // k = 0: every neighbour gets a copy
  return in.drift > threshold(in.iteration, in.alpha_k);  // DETSGRAD: ||x_i - x^_i|| > v_k
}

bool Trigger::decide(const TriggerInput& in, RandomStream& rng) const {
  switch (spec_.kind) {
    case TriggerKind::kAlways:
      return true;
    case TriggerKind::kNever:
      return false;
    case TriggerKind::kPeriodic:
      return in.iteration % spec_.period == 0;
    case TriggerKind::kProbability:
      return rng.bernoulli(spec_.probability);
    case TriggerKind::kThreshold:
      return threshold_fires(in);
    case TriggerKind::kAdaptive:
      break;  // stateful and per tensor: TensorEvents decides
  }
  DLSIM_CHECK(false, "trigger kind {} decides per tensor", to_string(spec_.kind));
  return false;
}

std::string_view to_string(TriggerKind kind) {
  switch (kind) {
    case TriggerKind::kAlways: return "always";
    case TriggerKind::kNever: return "never";
    case TriggerKind::kPeriodic: return "periodic";
    case TriggerKind::kProbability: return "probability";
    case TriggerKind::kThreshold: return "threshold";
    case TriggerKind::kAdaptive: return "adaptive";
  }
  return "?";
}

std::string_view to_string(ThresholdForm form) {
  return form == ThresholdForm::kAlpha ? "alpha" : "decay";
}

std::string_view to_string(Granularity granularity) {
  return granularity == Granularity::kLayer ? "layer" : "model";
}

std::string_view to_string(DriftNorm norm) {
  switch (norm) {
    case DriftNorm::kL2: return "l2";
    case DriftNorm::kL1: return "l1";
    case DriftNorm::kLinf: return "linf";
  }
  return "?";
}

}  // namespace dlsim
