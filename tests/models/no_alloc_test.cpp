// Counts heap allocations around training steps and evaluations (tests/malloc_count.hpp wraps
// malloc for this executable); skipped under AddressSanitizer, which owns malloc.
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <numeric>
#include <vector>

#include "../malloc_count.hpp"
#include "../skip.hpp"
#include "models/model.hpp"
#include "test_data.hpp"

using namespace dlsim;
using dlsim::testing::allocations_during;
using namespace dlsim::models;

namespace {

volatile float* g_sink = nullptr;

// Builds the model, warms it up once (sizing every buffer), then counts allocations in a second
// round of compute_gradient, the fused steps, a batch gather and an evaluation.
long allocations_after_warm_up(const ModelSpec& spec, const InputShape& in, const Dataset& data) {
  RandomStream rng(1, "model", 0);
  Model m = Model::build(spec, in, rng);
  Eigen::VectorXf p(m.parameter_count()), g(m.parameter_count());
  m.initialize(p, rng);
  OptimizerSpec plain;
  plain.schedule.lr = 0.01;
  OptimizerSpec nesterov = plain;
  nesterov.momentum = Momentum::kNesterov;
  Optimizer sgd(plain, m.parameter_count()), nag(nesterov, m.parameter_count());
  std::vector<uint32_t> idx(16);
  std::iota(idx.begin(), idx.end(), 0u);
  Batch batch;
  EvalResult result;
  auto round = [&] {
    batch.gather(data, idx);
    m.compute_gradient(p, g, batch, rng);
    sgd.step(p, g, 0);
    nag.step(p, g, 2);
    m.sgd_step(p, 0.01f, batch, rng);
    m.evaluate(p, data, 40, 16, result);  // 16 + 16 + 8: a ragged last batch
  };
  round();
  return allocations_during(round);
}

}  // namespace

TEST_CASE("the allocation counter sees an Eigen allocation") {
  if (!dlsim::testing::kCountsMalloc)
    return dlsim::skip_test("malloc is not glibc's here (AddressSanitizer owns it)");
  const long n = allocations_during([] {
    Eigen::VectorXf v(1000);
    v.setOnes();
    g_sink = v.data();
  });
  CHECK(n >= 1);
}

TEST_CASE("an MLP with dropout allocates nothing in steps and evaluations once warmed up") {
  if (!dlsim::testing::kCountsMalloc)
    return dlsim::skip_test("malloc is not glibc's here (AddressSanitizer owns it)");
  RandomStream data_rng(2, "data", 0);
  const Dataset data = models::testing::gaussian_clusters(4, 20, 40, data_rng);
  const ModelSpec spec{MlpSpec{{32, 32}, Activation::kRelu, {0.2, 0.5}}};
  CHECK(allocations_after_warm_up(spec, InputShape{1, 1, 20, 4}, data) == 0);
}

TEST_CASE(
    "an MLP on sparse images (its input layer's sparse products) allocates nothing once warmed "
    "up") {
  if (!dlsim::testing::kCountsMalloc)
    return dlsim::skip_test("malloc is not glibc's here (AddressSanitizer owns it)");
  RandomStream data_rng(4, "data", 0);
  const Dataset data = models::testing::sparse_images(4, 64, 40, 0.2, data_rng);
  const ModelSpec spec{MlpSpec{{32}, Activation::kRelu, {}}};
  CHECK(allocations_after_warm_up(spec, InputShape{1, 1, 64, 4}, data) == 0);
}

TEST_CASE("a CNN allocates nothing in steps and evaluations once warmed up") {
  if (!dlsim::testing::kCountsMalloc)
    return dlsim::skip_test("malloc is not glibc's here (AddressSanitizer owns it)");
  RandomStream data_rng(3, "data", 0);
  const Dataset data = models::testing::quadrant_blobs(40, data_rng);
  CnnSpec spec{{LayerSpec::conv(4, 3, 1, 1), LayerSpec::relu(), LayerSpec::max_pool(2),
                LayerSpec::conv(6, 3, 1, 1), LayerSpec::tanh(), LayerSpec::flatten(),
                LayerSpec::dropout(0.2), LayerSpec::dense(16), LayerSpec::relu(),
                LayerSpec::dense(4)}};
  CHECK(allocations_after_warm_up(ModelSpec{spec}, InputShape{1, 6, 6, 4}, data) == 0);
}

TEST_CASE("a quadratic model allocates nothing in steps once warmed up") {
  if (!dlsim::testing::kCountsMalloc)
    return dlsim::skip_test("malloc is not glibc's here (AddressSanitizer owns it)");
  RandomStream rng(4, "model", 0);
  Model m = Model::build(ModelSpec{QuadraticSpec{50, 0.1}}, InputShape{}, rng);
  Eigen::VectorXf p = Eigen::VectorXf::Zero(50), g(50);
  OptimizerSpec spec;
  spec.momentum = Momentum::kClassic;
  Optimizer opt(spec, 50);
  const Batch none;
  auto round = [&] {
    m.compute_gradient(p, g, none, rng);
    opt.step(p, g, 0);
    m.sgd_step(p, 0.01f, none, rng);
  };
  round();
  CHECK(allocations_during(round) == 0);
}
