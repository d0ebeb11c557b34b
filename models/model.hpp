// The model facade the simulator uses: one Model per agent, holding the architecture and its own
// activation workspace, never the parameters. Parameters, gradients and optimizer state are flat
// vectors owned by the caller; a step allocates nothing once the workspace is sized.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/batch.hpp"
#include "models/data/dataset.hpp"
#include "models/model_spec.hpp"
#include "models/optimizer.hpp"
#include "models/parameters.hpp"
#include "models/phase.hpp"
#include "sim/core/random.hpp"

namespace dlsim::models {

namespace layers {
class Network;
}

enum class ModelKind { kMlp, kCnn, kQuadratic };

struct EvalResult {
  double loss = 0.0;                   // mean softmax cross-entropy; quadratic: 0.5 * ||x - c_i||^2
  double accuracy = 0.0;               // fraction classified correctly; quadratic: NaN
  std::vector<double> class_accuracy;  // per class; NaN for classes absent from the samples
  size_t samples = 0;
  double optimum_distance = 0.0;  // quadratic with an optimum set: ||x - x*||; otherwise NaN
};

/// Parameter layout: layers in order, each its weights then its biases; dense W (out x in) and
/// conv K (filters x C*k*k) column-major (models/layers/dense.hpp, conv2d.hpp). Quadratic: x.
/// Initialisation (ModelSpec::init, default kHeNormal): weights followed by a ReLU ~ He normal
/// N(0, 2/fan_in); followed by tanh or by nothing (the output layer) ~ Glorot normal
/// N(0, 2/(fan_in+fan_out)); biases 0; or PyTorch's uniform rule (InitScheme); drawn layer by
/// layer in memory order. Quadratic: x0 ~ N(0, I), so that "independent" initialisation differs.
/// A Model is used by one thread at a time (its workspace is scratch for the call in progress).
class Model {
 public:
  /// Builds the architecture for the input; `rng` draws the quadratic target c_i ~ N(0, I)
  /// (dim draws, coordinate order) and is not touched otherwise. InputError when a shape does not
  /// fit, with a message that starts with a path inside the spec ("/layers/2: ...").
  static Model build(const ModelSpec& spec, const InputShape& input, RandomStream& rng);
  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;
  ~Model();

  ModelKind kind() const { return kind_; }
  Eigen::Index parameter_count() const { return parameter_count_; }
  /// The tensors that tile the parameter vector: each layer's weights, then its bias, in layer
  /// order; a quadratic model is one tensor. Per-tensor triggers (EventGraD) decide on each.
  std::vector<TensorRange> parameter_tensors() const;
  /// Hash of description(): parameter files of other architectures are rejected with it.
  uint64_t architecture_hash() const;
  /// One line per layer with its shapes.
  const std::string& description() const { return description_; }
  /// FLOPs per sample: forward (kEval) or forward + backward (kTrain); quadratic: per step.
  double flops_per_sample(Phase phase) const;

  /// Writes initial parameters (rules above) into params (size parameter_count()).
  void initialize(Eigen::Ref<Eigen::VectorXf> params, RandomStream& rng) const;
  /// Sizes the workspace for training batches of up to max_batch samples (only grows). Calls with
  /// larger batches, and evaluations, grow it themselves; after that nothing allocates.
  void reserve(Eigen::Index max_batch);
  /// Sizes the workspace for evaluation batches of up to max_batch samples, as evaluate() does
  /// before its first batch (only grows).
  void reserve_evaluation(Eigen::Index max_batch);
  /// Bytes of activation buffers and layer scratch held: the per-agent memory besides parameters
  /// and optimizer state (fused steps also use one largest-layer gradient per thread).
  size_t workspace_bytes() const;
  /// Floats of activations per sample of a forward pass (every layer's output); 0 for quadratic.
  /// A lower bound on the workspace per sample, known without allocating it.
  Eigen::Index activation_floats_per_sample() const;

  /// Mean loss over the batch at params; writes its gradient into grads (overwritten). rng is the
  /// agent's training stream: dropout masks, quadratic gradient noise. Quadratic ignores batch
  /// and returns the noiseless 0.5*||x - c_i||^2.
  float compute_gradient(Eigen::Ref<const Eigen::VectorXf> params,
                         Eigen::Ref<Eigen::VectorXf> grads, const Batch& batch, RandomStream& rng);
  /// params <- params - step * (gradient of the mean loss over batch at params), the update
  /// accumulated inside the gradient products (one rounding fewer than compute_gradient and a
  /// separate step): the gradient is never stored. rng as for compute_gradient. Returns the mean
  /// loss (taken before the update).
  float sgd_step(Eigen::Ref<Eigen::VectorXf> params, float step, const Batch& batch,
                 RandomStream& rng);

  /// Loss and accuracy on the first min(max_samples, data.size()) samples, `batch` at a time, no
  /// dropout. Reuses out's vectors: allocation-free once out and the workspace are sized.
  void evaluate(Eigen::Ref<const Eigen::VectorXf> params, const Dataset& data, size_t max_samples,
                size_t batch, EvalResult& out);
  EvalResult evaluate(Eigen::Ref<const Eigen::VectorXf> params, const Dataset& data,
                      size_t max_samples, size_t batch);

  /// Quadratic only: this agent's target c_i.
  const Eigen::VectorXf& quadratic_target() const;
  /// Quadratic only: the optimum that evaluate() measures the distance to (usually the mean of
  /// all agents' targets, shared by every agent).
  void set_optimum(std::shared_ptr<const Eigen::VectorXf> optimum);
  /// Quadratic only: the optimum set_optimum() gave (null before).
  const Eigen::VectorXf* optimum() const { return optimum_.get(); }

 private:
  Model();
  float quadratic_gradient(Eigen::Ref<const Eigen::VectorXf> x, float* grads, RandomStream& rng);
  float quadratic_sgd_step(Eigen::Ref<Eigen::VectorXf> x, float step, RandomStream& rng);
  double forward_loss(const float* params, const Batch& batch, RandomStream& rng);
  void evaluate_quadratic(Eigen::Ref<const Eigen::VectorXf> x, EvalResult& out) const;
  void check_input(Eigen::Index rows, Eigen::Index n) const;

  ModelKind kind_ = ModelKind::kMlp;
  Eigen::Index parameter_count_ = 0;
  uint32_t classes_ = 0;
  std::string description_;
  std::unique_ptr<layers::Network> network_;  // null for quadratic
  std::vector<uint64_t> class_correct_, class_total_;
  // Quadratic
  Eigen::VectorXf target_;
  double noise_sigma_ = 0.0;
  std::shared_ptr<const Eigen::VectorXf> optimum_;
};

/// The mean of quadratic targets, added one at a time in agent order: the global optimum of
/// sum_i f_i. A process that holds only some agents' models (a run over MPI ranks) adds the
/// others' targets as it draws them, and gets the same bits.
class QuadraticOptimum {
 public:
  void add(const Eigen::VectorXf& target);
  /// The mean of the targets added (at least one).
  Eigen::VectorXf mean() const;

 private:
  Eigen::VectorXf sum_;
  uint32_t count_ = 0;
};

/// All agents' targets' mean: the global optimum of sum_i f_i for quadratic models.
Eigen::VectorXf quadratic_optimum(const std::vector<const Model*>& models);

}  // namespace dlsim::models
