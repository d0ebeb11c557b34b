#include <doctest/doctest.h>

#include <Eigen/Core>

#include "models/layers/conv2d.hpp"
#include "models/layers/dropout.hpp"
#include "models/layers/max_pool2d.hpp"

using namespace dlsim;
using namespace dlsim::models;
using namespace dlsim::models::layers;

namespace {

// x = [[1 2 3] [4 5 6] [7 8 9]] as one (9, 1) column, CHW order.
Eigen::MatrixXf digits3x3() {
  Eigen::MatrixXf x(9, 1);
  for (int i = 0; i < 9; ++i) x(i, 0) = static_cast<float>(i + 1);
  return x;
}

Eigen::MatrixXf run_forward(Layer& layer, const Eigen::MatrixXf& x, const float* p) {
  layer.reserve(x.cols(), Use::kTrainingWithInputGradient);
  Eigen::MatrixXf y(layer.output_shape().size(), x.cols());
  layer.forward(p, ConstAct(x.data(), x.rows(), x.cols()), Act(y.data(), y.rows(), y.cols()),
                Phase::kEval, nullptr);
  return y;
}

}  // namespace

TEST_CASE("conv2d 2x2 kernel on a 3x3 image, stride 1, no padding") {
  Conv2D conv(Shape{1, 3, 3}, 1, 2, 1, 0);
  const float p[5] = {1, 2, 3, 4, 0.5f};  // w = [[1 2] [3 4]], bias 0.5
  const Eigen::MatrixXf y = run_forward(conv, digits3x3(), p);
  // (0,0): 1*1 + 2*2 + 4*3 + 5*4 = 37, (0,1): 47, (1,0): 67, (1,1): 77; plus the bias.
  CHECK(y(0, 0) == 37.5f);
  CHECK(y(1, 0) == 47.5f);
  CHECK(y(2, 0) == 67.5f);
  CHECK(y(3, 0) == 77.5f);
}

TEST_CASE("conv2d with padding 1 and stride 2 reads zeros outside the image") {
  Conv2D conv(Shape{1, 3, 3}, 1, 2, 2, 1);
  CHECK(conv.output_shape().height == 2);
  const float p[5] = {1, 2, 3, 4, 0.5f};
  const Eigen::MatrixXf y = run_forward(conv, digits3x3(), p);
  // (0,0) sees only x(0,0) under w(1,1): 1*4; (0,1): x(0,1)*3 + x(0,2)*4 = 18;
  // (1,0): x(1,0)*2 + x(2,0)*4 = 36; (1,1): 5*1 + 6*2 + 8*3 + 9*4 = 77.
  CHECK(y(0, 0) == 4.5f);
  CHECK(y(1, 0) == 18.5f);
  CHECK(y(2, 0) == 36.5f);
  CHECK(y(3, 0) == 77.5f);
}

TEST_CASE("conv2d parameter layout: two channels, two filters") {
  Conv2D conv(Shape{2, 3, 3}, 2, 2, 1, 0);
  Eigen::MatrixXf x(18, 1);
  x.topRows(9) = digits3x3();
  x.bottomRows(9).setOnes();
  // Weight of filter f, channel c, offset (ki, kj) at p[f + 2*(c*4 + ki*2 + kj)].
  float p[18] = {};
  const float w0[4] = {1, 2, 3, 4};
  for (int q = 0; q < 4; ++q) {
    p[0 + 2 * q] = w0[q];       // filter 0, channel 0
    p[0 + 2 * (4 + q)] = 1.0f;  // filter 0, channel 1: all ones
  }
  p[1 + 2 * (4 + 3)] = -1.0f;  // filter 1, channel 1, offset (1, 1)
  p[16] = 0.5f;                // bias of filter 0
  p[17] = -1.0f;               // bias of filter 1
  const Eigen::MatrixXf y = run_forward(conv, x, p);
  // Filter 0: 37, 47, 67, 77 from channel 0, plus 4 from the ones, plus 0.5. Filter 1: -1 - 1.
  const float expected[8] = {41.5f, 51.5f, 71.5f, 81.5f, -2, -2, -2, -2};
  for (int i = 0; i < 8; ++i) CHECK(y(i, 0) == expected[i]);
}

TEST_CASE("max_pool2d 2x2 stride 2 picks each window's maximum and routes the gradient there") {
  MaxPool2D pool(Shape{1, 4, 4}, 2, 2);
  Eigen::MatrixXf x(16, 1);
  x << 1, 5, 2, 0,  //
      3, 4, 8, 1,   //
      0, 0, 6, 7,   //
      9, 2, 3, 1;
  const Eigen::MatrixXf y = run_forward(pool, x, nullptr);
  CHECK(y(0, 0) == 5.0f);
  CHECK(y(1, 0) == 8.0f);
  CHECK(y(2, 0) == 9.0f);
  CHECK(y(3, 0) == 7.0f);
  Eigen::MatrixXf dy(4, 1);
  dy << 10, 20, 30, 40;
  Eigen::MatrixXf dx(16, 1);
  Act dx_map(dx.data(), 16, 1);
  pool.backward(nullptr, ConstAct(x.data(), 16, 1), ConstAct(y.data(), 4, 1),
                ConstAct(dy.data(), 4, 1), &dx_map, {});
  CHECK(dx(1, 0) == 10.0f);   // the 5 at (0, 1)
  CHECK(dx(6, 0) == 20.0f);   // the 8 at (1, 2)
  CHECK(dx(12, 0) == 30.0f);  // the 9 at (3, 0)
  CHECK(dx(11, 0) == 40.0f);  // the 7 at (2, 3)
  CHECK(dx.sum() == 100.0f);
}

TEST_CASE("max_pool2d with overlapping windows adds the gradients of a shared maximum") {
  MaxPool2D pool(Shape{1, 3, 3}, 2, 1);
  Eigen::MatrixXf x(9, 1);
  x << 1, 2, 3, 4, 9, 6, 7, 8, 5;
  const Eigen::MatrixXf y = run_forward(pool, x, nullptr);
  CHECK(y.minCoeff() == 9.0f);
  Eigen::MatrixXf dy(4, 1);
  dy << 1, 2, 3, 4;
  Eigen::MatrixXf dx(9, 1);
  Act dx_map(dx.data(), 9, 1);
  pool.backward(nullptr, ConstAct(x.data(), 9, 1), ConstAct(y.data(), 4, 1),
                ConstAct(dy.data(), 4, 1), &dx_map, {});
  CHECK(dx(4, 0) == 10.0f);
  CHECK(dx.sum() == 10.0f);
}

TEST_CASE("dropout keeps about 1 - rate of the features, scaled by 1 / (1 - rate)") {
  Dropout drop(Shape{10000, 1, 1}, 0.25);
  drop.reserve(1, Use::kTrainingWithInputGradient);
  const Eigen::MatrixXf x = Eigen::MatrixXf::Ones(10000, 1);
  Eigen::MatrixXf y(10000, 1);
  RandomStream rng(3, "dropout", 0);
  drop.forward(nullptr, ConstAct(x.data(), 10000, 1), Act(y.data(), 10000, 1), Phase::kTrain, &rng);
  const auto kept = (y.array() > 0.0f).count();
  // Binomial(10000, 0.75): standard deviation 43; 4 sigma either side.
  CHECK(kept > 7500 - 175);
  CHECK(kept < 7500 + 175);
  CHECK(y.maxCoeff() == doctest::Approx(4.0 / 3.0));
  CHECK(drop.is_identity(Phase::kEval));
}
