// What compression costs per call, against one training step of the default scenario's model
// (MLP 784-250-10, 198,760 parameters; DETSGRAD's fused SGD step, batch 32, digit-like input)
// timed in the same run. Every compressor compresses x - x^ as error feedback does
// (Compressor::compress_difference reads x and x^), on vectors like the default scenario's: x^
// random, x - x^ the residual of top-k error feedback after 200 rounds (what top 1 % leaves
// behind piles up just below the k-th largest magnitude), cycling through 8 successive residuals
// so that top_k's hint meets a vector that moved, as in a run. Also top_k's selection alone, with
// its hint, without it (two passes) and with std::nth_element, and what an event does besides:
// applying q to a copy of x^ (its k entries) and copying x^. Times are medians over `runs` runs of
// thread CPU time.
//
//   build/tools/bench/compression_bench [runs=9]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <vector>

#include "models/model.hpp"
#include "sim/compression/compressor.hpp"
#include "sim/compression/selection.hpp"
#include "sim/compression/top_k_selector.hpp"
#include "sim/core/random.hpp"
#include "tools/bench/cpu_timing.hpp"

using namespace dlsim;
using bench::median_seconds;

namespace {

constexpr int kStates = 8;

// One fused SGD step of MLP 784-250-10 on a batch of 32 digit-like samples (a fifth of the
// pixels lit), as DETSGRAD's sync step runs it; params <- the initial parameters.
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
  model.initialize(params, rng);
  model.reserve(32);
  Eigen::VectorXf work = params;
  return median_seconds([&] { model.sgd_step(work, 0.01f, batch, rng); }, 200, runs);
}

// kStates successive residuals e of top-k error feedback (k = d / 100): each round adds a
// change with a scale of its own per entry (log-normal: layers and units move at different
// rates) and sends, so zeroes, the k largest entries of e.
std::vector<std::vector<float>> residuals(size_t d) {
  RandomStream rng(3, "bench-vector", 0);
  std::vector<float> scale(d), e(d, 0.0f);
  for (float& s : scale) s = static_cast<float>(1e-3 * std::exp(rng.normal()));
  std::vector<uint32_t> sent;
  std::vector<std::vector<float>> out;
  for (int round = 0; round < 200 + kStates; ++round) {
    for (size_t i = 0; i < d; ++i) e[i] += scale[i] * static_cast<float>(rng.normal());
    if (round >= 200) out.push_back(e);
    select_top_k(e, d / 100, sent);
    for (uint32_t i : sent) e[i] = 0.0f;
  }
  return out;
}

CompressionSpec make(Sparsifier s, double fraction, Quantizer q, uint32_t levels = 0) {
  CompressionSpec c;
  c.sparsifier = s;
  c.fraction = fraction;
  c.quantizer = q;
  c.levels = levels;
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 9;
  Eigen::VectorXf params;
  const double step = training_step_seconds(params, runs);
  const size_t d = static_cast<size_t>(params.size());
  const uint64_t k = d / 100;
  // x^ and x = x^ + e in kStates pairs (12.7 MB in all: beyond L2, as a run's vectors are).
  const std::vector<std::vector<float>> e = residuals(d);
  RandomStream rng(4, "bench-base", 0);
  std::vector<std::vector<float>> base(kStates, std::vector<float>(d)), x = base;
  for (int t = 0; t < kStates; ++t)
    for (size_t i = 0; i < d; ++i) {
      base[t][i] = static_cast<float>(0.05 * rng.normal());
      x[t][i] = base[t][i] + e[t][i];
    }
  int t = 0;
  auto next = [&] { t = (t + 1) % kStates; };
  std::printf("vector of %zu parameters (MLP 784-250-10); one training step (fused SGD, batch "
              "32): %.1f us\n\n",
              d, step * 1e6);

  std::vector<uint32_t> indices;
  TopKSelector hinted;
  const double one_pass = median_seconds([&] { hinted.select(x[t], base[t], k, indices), next(); },
                                         200, runs);
  const double two_pass = median_seconds([&] { select_top_k(e[t], k, indices), next(); }, 100, runs);
  std::vector<std::pair<float, uint32_t>> keyed(d);
  const double nth = median_seconds(
      [&] {
        for (size_t i = 0; i < d; ++i) keyed[i] = {std::fabs(e[t][i]), static_cast<uint32_t>(i)};
        const auto kth = keyed.begin() + static_cast<std::ptrdiff_t>(k - 1);
        std::nth_element(keyed.begin(), kth, keyed.end(), [](const auto& a, const auto& b) {
          return a.first > b.first || (a.first == b.first && a.second < b.second);
        });
        indices.clear();
        for (auto it = keyed.begin(); it <= kth; ++it) indices.push_back(it->second);
        std::sort(indices.begin(), indices.end());
        next();
      },
      20, runs);
  std::printf("top_k 1%% selection: %.1f us with the hint (x - x^ read once; it held in %lu of "
              "%lu calls), %.1f us without (two passes over e), std::nth_element %.1f us\n\n",
              one_pass * 1e6, static_cast<unsigned long>(hinted.one_pass_calls()),
              static_cast<unsigned long>(hinted.one_pass_calls() + hinted.two_pass_calls()),
              two_pass * 1e6, nth * 1e6);

  struct Case {
    const char* name;
    CompressionSpec spec;
  };
  using S = Sparsifier;
  using Q = Quantizer;
  CompressionSpec scaled = make(S::kRandomK, 0.01, Q::kFloat32);
  scaled.scale = true;
  CompressionSpec rescaled = make(S::kTopK, 0.01, Q::kQsgd, 4);
  rescaled.rescale = true;
  const Case cases[] = {
      {"top_k 1 %", make(S::kTopK, 0.01, Q::kFloat32)},
      {"top_k 10 %", make(S::kTopK, 0.1, Q::kFloat32)},
      {"random_k 1 %", make(S::kRandomK, 0.01, Q::kFloat32)},
      {"random_k 1 %, scale", scaled},
      {"qsgd 16 (dense)", make(S::kNone, 0.0, Q::kQsgd, 16)},
      {"sign (dense)", make(S::kNone, 0.0, Q::kSign)},
      {"fp16 (dense)", make(S::kNone, 0.0, Q::kFp16)},
      {"bf16 (dense)", make(S::kNone, 0.0, Q::kBf16)},
      {"top_k 1 % + qsgd 16", make(S::kTopK, 0.01, Q::kQsgd, 16)},
      {"top_k 1 % + qsgd 4, rescale", rescaled},
      {"top_k 1 % + sign", make(S::kTopK, 0.01, Q::kSign)},
      {"random_k 1 % + fp16", make(S::kRandomK, 0.01, Q::kFp16)},
  };
  std::printf("| compressor (one call on x - x^) | time | of one training step | bytes on the "
              "wire |\n|---|---|---|---|\n");
  CompressedVector out;
  for (const Case& c : cases) {
    Compressor compressor(c.spec, d);
    RandomStream draws(5, "bench-compress", 0);
    const double s = median_seconds(
        [&] { compressor.compress_difference(x[t], base[t], draws, out), next(); }, 100, runs);
    std::printf("| %s | %.1f us | %.3f | %lu |\n", c.name, s * 1e6, s / step,
                static_cast<unsigned long>(compressor.wire_bytes()));
  }

  // Besides compressing, an event adds q to x^ (a new copy: neighbours hold the old one).
  Compressor top(cases[0].spec, d);
  RandomStream draws(6, "bench-compress", 0);
  top.compress_difference(x[0], base[0], draws, out);
  std::vector<float> copy(d, 0.0f);
  const double apply = median_seconds([&] { out.add_to(copy); }, 1000, runs);
  const double whole =
      median_seconds([&] { std::copy(base[t].begin(), base[t].end(), copy.begin()), next(); },
                     200, runs);
  std::printf("\napplying a top_k 1 %% message: %.2f us (%.3f of a step); copying x^: %.1f us "
              "(%.3f)\n",
              apply * 1e6, apply / step, whole * 1e6, whole / step);
  return 0;
}
