#include "models/layers/sparse_input.hpp"

#include <doctest/doctest.h>

#include <Eigen/Core>
#include <cmath>
#include <numeric>
#include <vector>

#include "models/batch.hpp"
#include "models/layers/dense.hpp"
#include "models/layers/simd.hpp"
#include "models/layers/sparse_products.hpp"
#include "models/model.hpp"
#include "sim/core/random.hpp"
#include "test_data.hpp"

using namespace dlsim;
using namespace dlsim::models::layers;
using Eigen::MatrixXf;
using Eigen::VectorXf;

namespace {

constexpr float kBackground = -0.1307f / 0.3081f;

// (features, n) with each entry lit (background + U(0.1, 3)) with probability `lit`.
MatrixXf sparse_matrix(Index features, Index n, double lit, RandomStream& rng) {
  MatrixXf x(features, n);
  for (Index i = 0; i < x.size(); ++i)
    x.data()[i] =
        rng.uniform() < lit ? kBackground + static_cast<float>(rng.uniform(0.1, 3.0)) : kBackground;
  return x;
}

MatrixXf random_matrix(Index rows, Index cols, RandomStream& rng) {
  MatrixXf m(rows, cols);
  for (Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(rng.uniform(-1.0, 1.0));
  return m;
}

// max |a - b| / (1 + |b|): the sparse sums run in another order than the dense ones.
double relative_gap(const MatrixXf& a, const MatrixXf& b) {
  return ((a - b).array().abs() / (1.0f + b.array().abs())).maxCoeff();
}

// x (in, n) as a sparse input: built, and required to be sparse enough.
SparseInput sparse_input(const MatrixXf& x) {
  SparseInput sparse;
  sparse.reserve(x.rows(), x.cols());
  REQUIRE(sparse.build(ConstAct(x.data(), x.rows(), x.cols()), kBackground));
  return sparse;
}

// y = W x + b through sparse_forward; base: its scratch, kept for the gradient calls.
MatrixXf forward(const MatrixXf& w, const VectorXf& b, const SparseInput& x, VectorXf& base) {
  base.resize(w.rows());
  MatrixXf y(w.rows(), x.samples());
  sparse_forward(w.data(), b.data(), w.rows(), x, base.data(), y.data());
  return y;
}

}  // namespace

TEST_CASE("a sparse input lists exactly the entries that differ from the background, both ways") {
  RandomStream rng(1, "test", 0);
  // 37 features and 19 samples: neither a multiple of the 16-lane vectors.
  const MatrixXf x = sparse_matrix(37, 19, 0.25, rng);
  SparseInput in;
  in.reserve(37, 5);  // sized for fewer samples, then grown: the buffers follow the batch size
  const size_t small = in.bytes();
  in.reserve(37, 19);
  CHECK(in.bytes() > small);
  REQUIRE(in.build(ConstAct(x.data(), 37, 19), kBackground));
  MatrixXf by_group = MatrixXf::Constant(37, 19, kBackground);
  MatrixXf by_feature = by_group;
  CHECK(in.groups() == 5);  // 4 + 4 + 4 + 4 + 3: the last group is short
  Index features_listed = 0;
  for (Index g = 0; g < in.groups(); ++g) {
    const auto features = in.group_features(g);
    const float* values = in.group_values(g);
    for (size_t e = 0; e < features.size(); ++e) {
      if (e > 0) CHECK(features[e] > features[e - 1]);
      bool any = false;
      for (Index k = 0; k < SparseInput::kGroup; ++k) {
        const float d = values[SparseInput::kGroup * e + static_cast<size_t>(k)];
        const Index s = g * SparseInput::kGroup + k;
        if (s >= 19) {
          CHECK(d == 0.0f);  // lanes past the batch
          continue;
        }
        CHECK(d == x(features[e], s) - kBackground);  // d, exactly as x - background (0 there)
        by_group(features[e], s) += d;
        any |= d != 0.0f;
      }
      CHECK(any);  // listed only where some sample of the group differs
      ++features_listed;
    }
  }
  Index union_size = 0;  // features where some sample of the group differs, over the groups
  for (Index g = 0; g < 5; ++g)
    for (Index j = 0; j < 37; ++j)
      union_size +=
          (x.row(j).segment(4 * g, std::min<Index>(4, 19 - 4 * g)).array() != kBackground).any()
              ? 1
              : 0;
  CHECK(features_listed == union_size);
  Index entries = 0;
  for (Index j = 0; j < 37; ++j) {
    const auto samples = in.feature_samples(j);
    const auto values = in.feature_values(j);
    for (size_t e = 0; e < samples.size(); ++e) {
      if (e > 0) CHECK(samples[e] > samples[e - 1]);
      by_feature(j, samples[e]) += values[e];
      ++entries;
    }
  }
  CHECK(entries == (x.array() != kBackground).count());
  CHECK(entries > 0);
  CHECK(relative_gap(by_group, x) < 1e-6);
  CHECK(relative_gap(by_feature, x) < 1e-6);
}

TEST_CASE("a sparse input refuses inputs denser than its limit") {
  RandomStream rng(2, "test", 0);
  SparseInput in;
  in.reserve(50, 8);
  const MatrixXf dense = sparse_matrix(50, 8, 0.9, rng);
  CHECK_FALSE(in.build(ConstAct(dense.data(), 50, 8), kBackground));
  const MatrixXf sparse = sparse_matrix(50, 8, 0.2, rng);
  CHECK(in.build(ConstAct(sparse.data(), 50, 8), kBackground));
}

TEST_CASE("the sparse products equal the dense ones up to rounding") {
  RandomStream rng(3, "test", 0);
  // One chunk, masked; two vectors of the group forward's 4; 250 (MNIST's); two sparse chunks.
  for (const Index out : {Index{5}, Index{20}, Index{250}, Index{300}}) {
    CAPTURE(out);
    const Index in = 70, n = 21;
    const MatrixXf x = sparse_matrix(in, n, 0.2, rng);
    const MatrixXf w = random_matrix(out, in, rng);
    const VectorXf b = random_matrix(out, 1, rng);
    const MatrixXf dy = random_matrix(out, n, rng);
    const SparseInput sparse = sparse_input(x);
    VectorXf base;
    const MatrixXf y = forward(w, b, sparse, base);
    const MatrixXf y_dense = (w * x).colwise() + b;
    CHECK(relative_gap(y, y_dense) < 1e-5);

    const VectorXf dy_sum = dy.rowwise().sum();
    MatrixXf g = MatrixXf::Constant(out, in, 7.0f);  // overwritten
    sparse_weight_gradient(dy.data(), dy_sum.data(), out, sparse, 0.5f, Accumulate::kNo,
                           base.data(), g.data());
    const MatrixXf g_dense = 0.5f * dy * x.transpose();
    CHECK(relative_gap(g, g_dense) < 1e-5);
    MatrixXf acc = w;  // added to, as a fused SGD step does
    sparse_weight_gradient(dy.data(), dy_sum.data(), out, sparse, -0.1f, Accumulate::kYes,
                           base.data(), acc.data());
    CHECK(relative_gap(acc, w - 0.1f * dy * x.transpose()) < 1e-5);
  }
}

TEST_CASE("each sample's sparse forward sum is the one over its own features alone, bit for bit") {
  // The forward reads W once per group of samples: a sample absent from a group's column adds
  // W * 0, which must leave its sum exactly as a per-sample loop over its own features leaves it
  // (the reference fuses its multiply-adds when the kernels' vector unit does).
  auto madd = [](float a, float b, float c) {
    if constexpr (simd::kFused) return std::fma(a, b, c);
    const volatile float product = a * b;  // rounded on its own, as the kernels do
    return product + c;
  };
  RandomStream rng(5, "test", 0);
  for (const Index out : {Index{5}, Index{20}, Index{250}}) {
    CAPTURE(out);
    const Index in = 70, n = 23;  // groups of 4, the last of 3
    const MatrixXf x = sparse_matrix(in, n, 0.2, rng);
    const MatrixXf w = random_matrix(out, in, rng);
    const VectorXf b = random_matrix(out, 1, rng);
    VectorXf base;
    const MatrixXf y = forward(w, b, sparse_input(x), base);
    Index differ = 0;
    for (Index r = 0; r < out; ++r) {
      float row_sum = 0.0f;
      for (Index j = 0; j < in; ++j) row_sum += w(r, j);
      const float start = madd(row_sum, kBackground, b[r]);
      for (Index s = 0; s < n; ++s) {
        float sum = start;
        for (Index j = 0; j < in; ++j)
          if (x(j, s) != kBackground) sum = madd(w(r, j), x(j, s) - kBackground, sum);
        differ += sum == y(r, s) ? 0 : 1;
      }
    }
    CHECK(differ == 0);
  }
}

TEST_CASE("a dense input layer runs sparse on sparse batches only and agrees with the dense path") {
  RandomStream rng(4, "test", 0);
  const Index in = 64, out = 40;
  Dense sparse_layer(Shape{in, 1, 1}, out), dense_layer(Shape{in, 1, 1}, out);
  sparse_layer.reserve(200, Use::kTraining);
  dense_layer.reserve(200, Use::kTraining);
  sparse_layer.set_input_background(kBackground);
  const VectorXf p = random_matrix(sparse_layer.parameter_count(), 1, rng);
  auto forward = [&](Dense& layer, const MatrixXf& x) {
    MatrixXf y(out, x.cols());
    layer.forward(p.data(), ConstAct(x.data(), in, x.cols()), Act(y.data(), out, x.cols()),
                  models::Phase::kTrain, nullptr);
    return y;
  };
  auto weight_gradient = [&](Dense& layer, const MatrixXf& x, const MatrixXf& y,
                             const MatrixXf& dy) {
    VectorXf g(layer.parameter_count());
    layer.backward(p.data(), ConstAct(x.data(), in, x.cols()), ConstAct(y.data(), out, x.cols()),
                   ConstAct(dy.data(), out, x.cols()), nullptr, {g.data(), 1.0f, Accumulate::kNo});
    return g;
  };
  const MatrixXf x = sparse_matrix(in, 32, 0.2, rng);
  const MatrixXf dy = random_matrix(out, 32, rng);
  const MatrixXf y = forward(sparse_layer, x);
  CHECK(sparse_layer.last_forward_sparse());
  const MatrixXf y_dense = forward(dense_layer, x);
  CHECK_FALSE(dense_layer.last_forward_sparse());
  CHECK(relative_gap(y, y_dense) < 1e-5);
  CHECK(relative_gap(weight_gradient(sparse_layer, x, y, dy),
                     weight_gradient(dense_layer, x, y_dense, dy)) < 1e-5);

  forward(sparse_layer, sparse_matrix(in, 32, 0.6, rng));  // too dense
  CHECK_FALSE(sparse_layer.last_forward_sparse());
  forward(sparse_layer, sparse_matrix(in, 200, 0.2, rng));  // an evaluation-sized batch
  CHECK_FALSE(sparse_layer.last_forward_sparse());
  sparse_layer.set_input_background(std::nullopt);  // not the network's input
  forward(sparse_layer, x);
  CHECK_FALSE(sparse_layer.last_forward_sparse());
}

TEST_CASE("a model hands its dataset's background to its input layer") {
  // The same batch with the real background, and with one that no pixel takes (dense products):
  // gradients agree up to rounding, and differ in their bits, so the sparse path did run.
  RandomStream data_rng(5, "data", 0);
  models::Dataset data = models::testing::sparse_images(4, 64, 32, 0.2, data_rng);
  models::Dataset dense_data = data;
  dense_data.background = std::nullopt;
  RandomStream rng(6, "model", 0);
  const models::ModelSpec spec{models::MlpSpec{{24}, models::Activation::kRelu, {}}};
  models::Model model = models::Model::build(spec, models::InputShape{1, 1, 64, 4}, rng);
  VectorXf p(model.parameter_count());
  model.initialize(p, rng);
  std::vector<uint32_t> idx(32);
  std::iota(idx.begin(), idx.end(), 0u);
  auto gradient = [&](const models::Dataset& d) {
    models::Batch batch;
    batch.gather(d, idx);
    VectorXf g(model.parameter_count());
    RandomStream step_rng(7, "step", 0);
    model.compute_gradient(p, g, batch, step_rng);
    return g;
  };
  const VectorXf sparse = gradient(data), dense = gradient(dense_data);
  CHECK(relative_gap(sparse, dense) < 1e-5);
  CHECK(sparse != dense);
}
