// The trigger family: answers "communicate now?" for one agent at one iteration. A trigger decides
// *whether*; the algorithm decides with whom and what (docs/algorithms.md, "Triggers"). An
// algorithm reports each decision to communicate as an event (Outbox::event).
#pragma once

#include <cstdint>
#include <string_view>

#include "sim/core/ids.hpp"
#include "sim/core/random.hpp"

namespace dlsim {

enum class TriggerKind { kAlways, kNever, kPeriodic, kProbability, kThreshold, kAdaptive };
enum class ThresholdForm { kDecay, kAlpha };  // v_k = v0/(eps*k+1)^dv, or v_k = v0 * alpha_k
enum class DriftNorm { kL2, kL1, kLinf };
// What a threshold decides on: the whole parameter vector, or each tensor (a layer's weights, its
// bias) on its own, an event then sending only the tensors that crossed (tensor_events.hpp).
enum class Granularity { kModel, kLayer };

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
  Granularity granularity = Granularity::kModel;  // kThreshold; kAdaptive is always per tensor
  double horizon = 1.0;  // kAdaptive (EventGraD): every iteration thr_p <- thr_p * horizon
  int64_t warmup = 30;   // kAdaptive: iterations k < warmup send every tensor
};

/// Whether the trigger decides per tensor (TensorEvents) rather than through Trigger::decide.
inline bool per_tensor(const TriggerSpec& spec) {
  return spec.kind == TriggerKind::kAdaptive ||
         (spec.kind == TriggerKind::kThreshold && spec.granularity == Granularity::kLayer);
}

/// What the trigger needs to know about one decision.
struct TriggerInput {
  int64_t iteration = 0;   // k, from 0
  double drift = 0.0;      // ||x_i - x^_i|| in the trigger's norm (kThreshold only)
  double alpha_k = 0.0;    // the algorithm's step size at k (ThresholdForm::kAlpha only)
};

/// A decision rule from outside dlsim (the Python module's `trigger=fn`) that replaces the
/// scenario's rule in the algorithms that compute a drift (Algorithm::set_trigger_decider). It
/// gets the drift in the scenario's norm (+inf before the agent's first broadcast) and the step
/// size. Called from Algorithm::prepare(): in sync mode for many agents at once on the pool's
/// threads (a decider that needs a fixed order imposes it itself), in async mode in event order.
/// It may throw: the run stops and the exception reaches run_scenario's caller.
class TriggerDecider {
 public:
  virtual ~TriggerDecider() = default;
  virtual bool decide(AgentId agent, const TriggerInput& in) = 0;
};

class Trigger {
 public:
  explicit Trigger(const TriggerSpec& spec) : spec_(spec) {}

  /// True when the agent communicates at this iteration. Draws from rng only for kProbability.
  /// A threshold trigger fires at k = 0 (so every neighbour holds a copy) unless v0 is infinite.
  bool decide(const TriggerInput& in, RandomStream& rng) const;
  /// decide(), or the decider's answer when one is set.
  bool decide(AgentId agent, const TriggerInput& in, RandomStream& rng) const {
    return decider_ ? decider_->decide(agent, in) : decide(in, rng);
  }
  /// Replaces the rule by `decider` (not owned; outlives this trigger).
  void set_decider(TriggerDecider& decider) { decider_ = &decider; }
  /// The threshold rule alone (kThreshold): also what each tensor of a per-tensor threshold
  /// applies to its own drift (tensor_events.hpp).
  bool threshold_fires(const TriggerInput& in) const;
  /// The threshold v_k that the drift is compared with (kThreshold only).
  double threshold(int64_t iteration, double alpha_k) const;
  /// Whether decide() reads TriggerInput::drift (so the caller computes it only then).
  bool needs_drift() const { return decider_ || spec_.kind == TriggerKind::kThreshold; }
  const TriggerSpec& spec() const { return spec_; }

 private:

  TriggerSpec spec_;
  TriggerDecider* decider_ = nullptr;
};

std::string_view to_string(TriggerKind kind);
std::string_view to_string(ThresholdForm form);
std::string_view to_string(DriftNorm norm);
std::string_view to_string(Granularity granularity);

}  // namespace dlsim
