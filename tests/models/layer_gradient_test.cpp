#include <doctest/doctest.h>

#include "gradient_check.hpp"
#include "models/layers/conv2d.hpp"
#include "models/layers/dense.hpp"
#include "models/layers/dropout.hpp"
#include "models/layers/flatten.hpp"
#include "models/layers/max_pool2d.hpp"
#include "models/layers/relu.hpp"
#include "models/layers/tanh.hpp"

using namespace dlsim;
using namespace dlsim::models::layers;
using dlsim::models::Phase;
using dlsim::models::testing::check_layer;
using dlsim::models::testing::spread_matrix;
using dlsim::models::testing::uniform_matrix;

// Relative tolerance of the float central differences (h = 1e-2): rounding in y is about 1e-7
// relative, over 2h that is ~1e-4 on gradients of order 1; a wrong backward is off by O(1).
constexpr double kTolerance = 2e-3;

TEST_CASE("dense backward matches finite differences") {
  RandomStream rng(1, "test", 0);
  Dense layer(Shape{7, 1, 1}, 5);
  const auto e = check_layer(layer, uniform_matrix(7, 3, rng, -1, 1), rng);
  CHECK(e.params < kTolerance);
  CHECK(e.inputs < kTolerance);
}

TEST_CASE("the gradient check fails on a parameter gradient that is 2 percent off") {
  RandomStream rng(1, "test", 0);
  Dense layer(Shape{7, 1, 1}, 5);
  const auto e = check_layer(layer, uniform_matrix(7, 3, rng, -1, 1), rng, 1e-2f,
                             [](Eigen::VectorXf& dp) { dp[4] *= 1.02f; });
  CHECK(e.params > kTolerance);
}

TEST_CASE("conv2d backward matches finite differences with stride 1 and padding 1") {
  RandomStream rng(2, "test", 0);
  Conv2D layer(Shape{2, 5, 4}, 3, 3, 1, 1);
  CHECK(layer.output_shape().height == 5);
  const auto e = check_layer(layer, uniform_matrix(40, 2, rng, -1, 1), rng);
  CHECK(e.params < kTolerance);
  CHECK(e.inputs < kTolerance);
}

TEST_CASE("conv2d backward matches finite differences with stride 2 and padding 2") {
  RandomStream rng(3, "test", 0);
  Conv2D layer(Shape{2, 6, 5}, 2, 3, 2, 2);  // output 2 x 4 x 4
  CHECK(layer.output_shape().size() == 2 * 4 * 4);
  const auto e = check_layer(layer, uniform_matrix(60, 2, rng, -1, 1), rng);
  CHECK(e.params < kTolerance);
  CHECK(e.inputs < kTolerance);
}

// Padding as wide as the kernel leaves stride 1 without its in-place path (the full convolution
// of dz): the input gradient is folded back from the column buffer, a row of lanes at a time.
TEST_CASE("conv2d backward matches finite differences with stride 1 and padding 2, kernel 2") {
  RandomStream rng(11, "test", 0);
  Conv2D layer(Shape{2, 4, 5}, 2, 2, 1, 2);  // output 2 x 7 x 8
  CHECK(layer.output_shape().size() == 2 * 7 * 8);
  const auto e = check_layer(layer, uniform_matrix(40, 2, rng, -1, 1), rng);
  CHECK(e.params < kTolerance);
  CHECK(e.inputs < kTolerance);
}

TEST_CASE("max_pool2d backward matches finite differences, overlapping windows included") {
  RandomStream rng(4, "test", 0);
  MaxPool2D pool(Shape{2, 5, 5}, 2, 2);  // odd sides: the last row and column get no gradient
  CHECK(check_layer(pool, spread_matrix(50, 3, rng, 0.05f), rng).inputs < kTolerance);
  MaxPool2D overlapping(Shape{1, 4, 4}, 3, 1);
  CHECK(check_layer(overlapping, spread_matrix(16, 2, rng, 0.05f), rng).inputs < kTolerance);
}

TEST_CASE("relu backward matches finite differences") {
  RandomStream rng(5, "test", 0);
  Relu layer(Shape{12, 1, 1});
  CHECK(check_layer(layer, spread_matrix(12, 3, rng, 0.05f), rng).inputs < kTolerance);
}

TEST_CASE("tanh backward matches finite differences") {
  RandomStream rng(6, "test", 0);
  Tanh layer(Shape{9, 1, 1});
  CHECK(check_layer(layer, uniform_matrix(9, 3, rng, -2, 2), rng).inputs < kTolerance);
}

TEST_CASE("dropout backward matches finite differences for a fixed mask") {
  RandomStream rng(7, "test", 0);
  Dropout layer(Shape{20, 1, 1}, 0.4);
  CHECK(check_layer(layer, uniform_matrix(20, 3, rng, -1, 1), rng).inputs < kTolerance);
}

TEST_CASE("flatten passes values and gradients through") {
  RandomStream rng(8, "test", 0);
  Flatten layer(Shape{2, 3, 2});
  CHECK(layer.output_shape().size() == 12);
  CHECK(layer.output_shape().height == 1);
  CHECK(check_layer(layer, uniform_matrix(12, 2, rng, -1, 1), rng).inputs < kTolerance);
}

TEST_CASE("conv2d with fused relu and 2x2 max-pool matches finite differences") {
  RandomStream rng(9, "test", 0);
  Conv2D layer(Shape{2, 5, 6}, 3, 3, 1, 1, FusedRelu::kYes, FusedPool::kMax2x2);
  CHECK(layer.output_shape().size() == 3 * 2 * 3);
  const auto e = check_layer(layer, uniform_matrix(60, 2, rng, -1, 1), rng, 1e-3f);
  CHECK(e.params < 5e-3);
  CHECK(e.inputs < 5e-3);
}

TEST_CASE("fused conv, relu and max-pool give the separate layers' numbers bit for bit") {
  RandomStream rng(10, "test", 0);
  const Shape in{2, 7, 6};
  const Index n = 3;
  Conv2D fused(in, 4, 3, 1, 1, FusedRelu::kYes, FusedPool::kMax2x2);
  Conv2D conv(in, 4, 3, 1, 1);
  Relu relu(conv.output_shape());
  MaxPool2D pool(conv.output_shape(), 2, 2);
  for (Layer* l : {static_cast<Layer*>(&fused), static_cast<Layer*>(&conv),
                   static_cast<Layer*>(&relu), static_cast<Layer*>(&pool)})
    l->reserve(n, Use::kTrainingWithInputGradient);
  const Eigen::VectorXf p = uniform_matrix(conv.parameter_count(), 1, rng, -1, 1);
  const Eigen::MatrixXf x = uniform_matrix(in.size(), n, rng, -1, 1);
  const Index mid = conv.output_shape().size(), out = pool.output_shape().size();
  Eigen::MatrixXf z(mid, n), r(mid, n), y(out, n), yf(out, n);
  auto act = [](Eigen::MatrixXf& m) { return Act(m.data(), m.rows(), m.cols()); };
  auto cact = [](const Eigen::MatrixXf& m) { return ConstAct(m.data(), m.rows(), m.cols()); };
  conv.forward(p.data(), cact(x), act(z), Phase::kTrain, nullptr);
  relu.forward(nullptr, cact(z), act(r), Phase::kTrain, nullptr);
  pool.forward(nullptr, cact(r), act(y), Phase::kTrain, nullptr);
  fused.forward(p.data(), cact(x), act(yf), Phase::kTrain, nullptr);
  CHECK(y == yf);
  const Eigen::MatrixXf dy = uniform_matrix(out, n, rng, -1, 1);
  Eigen::MatrixXf dr(mid, n), dz(mid, n), dx(in.size(), n), dxf(in.size(), n);
  Eigen::VectorXf g(p.size()), gf(p.size());
  Act dr_map = act(dr), dz_map = act(dz), dx_map = act(dx), dxf_map = act(dxf);
  pool.backward(nullptr, cact(r), cact(y), cact(dy), &dr_map, {});
  relu.backward(nullptr, cact(z), cact(r), cact(dr), &dz_map, {});
  conv.backward(p.data(), cact(x), cact(z), cact(dz), &dx_map, {g.data()});
  fused.backward(p.data(), cact(x), cact(yf), cact(dy), &dxf_map, {gf.data()});
  CHECK(dx == dxf);
  CHECK(g == gf);
}
