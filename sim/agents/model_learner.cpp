#include "sim/agents/model_learner.hpp"

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/core/state_archive.hpp"

namespace dlsim {

ModelLearner::ModelLearner(models::Model model, const models::OptimizerSpec& optimizer,
                           std::shared_ptr<const models::Dataset> train,
                           std::vector<uint32_t> shard, size_t batch_size, uint64_t seed,
                           AgentId agent)
    : model_(std::move(model)),
      optimizer_(optimizer, model_.parameter_count()),
      train_(std::move(train)),
      shard_(std::move(shard)),
      batch_size_(std::min(batch_size, shard_.size())),
      cursor_(shard_.size()),  // the first call shuffles
      shuffle_rng_(seed, "batches", agent.value),
      train_rng_(seed, "train", agent.value) {
  DLSIM_CHECK(!shard_.empty() || model_.kind() == models::ModelKind::kQuadratic,
              "agent {} has an empty shard", agent.value);
  if (model_.kind() != models::ModelKind::kQuadratic) {
    batch_ = models::Batch(static_cast<Eigen::Index>(train_->sample_dim()),
                           static_cast<Eigen::Index>(batch_size_));
    model_.reserve(static_cast<Eigen::Index>(batch_size_));
  }
}

std::span<const uint32_t> ModelLearner::next_batch_indices() {
  if (cursor_ + batch_size_ > shard_.size()) {
    shuffle_rng_.shuffle(std::span<uint32_t>(shard_));
    cursor_ = 0;
  }
  const std::span<const uint32_t> indices(shard_.data() + cursor_, batch_size_);
  cursor_ += batch_size_;
  return indices;
}

void ModelLearner::flip_labels() {
  DLSIM_CHECK(model_.kind() != models::ModelKind::kQuadratic, "a quadratic model has no labels");
  flip_classes_ = train_->num_classes;
}

void ModelLearner::next_batch() {
  if (model_.kind() == models::ModelKind::kQuadratic) return;
  batch_.gather(*train_, next_batch_indices());
  if (flip_classes_ > 0) batch_.flip_labels(flip_classes_);
}

float ModelLearner::gradient(const ParamVector& x, ParamVector& g) {
  next_batch();
  return model_.compute_gradient(x, g, batch_, train_rng_);
}

float ModelLearner::gradient_step(ParamVector& x, float step, ParamVector&) {
  next_batch();
  return model_.sgd_step(x, step, batch_, train_rng_);
}

void ModelLearner::apply_step(ParamVector& x, const ParamVector& g, int64_t k) {
  optimizer_.step(x, g, k);
}

void ModelLearner::archive(StateArchive& ar) {
  optimizer_.archive(ar);
  ar.sized_vector(shard_, "another shard");  // its order is the epoch's shuffle
  ar.value(cursor_);
  if (ar.loading() && cursor_ > shard_.size()) ar.fail("a batch cursor past the shard");
  shuffle_rng_.archive(ar);
  train_rng_.archive(ar);
}

}  // namespace dlsim
