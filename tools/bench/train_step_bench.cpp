// Time per training step (forward, softmax cross-entropy, backward, optimizer) on one thread at
// batch 32 for the reference networks and EventGraD's CNN, and the FLOP rate it achieves. Compare
// with tools/bench/train_step_torch.py run in the same session; tools/bench/isa_compare.sh runs it
// from builds for several instruction sets.
//
//   build-models/tools/bench/train_step_bench [runs=7] [name filter, e.g. lenet]
//
// Per network and variant it prints the median and minimum over `runs` runs of the mean step time
// of one run, in CPU time of the thread (CLOCK_THREAD_CPUTIME_ID: on a shared machine wall time
// also counts the time other processes hold the core), and the median wall time. Variants: "fused
// sgd" = Model::sgd_step (the gradient product adds -lr*g into the parameters, as DETSGRAD's sync
// step does), "grad+step sgd" and "grad+step nesterov" = compute_gradient then Optimizer::step
// (momentum 0.99), as every other algorithm's step. "eigen reference" is a straightforward Eigen
// MLP step (noalias GEMMs, no custom kernel).
#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "models/layers/simd.hpp"
#include "models/model.hpp"

using namespace dlsim;
using namespace dlsim::models;

namespace {

constexpr Eigen::Index kBatch = 32;

struct Timing {
  double median_s, min_s, wall_median_s;
};

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Runs `step` a few times to warm up, then `runs` runs of `steps` steps.
Timing time_steps(const std::function<void()>& step, int steps, int runs) {
  for (int i = 0; i < std::max(3, steps / 5); ++i) step();
  std::vector<double> cpu, wall;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_seconds();
    for (int i = 0; i < steps; ++i) step();
    cpu.push_back((cpu_seconds() - c0) / steps);
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
    wall.push_back(dt.count() / steps);
  }
  std::sort(cpu.begin(), cpu.end());
  std::sort(wall.begin(), wall.end());
  return {cpu[cpu.size() / 2], cpu.front(), wall[wall.size() / 2]};
}

Dataset bench_random_data(Eigen::Index dim, uint32_t classes) {
  Dataset d;
  RandomStream rng(1, "bench-data", 0);
  d.features.resize(dim, kBatch);
  for (Eigen::Index i = 0; i < d.features.size(); ++i)
    d.features.data()[i] = static_cast<float>(rng.normal());
  for (Eigen::Index s = 0; s < kBatch; ++s)
    d.labels.push_back(static_cast<uint8_t>(rng.below(classes)));
  d.num_classes = classes;
  return d;
}

// Like normalised MNIST digits: a fifth of the pixels lit, the rest at the background value
// (the normalised zero), so the input layer runs its sparse products.
Dataset digit_like_data(Eigen::Index dim, uint32_t classes) {
  Dataset d = bench_random_data(dim, classes);
  RandomStream rng(1, "bench-digits", 0);
  const float background = -0.1307f / 0.3081f;
  d.background = background;
  for (Eigen::Index i = 0; i < d.features.size(); ++i)
    d.features.data()[i] = rng.uniform() < 0.19
                               ? background + static_cast<float>(rng.uniform()) / 0.3081f
                               : background;
  return d;
}

// The multiply-add peak of one core with this build's vectors (models/layers/simd.hpp), in
// GFLOP/s: 12 independent chains, more than FMA latency x pipes on current cores. What bounds a
// step whose time goes into products: AVX2 code cannot beat half of AVX-512's on a core whose
// FMA units are 512 bits wide (AMD Zen 5, Intel server cores), and may match it where they are 256.
double multiply_add_peak() {
  namespace simd = dlsim::models::layers::simd;
  // Operands the compiler cannot see, or it folds the equal chains into one.
  volatile float start = 1.0f, factor = 0.9999f, term = 1e-4f;
  simd::Vec acc[12];
  for (int k = 0; k < 12; ++k) acc[k] = simd::set1(start + static_cast<float>(k));
  const simd::Vec b = simd::set1(factor), c = simd::set1(term);
  constexpr long kIterations = 20'000'000;
  const double c0 = cpu_seconds();
  for (long i = 0; i < kIterations; ++i)
#pragma GCC unroll 12
    for (auto& a : acc) a = simd::fmadd(a, b, c);
  const double seconds = cpu_seconds() - c0;
  simd::Vec sum = acc[0];
  for (int k = 1; k < 12; ++k) sum = simd::add(sum, acc[k]);
  float lanes[simd::kWidth];
  simd::store(lanes, sum);
  volatile float sink = lanes[0];  // keeps the chains
  (void)sink;
  return static_cast<double>(kIterations) * 12.0 * simd::kWidth * 2.0 / seconds * 1e-9;
}

void report(const char* net, const char* variant, const Timing& t, double flops_per_step) {
  std::printf("%-26s %-15s cpu median %8.1f us  min %8.1f us  %6.1f GFLOP/s  (wall %8.1f us)\n",
              net, variant, t.median_s * 1e6, t.min_s * 1e6, flops_per_step / t.median_s * 1e-9,
              t.wall_median_s * 1e6);
}

void bench_model(const char* name, const ModelSpec& spec, int steps, int runs,
                 const Dataset& data) {
  RandomStream rng(1, "bench", 0);
  Model model = Model::build(spec, InputShape{1, 28, 28, 10}, rng);
  std::vector<uint32_t> idx(kBatch);
  std::iota(idx.begin(), idx.end(), 0u);
  Batch batch;
  batch.gather(data, idx);
  Eigen::VectorXf params(model.parameter_count()), grads(model.parameter_count());
  model.initialize(params, rng);
  model.reserve(kBatch);
  const double flops = model.flops_per_sample(Phase::kTrain) * kBatch;
  OptimizerSpec sgd_spec;
  sgd_spec.schedule.lr = 0.01;
  OptimizerSpec nesterov_spec;
  nesterov_spec.momentum = Momentum::kNesterov;
  nesterov_spec.mu = 0.99;
  nesterov_spec.schedule.lr = 0.001;
  Optimizer sgd(sgd_spec, model.parameter_count());
  Optimizer nesterov(nesterov_spec, model.parameter_count());
  int64_t k = 0;
  std::printf("%s: %ld parameters, %.1f MFLOP per training step, workspace %.1f MiB\n", name,
              static_cast<long>(model.parameter_count()), flops * 1e-6,
              static_cast<double>(model.workspace_bytes()) / (1 << 20));
  report(name, "fused sgd",
         time_steps([&] { model.sgd_step(params, 0.01f, batch, rng); }, steps, runs), flops);
  report(name, "grad+step sgd",
         time_steps(
             [&] {
               model.compute_gradient(params, grads, batch, rng);
               sgd.step(params, grads, k++);
             },
             steps, runs),
         flops);
  report(name, "grad+step nesterov",
         time_steps(
             [&] {
               model.compute_gradient(params, grads, batch, rng);
               nesterov.step(params, grads, k++);
             },
             steps, runs),
         flops);
}

// A plain Eigen MLP 784-256-10 step with SGD, for reference: what Eigen's own GEMM gives.
void bench_eigen_reference(int steps, int runs) {
  using Eigen::MatrixXf;
  using Eigen::VectorXf;
  RandomStream rng(2, "bench", 0);
  auto randn = [&](Eigen::Index r, Eigen::Index c) {
    MatrixXf m(r, c);
    for (Eigen::Index i = 0; i < m.size(); ++i)
      m.data()[i] = static_cast<float>(0.05 * rng.normal());
    return m;
  };
  MatrixXf w1 = randn(256, 784), w2 = randn(10, 256), x = randn(784, kBatch);
  VectorXf b1 = VectorXf::Zero(256), b2 = VectorXf::Zero(10);
  MatrixXf h(256, kBatch), z(10, kBatch), dz(10, kBatch), dh(256, kBatch);
  MatrixXf gw1(256, 784), gw2(10, 256);
  std::vector<int> labels(kBatch);
  for (auto& l : labels) l = static_cast<int>(rng.below(10));
  const float lr = 0.01f;
  auto step = [&] {
    h.noalias() = w1 * x;
    h.colwise() += b1;
    h = h.cwiseMax(0.0f);
    z.noalias() = w2 * h;
    z.colwise() += b2;
    for (Eigen::Index s = 0; s < kBatch; ++s) {
      auto col = z.col(s);
      const float m = col.maxCoeff();
      auto e = (col.array() - m).exp();
      dz.col(s) = e / e.sum() / static_cast<float>(kBatch);
      dz(labels[static_cast<size_t>(s)], s) -= 1.0f / kBatch;
    }
    gw2.noalias() = dz * h.transpose();
    dh.noalias() = w2.transpose() * dz;
    dh = (h.array() > 0.0f).select(dh, 0.0f);
    gw1.noalias() = dh * x.transpose();
    w2 -= lr * gw2;
    b2 -= lr * dz.rowwise().sum();
    w1 -= lr * gw1;
    b1 -= lr * dh.rowwise().sum();
  };
  report("mlp 784-256-10", "eigen reference", time_steps(step, steps, runs), 819220.0 * kBatch);
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;
  const std::string filter = argc > 2 ? argv[2] : "";
  auto wanted = [&](const std::string& name) { return name.find(filter) != std::string::npos; };
  std::printf("batch %ld, one thread, %d runs per variant (Eigen %d.%d.%d)\n",
              static_cast<long>(kBatch), runs, EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION,
              EIGEN_MINOR_VERSION);
  std::printf("multiply-add peak: %.1f GFLOP/s (vectors of %d floats, %s)\n", multiply_add_peak(),
              dlsim::models::layers::simd::kWidth,
              dlsim::models::layers::simd::kFused ? "fused" : "not fused");
  if (wanted("mlp 784-256-10")) {
    bench_model("mlp 784-256-10", ModelSpec{MlpSpec{{256}, Activation::kRelu, {}}}, 400, runs,
                bench_random_data(784, 10));
    bench_eigen_reference(400, runs);
  }
  if (wanted("mlp 784-256-10 digit-like input")) {
    bench_model("mlp 784-256-10 digit-like input", ModelSpec{MlpSpec{{256}, Activation::kRelu, {}}},
                400, runs, digit_like_data(784, 10));
  }
  if (wanted("mlp 784-1024x3-10 dropout"))
    bench_model("mlp 784-1024x3-10 dropout", ModelSpec{elastic_gossip_mlp_spec()}, 40, runs,
                bench_random_data(784, 10));
  if (wanted("lenet 28x28"))
    bench_model("lenet 28x28", ModelSpec{lenet_spec()}, 8, runs, bench_random_data(784, 10));
  if (wanted("eventgrad cnn 28x28")) {
    // scenarios/paper/eventgrad-cnn-mnist.json's model (EventGraD's CNN-2).
    const CnnSpec eventgrad{{LayerSpec::conv(10, 3), LayerSpec::relu(), LayerSpec::max_pool(2),
                             LayerSpec::conv(20, 3), LayerSpec::relu(), LayerSpec::max_pool(2),
                             LayerSpec::flatten(), LayerSpec::dense(50), LayerSpec::relu(),
                             LayerSpec::dropout(0.5), LayerSpec::dense(10)}};
    bench_model("eventgrad cnn 28x28", ModelSpec{eventgrad}, 40, runs, bench_random_data(784, 10));
  }
  return 0;
}
