// One agent's model memory besides its parameters, found before a run allocates it for every
// agent: the scenario's memory estimate multiplies it by the agents. The layers size their
// scratch lazily (sparse inputs, im2col tiles) and by rules of their own, so rather than repeat
// those rules here, a probe model runs one training step and one evaluation and reports what it
// then holds: the same buffers every agent's model holds after its first step and evaluation.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <optional>

#include "models/model.hpp"

namespace dlsim::models {

/// Model::workspace_bytes() of a fresh `model` (built for `input`) after one training step on
/// train_batch samples and an evaluation of eval_samples samples in batches of eval_batch, on
/// inputs equal to `background` (the dataset's, so the input layer takes the same sparse path as
/// real data). Of the evaluation it runs only the batches small enough for the sparse path
/// (SparseInput::kMaxSamples, sized lazily) and sizes the forward buffers for the others without
/// computing them, so it costs about one training step.
/// Allocates one model's workspace and parameters: bound them first (activation_floats_per_sample,
/// parameter_count, flops_per_sample). Quadratic models: 0.
uint64_t probe_workspace_bytes(Model& model, const InputShape& input,
                               std::optional<float> background, Eigen::Index train_batch,
                               Eigen::Index eval_batch, Eigen::Index eval_samples);

}  // namespace dlsim::models
