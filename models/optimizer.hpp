// Local optimizers in PyTorch's convention (torch.optim.SGD, dampening 0) with learning-rate
// schedules. State (the momentum buffer) is one contiguous vector per agent. The gradient and the
// step are separate calls, so that algorithms can average or rescale gradients in between.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace dlsim {
class StateArchive;
}  // namespace dlsim

namespace dlsim::models {

enum class Momentum { kNone, kClassic, kNesterov };
enum class ScheduleKind { kConstant, kInverseDecay, kStepDecay };

/// lr_k for iteration k = 0, 1, ...: constant: lr; inverse decay: lr / (eps*k + 1)^decay;
/// step decay: lr * gamma^(number of milestones <= k) (PyTorch's MultiStepLR).
struct LrSchedule {
  ScheduleKind kind = ScheduleKind::kConstant;
  double lr = 0.01;
  double eps = 1.0;
  double decay = 1.0;
  std::vector<int64_t> milestones;  // strictly increasing iterations
  double gamma = 0.1;

  double at(int64_t iteration) const;
};

/// With g' = g + weight_decay * x:  none: x -= lr*g';  classic: v = mu*v + g', x -= lr*v;
/// Nesterov: v = mu*v + g', x -= lr*(g' + mu*v). v starts at zero.
struct OptimizerSpec {
  Momentum momentum = Momentum::kNone;
  double mu = 0.9;  // ignored without momentum
  double weight_decay = 0.0;
  LrSchedule schedule;
};

/// Throws InputError with a path relative to the optimizer spec ("/mu: ...") for values outside
/// their domain: lr > 0, 0 <= mu < 1, weight_decay >= 0, eps >= 0, decay >= 0, gamma > 0,
/// milestones >= 0 and strictly increasing.
void validate(const OptimizerSpec& spec);

class Optimizer {
 public:
  /// Validates spec; the state has parameter_count zeros (none for plain SGD).
  Optimizer(const OptimizerSpec& spec, Eigen::Index parameter_count);

  const OptimizerSpec& spec() const { return spec_; }
  float learning_rate(int64_t iteration) const;
  /// params <- params - lr_k * step(grads), updating the state. Sizes equal parameter_count.
  void step(Eigen::Ref<Eigen::VectorXf> params, Eigen::Ref<const Eigen::VectorXf> grads,
            int64_t iteration);
  /// The same update restricted to parameters [offset, offset + count): params and grads point
  /// at that slice. step() is step_slice() over the whole vector, so the two agree bit for bit.
  void step_slice(float* params, const float* grads, Eigen::Index offset, Eigen::Index count,
                  float lr);
  /// True when a step is x -= lr*g (no momentum, no weight decay), so that a fused path may add
  /// -lr times the gradient straight into the parameters.
  bool is_plain_sgd() const;
  /// The velocity, for checkpoints (its length is this run's).
  void archive(StateArchive& ar);
  /// The momentum buffer v (empty without momentum). Algorithms may read or reset it.
  Eigen::VectorXf& state() { return velocity_; }
  const Eigen::VectorXf& state() const { return velocity_; }

 private:
  OptimizerSpec spec_;
  Eigen::VectorXf velocity_;
};

}  // namespace dlsim::models
