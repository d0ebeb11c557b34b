#include "models/workspace_probe.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "models/batch.hpp"
#include "models/layers/sparse_input.hpp"

namespace dlsim::models {

uint64_t probe_workspace_bytes(Model& model, const InputShape& input,
                               std::optional<float> background, Eigen::Index train_batch,
                               Eigen::Index eval_batch, Eigen::Index eval_samples) {
  if (model.kind() == ModelKind::kQuadratic) return 0;
  // The evaluation's batch sizes that take the sparse path: eval_batch itself, or the last
  // partial batch.
  constexpr Eigen::Index kSparse = layers::SparseInput::kMaxSamples;
  eval_batch = std::min(eval_batch, eval_samples);
  const Eigen::Index last = eval_samples % eval_batch;
  const Eigen::Index evaluated =
      std::max(eval_batch <= kSparse ? eval_batch : 0, last <= kSparse ? last : 0);
  Dataset inputs;
  inputs.channels = input.channels;
  inputs.height = input.height;
  inputs.width = input.width;
  inputs.num_classes = input.classes;
  inputs.background = background;
  const Eigen::Index samples = std::max(train_batch, evaluated);
  inputs.features = Eigen::MatrixXf::Constant(static_cast<Eigen::Index>(inputs.sample_dim()),
                                              samples, background.value_or(0.0f));
  inputs.labels.assign(static_cast<size_t>(samples), 0);

  Eigen::VectorXf params = Eigen::VectorXf::Zero(model.parameter_count());
  Eigen::VectorXf grads(model.parameter_count());
  std::vector<uint32_t> indices(static_cast<size_t>(train_batch));
  std::iota(indices.begin(), indices.end(), 0u);
  Batch batch;
  batch.gather(inputs, indices);
  RandomStream rng(0, "workspace-probe", 0);  // dropout masks: any stream sizes them alike
  model.compute_gradient(params, grads, batch, rng);
  if (evaluated > 0)
    model.evaluate(params, inputs, static_cast<size_t>(evaluated), static_cast<size_t>(evaluated));
  model.reserve_evaluation(eval_batch);
  return model.workspace_bytes();
}

}  // namespace dlsim::models
