// Counts heap allocations around training steps and evaluations. The test executable wraps
// glibc's malloc, calloc and realloc (which operator new and Eigen both call) and forwards to
// glibc's own implementation; under AddressSanitizer, which owns malloc, the test is skipped.
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <atomic>
#include <cstddef>
#include <numeric>
#include <vector>

#include "../skip.hpp"
#include "models/model.hpp"
#include "test_data.hpp"

#if defined(__SANITIZE_ADDRESS__) || !defined(__GLIBC__)
#define DLSIM_COUNT_MALLOC 0
#else
#define DLSIM_COUNT_MALLOC 1
#endif

namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
[[maybe_unused]] void count() {  // unused where malloc is not glibc's (AddressSanitizer)
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1);
}
}  // namespace

#if DLSIM_COUNT_MALLOC
extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* malloc(size_t n) {
  count();
  return __libc_malloc(n);
}
void* calloc(size_t n, size_t size) {
  count();
  return __libc_calloc(n, size);
}
void* realloc(void* p, size_t n) {
  count();
  return __libc_realloc(p, n);
}
}
#endif

using namespace dlsim;
using namespace dlsim::models;

namespace {

volatile float* g_sink = nullptr;

template <class F>
long allocations_during(F&& f) {
  g_allocations = 0;
  g_counting = true;
  f();
  g_counting = false;
  return g_allocations.load();
}

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
  if (!DLSIM_COUNT_MALLOC)
    return dlsim::skip_test("malloc is not glibc's here (AddressSanitizer owns it)");
  const long n = allocations_during([] {
    Eigen::VectorXf v(1000);
    v.setOnes();
    g_sink = v.data();
  });
  CHECK(n >= 1);
}

TEST_CASE("an MLP with dropout allocates nothing in steps and evaluations once warmed up") {
  if (!DLSIM_COUNT_MALLOC)
    return dlsim::skip_test("malloc is not glibc's here (AddressSanitizer owns it)");
  RandomStream data_rng(2, "data", 0);
  const Dataset data = testing::gaussian_clusters(4, 20, 40, data_rng);
  const ModelSpec spec{MlpSpec{{32, 32}, Activation::kRelu, {0.2, 0.5}}};
  CHECK(allocations_after_warm_up(spec, InputShape{1, 1, 20, 4}, data) == 0);
}

TEST_CASE(
    "an MLP on sparse images (its input layer's sparse products) allocates nothing once warmed "
    "up") {
  if (!DLSIM_COUNT_MALLOC)
    return dlsim::skip_test("malloc is not glibc's here (AddressSanitizer owns it)");
  RandomStream data_rng(4, "data", 0);
  const Dataset data = testing::sparse_images(4, 64, 40, 0.2, data_rng);
  const ModelSpec spec{MlpSpec{{32}, Activation::kRelu, {}}};
  CHECK(allocations_after_warm_up(spec, InputShape{1, 1, 64, 4}, data) == 0);
}

TEST_CASE("a CNN allocates nothing in steps and evaluations once warmed up") {
  if (!DLSIM_COUNT_MALLOC)
    return dlsim::skip_test("malloc is not glibc's here (AddressSanitizer owns it)");
  RandomStream data_rng(3, "data", 0);
  const Dataset data = testing::quadrant_blobs(40, data_rng);
  CnnSpec spec{{LayerSpec::conv(4, 3, 1, 1), LayerSpec::relu(), LayerSpec::max_pool(2),
                LayerSpec::conv(6, 3, 1, 1), LayerSpec::tanh(), LayerSpec::flatten(),
                LayerSpec::dropout(0.2), LayerSpec::dense(16), LayerSpec::relu(),
                LayerSpec::dense(4)}};
  CHECK(allocations_after_warm_up(ModelSpec{spec}, InputShape{1, 6, 6, 4}, data) == 0);
}

TEST_CASE("a quadratic model allocates nothing in steps once warmed up") {
  if (!DLSIM_COUNT_MALLOC)
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
