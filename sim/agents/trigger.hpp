// The trigger family: answers "communicate now?" for one agent at one iteration. A trigger decides
// *whether*; the algorithm decides with whom and what (docs/algorithms.md, "Triggers"). An
// algorithm reports each decision to communicate as an event (Outbox::event).
#pragma once

#include <cstdint>
#include <string_view>

#include "sim/core/random.hpp"

namespace dlsim {

enum class TriggerKind { kAlways, kNever, kPeriodic, kProbability, kThreshold };
enum class ThresholdForm { kDecay, kAlpha };  // v_k = v0/(eps*k+1)^dv, or v_k = v0 * alpha_k
enum class DriftNorm { kL2, kL1, kLinf };

/// Plain trigger configuration, as the scenario loader fills it (scenarios/README.md).
struct TriggerSpec {
  TriggerKind kind = TriggerKind::kAlways;
  int64_t period = 1;          // kPeriodic: communicate when k % period == 0 (period >= 1)
  double probability = 1.0;    // kProbability: Bernoulli(p) per iteration, p in [0, 1]
  double v0 = 1.0;             // kThreshold: initial threshold (>= 0; +inf never communicates)
  ThresholdForm form = ThresholdForm::kDecay;
  double decay = 0.1;          // kThreshold, kDecay: dv in v0/(eps*k+1)^dv
  double eps = 1e-5;           // kThreshold, kDecay: eps in v0/(eps*k+1)^dv
  DriftNorm norm = DriftNorm::kL2;
};

/// What the trigger needs to know about one decision.
struct TriggerInput {
  int64_t iteration = 0;   // k, from 0
  double drift = 0.0;      // ||x_i - x^_i|| in the trigger's norm (kThreshold only)
  double alpha_k = 0.0;    // the algorithm's step size at k (ThresholdForm::kAlpha only)
};

class Trigger {
 public:
  explicit Trigger(const TriggerSpec& spec) : spec_(spec) {}

  /// True when the agent communicates at this iteration. Draws from rng only for kProbability.
  /// A threshold trigger fires at k = 0 (so every neighbour holds a copy) unless v0 is infinite.
  bool decide(const TriggerInput& in, RandomStream& rng) const;
  /// The threshold v_k that the drift is compared with (kThreshold only).
  double threshold(int64_t iteration, double alpha_k) const;
  /// Whether decide() reads TriggerInput::drift (so the caller computes it only then).
  bool needs_drift() const { return spec_.kind == TriggerKind::kThreshold; }
  const TriggerSpec& spec() const { return spec_; }

 private:
  bool threshold_fires(const TriggerInput& in) const;

  TriggerSpec spec_;
};

std::string_view to_string(TriggerKind kind);
std::string_view to_string(ThresholdForm form);
std::string_view to_string(DriftNorm norm);

}  // namespace dlsim
