#include <doctest/doctest.h>

#include <Eigen/Core>
#include <cmath>
#include <memory>
#include <vector>

#include "models/model.hpp"

using namespace dlsim;
using namespace dlsim::models;

namespace {

Model quadratic(uint32_t dim, double sigma, uint64_t agent) {
  RandomStream rng(9, "target", agent);
  return Model::build(ModelSpec{QuadraticSpec{dim, sigma}}, InputShape{}, rng);
}

}  // namespace

TEST_CASE("quadratic target is N(0, 1) per coordinate from the stream given at build") {
  const Model m = quadratic(4, 0.0, 2);
  RandomStream same(9, "target", 2);
  for (Eigen::Index i = 0; i < 4; ++i)
    CHECK(m.quadratic_target()[i] == static_cast<float>(same.normal()));
  CHECK(m.parameter_count() == 4);
}

TEST_CASE("noiseless quadratic gradient is x - c and the loss 0.5 ||x - c||^2") {
  Model m = quadratic(3, 0.0, 0);
  const Eigen::VectorXf c = m.quadratic_target();
  Eigen::VectorXf x = c, g(3);
  x[0] += 1.0f;
  x[2] -= 2.0f;
  RandomStream rng(1);
  const float loss = m.compute_gradient(x, g, Batch{}, rng);
  CHECK(loss == doctest::Approx(2.5));
  CHECK(g[0] == doctest::Approx(1.0));
  CHECK(g[1] == doctest::Approx(0.0).epsilon(1e-6));
  CHECK(g[2] == doctest::Approx(-2.0));
}

TEST_CASE("quadratic gradient noise is sigma times normals from the agent's stream") {
  Model m = quadratic(5, 0.5, 0);
  const Eigen::VectorXf x = Eigen::VectorXf::Zero(5);
  Eigen::VectorXf g(5);
  RandomStream rng(4, "train", 0);
  m.compute_gradient(x, g, Batch{}, rng);
  RandomStream same(4, "train", 0);
  for (Eigen::Index i = 0; i < 5; ++i) {
    const float expected = -m.quadratic_target()[i] + 0.5f * static_cast<float>(same.normal());
    CHECK(g[i] == doctest::Approx(expected));
  }
}

TEST_CASE("the mean of the targets zeroes the summed gradient, and evaluate reports the distance") {
  std::vector<Model> models;
  for (uint64_t i = 0; i < 3; ++i) models.push_back(quadratic(4, 0.0, i));
  const auto optimum = std::make_shared<const Eigen::VectorXf>(
      quadratic_optimum({&models[0], &models[1], &models[2]}));
  Eigen::VectorXf sum = Eigen::VectorXf::Zero(4), g(4);
  RandomStream rng(1);
  for (Model& m : models) {
    m.compute_gradient(*optimum, g, Batch{}, rng);
    sum += g;
  }
  CHECK(sum.norm() < 1e-5);
  models[1].set_optimum(optimum);
  Eigen::VectorXf x = *optimum;
  x[0] += 3.0f;
  x[3] += 4.0f;
  const EvalResult r = models[1].evaluate(x, Dataset{}, 0, 1);
  CHECK(r.optimum_distance == doctest::Approx(5.0));
  CHECK(std::isnan(r.accuracy));
  CHECK(r.loss == doctest::Approx(0.5 * (x - models[1].quadratic_target()).squaredNorm()));
}

TEST_CASE("a quadratic sgd_step is x - step * g with the same noise draws as compute_gradient") {
  Model m = quadratic(6, 0.5, 1);
  Eigen::VectorXf x = Eigen::VectorXf::LinSpaced(6, -1.0f, 2.0f), g(6);
  RandomStream a(5, "train", 1), b(5, "train", 1);
  const float loss = m.compute_gradient(x, g, Batch{}, a);
  const Eigen::VectorXf expected = x - 0.2f * g;
  CHECK(m.sgd_step(x, 0.2f, Batch{}, b) == loss);
  for (Eigen::Index i = 0; i < 6; ++i) CHECK(x[i] == doctest::Approx(expected[i]));
}
