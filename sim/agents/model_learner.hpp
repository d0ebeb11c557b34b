// The learner of a simulated agent: its own model (architecture + workspace), optimizer, data
// shard and mini-batch sampler, over a dataset shared read-only by every agent.
#pragma once

#include <memory>
#include <vector>

#include "models/batch.hpp"
#include "models/data/dataset.hpp"
#include "models/model.hpp"
#include "models/optimizer.hpp"
#include "sim/agents/learner.hpp"
#include "sim/core/ids.hpp"
#include "sim/core/random.hpp"

namespace dlsim {

class ModelLearner final : public Learner {
 public:
  /// shard: indices into train (non-empty). Mini-batches are drawn without replacement from a
  /// shuffled shard; a new shuffle starts when fewer than batch_size samples remain (the rest of
  /// the epoch is skipped, as with drop_last). Shards smaller than a batch give the whole shard.
  /// Streams: (seed, "batches", agent) for the shuffles, (seed, "train", agent) for dropout and
  /// gradient noise.
  ModelLearner(models::Model model, const models::OptimizerSpec& optimizer,
               std::shared_ptr<const models::Dataset> train, std::vector<uint32_t> shard,
               size_t batch_size, uint64_t seed, AgentId agent);

  float gradient(const ParamVector& x, ParamVector& g) override;
  void apply_step(ParamVector& x, const ParamVector& g, int64_t k) override;
  /// Fused (models::Model::sgd_step): the gradient is never stored; scratch is untouched.
  float gradient_step(ParamVector& x, float step, ParamVector& scratch) override;
  void archive(StateArchive& ar) override;
  std::vector<TensorRange> parameter_tensors() const override { return model_.parameter_tensors(); }

  /// From now on, every mini-batch's labels y become (classes - 1) - y (a label-flipping
  /// Byzantine agent, docs/algorithms.md "Attacks"). Not for quadratic models.
  void flip_labels();
  bool flips_labels() const { return flip_classes_ > 0; }
  /// The last mini-batch drawn (after any flip).
  const models::Batch& batch() const { return batch_; }

  models::Model& model() { return model_; }
  const models::Optimizer& optimizer() const { return optimizer_; }
  size_t shard_size() const { return shard_.size(); }
  uint32_t batch_size() const { return static_cast<uint32_t>(batch_size_); }

 private:
  std::span<const uint32_t> next_batch_indices();
  /// batch_ <- the next mini-batch of the shard, flipped when asked.
  void next_batch();

  models::Model model_;
  models::Optimizer optimizer_;
  std::shared_ptr<const models::Dataset> train_;
  std::vector<uint32_t> shard_;  // shuffled in place at every epoch
  size_t batch_size_;
  size_t cursor_;
  models::Batch batch_;
  RandomStream shuffle_rng_;
  RandomStream train_rng_;
  uint32_t flip_classes_ = 0;  // > 0: labels are flipped among this many classes
};

}  // namespace dlsim
