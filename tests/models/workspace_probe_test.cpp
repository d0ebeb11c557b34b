#include "models/workspace_probe.hpp"

#include <doctest/doctest.h>

#include <numeric>

#include "models/batch.hpp"
#include "models/model.hpp"
#include "test_data.hpp"

using namespace dlsim;
using namespace dlsim::models;

namespace {

Model build(const ModelSpec& spec, const InputShape& shape) {
  RandomStream unused(1, "target", 0);
  return Model::build(spec, shape, unused);
}

// What an agent's model holds after it trained on real batches and was evaluated on a test set.
size_t after_real_use(const ModelSpec& spec, const Dataset& data, Eigen::Index train_batch,
                      Eigen::Index eval_batch, Eigen::Index eval_samples) {
  const InputShape shape{data.channels, data.height, data.width, data.num_classes};
  Model m = build(spec, shape);
  RandomStream rng(3, "init", 0);
  Eigen::VectorXf x(m.parameter_count()), g(m.parameter_count());
  m.initialize(x, rng);
  std::vector<uint32_t> indices(static_cast<size_t>(train_batch));
  std::iota(indices.begin(), indices.end(), 0u);
  Batch batch;
  for (int step = 0; step < 3; ++step) {
    batch.gather(data, indices);
    m.compute_gradient(x, g, batch, rng);
    for (uint32_t& i : indices) i += static_cast<uint32_t>(train_batch);
  }
  m.evaluate(x, data, static_cast<size_t>(eval_samples), static_cast<size_t>(eval_batch));
  return m.workspace_bytes();
}

size_t probed(const ModelSpec& spec, const Dataset& data, Eigen::Index train_batch,
              Eigen::Index eval_batch, Eigen::Index eval_samples) {
  const InputShape shape{data.channels, data.height, data.width, data.num_classes};
  Model m = build(spec, shape);
  return probe_workspace_bytes(m, shape, data.background, train_batch, eval_batch, eval_samples);
}

}  // namespace

TEST_CASE("the probe finds the workspace an MLP holds after training and evaluation") {
  RandomStream rng(5, "data", 0);
  // Image-like inputs with a background: the input layer takes the sparse path in training.
  const Dataset images = testing::sparse_images(4, 64, 400, 0.2, rng);
  const ModelSpec mlp{MlpSpec{{48, 24}, Activation::kRelu, {0.2, 0.5}}};
  // Evaluation batches small enough for the sparse path, larger ones, and larger ones whose last
  // partial batch takes it.
  for (const auto& [eval_batch, eval_samples] :
       {std::pair<Eigen::Index, Eigen::Index>{100, 200}, {150, 300}, {150, 350}, {300, 200}}) {
    CAPTURE(eval_batch);
    CAPTURE(eval_samples);
    const size_t real = after_real_use(mlp, images, 16, eval_batch, eval_samples);
    CHECK(real > 0);
    CHECK(probed(mlp, images, 16, eval_batch, eval_samples) == real);
  }
  // A larger evaluation batch needs more: the probe sees it.
  CHECK(probed(mlp, images, 16, 200, 200) > probed(mlp, images, 16, 100, 200));
}

TEST_CASE("the probe finds the workspace a CNN holds after training and evaluation") {
  RandomStream rng(6, "data", 0);
  const Dataset blobs = testing::quadrant_blobs(300, rng);
  const ModelSpec cnn{CnnSpec{{LayerSpec::conv(4, 3, 1, 1), LayerSpec::relu(),
                               LayerSpec::max_pool(2), LayerSpec::flatten(), LayerSpec::dense(16),
                               LayerSpec::relu(), LayerSpec::dense(4)}}};
  const size_t real = after_real_use(cnn, blobs, 8, 50, 120);
  CHECK(real > 0);
  CHECK(probed(cnn, blobs, 8, 50, 120) == real);
}

TEST_CASE("activations per sample are every layer's output: a lower bound of the workspace") {
  const InputShape shape{1, 1, 32, 10};
  Model m = build(ModelSpec{MlpSpec{{100, 50}, Activation::kRelu, {}}}, shape);
  CHECK(m.activation_floats_per_sample() == 100 + 100 + 50 + 50 + 10);  // dense, relu pairs
  CHECK(probe_workspace_bytes(m, shape, std::nullopt, 10, 10, 10) >=
        10 * sizeof(float) * static_cast<size_t>(m.activation_floats_per_sample()));
}
