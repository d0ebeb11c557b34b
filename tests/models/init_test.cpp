// model.init: the moments of each scheme's draws, layer by layer, for dense and conv shapes
// (models/model_spec.hpp, InitScheme). Tolerances are several standard errors of the estimates
// for the sample sizes drawn, so a wrong variance (2/fan_in against 2/(fan_in+fan_out), a missed
// bias) fails while sampling noise does not.
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <cmath>

#include "models/model.hpp"

using namespace dlsim;
using namespace dlsim::models;

namespace {

struct Moments {
  double mean = 0, variance = 0, min = 0, max = 0;
};

Moments moments(const Eigen::VectorXf& p, Eigen::Index offset, Eigen::Index count) {
  const Eigen::ArrayXd v = p.segment(offset, count).cast<double>().array();
  Moments m;
  m.mean = v.mean();
  m.variance = (v - m.mean).square().mean();
  m.min = v.minCoeff();
  m.max = v.maxCoeff();
  return m;
}

Eigen::VectorXf initial(const ModelSpec& spec, const InputShape& in) {
  RandomStream build_rng(1, "model", 0);
  const Model m = Model::build(spec, in, build_rng);
  Eigen::VectorXf p(m.parameter_count());
  RandomStream rng(1, "init", 0);
  m.initialize(p, rng);
  return p;
}

// Weights of a layer with `count` draws of variance `variance` (mean 0).
void check_normal(const Moments& m, double variance, double count) {
  const double se_var = variance * std::sqrt(2.0 / count);  // std error of a normal's variance
  CHECK(std::abs(m.mean) < 5.0 * std::sqrt(variance / count));
  CHECK(std::abs(m.variance - variance) < 5.0 * se_var);
}

// Draws uniform in [-b, b]: variance b^2/3, every value within the bounds, and the bounds reached
// (the extremes of n draws lie within about 2b/n of them).
void check_uniform(const Moments& m, double b, double count) {
  const double variance = b * b / 3.0;
  const double se_var = variance * std::sqrt(0.8 / count);  // uniform: kurtosis 9/5
  CHECK(std::abs(m.mean) < 5.0 * std::sqrt(variance / count));
  CHECK(std::abs(m.variance - variance) < 5.0 * se_var);
  CHECK(m.min >= -b);
  CHECK(m.max <= b);
  CHECK(m.min < -b * (1.0 - 20.0 / count));
  CHECK(m.max > b * (1.0 - 20.0 / count));
}

const InputShape kMnist{1, 28, 28, 10};
const InputShape kRgb{3, 16, 16, 10};

ModelSpec mlp(InitScheme init) {
  ModelSpec s{MlpSpec{{512}, Activation::kRelu, {}}};  // dense 784->512, relu, dense 512->10
  s.init = init;
  return s;
}

// conv 3->64 5x5 (fan_in 75, fan_out 1600), relu, flatten, dense 64*12*12->10.
ModelSpec cnn(InitScheme init) {
  ModelSpec s{CnnSpec{{LayerSpec::conv(64, 5), LayerSpec::relu(), LayerSpec::flatten(),
                       LayerSpec::dense(10)}}};
  s.init = init;
  return s;
}

}  // namespace

TEST_CASE("model.init he_normal: He before a ReLU, Glorot for the output layer, biases 0") {
  const Eigen::VectorXf p = initial(mlp(InitScheme::kHeNormal), kMnist);
  const Eigen::Index w1 = 512 * 784, w2 = 10 * 512;
  check_normal(moments(p, 0, w1), 2.0 / 784, w1);
  CHECK(p.segment(w1, 512).isZero(0.0f));
  check_normal(moments(p, w1 + 512, w2), 2.0 / (512 + 10), w2);
  CHECK(p.segment(w1 + 512 + w2, 10).isZero(0.0f));

  const Eigen::VectorXf c = initial(cnn(InitScheme::kHeNormal), kRgb);
  check_normal(moments(c, 0, 64 * 75), 2.0 / 75, 64 * 75);
  CHECK(c.segment(64 * 75, 64).isZero(0.0f));
}

TEST_CASE("model.init he_normal is the rule of a model spec that does not name one") {
  ModelSpec named{MlpSpec{{64}, Activation::kRelu, {}}};
  named.init = InitScheme::kHeNormal;
  CHECK(initial(ModelSpec{MlpSpec{{64}, Activation::kRelu, {}}}, kMnist) == initial(named, kMnist));
  named.init = InitScheme::kGlorotNormal;  // and the schemes do differ
  CHECK(initial(ModelSpec{MlpSpec{{64}, Activation::kRelu, {}}}, kMnist) != initial(named, kMnist));
}

TEST_CASE("model.init glorot_normal: 2/(fan_in + fan_out) for every weight layer, biases 0") {
  const Eigen::VectorXf p = initial(mlp(InitScheme::kGlorotNormal), kMnist);
  const Eigen::Index w1 = 512 * 784, w2 = 10 * 512;
  check_normal(moments(p, 0, w1), 2.0 / (784 + 512), w1);
  CHECK(p.segment(w1, 512).isZero(0.0f));
  check_normal(moments(p, w1 + 512, w2), 2.0 / (512 + 10), w2);

  // Conv: fan_in = in_channels * k * k = 75, fan_out = filters * k * k = 1600.
  const Eigen::VectorXf c = initial(cnn(InitScheme::kGlorotNormal), kRgb);
  check_normal(moments(c, 0, 64 * 75), 2.0 / (75 + 1600), 64 * 75);
  CHECK(c.segment(64 * 75, 64).isZero(0.0f));
}

TEST_CASE("model.init pytorch: weights and biases uniform in +-1/sqrt(fan_in)") {
  const Eigen::VectorXf p = initial(mlp(InitScheme::kPytorch), kMnist);
  const Eigen::Index w1 = 512 * 784, w2 = 10 * 512;
  check_uniform(moments(p, 0, w1), 1.0 / std::sqrt(784.0), w1);
  check_uniform(moments(p, w1, 512), 1.0 / std::sqrt(784.0), 512);  // biases: fan_in of W
  check_uniform(moments(p, w1 + 512, w2), 1.0 / std::sqrt(512.0), w2);
  const Moments b2 = moments(p, w1 + 512 + w2, 10);  // 10 draws: bounds only
  CHECK(b2.min >= -1.0 / std::sqrt(512.0));
  CHECK(b2.max <= 1.0 / std::sqrt(512.0));
  CHECK(b2.variance > 0.0);

  // Conv2d: fan_in = in_channels * kh * kw = 3 * 5 * 5.
  const Eigen::VectorXf c = initial(cnn(InitScheme::kPytorch), kRgb);
  const double b = 1.0 / std::sqrt(75.0);
  check_uniform(moments(c, 0, 64 * 75), b, 64 * 75);
  const Moments cb = moments(c, 64 * 75, 64);
  CHECK(cb.min >= -b);
  CHECK(cb.max <= b);
  CHECK(std::abs(cb.variance - b * b / 3.0) < 0.5 * b * b / 3.0);
  // The dense layer after the conv: fan_in = 64 * 12 * 12.
  const Eigen::Index d = 64 * 75 + 64;
  check_uniform(moments(c, d, 10 * 64 * 144), 1.0 / std::sqrt(64.0 * 144.0), 10 * 64 * 144);
}
