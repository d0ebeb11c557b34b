// Compressing one parameter vector of MLP 784-250-10 (198,760 parameters), against one training
// step of that network (batch 32, digit-like input, grad + SGD step as D-PSGD runs it) measured in
// the same run, and top_k's radix select against std::nth_element on the same vector (selection
// only, then the indices sorted as top_k emits them). Also applying a received top-k message to a
// copy (only its k entries). Times are medians of thread CPU time over `runs` runs.
//
//   build/tools/bench/compression_bench [runs=9]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <numeric>
#include <vector>

#include "models/model.hpp"
#include "sim/compression/compressor.hpp"
#include "sim/compression/selection.hpp"
#include "sim/core/random.hpp"

using namespace dlsim;

namespace {

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Median over `runs` of the mean time of `reps` calls, after a warm-up.
double median_seconds(const std::function<void()>& f, int reps, int runs) {
  for (int i = 0; i < std::max(2, reps / 4); ++i) f();
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    const double t0 = cpu_seconds();
    for (int i = 0; i < reps; ++i) f();
    t.push_back((cpu_seconds() - t0) / reps);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

double training_step_seconds(Eigen::VectorXf& params, int runs) {
  using namespace models;
  RandomStream rng(1, "bench", 0);
  Model model = Model::build(ModelSpec{MlpSpec{{250}, Activation::kRelu, {}}},
                             InputShape{1, 28, 28, 10}, rng);
  Dataset d;
  const float background = -0.1307f / 0.3081f;
  d.features.resize(784, 32);
  for (Eigen::Index i = 0; i < d.features.size(); ++i)
    d.features.data()[i] =
        rng.uniform() < 0.19 ? background + static_cast<float>(rng.uniform()) / 0.3081f : background;
  d.background = background;
  for (int s = 0; s < 32; ++s) d.labels.push_back(static_cast<uint8_t>(rng.below(10)));
  d.num_classes = 10;
  std::vector<uint32_t> idx(32);
  std::iota(idx.begin(), idx.end(), 0u);
  Batch batch;
  batch.gather(d, idx);
  params.resize(model.parameter_count());
  Eigen::VectorXf grads(model.parameter_count());
  model.initialize(params, rng);
  model.reserve(32);
  OptimizerSpec spec;
  spec.schedule.lr = 0.01;
  Optimizer sgd(spec, model.parameter_count());
  int64_t k = 0;
  Eigen::VectorXf work = params;
  return median_seconds(
      [&] {
        model.compute_gradient(work, grads, batch, rng);
        sgd.step(work, grads, k++);
      },
      200, runs);
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 9;
  Eigen::VectorXf params;
  const double step = training_step_seconds(params, runs);
  const uint64_t d = static_cast<uint64_t>(params.size());
  // A vector like x - x^_i: the change of the parameters over a few steps, roughly Gaussian.
  RandomStream rng(3, "bench-vector", 0);
  std::vector<float> v(d);
  for (float& x : v) x = static_cast<float>(0.01 * rng.normal());
  std::printf("vector of %lu parameters (MLP 784-250-10); one training step (batch 32): %.1f us\n",
              static_cast<unsigned long>(d), step * 1e6);

  const uint64_t k = d / 100;
  std::vector<uint32_t> indices;
  const double radix = median_seconds([&] { select_top_k(v, k, indices); }, 100, runs);
  std::vector<std::pair<float, uint32_t>> keyed(d);
  const double nth = median_seconds(
      [&] {
        for (uint64_t i = 0; i < d; ++i) keyed[i] = {std::fabs(v[i]), static_cast<uint32_t>(i)};
        const auto kth = keyed.begin() + static_cast<std::ptrdiff_t>(k - 1);
        std::nth_element(keyed.begin(), kth, keyed.end(), [](const auto& a, const auto& b) {
          return a.first > b.first || (a.first == b.first && a.second < b.second);
        });
        indices.clear();
        for (auto it = keyed.begin(); it <= kth; ++it) indices.push_back(it->second);
        std::sort(indices.begin(), indices.end());
      },
      100, runs);
  std::printf("top_k 1%% selection: radix %.1f us, std::nth_element %.1f us: %.2fx faster\n",
              radix * 1e6, nth * 1e6, nth / radix);

  struct Case {
    const char* name;
    CompressionSpec spec;
  };
  auto make = [](Sparsifier s, double fraction, Quantizer q, uint32_t levels = 0) {
    CompressionSpec c;
    c.sparsifier = s;
    c.fraction = fraction;
    c.quantizer = q;
    c.levels = levels;
    return c;
  };
  const Case cases[] = {
      {"top_k 1%", make(Sparsifier::kTopK, 0.01, Quantizer::kFloat32)},
      {"top_k 10%", make(Sparsifier::kTopK, 0.1, Quantizer::kFloat32)},
      {"random_k 1%", make(Sparsifier::kRandomK, 0.01, Quantizer::kFloat32)},
      {"top_k 1% + qsgd 16", make(Sparsifier::kTopK, 0.01, Quantizer::kQsgd, 16)},
      {"qsgd 16 (dense)", make(Sparsifier::kNone, 0.0, Quantizer::kQsgd, 16)},
      {"sign (dense)", make(Sparsifier::kNone, 0.0, Quantizer::kSign)},
      {"fp16 (dense)", make(Sparsifier::kNone, 0.0, Quantizer::kFp16)},
      {"bf16 (dense)", make(Sparsifier::kNone, 0.0, Quantizer::kBf16)},
  };
  CompressedVector out;
  for (const Case& c : cases) {
    Compressor compressor(c.spec, d);
    RandomStream draws(5, "bench-compress", 0);
    const double t = median_seconds([&] { compressor.compress(v, draws, out); }, 100, runs);
    std::printf("%-20s %8.1f us  %.3f of a training step  %9lu bytes on the wire\n", c.name,
                t * 1e6, t / step, static_cast<unsigned long>(compressor.wire_bytes()));
  }
  Compressor top(cases[0].spec, d);
  RandomStream draws(6, "bench-compress", 0);
  top.compress(v, draws, out);
  std::vector<float> copy(d, 0.0f);
  const double apply = median_seconds([&] { out.add_to(copy); }, 1000, runs);
  std::vector<float> dense(d, 0.0f);
  const double dense_add = median_seconds(
      [&] {
        for (uint64_t i = 0; i < d; ++i) dense[i] += v[i];
      },
      1000, runs);
  std::printf("applying a top_k 1%% message: %.2f us (a dense pass over the copy: %.1f us)\n",
              apply * 1e6, dense_add * 1e6);
  return 0;
}
