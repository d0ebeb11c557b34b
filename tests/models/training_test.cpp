#include <doctest/doctest.h>

#include <Eigen/Core>
#include <cstring>
#include <numeric>
#include <vector>

#include "models/model.hpp"
#include "test_data.hpp"

using namespace dlsim;
using namespace dlsim::models;

namespace {

struct Run {
  Eigen::VectorXf params;
  float last_loss = 0.0f;
};

// `steps` steps on batches drawn uniformly (with replacement) from `data`; the same seeds give
// the same batches, dropout masks and initial parameters.
Run train(Model& model, const Dataset& data, const OptimizerSpec& spec, int steps, size_t batch,
          uint64_t seed) {
  Run run;
  run.params.resize(model.parameter_count());
  RandomStream init(seed, "init", 0), sampler(seed, "batches", 0), rng(seed, "train", 0);
  model.initialize(run.params, init);
  Optimizer opt(spec, model.parameter_count());
  Eigen::VectorXf grads(model.parameter_count());
  Batch b;
  std::vector<uint32_t> idx(batch);
  for (int k = 0; k < steps; ++k) {
    for (auto& i : idx) i = static_cast<uint32_t>(sampler.below(data.size()));
    b.gather(data, idx);
    run.last_loss = model.compute_gradient(run.params, grads, b, rng);
    opt.step(run.params, grads, k);
  }
  return run;
}

OptimizerSpec sgd(double lr, Momentum momentum = Momentum::kNone, double mu = 0.9) {
  OptimizerSpec spec;
  spec.momentum = momentum;
  spec.mu = mu;
  spec.schedule.lr = lr;
  return spec;
}

Model build(const ModelSpec& spec, const InputShape& in) {
  RandomStream unused(0);
  return Model::build(spec, in, unused);
}

bool bitwise_equal(const Eigen::VectorXf& a, const Eigen::VectorXf& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), static_cast<size_t>(a.size()) * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("an MLP learns four Gaussian clusters to at least 95 percent test accuracy") {
  RandomStream data_rng(11, "data", 0);
  const Dataset train_set = testing::gaussian_clusters(4, 8, 800, data_rng);
  const Dataset test_set = testing::gaussian_clusters(4, 8, 400, data_rng);
  Model m = build(ModelSpec{MlpSpec{{16}, Activation::kRelu, {}}}, InputShape{1, 1, 8, 4});
  const Run run = train(m, train_set, sgd(0.1), 400, 16, 1);
  const EvalResult r = m.evaluate(run.params, test_set, test_set.size(), 64);
  CHECK(r.samples == 400);
  CHECK(r.accuracy >= 0.95);
  for (double a : r.class_accuracy) CHECK(a >= 0.85);
}

TEST_CASE("a tanh MLP with dropout and Nesterov momentum learns the clusters to 95 percent") {
  RandomStream data_rng(12, "data", 0);
  const Dataset train_set = testing::gaussian_clusters(4, 8, 800, data_rng);
  const Dataset test_set = testing::gaussian_clusters(4, 8, 400, data_rng);
  Model m = build(ModelSpec{MlpSpec{{32}, Activation::kTanh, {0.1, 0.2}}}, InputShape{1, 1, 8, 4});
  const Run run = train(m, train_set, sgd(0.02, Momentum::kNesterov), 400, 16, 2);
  CHECK(m.evaluate(run.params, test_set, test_set.size(), 50).accuracy >= 0.95);
}

TEST_CASE("a small CNN finds the quadrant of a blob to at least 95 percent test accuracy") {
  RandomStream data_rng(13, "data", 0);
  const Dataset train_set = testing::quadrant_blobs(800, data_rng);
  const Dataset test_set = testing::quadrant_blobs(400, data_rng);
  CnnSpec spec{{LayerSpec::conv(4, 3, 1, 1), LayerSpec::relu(), LayerSpec::max_pool(2),
                LayerSpec::flatten(), LayerSpec::dense(4)}};
  Model m = build(ModelSpec{spec}, InputShape{1, 6, 6, 4});
  const Run run = train(m, train_set, sgd(0.05, Momentum::kClassic), 300, 16, 3);
  CHECK(m.evaluate(run.params, test_set, test_set.size(), 64).accuracy >= 0.95);
}

TEST_CASE("the same seeds give bit-identical parameters after 30 steps, another seed others") {
  RandomStream data_rng(14, "data", 0);
  const Dataset data = testing::gaussian_clusters(4, 8, 200, data_rng);
  const ModelSpec spec{MlpSpec{{16, 16}, Activation::kRelu, {0.1, 0.3}}};
  Model a = build(spec, InputShape{1, 1, 8, 4});
  Model b = build(spec, InputShape{1, 1, 8, 4});
  const auto opt = sgd(0.05, Momentum::kNesterov);
  const Run ra = train(a, data, opt, 30, 8, 5);
  const Run rb = train(b, data, opt, 30, 8, 5);
  CHECK(bitwise_equal(ra.params, rb.params));
  CHECK_FALSE(bitwise_equal(ra.params, train(b, data, opt, 30, 8, 6).params));
}

TEST_CASE("sgd_step moves the parameters by -step times compute_gradient's gradient") {
  RandomStream data_rng(17, "data", 0);
  const Dataset data = testing::gaussian_clusters(4, 8, 64, data_rng);
  Model m = build(ModelSpec{MlpSpec{{16}, Activation::kRelu, {}}}, InputShape{1, 1, 8, 4});
  RandomStream init(3, "init", 0);
  Eigen::VectorXf x(m.parameter_count()), g(m.parameter_count());
  m.initialize(x, init);
  std::vector<uint32_t> idx(16);
  std::iota(idx.begin(), idx.end(), 0u);
  Batch batch;
  batch.gather(data, idx);
  RandomStream a(1, "train", 0), b(1, "train", 0);
  const float loss = m.compute_gradient(x, g, batch, a);
  const Eigen::VectorXf expected = x - 0.1f * g;
  CHECK(m.sgd_step(x, 0.1f, batch, b) == loss);
  CHECK((x - expected).cwiseAbs().maxCoeff() < 1e-5f * expected.cwiseAbs().maxCoeff());
}
