#include "models/loss.hpp"

#include <doctest/doctest.h>

#include <Eigen/Core>
#include <cmath>
#include <vector>

using namespace dlsim::models;
using Map = Eigen::Map<const Eigen::MatrixXf>;

TEST_CASE("softmax cross-entropy of equal logits is log(classes)") {
  const Eigen::MatrixXf z = Eigen::MatrixXf::Zero(4, 2);
  const std::vector<uint8_t> labels = {0, 3};
  CHECK(softmax_cross_entropy(Map(z.data(), 4, 2), labels, nullptr) ==
        doctest::Approx(2.0 * std::log(4.0)));
}

TEST_CASE("softmax cross-entropy stays finite for logits of 1000") {
  Eigen::MatrixXf z(2, 1);
  z << 1000.0f, 0.0f;
  const std::vector<uint8_t> labels = {1};
  Eigen::MatrixXf g(2, 1);
  Eigen::Map<Eigen::MatrixXf> gm(g.data(), 2, 1);
  CHECK(softmax_cross_entropy(Map(z.data(), 2, 1), labels, &gm) == doctest::Approx(1000.0));
  CHECK(g(0, 0) == doctest::Approx(1.0));  // softmax (1, 0) minus onehot (0, 1)
  CHECK(g(1, 0) == doctest::Approx(-1.0));
}

TEST_CASE("softmax cross-entropy gradient of the mean loss matches finite differences") {
  Eigen::MatrixXf z(3, 2);
  z << 0.5f, -1.0f, 2.0f, 0.1f, -0.3f, 1.5f;
  const std::vector<uint8_t> labels = {2, 0};
  Eigen::MatrixXf g(3, 2);
  Eigen::Map<Eigen::MatrixXf> gm(g.data(), 3, 2);
  softmax_cross_entropy(Map(z.data(), 3, 2), labels, &gm);
  const float h = 1e-2f;
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    Eigen::MatrixXf up = z, down = z;
    up.data()[i] += h;
    down.data()[i] -= h;
    const double numeric = (softmax_cross_entropy(Map(up.data(), 3, 2), labels, nullptr) -
                            softmax_cross_entropy(Map(down.data(), 3, 2), labels, nullptr)) /
                           (2.0 * h) / 2.0;  // mean over the 2 samples
    CHECK(g.data()[i] == doctest::Approx(numeric).epsilon(1e-3));
  }
}
